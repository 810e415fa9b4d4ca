// kernels/bytes.hpp's helpers for the glue around the kernels: copy_short
// (the held-back AAD, 1-32 bytes, without a memmove call) and xor_short
// (a partly used keystream block, 0-63 bytes) and xor_short_masked (a
// record's partial last block, kept or zeroed) touch exactly their n bytes,
// in place too, and read and write nothing outside them; store_words4 (the
// counter row as one 16-byte store) puts four words in order and nothing
// else; set_block_bytes (Poly1305's buffered block, the held-back AAD, as one
// 16-byte store) keeps the bytes before its own, zeroes those after, and reads
// nothing past its source's n bytes.
#include <gtest/gtest.h>

#include <cstring>

#include "common/guarded_page.hpp"
#include "common/seeded_rng.hpp"
#include "kernels/bytes.hpp"

namespace stitch::test {
namespace {

// Every length 0..32 at four destination offsets: the n bytes arrive, the
// bytes around them keep their canary.
TEST(CopyShort, CopiesExactlyTheFirstNBytes) {
    Rng rng = seeded_rng(0x3c0917a5);
    for (size_t n = 0; n <= 32; ++n) {
        for (size_t offset = 0; offset < 4; ++offset) {
            SCOPED_TRACE(testing::Message() << "n " << n << ", offset " << offset);
            const Bytes src = rng.bytes(48);
            Bytes dst(64, 0xa5), want(64, 0xa5);
            std::memcpy(want.data() + 8 + offset, src.data(), n);
            kern::copy_short(dst.data() + 8 + offset, src.data(), n);
            ASSERT_EQ(want, dst);
        }
    }
}

// The source at the very start and at the very end of a page between two
// that fault, and the destination likewise: any read or write outside
// [0, n) crashes the test.
TEST(CopyShort, TouchesNothingOutsideItsBytes) {
    Rng rng = seeded_rng(0x5e7a11c0);
    GuardedPage src_page, dst_page;
    ASSERT_TRUE(src_page.ok() && dst_page.ok());
    for (size_t n = 0; n <= 32; ++n) {
        SCOPED_TRACE(n);
        const Bytes src = rng.bytes(n);
        for (uint8_t* s : {src_page.start(), src_page.ending(n)}) {
            for (uint8_t* d : {dst_page.start(), dst_page.ending(n)}) {
                if (n) std::memcpy(s, src.data(), n);
                kern::copy_short(d, s, n);
                ASSERT_EQ(src, Bytes(d, d + n));  // no memcmp: src.data() is null when n is 0
            }
        }
    }
}

// out = (in ^ ks) & keep over n bytes: xor_short (keep 0xff) or
// xor_short_masked.
using XorFn = void (*)(uint8_t* out, const uint8_t* in, const uint8_t* ks, size_t n, uint8_t keep);

void plain_xor(uint8_t* out, const uint8_t* in, const uint8_t* ks, size_t n, uint8_t) { kern::xor_short(out, in, ks, n); }

// Every length 0..63 at four output offsets, out of place and in place:
// exactly (in ^ ks) & keep in the n bytes, the canary around them.
void expect_exact_bytes(Rng& rng, XorFn xor_fn, uint8_t keep) {
    for (size_t n = 0; n < 64; ++n) {
        for (size_t offset = 0; offset < 4; ++offset) {
            SCOPED_TRACE(testing::Message() << "n " << n << ", keep " << int(keep) << ", offset " << offset);
            const Bytes in = rng.bytes(64), ks = rng.bytes(64);
            Bytes want(96, 0xa5), out(96, 0xa5);
            for (size_t i = 0; i < n; ++i) want[8 + offset + i] = uint8_t((in[i] ^ ks[i]) & keep);
            xor_fn(out.data() + 8 + offset, in.data(), ks.data(), n, keep);
            ASSERT_EQ(want, out) << "out of place";
            Bytes inplace(96, 0xa5);
            std::memcpy(inplace.data() + 8 + offset, in.data(), n);
            xor_fn(inplace.data() + 8 + offset, inplace.data() + 8 + offset, ks.data(), n, keep);
            ASSERT_EQ(want, inplace) << "in place";
        }
    }
}

// Input, keystream and output each at the start and at the end of a page
// between two that fault: any read or write outside [0, n) crashes the test.
void expect_nothing_outside(Rng& rng, XorFn xor_fn, uint8_t keep) {
    GuardedPage in_page, ks_page, out_page;
    ASSERT_TRUE(in_page.ok() && ks_page.ok() && out_page.ok());
    for (size_t n = 0; n < 64; ++n) {
        SCOPED_TRACE(n);
        const Bytes in = rng.bytes(n), ks = rng.bytes(n);
        Bytes want(n);
        for (size_t i = 0; i < n; ++i) want[i] = uint8_t((in[i] ^ ks[i]) & keep);
        for (bool at_end : {false, true}) {
            uint8_t* i = at_end ? in_page.ending(n) : in_page.start();
            uint8_t* k = at_end ? ks_page.start() : ks_page.ending(n);
            uint8_t* o = at_end ? out_page.ending(n) : out_page.start();
            if (n) {
                std::memcpy(i, in.data(), n);
                std::memcpy(k, ks.data(), n);
            }
            xor_fn(o, i, k, n, keep);
            ASSERT_EQ(want, Bytes(o, o + n));
        }
    }
}

TEST(XorShort, XorsExactlyTheFirstNBytes) {
    Rng rng = seeded_rng(0x7b1e0c33);
    expect_exact_bytes(rng, plain_xor, 0xff);
}

TEST(XorShort, TouchesNothingOutsideItsBytes) {
    Rng rng = seeded_rng(0x2d40f9e1);
    expect_nothing_outside(rng, plain_xor, 0xff);
}

// xor_short_masked (a record's partial last block after the tag verdict):
// keep 0xff gives exactly in ^ ks and keep 0x00 zeros, both ways.
TEST(XorShortMasked, KeepsOrZeroesExactlyTheFirstNBytes) {
    Rng rng = seeded_rng(0x6d41c2f7);
    for (uint8_t keep : {uint8_t(0xff), uint8_t(0x00)}) {
        expect_exact_bytes(rng, kern::xor_short_masked, keep);
        expect_nothing_outside(rng, kern::xor_short_masked, keep);
    }
}

TEST(StoreWords4, StoresTheFourWordsInOrder) {
    uint32_t row[6] = {0xa5a5a5a5, 0, 0, 0, 0, 0xa5a5a5a5};
    kern::store_words4(row + 1, 0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c);
    const uint32_t want[6] = {0xa5a5a5a5, 0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, 0xa5a5a5a5};
    EXPECT_EQ(0, std::memcmp(want, row, sizeof(want)));
}

// Every (at, n) with at < 16 and at + n <= 16: bytes [0, at) of the block
// kept, [at, at + n) from the source, the rest zero; the 8 bytes on either
// side of the block untouched.
TEST(SetBlockBytes, KeepsTheHeadSetsTheBytesZeroesTheRest) {
    Rng rng = seeded_rng(0x6b10c4e2);
    for (size_t at = 0; at < 16; ++at) {
        for (size_t n = 0; at + n <= 16; ++n) {
            SCOPED_TRACE(testing::Message() << "at " << at << ", n " << n);
            const Bytes src = rng.bytes(16), old = rng.bytes(16);
            Bytes frame(32, 0xa5);
            std::memcpy(frame.data() + 8, old.data(), 16);
            Bytes want = frame;
            std::memset(want.data() + 8 + at, 0, 16 - at);
            std::memcpy(want.data() + 8 + at, src.data(), n);
            kern::set_block_bytes(frame.data() + 8, at, src.data(), n);
            ASSERT_EQ(want, frame);
        }
    }
}

// The source at the start and at the end of a page between two that fault:
// load_upto16 reads nothing outside [p, p + n), and its value is those bytes.
TEST(SetBlockBytes, ReadsNothingPastItsSource) {
    Rng rng = seeded_rng(0x1d0b5e73);
    GuardedPage page;
    ASSERT_TRUE(page.ok());
    for (size_t n = 0; n <= 16; ++n) {
        SCOPED_TRACE(n);
        const Bytes src = rng.bytes(n);
        for (uint8_t* s : {page.start(), page.ending(n)}) {
            if (n) std::memcpy(s, src.data(), n);
            uint8_t block[16];
            std::memset(block, 0xa5, sizeof(block));
            kern::set_block_bytes(block, 0, s, n);
            Bytes want(16, 0);
            if (n) std::memcpy(want.data(), src.data(), n);
            ASSERT_EQ(want, Bytes(block, block + 16));
        }
    }
}

}  // namespace
}  // namespace stitch::test
