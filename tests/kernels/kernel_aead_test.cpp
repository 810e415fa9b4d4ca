// The one pass (Impl::aead_text), short path and whole-record open
// (Impl::aead_open_record) of every kernel set against the portable ones:
// every length 0..1600 and both sides of each batch and bulk edge, seal and
// open, in place and out of place, both MAC grids, AAD 0..64 and longer,
// random update splits down to one byte, counters just below 2^32 and
// across 2^31, accept and refuse.
#include <cstring>

#include "kernel_suite.hpp"
#include "kernels/aead.hpp"
#include "kernels/openssh.hpp"

namespace stitch::test {
namespace {

using kern::AeadState;
using kern::Direction;
using kern::Grid;

struct Message {
    Grid grid = Grid::rfc8439;
    Bytes key;
    Bytes nonce;             // rfc8439
    uint32_t first_counter = 0;
    uint64_t seqnr = 0;      // openssh
    Bytes aad;
};

Message random_message(Rng& rng, Grid grid, size_t aad_len) {
    Message m;
    m.grid = grid;
    m.key = rng.bytes(32);
    m.nonce = rng.bytes(12);
    m.seqnr = rng.next();
    m.aad = rng.bytes(aad_len);
    return m;
}

void start(AeadState& st, const kern::Impl& impl, const Message& m) {
    kern::aead_init(st, impl, m.grid);
    kern::aead_set_key(st, m.key.data());
    if (m.grid == Grid::rfc8439)
        kern::aead_set_nonce(st, m.nonce.data(), m.first_counter);
    else
        kern::aead_set_seqnr(st, m.seqnr);
    ASSERT_TRUE(kern::aead_aad(st, m.aad.data(), m.aad.size()));
}

// What a message leaves behind: the output, the state after the last text
// call (the part that must match across kernel sets), and the tag.
struct Outcome {
    bool accepted = true;
    Bytes out;
    uint32_t ctr[4] = {};
    uint64_t h[3] = {};
    Bytes mac_buf;
    Bytes ks_left;
    Bytes tag;
};

// The accumulator is compared mod p: a set may leave another representative
// of the same value (kernel_suite.hpp).
void expect_same(const Outcome& want, const Outcome& got) {
    EXPECT_EQ(want.accepted, got.accepted);
    if (want.out != got.out) {  // hex only to show a difference
        EXPECT_EQ(to_hex(want.out), to_hex(got.out));
    }
    EXPECT_EQ(0, std::memcmp(want.ctr, got.ctr, sizeof(want.ctr))) << "ChaCha20 counter";
    EXPECT_EQ(reduce_mod_p(want.h), reduce_mod_p(got.h))
        << "Poly1305 accumulator: " << describe_h(want.h) << " against " << describe_h(got.h);
    EXPECT_EQ(to_hex(want.mac_buf), to_hex(got.mac_buf)) << "Poly1305 buffered bytes";
    EXPECT_EQ(to_hex(want.ks_left), to_hex(got.ks_left)) << "keystream kept for the next call";
    EXPECT_EQ(to_hex(want.tag), to_hex(got.tag));
}

// Runs the text through aead_text in the given pieces. The output of each
// call lands in a scratch buffer that is scribbled over once copied out: a
// kernel that reads its earlier output back gets a wrong tag.
Outcome run(const kern::Impl& impl, const Message& m, Direction dir, const Bytes& text,
            const std::vector<size_t>& pieces, bool in_place) {
    AeadState st;
    start(st, impl, m);
    Outcome o;
    o.out.resize(text.size());
    Bytes scratch;
    size_t off = 0;
    for (size_t n : pieces) {
        scratch.assign(text.begin() + off, text.begin() + off + n);
        if (in_place) {
            o.accepted &= kern::aead_text(st, dir, scratch.data(), scratch.data(), n);
        } else {
            Bytes out(n, 0xa5);
            o.accepted &= kern::aead_text(st, dir, text.data() + off, out.data(), n);
            scratch = out;
        }
        std::copy(scratch.begin(), scratch.end(), o.out.begin() + off);
        std::fill(scratch.begin(), scratch.end(), 0xee);
        off += n;
    }
    std::memcpy(o.ctr, st.chacha.ctr, sizeof(o.ctr));
    std::memcpy(o.h, st.mac.h, sizeof(o.h));
    o.mac_buf.assign(st.mac.buf, st.mac.buf + st.mac.buf_len);
    o.ks_left.assign(st.ks + st.ks_pos, st.ks + kern::kChaChaBlock);
    o.tag.resize(16);
    kern::aead_final(st, o.tag.data());
    kern::aead_wipe(st);
    return o;
}

std::vector<size_t> whole(size_t len) { return {len}; }

std::vector<size_t> random_pieces(Rng& rng, size_t len, size_t max_piece) {
    std::vector<size_t> v;
    for (size_t off = 0; off < len;) {
        size_t n = std::min(len - off, 1 + rng.below(max_piece));
        v.push_back(n);
        off += n;
    }
    return v;
}

// Seal and open every length, whole, both grids, in and out of place.
TEST_P(KernelSuite, AeadEveryLengthMatchesPortable) {
    Rng rng = seeded_rng(0xaead0001);
    for (Grid grid : {Grid::rfc8439, Grid::openssh}) {
        for (size_t len : sweep_lengths()) {
            const Message m = random_message(rng, grid, grid == Grid::rfc8439 ? 13 : 4);
            const Bytes pt = rng.bytes(len);
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(testing::Message() << "grid=" << int(grid) << " len=" << len << " in_place=" << in_place);
                const Outcome sealed = run(portable(), m, Direction::seal, pt, whole(len), false);
                expect_same(sealed, run(impl(), m, Direction::seal, pt, whole(len), in_place));
                const Outcome opened = run(portable(), m, Direction::open, sealed.out, whole(len), false);
                ASSERT_EQ(opened.out, pt);
                expect_same(opened, run(impl(), m, Direction::open, sealed.out, whole(len), in_place));
                if (HasFailure()) return;
            }
        }
    }
}

// Any split of the text gives the same bytes, state and tag, down to one
// byte per call; AAD of random lengths 0..64 around the held-back limit.
TEST_P(KernelSuite, AeadRandomSplitsAndAadMatchPortable) {
    Rng rng = seeded_rng(0xaead0002);
    for (Grid grid : {Grid::rfc8439, Grid::openssh}) {
        for (size_t len : edge_lengths()) {
            // On the openssh grid AAD is absorbed unpadded: every skew of the
            // text against the Poly1305 blocks (0..15) comes up.
            const size_t aad_len = rng.below(65);
            const Message m = random_message(rng, grid, aad_len);
            const Bytes pt = rng.bytes(len);
            const Outcome ref = run(portable(), m, Direction::seal, pt, whole(len), false);
            const Outcome ref_open = run(portable(), m, Direction::open, ref.out, whole(len), false);
            for (int trial = 0; trial < 3; ++trial) {
                const size_t max_piece = trial == 0 ? (len < 3000 ? 1 : 7) : trial == 1 ? 100 : 1500;
                const auto pieces = random_pieces(rng, len, max_piece);
                const bool in_place = trial == 1;
                SCOPED_TRACE(testing::Message() << "grid=" << int(grid) << " len=" << len << " aad=" << aad_len
                                                << " max_piece=" << max_piece << " in_place=" << in_place);
                expect_same(ref, run(impl(), m, Direction::seal, pt, pieces, in_place));
                expect_same(ref_open, run(impl(), m, Direction::open, ref.out, pieces, in_place));
                if (HasFailure()) return;
            }
        }
    }
}

// A first call of eight text blocks, the last partial (449-511 bytes: on
// some CPUs block 0 beside a batch whose keystream goes through a buffer),
// then more text: the partial block's keystream kept for the next call.
TEST_P(KernelSuite, AeadFirstCallOfEightBlocksThenMore) {
    Rng rng = seeded_rng(0xaead0009);
    for (Grid grid : {Grid::rfc8439, Grid::openssh}) {
        for (size_t first : {449, 450, 463, 480, 497, 511}) {
            for (size_t rest : {0, 1, 15, 16, 49, 63, 64, 65, 600}) {
                const Message m = random_message(rng, grid, grid == Grid::rfc8439 ? 5 : 4);
                const size_t len = first + rest;
                const Bytes pt = rng.bytes(len);
                std::vector<size_t> pieces{first};
                if (rest > 0) pieces.push_back(rest);
                for (bool in_place : {false, true}) {
                    SCOPED_TRACE(testing::Message() << "grid=" << int(grid) << " first=" << first << " rest=" << rest
                                                    << " in_place=" << in_place);
                    const Outcome ref = run(portable(), m, Direction::seal, pt, whole(len), false);
                    expect_same(ref, run(impl(), m, Direction::seal, pt, pieces, in_place));
                    expect_same(run(portable(), m, Direction::open, ref.out, whole(len), false),
                                run(impl(), m, Direction::open, ref.out, pieces, in_place));
                    if (HasFailure()) return;
                }
            }
        }
    }
}

// Every AAD length 0..64 (around the 32 bytes held back for the key block)
// and longer ones, with text lengths around the first call's shapes.
TEST_P(KernelSuite, AeadEveryAadLengthWithTextLengthsAroundTheFirstBatch) {
    Rng rng = seeded_rng(0xaead0003);
    std::vector<size_t> aad_lens;
    for (size_t n = 0; n <= 64; ++n) aad_lens.push_back(n);
    for (size_t n : {65, 100, 255, 1000, 4097}) aad_lens.push_back(n);
    for (size_t aad_len : aad_lens) {
        for (size_t len : {0, 1, 63, 64, 192, 193, 447, 448, 449, 511, 512, 513, 1000, 1536, 1537, 3072, 4097}) {
            const Message m = random_message(rng, Grid::rfc8439, aad_len);
            const Bytes pt = rng.bytes(len);
            SCOPED_TRACE(testing::Message() << "aad=" << aad_len << " len=" << len);
            const Outcome ref = run(portable(), m, Direction::seal, pt, whole(len), false);
            expect_same(ref, run(impl(), m, Direction::seal, pt, whole(len), false));
            expect_same(run(portable(), m, Direction::open, ref.out, whole(len), false),
                        run(impl(), m, Direction::open, ref.out, whole(len), true));
        }
    }
}

// First counter 0xffffffff - k leaves room for k text blocks: the whole room
// is usable, one more byte is refused, and no batch wraps into the nonce.
TEST_P(KernelSuite, AeadCounterJustBelowTwoToThe32) {
    Rng rng = seeded_rng(0xaead0004);
    std::vector<uint32_t> ks;
    for (uint32_t k = 0; k <= 20; ++k) ks.push_back(k);
    for (uint32_t k : {23, 24, 25, 31, 32, 33, 47, 48, 49, 63, 64, 65, 96, 128}) ks.push_back(k);
    for (uint32_t k : ks) {
        Message m = random_message(rng, Grid::rfc8439, 13);
        m.first_counter = 0xffffffffu - k;
        const size_t room = size_t(k) * 64;
        for (size_t len : {room, room - std::min<size_t>(room, 1), room - std::min<size_t>(room, 65), room + 1}) {
            SCOPED_TRACE(testing::Message() << "k=" << k << " len=" << len);
            const Bytes pt = rng.bytes(len);
            const Outcome ref = run(portable(), m, Direction::seal, pt, whole(len), false);
            expect_same(ref, run(impl(), m, Direction::seal, pt, whole(len), false));
            if (len > room) {
                EXPECT_FALSE(ref.accepted);
                EXPECT_EQ(ref.out, Bytes(len, 0xa5)) << "a refused call writes nothing";
                continue;
            }
            EXPECT_TRUE(ref.accepted);
            expect_same(run(portable(), m, Direction::open, ref.out, whole(len), false),
                        run(impl(), m, Direction::open, ref.out, whole(len), true));
            expect_same(ref, run(impl(), m, Direction::seal, pt, random_pieces(rng, len, 70), true));
        }
    }
}

// First counter 0x7fffffff - k: the lanes of every batch shape cross 2^31,
// where a counter made with a signed compare would go wrong.
TEST_P(KernelSuite, AeadCounterAcrossTwoToThe31) {
    Rng rng = seeded_rng(0xaead0008);
    for (uint32_t k = 0; k <= 70; ++k) {
        Message m = random_message(rng, rng.below(2) ? Grid::rfc8439 : Grid::openssh, 13);
        m.first_counter = 0x7fffffffu - k;
        for (size_t len : {size_t(k) * 64 + 1, size_t(k + 9) * 64 - 1, size_t(k + 70) * 64}) {
            SCOPED_TRACE(testing::Message() << "k=" << k << " len=" << len << " grid=" << int(m.grid));
            const Bytes pt = rng.bytes(len);
            const Outcome ref = run(portable(), m, Direction::seal, pt, whole(len), false);
            expect_same(ref, run(impl(), m, Direction::seal, pt, whole(len), true));
            expect_same(run(portable(), m, Direction::open, ref.out, whole(len), false),
                        run(impl(), m, Direction::open, ref.out, whole(len), false));
            if (HasFailure()) return;
        }
    }
}

// Whole-record open: an authentic record decrypts; a flipped tag or
// ciphertext bit is refused with zeros in the output, on the short path
// (<= kShortMax, or the set's own cut-off) and the long one, in place and
// out of place.
TEST_P(KernelSuite, AeadOpenRecordAcceptsAndRefuses) {
    Rng rng = seeded_rng(0xaead0005);
    std::vector<size_t> lens;
    for (size_t n = 0; n <= 260; ++n) lens.push_back(n);
    for (size_t n : {447, 448, 449, 511, 512, 513, 1000, 4096, 16385}) lens.push_back(n);
    for (size_t n : bulk_edges()) lens.push_back(n);
    for (size_t len : lens) {
        const Message m = random_message(rng, Grid::rfc8439, rng.below(40));
        const Bytes pt = rng.bytes(len);
        const Outcome sealed = run(portable(), m, Direction::seal, pt, whole(len), false);
        for (int flip = 0; flip < 3; ++flip) {  // none, tag, ciphertext
            if (flip == 2 && len == 0) continue;
            Bytes ct = sealed.out, tag = sealed.tag;
            if (flip == 1) tag[rng.below(16)] ^= uint8_t(1u << rng.below(8));
            if (flip == 2) ct[rng.below(len)] ^= uint8_t(1u << rng.below(8));
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(testing::Message() << "len=" << len << " flip=" << flip << " in_place=" << in_place);
                AeadState st;
                start(st, impl(), m);
                Bytes out = in_place ? ct : Bytes(len, 0xa5);
                const bool ok = kern::aead_open_record(st, in_place ? out.data() : ct.data(), out.data(), len,
                                                       tag.data());
                EXPECT_EQ(ok, flip == 0);
                const Bytes expected = flip == 0 ? pt : Bytes(len, 0);
                if (out != expected) {
                    EXPECT_EQ(to_hex(out), to_hex(expected));
                }
                kern::aead_wipe(st);
            }
        }
    }
}

