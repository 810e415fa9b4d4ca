// kernels/bytes.hpp's two helpers for the AEAD's message state: copy_short
// (the held-back AAD, 1-32 bytes, without a memmove call) copies exactly n
// bytes and reads and writes nothing outside them; store_words4 (the
// counter row as one 16-byte store) puts four words in order and nothing
// else.
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
                ASSERT_EQ(0, std::memcmp(d, src.data(), n));
            }
        }
    }
}

TEST(StoreWords4, StoresTheFourWordsInOrder) {
    uint32_t row[6] = {0xa5a5a5a5, 0, 0, 0, 0, 0xa5a5a5a5};
    kern::store_words4(row + 1, 0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c);
    const uint32_t want[6] = {0xa5a5a5a5, 0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, 0xa5a5a5a5};
    EXPECT_EQ(0, std::memcmp(want, row, sizeof(want)));
}

}  // namespace
}  // namespace stitch::test
