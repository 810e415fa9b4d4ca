// The counter limits, through the kernel API on every kernel set, one
// instance of each test per set (issue 5 item 6). Through the provider they need 256 GiB of text, so the counter is
// started near its end instead:
// - RFC 8439 ChaCha20-Poly1305 allows 2^32 − 1 blocks after the key block.
//   With the key block at counter 0xffffffff − k, k blocks of text fit; a text
//   call that would need counter 2^32 is refused (false) and writes nothing,
//   and the message still ends with the right tag. Never wrapped.
// - Raw ChaCha20 carries the block counter from ctr[0] into ctr[1], as
//   OpenSSL's ChaCha20 does (and ctr[1] wraps alone, as OpenSSL's does).
// Both are checked byte for byte against OpenSSL's default provider.
#include "bad_input_harness.hpp"
#include "common/kernel_set_param.hpp"
#include "kernels/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/dispatch.hpp"

namespace stitch::test {
namespace {

using kern::Direction;

// OpenSSL's 16-byte ChaCha20 IV: the four counter words, little-endian.
Bytes words_iv(const uint32_t ctr[4]) {
    Bytes iv(16);
    for (int i = 0; i < 4; ++i) kern::store_le32(iv.data() + 4 * i, ctr[i]);
    return iv;
}

// The IV of the RFC 8439 block at counter `ctr` under `nonce`.
Bytes nonce_iv(uint32_t ctr, const Bytes& nonce) {
    const uint32_t words[4] = {ctr, kern::load_le32(nonce.data()), kern::load_le32(nonce.data() + 4),
                               kern::load_le32(nonce.data() + 8)};
    return words_iv(words);
}

// k: text blocks left after the key block. 0 leaves room for no text at all;
// 7..9 and 15..17 put the limit inside and at the edge of AVX2 batches.
constexpr uint32_t kRoom[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 40};

// A message whose key block sits k blocks before the counter's end.
struct NearEndMessage {
    Bytes key, nonce, aad;
    size_t room;       // the text bytes that fit: k blocks
    uint32_t key_ctr;  // the key block's counter
    NearEndMessage(Rng& rng, uint32_t k)
        : key(rng.bytes(32)),
          nonce(rng.bytes(12)),
          aad(rng.bytes(13)),
          room(size_t(k) * 64),
          key_ctr(0xffffffffu - k) {}