// The record open around the held-back AAD limit: with more AAD than is
// held back, the MAC is keyed before the record (an empty record then needs
// no keystream at all).
TEST_P(KernelSuite, AeadOpenRecordWithTheMacKeyedBeforehand) {
    Rng rng = seeded_rng(0xaead0007);
    for (size_t aad_len : {0, 1, 31, 32, 33, 64, 100, 1000}) {
        for (size_t len : {0, 1, 63, 64, 65, 127, 128, 129, 191, 192, 193, 500}) {
            const Message m = random_message(rng, Grid::rfc8439, aad_len);
            const Bytes pt = rng.bytes(len);
            const Outcome sealed = run(portable(), m, Direction::seal, pt, whole(len), false);
            expect_same(sealed, run(impl(), m, Direction::seal, pt, whole(len), false));
            for (bool good : {true, false}) {
                SCOPED_TRACE(testing::Message() << "aad=" << aad_len << " len=" << len << " good=" << good);
                Bytes tag = sealed.tag;
                if (!good) tag[15] ^= 0x80;
                AeadState st;
                start(st, impl(), m);
                Bytes out(len, 0xa5);
                EXPECT_EQ(good, kern::aead_open_record(st, sealed.out.data(), out.data(), len, tag.data()));
                const Bytes expected = good ? pt : Bytes(len, 0);
                if (out != expected) {
                    EXPECT_EQ(to_hex(out), to_hex(expected));
                }
                kern::aead_wipe(st);
            }
        }
    }
}

