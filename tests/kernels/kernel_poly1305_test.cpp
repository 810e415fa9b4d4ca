// Impl::poly1305_blocks of every kernel set against the portable blocks: the
// same value mod p (kernel sets share Poly1305State mid-message) in the
// partially reduced range every kernel accepts, and the same tag, on random
// input across every set's hand-over to vector code, and on the edges of
// the arithmetic.
#include <cstring>

#include "kernel_suite.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::test {
namespace {

using kern::Poly1305State;

// Same value mod p, and h2 <= 4 (what every kernel leaves and takes).
void expect_equivalent(const Poly1305State& want, const Poly1305State& got) {
    EXPECT_EQ(reduce_mod_p(want.h), reduce_mod_p(got.h))
        << "portable " << describe_h(want.h) << ", this set " << describe_h(got.h);
    EXPECT_LE(got.h[2], 4u) << "out of the partially reduced range: " << describe_h(got.h);
}

Bytes tag_of(const kern::Impl& impl, Poly1305State st) {
    Bytes tag(16);
    kern::poly1305_final(impl, st, tag.data());
    return tag;
}

// RFC 8439 §2.5.2 through the set's blocks.
TEST_P(KernelSuite, Poly1305Rfc8439Section252) {
    const Bytes key = from_hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b");
    const std::string msg = "Cryptographic Forum Research Group";
    Poly1305State st;
    kern::poly1305_init(st, key.data());
    kern::poly1305_update(impl(), st, reinterpret_cast<const uint8_t*>(msg.data()), msg.size());
    Bytes tag(16);
    kern::poly1305_final(impl(), st, tag.data());
    EXPECT_EQ(to_hex(tag), "a8061dc1305136c6c22b8baf0c0127a9");
}

// Block counts 0..299: every set's switch from scalar to vector code lies
// in there (the AVX2 shapes' vector_poly_min, wider vectors' own).
TEST_P(KernelSuite, Poly1305RandomKeysAndBlocksMatchPortable) {
    Rng rng = seeded_rng(0x9017);
    for (size_t n = 0; n < 300; ++n) {
        const Bytes key = rng.bytes(32);
        const Bytes msg = rng.bytes(n * 16);
        Poly1305State a, b;
        kern::poly1305_init(a, key.data());
        kern::poly1305_init(b, key.data());
        portable().poly1305_blocks(a, msg.data(), n);
        impl().poly1305_blocks(b, msg.data(), n);
        SCOPED_TRACE(n);
        expect_equivalent(a, b);
        EXPECT_EQ(to_hex(tag_of(portable(), a)), to_hex(tag_of(portable(), b)));
        if (HasFailure()) return;
    }
}

// The corners: r at its clamped maximum, all-0xff blocks (the largest m plus
// 2^128), and accumulators started at or just around p = 2^130 - 5 and at the
// top of the partially reduced range (h2 up to 7, what the scalar blocks take).
TEST_P(KernelSuite, Poly1305EdgeValuesMatchPortable) {
    const Bytes ones(16 * 300, 0xff), zeros(16 * 300, 0x00);
    const uint64_t p0 = 0xfffffffffffffffbull, p1 = 0xffffffffffffffffull;
    const uint64_t starts[][3] = {
        {0, 0, 0},           {p0, p1, 3},          {p0 - 1, p1, 3},           {p0 + 1, p1, 3},
        {p1, p1, 3},         {p1, p1, 4},          {p1, p1, 7},               {0, 0, 4},         {1, 0, 4},
        {p0, p1, 0},         {0x8000000000000000ull, 0x8000000000000000ull, 2},
    };
    Bytes max_key(32, 0xff), min_key(32, 0x00);
    min_key[16] = 1;  // s half only
    for (const Bytes* key : {&max_key, &min_key}) {
        for (const auto& h : starts) {
            for (const Bytes* msg : {&ones, &zeros}) {
                for (size_t n : {1, 2, 3, 4, 5, 16, 17, 19, 20, 21, 23, 24, 25, 32, 40, 64, 65, 299}) {
                    SCOPED_TRACE(testing::Message() << "h=" << describe_h(h) << " n=" << n
                                                    << " ones=" << (msg == &ones) << " max r=" << (key == &max_key));
                    Poly1305State a, b;
                    kern::poly1305_init(a, key->data());
                    std::memcpy(a.h, h, sizeof(a.h));
                    b = a;
                    portable().poly1305_blocks(a, msg->data(), n);
                    impl().poly1305_blocks(b, msg->data(), n);
                    expect_equivalent(a, b);
                    EXPECT_EQ(to_hex(tag_of(portable(), a)), to_hex(tag_of(portable(), b)));
                    if (HasFailure()) return;
                }
            }
        }
    }
}

// r = 1, so every power of r is 1 and a vector run's lanes end as plain sums
// of their blocks: the last four blocks chosen so that the lanes' 44-bit
// limbs sum to s0 = 4·(2^44 − 1) and s1 = 2^20 − 1, and s0 + s1·2^44 carries
// out of the low 64 bits. Random blocks make that carry about once in a
// million runs; a four- or eight-lane run's end that dropped it (the
// IFMA set's `finish`) gave a wrong h1 here and survived the random tests.
// The sums come out as planned, and carry, at 8, 12 and 16 blocks (two to
// four steps on four lanes, modelled limb by limb); at 20 and more the zero
// blocks' 2^128 bits have folded into the low limbs first, and those counts
// (with the MULX head, two sets of four, and two sets of eight zmm lanes
// from the CPU table's width: 32 blocks on Zen 5, 48 on Emerald Rapids,
// 192 elsewhere) compare with the portable blocks as any run does. `finish` is one
// asm text for every width.
TEST_P(KernelSuite, Poly1305LaneSumCarriesIntoTheMiddleLimb) {
    Bytes key(32, 0x00);
    key[0] = 1;      // r = 1
    key[16] = 0x5a;  // any s
    for (size_t n : {4, 5, 8, 9, 12, 16, 20, 24, 25, 32, 48, 64, 192, 201, 256}) {
        Bytes msg(16 * n, 0x00);
        uint8_t* last4 = msg.data() + 16 * (n - 4);
        std::memset(last4, 0xff, 8);  // limb 0 all ones, limb 1 = 2^20 − 1
        for (size_t j = 1; j < 4; ++j) {
            std::memset(last4 + 16 * j, 0xff, 5);  // limb 0 = 2^44 − 1, limb 1 = 0
            last4[16 * j + 5] = 0x0f;
        }
        SCOPED_TRACE(n);
        Poly1305State a, b;
        kern::poly1305_init(a, key.data());
        b = a;
        portable().poly1305_blocks(a, msg.data(), n);
        impl().poly1305_blocks(b, msg.data(), n);
        expect_equivalent(a, b);
        EXPECT_EQ(to_hex(tag_of(portable(), a)), to_hex(tag_of(portable(), b)));
        if (HasFailure()) return;
    }
}

// A message started on one kernel set and finished on the other, in pieces
// long enough for vector code.
TEST_P(KernelSuite, Poly1305StateMovesBetweenKernelSets) {
    Rng rng = seeded_rng(0x5eed);
    const Bytes key = rng.bytes(32), msg = rng.bytes(6000);
    Poly1305State ref, mixed;
    kern::poly1305_init(ref, key.data());
    kern::poly1305_init(mixed, key.data());
    kern::poly1305_update(portable(), ref, msg.data(), msg.size());
    size_t off = 0, i = 0;
    for (size_t take : {17, 300, 1, 200, 482, 2000, 3000}) {
        kern::poly1305_update(i++ % 2 ? portable() : impl(), mixed, msg.data() + off, take);
        off += take;
    }
    ASSERT_EQ(off, msg.size());
    EXPECT_EQ(to_hex(tag_of(portable(), ref)), to_hex(tag_of(impl(), mixed)));
}

}  // namespace
}  // namespace stitch::test
