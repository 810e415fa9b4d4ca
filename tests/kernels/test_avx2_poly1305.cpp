// poly1305_blocks_mulx against the portable blocks: the state must come out
// bit for bit the same (kernel sets share Poly1305State mid-message), on
// random input and on the edges of the arithmetic.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/poly1305.hpp"
#include "test_avx2_common.hpp"

namespace stitch::test {
namespace {

using kern::Poly1305State;

void expect_same(const Poly1305State& a, const Poly1305State& b) {
    EXPECT_EQ(a.h[0], b.h[0]);
    EXPECT_EQ(a.h[1], b.h[1]);
    EXPECT_EQ(a.h[2], b.h[2]);
}

Bytes tag_of(const kern::Impl& impl, Poly1305State st) {
    Bytes tag(16);
    kern::poly1305_final(impl, st, tag.data());
    return tag;
}

using Avx2Poly1305 = Avx2Kernels;

// RFC 8439 §2.5.2 through the MULX blocks.
TEST_F(Avx2Poly1305, Rfc8439Section252) {
    const Bytes key = from_hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b");
    const std::string msg = "Cryptographic Forum Research Group";
    Poly1305State st;
    kern::poly1305_init(st, key.data());
    kern::poly1305_update(avx2(), st, reinterpret_cast<const uint8_t*>(msg.data()), msg.size());
    Bytes tag(16);
    kern::poly1305_final(avx2(), st, tag.data());
    EXPECT_EQ(to_hex(tag), "a8061dc1305136c6c22b8baf0c0127a9");
}

TEST_F(Avx2Poly1305, RandomKeysAndBlocksMatchPortable) {
    Rng rng(0x9017);
    for (int trial = 0; trial < 300; ++trial) {
        const Bytes key = rng.bytes(32);
        const size_t n = rng.below(80);
        const Bytes msg = rng.bytes(n * 16);
        Poly1305State a, b;
        kern::poly1305_init(a, key.data());
        kern::poly1305_init(b, key.data());
        portable().poly1305_blocks(a, msg.data(), n);
        avx2().poly1305_blocks(b, msg.data(), n);
        SCOPED_TRACE(trial);
        expect_same(a, b);
        EXPECT_EQ(tag_of(portable(), a), tag_of(portable(), b));
    }
}

// The corners: r at its clamped maximum, all-0xff blocks (the largest m plus
// 2^128), and accumulators started at or just around p = 2^130 - 5 and at the
// top of the partially reduced range.
TEST_F(Avx2Poly1305, EdgeValuesMatchPortable) {
    const Bytes ones(16 * 40, 0xff), zeros(16 * 40, 0x00);
    const uint64_t p0 = 0xfffffffffffffffbull, p1 = 0xffffffffffffffffull;
    const uint64_t starts[][3] = {
        {0, 0, 0},           {p0, p1, 3},          {p0 - 1, p1, 3},           {p0 + 1, p1, 3},
        {p1, p1, 3},         {p1, p1, 4},          {p1, p1, 7},               {0, 0, 4},
        {1, 0, 4},           {p0, p1, 0},          {0x8000000000000000ull, 0x8000000000000000ull, 2},
    };
    Bytes max_key(32, 0xff), min_key(32, 0x00);
    min_key[16] = 1;  // s half only
    for (const Bytes* key : {&max_key, &min_key}) {
        for (const auto& h : starts) {
            for (const Bytes* msg : {&ones, &zeros}) {
                for (size_t n : {1, 2, 3, 32, 40}) {
                    SCOPED_TRACE(testing::Message() << "h=" << h[0] << "," << h[1] << "," << h[2] << " n=" << n
                                                    << " ones=" << (msg == &ones));
                    Poly1305State a, b;
                    kern::poly1305_init(a, key->data());
                    std::memcpy(a.h, h, sizeof(a.h));
                    b = a;
                    portable().poly1305_blocks(a, msg->data(), n);
                    avx2().poly1305_blocks(b, msg->data(), n);
                    expect_same(a, b);
                    EXPECT_EQ(tag_of(portable(), a), tag_of(portable(), b));
                }
            }
        }
    }
}

// A message started on one kernel set and finished on the other.
TEST_F(Avx2Poly1305, StateMovesBetweenKernelSets) {
    Rng rng(0x5eed);
    const Bytes key = rng.bytes(32), msg = rng.bytes(1000);
    Poly1305State ref, mixed;
    kern::poly1305_init(ref, key.data());
    kern::poly1305_init(mixed, key.data());
    kern::poly1305_update(portable(), ref, msg.data(), msg.size());
    size_t off = 0;
    for (size_t take : {17, 300, 1, 200, 482}) {
        kern::poly1305_update(off % 2 ? portable() : avx2(), mixed, msg.data() + off, take);
        off += take;
    }
    ASSERT_EQ(off, msg.size());
    EXPECT_EQ(tag_of(portable(), ref), tag_of(avx2(), mixed));
}

}  // namespace
}  // namespace stitch::test