// aead_text_with_keystream (OpenSSH's short packets hand it keystream made
// beside the length's block): the ciphertext and tag of one aead_text call
// of this set, on both grids, AAD of 0..5 bytes (the openssh grid's skew)
// and texts of 1..300 bytes; an open absorbs without writing; the text is
// the message's whole.
TEST_P(KernelSuite, AeadTextWithKeystreamMatchesOneTextCall) {
    Rng rng = seeded_rng(0xaead0007);
    for (Grid grid : {Grid::rfc8439, Grid::openssh}) {
        for (size_t len = 1; len <= 300; ++len) {
            const Message m = random_message(rng, grid, len % 6);
            SCOPED_TRACE(std::string(grid == Grid::rfc8439 ? "rfc8439 " : "openssh ") + std::to_string(len));
            const Bytes pt = rng.bytes(len);
            AeadState want_st, st;
            start(want_st, impl(), m);
            start(st, impl(), m);
            Bytes ks(64 * (1 + (len + 63) / 64));
            kern::ChaChaState ctr = st.chacha;
            portable().chacha20_blocks(ctr, nullptr, ks.data(), ks.size() / 64);

            Bytes want(len), got(len, 0xa5), want_tag(16), got_tag(16);
            ASSERT_TRUE(kern::aead_text(want_st, Direction::seal, pt.data(), want.data(), len));
            kern::aead_final(want_st, want_tag.data());
            kern::aead_text_with_keystream(st, Direction::seal, pt.data(), got.data(), len, ks.data());
            EXPECT_FALSE(kern::aead_text(st, Direction::seal, pt.data(), got.data(), 1));
            kern::aead_final(st, got_tag.data());
            ASSERT_EQ(to_hex(got), to_hex(want));
            ASSERT_EQ(to_hex(got_tag), to_hex(want_tag));

            AeadState open_st;
            start(open_st, impl(), m);
            kern::aead_text_with_keystream(open_st, Direction::open, want.data(), nullptr, len, ks.data());
            kern::aead_final(open_st, got_tag.data());
            ASSERT_EQ(to_hex(got_tag), to_hex(want_tag));
        }
    }
}

