// Impl::chacha20_blocks of every kernel set against the portable block
// function: every block count a batch edge can produce, counters around the
// 2^32 carry into ctr[1] (raw ChaCha20 and OpenSSH rely on it) and across
// 2^31 (where a lane counter made with a signed compare goes wrong), in
// place, out of place and keystream only, and the raw stream over random
// update splits.

#include <cstring>

#include "common/guarded_page.hpp"
#include "kernel_suite.hpp"
#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"

namespace stitch::test {
namespace {

using kern::ChaChaState;

ChaChaState make_state(Rng& rng, uint32_t ctr0, uint32_t ctr1) {
    ChaChaState st;
    for (auto& k : st.key) k = uint32_t(rng.next());
    st.ctr[0] = ctr0;
    st.ctr[1] = ctr1;
    st.ctr[2] = uint32_t(rng.next());
    st.ctr[3] = uint32_t(rng.next());
    return st;
}

void expect_same_state(const ChaChaState& a, const ChaChaState& b) {
    EXPECT_EQ(0, std::memcmp(a.key, b.key, sizeof(a.key)));
    EXPECT_EQ(a.ctr[0], b.ctr[0]);
    EXPECT_EQ(a.ctr[1], b.ctr[1]);
    EXPECT_EQ(a.ctr[2], b.ctr[2]);
    EXPECT_EQ(a.ctr[3], b.ctr[3]);
}

// RFC 8439 §2.3.2: the block function's test vector, through the set's
// blocks (a lone block: whatever shape the set gives one).
TEST_P(KernelSuite, ChaCha20Rfc8439Section232Block) {
    const Bytes key = from_hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    const Bytes nonce = from_hex("000000090000004a00000000");
    ChaChaState st;
    kern::chacha_load_key(st, key.data());
    st.ctr[0] = 1;
    for (int i = 0; i < 3; ++i) st.ctr[1 + i] = kern::load_le32(nonce.data() + 4 * i);
    Bytes out(64);
    impl().chacha20_blocks(st, nullptr, out.data(), 1);
    EXPECT_EQ(to_hex(out),
              "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
              "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
    EXPECT_EQ(st.ctr[0], 2u);
}

// Nothing read past the input's last block and nothing written past the
// output's: the input ends at a page whose next page faults, the output is
// followed by 512 bytes that must come back as they were (a seven-block tail
// XORs straight from a batch of eight: avx2/chacha20.hpp). Then in place, at
// a page end.
TEST_P(KernelSuite, ChaCha20TouchesNothingPastItsBlocks) {
    Rng rng = seeded_rng(0x9a2d9a9e);
    GuardedPage in_page, inplace_page;
    ASSERT_TRUE(in_page.ok() && inplace_page.ok());
    for (size_t n = 0; n <= 40; ++n) {  // to a pair cut short and past it (avx512/pair_run.hpp)
        SCOPED_TRACE(n);
        const ChaChaState start = make_state(rng, uint32_t(rng.next()), 0);
        const Bytes in = rng.bytes(n * 64);
        uint8_t* guarded_in = in_page.ending(in.size());
        if (n) std::memcpy(guarded_in, in.data(), in.size());
        ChaChaState ref = start, st = start;
        Bytes want(n * 64 + 512, 0xa5), got(n * 64 + 512, 0xa5);
        portable().chacha20_blocks(ref, in.data(), want.data(), n);
        impl().chacha20_blocks(st, guarded_in, got.data(), n);
        EXPECT_EQ(want, got) << "out of place, the 512 bytes after it untouched";

        st = start;
        uint8_t* guarded = inplace_page.ending(in.size());
        if (n) std::memcpy(guarded, in.data(), in.size());
        impl().chacha20_blocks(st, guarded, guarded, n);
        EXPECT_EQ(0, std::memcmp(want.data(), guarded, n * 64)) << "in place at a page end";
        if (HasFailure()) return;
    }
}

// Every block count 0..72 (every shape of a batch, row pairs and lone
// blocks, and a bulk of up to 64 with each remainder), both sides of every
// bulk edge up to four bulks of 64, and large counts, each in three ways.
TEST_P(KernelSuite, ChaCha20MatchesPortableForEveryBlockCount) {
    Rng rng = seeded_rng(0xc4ac4a20);
    std::vector<size_t> counts;
    for (size_t n = 0; n <= 72; ++n) counts.push_back(n);
    for (size_t n : bulk_edge_blocks()) counts.push_back(n);
    for (size_t n : {255, 1024}) counts.push_back(n);
    for (size_t n : counts) {
        SCOPED_TRACE(n);
        const ChaChaState start = make_state(rng, uint32_t(rng.next()), uint32_t(rng.next()));
        const Bytes in = rng.bytes(n * 64);
        ChaChaState ref = start, st = start;
        Bytes want(n * 64), got(n * 64, 0x5a);
        portable().chacha20_blocks(ref, in.data(), want.data(), n);
        impl().chacha20_blocks(st, in.data(), got.data(), n);
        EXPECT_EQ(want, got) << "out of place";
        expect_same_state(ref, st);

        st = start;
        Bytes inplace = in;
        impl().chacha20_blocks(st, inplace.data(), inplace.data(), n);
        EXPECT_EQ(want, inplace) << "in place";

        ref = start, st = start;
        Bytes ks_want(n * 64), ks_got(n * 64, 0x5a);
        portable().chacha20_blocks(ref, nullptr, ks_want.data(), n);
        impl().chacha20_blocks(st, nullptr, ks_got.data(), n);
        EXPECT_EQ(ks_want, ks_got) << "keystream only";
        expect_same_state(ref, st);
        if (HasFailure()) return;
    }
}

// ctr[0] = 0xffffffff - k: the batch's lanes cross 2^32 at every position, and
// each lane past the wrap must carry into ctr[1] (including 0xffffffff -> 0).
// ctr[0] = 0x7fffffff - k: the lanes cross 2^31, where nothing may carry.
TEST_P(KernelSuite, ChaCha20CounterCarriesIntoSecondWord) {
    Rng rng = seeded_rng(0x2a32);
    std::vector<size_t> counts = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 23, 24, 25, 48, 49, 65};
    for (uint32_t base : {0xffffffffu, 0x7fffffffu}) {
        for (uint32_t ctr1 : {0u, 7u, 0xffffffffu}) {
            for (uint32_t k = 0; k < 20; ++k) {
                for (size_t n : counts) {
                    SCOPED_TRACE(testing::Message() << "ctr0=" << base - k << " ctr1=" << ctr1 << " blocks=" << n);
                    const ChaChaState start = make_state(rng, base - k, ctr1);
                    const Bytes in = rng.bytes(n * 64);
                    ChaChaState ref = start, st = start;
                    Bytes want(n * 64), got(n * 64);
                    portable().chacha20_blocks(ref, in.data(), want.data(), n);
                    impl().chacha20_blocks(st, in.data(), got.data(), n);
                    ASSERT_EQ(want, got);
                    expect_same_state(ref, st);
                }
            }
        }
    }
}

// Raw ChaCha20 over arbitrary update splits: the stream keeps a partial
// block in ks, and every split must give the same bytes.
TEST_P(KernelSuite, ChaCha20StreamOverRandomSplitsMatchesPortable) {
    Rng rng = seeded_rng(0x5711);
    for (size_t len : {0, 1, 63, 64, 65, 511, 512, 513, 1000, 1600, 4096 + 17}) {
        for (int trial = 0; trial < 8; ++trial) {
            SCOPED_TRACE(testing::Message() << "len=" << len << " trial=" << trial);
            kern::ChaChaStream ref, st;
            ref.st = make_state(rng, 0xffffffffu - uint32_t(rng.below(12)), uint32_t(rng.next()));
            st.st = ref.st;
            kern::chacha_stream_reset(ref);
            kern::chacha_stream_reset(st);
            const Bytes in = rng.bytes(len);
            Bytes want(len), got(len);
            kern::chacha_stream_xor(portable(), ref, in.data(), want.data(), len);
            for (size_t off = 0; off < len;) {
                size_t take = std::min(len - off, trial == 0 ? size_t(1) : 1 + rng.below(trial * 130));
                kern::chacha_stream_xor(impl(), st, in.data() + off, got.data() + off, take);
                off += take;
            }
            ASSERT_EQ(want, got);
        }
    }
}

// Every update length 0..2112, after a first update that left a partly used
// block (0, 37 or 63 bytes of it taken) or none, against the portable block
// function's keystream: a partial last block takes its keystream in one
// call with the whole blocks of the set's last run (keystream_run: two
// batches for the AVX-512 set; or one run more: xor_last_blocks), so every
// split of a length into runs, whole blocks and a tail is here. Odd lengths
// run in place. A last update of 70 bytes then takes what is left of the
// kept block and starts the next.
TEST_P(KernelSuite, ChaCha20StreamEveryLengthMatchesTheBlockFunction) {
    Rng rng = seeded_rng(0x1e9f7a02);
    for (size_t first : {0, 37, 63}) {
        const ChaChaState start = make_state(rng, 0xffffffffu - uint32_t(rng.below(40)), uint32_t(rng.next()));
        const size_t most = first + 2112 + 70;
        Bytes keystream((most + 63) / 64 * 64);
        ChaChaState ref = start;
        portable().chacha20_blocks(ref, nullptr, keystream.data(), keystream.size() / 64);
        for (size_t len = 0; len <= 2112; ++len) {
            SCOPED_TRACE(testing::Message() << "first " << first << ", len " << len);
            const Bytes in = rng.bytes(first + len + 70);
            Bytes want(first + len + 70), got(first + len + 70);
            for (size_t i = 0; i < want.size(); ++i) want[i] = uint8_t(in[i] ^ keystream[i]);
            kern::ChaChaStream st;
            st.st = start;
            kern::chacha_stream_reset(st);
            kern::chacha_stream_xor(impl(), st, in.data(), got.data(), first);
            if (len % 2) {
                std::memcpy(got.data() + first, in.data() + first, len);
                kern::chacha_stream_xor(impl(), st, got.data() + first, got.data() + first, len);
            } else {
                kern::chacha_stream_xor(impl(), st, in.data() + first, got.data() + first, len);
            }
            // The counter stands on the block the stream is in.
            ChaChaState after = start;
            kern::chacha_advance(after.ctr, (first + len + 63) / 64);
            ASSERT_EQ(0, std::memcmp(after.ctr, st.st.ctr, sizeof(after.ctr)));
            kern::chacha_stream_xor(impl(), st, in.data() + first + len, got.data() + first + len, 70);
            ASSERT_EQ(want, got);
        }
    }
}

}  // namespace
}  // namespace stitch::test
