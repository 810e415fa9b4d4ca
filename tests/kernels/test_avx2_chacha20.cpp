// chacha20_blocks_avx2 against the portable block function: every block
// count a batch edge can produce, counters around the 2^32 carry into ctr[1]
// (raw ChaCha20 and OpenSSH rely on it), in place, out of place and keystream
// only, and the raw stream over random update splits.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/dispatch.hpp"
#include "test_avx2_common.hpp"

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

using Avx2ChaCha20 = Avx2Kernels;

// RFC 8439 §2.3.2: the block function's test vector, through the batch code.
TEST_F(Avx2ChaCha20, Rfc8439Section232Block) {
    const Bytes key = from_hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    const Bytes nonce = from_hex("000000090000004a00000000");
    ChaChaState st;
    kern::chacha_load_key(st, key.data());
    st.ctr[0] = 1;
    for (int i = 0; i < 3; ++i) st.ctr[1 + i] = kern::load_le32(nonce.data() + 4 * i);
    Bytes out(64);
    avx2().chacha20_blocks(st, nullptr, out.data(), 1);
    EXPECT_EQ(to_hex(out),
              "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
              "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
    EXPECT_EQ(st.ctr[0], 2u);
}

// Every block count 0..50 (every shape: scalar, row pairs, one, two and three
// batches, and the bulk loop with each remainder) and the large sizes, each
// in three ways.
TEST_F(Avx2ChaCha20, MatchesPortableForEveryBlockCount) {
    Rng rng(0xc4ac4a20);
    std::vector<size_t> counts;
    for (size_t n = 0; n <= 50; ++n) counts.push_back(n);
    for (size_t n : {71, 72, 73, 255, 256, 1024}) counts.push_back(n);
    for (size_t n : counts) {
        SCOPED_TRACE(n);
        const ChaChaState start = make_state(rng, uint32_t(rng.next()), uint32_t(rng.next()));
        const Bytes in = rng.bytes(n * 64);
        ChaChaState ref = start, st = start;
        Bytes want(n * 64), got(n * 64, 0x5a);
        portable().chacha20_blocks(ref, in.data(), want.data(), n);
        avx2().chacha20_blocks(st, in.data(), got.data(), n);
        EXPECT_EQ(want, got) << "out of place";
        expect_same_state(ref, st);

        st = start;
        Bytes inplace = in;
        avx2().chacha20_blocks(st, inplace.data(), inplace.data(), n);
        EXPECT_EQ(want, inplace) << "in place";

        ref = start, st = start;
        Bytes ks_want(n * 64), ks_got(n * 64, 0x5a);
        portable().chacha20_blocks(ref, nullptr, ks_want.data(), n);
        avx2().chacha20_blocks(st, nullptr, ks_got.data(), n);
        EXPECT_EQ(ks_want, ks_got) << "keystream only";
        expect_same_state(ref, st);
    }
}

// ctr[0] = 0xffffffff - k: the batch's lanes cross 2^32 at every position, and
// each lane past the wrap must carry into ctr[1] (including 0xffffffff -> 0).
TEST_F(Avx2ChaCha20, CounterCarriesIntoSecondWord) {
    Rng rng(0x2a32);
    for (uint32_t ctr1 : {0u, 7u, 0xffffffffu}) {
        for (uint32_t k = 0; k < 20; ++k) {
            for (size_t n : {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 23, 24, 25, 48}) {
                SCOPED_TRACE(testing::Message() << "ctr1=" << ctr1 << " k=" << k << " blocks=" << n);
                const ChaChaState start = make_state(rng, 0xffffffffu - k, ctr1);
                const Bytes in = rng.bytes(n * 64);
                ChaChaState ref = start, st = start;
                Bytes want(n * 64), got(n * 64);
                portable().chacha20_blocks(ref, in.data(), want.data(), n);
                avx2().chacha20_blocks(st, in.data(), got.data(), n);
                ASSERT_EQ(want, got);
                expect_same_state(ref, st);
            }
        }
    }
}

// Raw ChaCha20 over arbitrary update splits: the stream keeps a partial
// block in ks, and every split must give the same bytes.
TEST_F(Avx2ChaCha20, StreamOverRandomSplitsMatchesPortable) {
    Rng rng(0x5711);
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
                kern::chacha_stream_xor(avx2(), st, in.data() + off, got.data() + off, take);
                off += take;
            }
            ASSERT_EQ(want, got);
        }
    }
}

}  // namespace
}  // namespace stitch::test