// OpenSSH packets (length ‖ payload) sealed and opened whole with each kernel
// set; the MAC grid is skewed by the 4-byte length.
TEST_P(KernelSuite, OpensshPacketsMatchPortable) {
    Rng rng = seeded_rng(0xaead0006);
    for (size_t payload : sweep_lengths()) {
        if (payload > 20000) continue;
        const Bytes key = rng.bytes(kern::kOpensshKeyLen);
        const uint64_t seqnr = rng.next();
        Bytes packet = rng.bytes(kern::kOpensshLengthLen + payload);
        kern::OpensshState ref, st;
        kern::openssh_init(ref, portable());
        kern::openssh_init(st, impl());
        kern::openssh_set_key(ref, key.data());
        kern::openssh_set_key(st, key.data());
        SCOPED_TRACE(payload);
        Bytes want(packet.size()), got = packet, want_tag(16), got_tag(16);
        kern::openssh_seal(ref, seqnr, packet.data(), want.data(), packet.size(), want_tag.data());
        kern::openssh_seal(st, seqnr, got.data(), got.data(), got.size(), got_tag.data());
        if (want != got) {
            ASSERT_EQ(to_hex(want), to_hex(got));
        }
        ASSERT_EQ(to_hex(want_tag), to_hex(got_tag));

        Bytes opened = want;
        ASSERT_TRUE(kern::openssh_open(st, seqnr, opened.data(), opened.data(), opened.size(), want_tag.data()));
        ASSERT_EQ(opened, packet);
        Bytes apart(want.size(), 0xa5);
        ASSERT_TRUE(kern::openssh_open(st, seqnr, want.data(), apart.data(), apart.size(), want_tag.data()));
        ASSERT_EQ(apart, packet);
        Bytes bad = want;
        bad[rng.below(bad.size())] ^= 0x10;
        Bytes out(bad.size(), 0xa5);
        EXPECT_FALSE(kern::openssh_open(st, seqnr, bad.data(), out.data(), out.size(), want_tag.data()));
        EXPECT_EQ(out, Bytes(out.size(), 0));
        Bytes bad_in_place = bad;
        EXPECT_FALSE(kern::openssh_open(st, seqnr, bad_in_place.data(), bad_in_place.data(), bad_in_place.size(),
                                        want_tag.data()));
        EXPECT_EQ(bad_in_place, Bytes(bad.size(), 0));
        kern::openssh_wipe(ref);
        kern::openssh_wipe(st);
    }
}

}  // namespace
}  // namespace stitch::test