    // From the default provider's ChaCha20 and POLY1305: the text under
    // counters key_ctr + 1 .., and the RFC 8439 tag of (aad, ct).
    Bytes reference_text(const Bytes& text) const {
        return room ? reference::chacha20(providers(), key, nonce_iv(key_ctr + 1, nonce), text) : Bytes();
    }
    Bytes reference_tag(const Bytes& ct) const {
        const Bytes poly_key = reference::chacha20(providers(), key, nonce_iv(key_ctr, nonce), Bytes(32, 0));
        Bytes msg = aad;
        msg.resize((msg.size() + 15) / 16 * 16, 0);
        msg.insert(msg.end(), ct.begin(), ct.end());
        msg.resize((msg.size() + 15) / 16 * 16, 0);
        uint8_t lens[16];
        kern::store_le64(lens, aad.size());
        kern::store_le64(lens + 8, ct.size());
        msg.insert(msg.end(), lens, lens + 16);
        return reference::poly1305(providers(), poly_key, msg);
    }
};

// A kernel AEAD state on that message's key and nonce, its AAD given.
struct NearEnd {
    kern::AeadState st;
    NearEnd(const kern::Impl& impl, const NearEndMessage& m) {
        kern::aead_init(st, impl, kern::Grid::rfc8439);
        kern::aead_set_key(st, m.key.data());
        kern::aead_set_nonce(st, m.nonce.data(), m.key_ctr);
        EXPECT_TRUE(kern::aead_aad(st, m.aad.data(), m.aad.size()));
    }
    ~NearEnd() { kern::aead_wipe(st); }
};

class CounterLimit : public OnEverySet {};

TEST_P(CounterLimit, AeadTextPastTheLastBlockIsRefusedAndWritesNothing) {
    const KernelSet& ks = GetParam();
    for (uint32_t k : kRoom) {
        SCOPED_TRACE(ks.label + ", room for " + std::to_string(k) + " blocks");
        Rng rng(0xc0417e + k);
        const NearEndMessage m(rng, k);
        const size_t room = m.room;
        const Bytes plain = rng.bytes(room + 64);

        for (Direction dir : {Direction::seal, Direction::open}) {
            // One byte more than fits, in one call: refused, nothing written.
            NearEnd one(*ks.impl, m);
            Bytes out(room + 64, kCanary);
            EXPECT_FALSE(kern::aead_text(one.st, dir, plain.data(), out.data(), room + 1));
            EXPECT_EQ(to_hex(out), to_hex(Bytes(room + 64, kCanary))) << "a refused text call wrote";
            EXPECT_EQ(one.st.text_len, 0u);
            // Whole room in a piece short of the end, a refused piece past it, then the rest.
            const size_t head = room >= 10 ? room - 10 : 0;
            EXPECT_TRUE(kern::aead_text(one.st, dir, plain.data(), out.data(), head));
            EXPECT_FALSE(kern::aead_text(one.st, dir, plain.data() + head, out.data() + head, room - head + 1));
            EXPECT_EQ(to_hex(out.data() + head, 64), to_hex(Bytes(64, kCanary))) << "a refused text call wrote";
            EXPECT_TRUE(kern::aead_text(one.st, dir, plain.data() + head, out.data() + head, room - head));
            EXPECT_FALSE(kern::aead_text(one.st, dir, plain.data() + room, out.data() + room, 1));
            EXPECT_EQ(out[room], kCanary);
            uint8_t tag[16];
            kern::aead_final(one.st, tag);

            // The k blocks used counters 0xffffffff − k + 1 .. 0xffffffff, and nothing wrapped to 0.
            const Bytes text(plain.begin(), plain.begin() + long(room));
            EXPECT_EQ(to_hex(out.data(), room), to_hex(m.reference_text(text)));
            const Bytes& ct = dir == Direction::seal ? Bytes(out.begin(), out.begin() + long(room)) : text;
            EXPECT_EQ(to_hex(tag, 16), to_hex(m.reference_tag(ct)));
        }
    }
}

TEST_P(CounterLimit, AeadOpenRecordPastTheLastBlockIsRefusedAndWritesNothing) {
    const KernelSet& ks = GetParam();
    for (uint32_t k : kRoom) {
        SCOPED_TRACE(ks.label + ", room for " + std::to_string(k) + " blocks");
        Rng rng(0x0be7 + k);
        const NearEndMessage m(rng, k);
        const size_t room = m.room;
        const Bytes ct = rng.bytes(room + 1);

        NearEnd too_long(*ks.impl, m);
        Bytes out(room + 1, kCanary);
        const Bytes tag = m.reference_tag(ct);  // authentic, were it allowed
        EXPECT_FALSE(kern::aead_open_record(too_long.st, ct.data(), out.data(), room + 1, tag.data()));
        EXPECT_EQ(to_hex(out), to_hex(Bytes(room + 1, kCanary))) << "a refused record wrote";

        // The longest record that fits opens.
        NearEnd fits(*ks.impl, m);
        const Bytes ct_fit(ct.begin(), ct.begin() + long(room));
        const Bytes tag_fit = m.reference_tag(ct_fit);
        EXPECT_TRUE(kern::aead_open_record(fits.st, ct_fit.data(), out.data(), room, tag_fit.data()));
        EXPECT_EQ(to_hex(out.data(), room), to_hex(m.reference_text(ct_fit)));
    }
}

// ctr[0] starts j blocks before 2^32 (j = 0: ctr[0] = 0xffffffff itself), so
// every lane of an 8- or 16-block batch takes the carry once.
TEST_P(CounterLimit, RawChaCha20CarriesIntoTheNextWordAsOpenSsl) {
    const KernelSet& ks = GetParam();
    for (uint32_t word1 : {0x11223344u, 0xffffffffu}) {
        for (uint32_t j = 0; j <= 17; ++j) {
            SCOPED_TRACE(ks.label + ", ctr[0] = 0xffffffff - " + std::to_string(j) +
                         ", ctr[1] = " + std::to_string(word1));
            Rng rng(0xca7 + j);
            const Bytes key = rng.bytes(32);
            const size_t nblocks = j + 1 + 9;
            const Bytes in = rng.bytes(nblocks * 64);
            kern::ChaChaState st{};
            kern::chacha_load_key(st, key.data());
            st.ctr[0] = 0xffffffffu - j;
            st.ctr[1] = word1;
            st.ctr[2] = 0x01020304;
            st.ctr[3] = 0xa0b0c0d0;
            const Bytes want = reference::chacha20(providers(), key, words_iv(st.ctr), in);

            kern::ChaChaState blocks = st;
            Bytes out(in.size());
            ks.impl->chacha20_blocks(blocks, in.data(), out.data(), nblocks);
            EXPECT_EQ(to_hex(out), to_hex(want));
            EXPECT_EQ(blocks.ctr[0], 9u) << "ctr[0] after the carry";
            EXPECT_EQ(blocks.ctr[1], word1 + 1) << "the carry into ctr[1]";
            EXPECT_EQ(blocks.ctr[2], st.ctr[2]) << "nothing carries past ctr[1]";

            // The stream over irregular pieces crosses the same carry.
            kern::ChaChaStream stream{};
            stream.st = st;
            kern::chacha_stream_reset(stream);
            Bytes sout(in.size());
            for (size_t off = 0, piece = 37; off < in.size(); off += piece, piece = piece * 7 % 131 + 1) {
                const size_t n = std::min(piece, in.size() - off);
                kern::chacha_stream_xor(*ks.impl, stream, in.data() + off, sout.data() + off, n);
            }
            EXPECT_EQ(to_hex(sout), to_hex(want));
        }
    }
}

STITCH_INSTANTIATE_ON_EVERY_SET(CounterLimit);

}  // namespace
}  // namespace stitch::test
