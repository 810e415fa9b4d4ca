// Poly1305 (RFC 8439 §2.5.1) with AVX2 for long inputs. One block per 64-bit
// lane, in five 26-bit limbs, so that VPMULUDQ (32x32 -> 64 bits per lane)
// forms every partial product with room to add up several of them.
//
// Horner's rule regrouped: block q of a run of n blocks is multiplied by
// r^(n-q) in the end. Two accumulators A and B of four lanes each take the
// 4-block groups in turn (A groups 0, 2, 4, ...; B groups 1, 3, 5, ...), and
// every step multiplies each by r^8 and adds its next group. After the last
// group each lane still owes r^1..r^8 according to its position, paid in one
// last multiply, and the sum of all lanes is the new h. Two accumulators,
// because one step is a serial chain (multiply, add, a carry round the five
// limbs; on Zen 5 vector adds and shifts take two cycles each): while one
// waits the other works. The step itself is asm (see step()).
//
// The state arrives and leaves in Poly1305State's 64-bit limbs, so each call
// converts in and out and computes r^2..r^8 again (the state has no room to
// keep them). That fixed cost is why short inputs take the scalar MULX code
// (the AVX2 set's kVectorPolyMin, the AVX-512 set's kVectorPolyMinBlocks):
// about 200 cycles on Zen 5; on Zen 4 (EPYC model 0x11, December 2026)
// about 155 cycles and 22-24 a group of four blocks (g++ 12; clang 14
// ~145), since the last multiply and the set-up's became asm
// (multiply_add()) and the set-up stopped copying the key through memory
// (set_multipliers()); before, 250 and then 195. Past that, on Zen 5: 0.39
// cycles per byte at 16-64 KiB, against 0.89 for MULX.
#include "kernels/x86/poly1305_vector.hpp"

#include <immintrin.h>

#include <cstddef>

#include "kernels/bytes.hpp"
#include "kernels/simd/u32x8.hpp"
#include "kernels/x86/poly1305_mulx.hpp"

namespace stitch::kern {
namespace {

using u128 = unsigned __int128;

constexpr uint64_t kMask26 = (uint64_t(1) << 26) - 1;

// Named limbs rather than arrays throughout: GCC keeps an array of __m256i
// in memory when a loop walks it, which puts a store and a reload on the
// serial chain of every step.

// A value mod p = 2^130 - 5 in base 2^26, one scalar per limb.
struct Base26 {
    uint64_t l0, l1, l2, l3, l4;
};

// Five limbs, each a ymm register of four 64-bit lanes (four blocks). Limbs
// may exceed 26 bits by a little; the bounds are stated where it matters.
struct Lanes {
    __m256i l0, l1, l2, l3, l4;
};

// A multiplier in lanes: r_j, and 5·r_j for the products that land at 2^130
// and above, which fold back in times 5 (2^130 ≡ 5 mod p).
struct Multiplier {
    __m256i r0, r1, r2, r3, r4;
    __m256i f1, f2, f3, f4;
};
// step()'s asm addresses the fields by these offsets.
static_assert(offsetof(Multiplier, r0) == 0 && offsetof(Multiplier, r4) == 128 && offsetof(Multiplier, f1) == 160 &&
              offsetof(Multiplier, f4) == 256);

STITCH_INLINE_AVX2_BMI2 __m256i splat(uint64_t x) { return _mm256_set1_epi64x(int64_t(x)); }
STITCH_INLINE_AVX2_BMI2 __m256i add(__m256i a, __m256i b) { return _mm256_add_epi64(a, b); }
STITCH_INLINE_AVX2_BMI2 __m256i times5(__m256i a) { return add(a, _mm256_slli_epi64(a, 2)); }

STITCH_INLINE_AVX2_BMI2 Lanes add(const Lanes& a, const Lanes& b) {
    return Lanes{add(a.l0, b.l0), add(a.l1, b.l1), add(a.l2, b.l2), add(a.l3, b.l3), add(a.l4, b.l4)};
}

// 64-bit limbs to 26-bit limbs. With h2 <= 7, l4 = h >> 104 < 2^27; the
// others are < 2^26.
STITCH_INLINE_AVX2_BMI2 Base26 to_base26(uint64_t h0, uint64_t h1, uint64_t h2) {
    return Base26{h0 & kMask26, (h0 >> 26) & kMask26, ((h0 >> 52) | (h1 << 12)) & kMask26, (h1 >> 14) & kMask26,
                  (h1 >> 40) | (h2 << 24)};
}

STITCH_INLINE_AVX2_BMI2 __m256i lanes4(uint64_t w, uint64_t x, uint64_t y, uint64_t z) {
    return _mm256_setr_epi64x(int64_t(w), int64_t(x), int64_t(y), int64_t(z));
}

// Lane 0 of the result holds a, lane 1 b, and so on.
STITCH_INLINE_AVX2_BMI2 Lanes lanes_of(const Base26& a, const Base26& b, const Base26& c, const Base26& d) {
    return Lanes{lanes4(a.l0, b.l0, c.l0, d.l0), lanes4(a.l1, b.l1, c.l1, d.l1), lanes4(a.l2, b.l2, c.l2, d.l2),
                 lanes4(a.l3, b.l3, c.l3, d.l3), lanes4(a.l4, b.l4, c.l4, d.l4)};
}

STITCH_INLINE_AVX2_BMI2 Multiplier multiplier(const Lanes& p) {
    return Multiplier{p.l0, p.l1, p.l2, p.l3, p.l4, times5(p.l1), times5(p.l2), times5(p.l3), times5(p.l4)};
}

// Same lane permutation of every limb.
template <int Imm>
STITCH_INLINE_AVX2_BMI2 Lanes permute(const Lanes& p) {
    return Lanes{_mm256_permute4x64_epi64(p.l0, Imm), _mm256_permute4x64_epi64(p.l1, Imm),
                 _mm256_permute4x64_epi64(p.l2, Imm), _mm256_permute4x64_epi64(p.l3, Imm),
                 _mm256_permute4x64_epi64(p.l4, Imm)};
}

// Four blocks (64 bytes) to limbs, with the 2^128 bit (2^24 in limb 4). The
// unpacks leave the blocks in lane order 0, 2, 1, 3; the last multiply
// follows that order rather than spending a cross-lane permute per step.
STITCH_INLINE_AVX2_BMI2 Lanes load_blocks(const uint8_t* m) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + 32));
    const __m256i lo = _mm256_unpacklo_epi64(a, b);
    const __m256i hi = _mm256_unpackhi_epi64(a, b);
    const __m256i mask = splat(kMask26);
    return Lanes{_mm256_and_si256(lo, mask), _mm256_and_si256(_mm256_srli_epi64(lo, 26), mask),
                 _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(lo, 52), _mm256_slli_epi64(hi, 12)), mask),
                 _mm256_and_si256(_mm256_srli_epi64(hi, 14), mask),
                 _mm256_or_si256(_mm256_srli_epi64(hi, 40), splat(uint64_t(1) << 24))};
}

// Lazy carry in two interleaved chains (0→1→2→3→4 and 3→4→0→1), half the
// latency of one chain round the ring. In: limbs < 2^58.6. Out: limbs 0, 2,
// 3 < 2^26, limbs 1 and 4 < 2^26 + 2^9: below 2^32, as VPMULUDQ needs.
STITCH_INLINE_AVX2_BMI2 Lanes carry(Lanes d) {
    const __m256i mask = splat(kMask26);
    __m256i c0 = _mm256_srli_epi64(d.l0, 26), c3 = _mm256_srli_epi64(d.l3, 26);
    d.l0 = _mm256_and_si256(d.l0, mask);
    d.l3 = _mm256_and_si256(d.l3, mask);
    d.l1 = add(d.l1, c0);
    d.l4 = add(d.l4, c3);
    const __m256i c1 = _mm256_srli_epi64(d.l1, 26), c4 = _mm256_srli_epi64(d.l4, 26);
    d.l1 = _mm256_and_si256(d.l1, mask);
    d.l4 = _mm256_and_si256(d.l4, mask);
    d.l2 = add(d.l2, c1);
    d.l0 = add(d.l0, times5(c4));  // 2^130 ≡ 5
    const __m256i c2 = _mm256_srli_epi64(d.l2, 26);
    c0 = _mm256_srli_epi64(d.l0, 26);
    d.l2 = _mm256_and_si256(d.l2, mask);
    d.l0 = _mm256_and_si256(d.l0, mask);
    d.l3 = add(d.l3, c2);
    d.l1 = add(d.l1, c0);
    c3 = _mm256_srli_epi64(d.l3, 26);
    d.l3 = _mm256_and_si256(d.l3, mask);
    d.l4 = add(d.l4, c3);
    return d;
}

// The constants a step reads from memory (VPAND/VPOR take them as operands,
// which keeps all sixteen ymm registers for the accumulators and products).
struct alignas(32) StepConstants {
    uint64_t mask26[4];
    uint64_t hibit[4];  // 2^128 in limb 4
};
constexpr StepConstants kStep = {{kMask26, kMask26, kMask26, kMask26},
                                 {uint64_t(1) << 24, uint64_t(1) << 24, uint64_t(1) << 24, uint64_t(1) << 24}};

// t_j += sum of x_i·m_(j-i), with 5·m where j - i < 0: the 25 products of
// step() and multiply_add(), m as memory operands (struct Multiplier's
// offsets), x in %[x0..x4], the sums in %[t0..t4], each product through the
// temporary named tmp.
#define STITCH_POLY_PRODUCTS(tmp) \
    "vpmuludq 0(%[m]), %[x0], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t0], %[t0]\n\t" \
    "vpmuludq 32(%[m]), %[x0], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t1], %[t1]\n\t" \
    "vpmuludq 64(%[m]), %[x0], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t2], %[t2]\n\t" \
    "vpmuludq 96(%[m]), %[x0], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t3], %[t3]\n\t" \
    "vpmuludq 128(%[m]), %[x0], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t4], %[t4]\n\t" \
    "vpmuludq 256(%[m]), %[x1], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t0], %[t0]\n\t" \
    "vpmuludq 0(%[m]), %[x1], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t1], %[t1]\n\t" \
    "vpmuludq 32(%[m]), %[x1], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t2], %[t2]\n\t" \
    "vpmuludq 64(%[m]), %[x1], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t3], %[t3]\n\t" \
    "vpmuludq 96(%[m]), %[x1], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t4], %[t4]\n\t" \
    "vpmuludq 224(%[m]), %[x2], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t0], %[t0]\n\t" \
    "vpmuludq 256(%[m]), %[x2], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t1], %[t1]\n\t" \
    "vpmuludq 0(%[m]), %[x2], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t2], %[t2]\n\t" \
    "vpmuludq 32(%[m]), %[x2], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t3], %[t3]\n\t" \
    "vpmuludq 64(%[m]), %[x2], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t4], %[t4]\n\t" \
    "vpmuludq 192(%[m]), %[x3], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t0], %[t0]\n\t" \
    "vpmuludq 224(%[m]), %[x3], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t1], %[t1]\n\t" \
    "vpmuludq 256(%[m]), %[x3], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t2], %[t2]\n\t" \
    "vpmuludq 0(%[m]), %[x3], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t3], %[t3]\n\t" \
    "vpmuludq 32(%[m]), %[x3], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t4], %[t4]\n\t" \
    "vpmuludq 160(%[m]), %[x4], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t0], %[t0]\n\t" \
    "vpmuludq 192(%[m]), %[x4], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t1], %[t1]\n\t" \
    "vpmuludq 224(%[m]), %[x4], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t2], %[t2]\n\t" \
    "vpmuludq 256(%[m]), %[x4], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t3], %[t3]\n\t" \
    "vpmuludq 0(%[m]), %[x4], %[" tmp "]\n\t" \
    "vpaddq %[" tmp "], %[t4], %[t4]\n\t"

// One step: x = x·m + the next group of four blocks, carried; the same
// arithmetic as carry(add(multiply(x, m), load_blocks(group))).
//
// Written in asm because GCC 12, given the intrinsics, keeps the nine
// multiplier vectors in registers and spills the products instead (85
// stores and reloads per two steps, a third slower). Here the multiplier
// and the constants stay in memory as operands, the five limbs of x plus
// six temporaries are all the registers a step needs, and the other
// accumulator keeps its five.
//
// The group is split into limbs first, straight into the sums, so each sum
// starts from the message and the products of x add onto it; then the
// carry of carry() (two chains), its results landing in x again.
// Multiplier layout (see struct Multiplier): r0..r4 at 0..128, f1..f4
// (5·r_j) at 160..256.
STITCH_INLINE_AVX2_BMI2 void step(Lanes& x, const Multiplier& m, const uint8_t* group) {
    __m256i t0, t1, t2, t3, t4, t5;
    __asm__(
        // The group: lo = low halves of the four blocks, hi = high halves
        // (lane order 0, 2, 1, 3), then the five limbs into t0..t4.
        "vmovdqu 0(%[in]), %[t0]\n\t"
        "vmovdqu 32(%[in]), %[t1]\n\t"
        "vpunpckhqdq %[t1], %[t0], %[t5]\n\t"
        "vpunpcklqdq %[t1], %[t0], %[t4]\n\t"
        "vpand 0(%[k]), %[t4], %[t0]\n\t"
        "vpsrlq $26, %[t4], %[t1]\n\t"
        "vpand 0(%[k]), %[t1], %[t1]\n\t"
        "vpsrlq $52, %[t4], %[t2]\n\t"
        "vpsllq $12, %[t5], %[t3]\n\t"
        "vpor %[t3], %[t2], %[t2]\n\t"
        "vpand 0(%[k]), %[t2], %[t2]\n\t"
        "vpsrlq $14, %[t5], %[t3]\n\t"
        "vpand 0(%[k]), %[t3], %[t3]\n\t"
        "vpsrlq $40, %[t5], %[t4]\n\t"
        "vpor 32(%[k]), %[t4], %[t4]\n\t"
        // t_j += sum of x_i·m_(j-i), with 5·m where j - i < 0.
        STITCH_POLY_PRODUCTS("t5")
        // The carry of carry(): 0→1 and 3→4, then 1→2 and 4→0 (times 5),
        // then 2→3 and 0→1, then 3→4; x0..x4 are free as temporaries now.
        "vpsrlq $26, %[t0], %[x1]\n\t"
        "vpsrlq $26, %[t3], %[x4]\n\t"
        "vpand 0(%[k]), %[t0], %[t0]\n\t"
        "vpand 0(%[k]), %[t3], %[t3]\n\t"
        "vpaddq %[x1], %[t1], %[t1]\n\t"
        "vpaddq %[x4], %[t4], %[t4]\n\t"
        "vpsrlq $26, %[t1], %[x1]\n\t"
        "vpsrlq $26, %[t4], %[x4]\n\t"
        "vpand 0(%[k]), %[t1], %[t1]\n\t"
        "vpand 0(%[k]), %[t4], %[t4]\n\t"
        "vpaddq %[x1], %[t2], %[t2]\n\t"
        "vpsllq $2, %[x4], %[x0]\n\t"
        "vpaddq %[x0], %[x4], %[x4]\n\t"
        "vpaddq %[x4], %[t0], %[t0]\n\t"
        "vpsrlq $26, %[t2], %[t5]\n\t"
        "vpand 0(%[k]), %[t2], %[x2]\n\t"
        "vpaddq %[t5], %[t3], %[t3]\n\t"
        "vpsrlq $26, %[t0], %[t5]\n\t"
        "vpand 0(%[k]), %[t0], %[x0]\n\t"
        "vpaddq %[t5], %[t1], %[x1]\n\t"
        "vpsrlq $26, %[t3], %[t5]\n\t"
        "vpand 0(%[k]), %[t3], %[x3]\n\t"
        "vpaddq %[t5], %[t4], %[x4]"
        : [x0] "+x"(x.l0), [x1] "+x"(x.l1), [x2] "+x"(x.l2), [x3] "+x"(x.l3), [x4] "+x"(x.l4), [t0] "=&x"(t0),
          [t1] "=&x"(t1), [t2] "=&x"(t2), [t3] "=&x"(t3), [t4] "=&x"(t4), [t5] "=&x"(t5)
        : [m] "r"(&m), [in] "r"(group), [k] "r"(&kStep), "m"(m),
          "m"(*reinterpret_cast<const uint8_t(*)[4 * kPolyBlock]>(group)), "m"(kStep));
}

// t += x·m, not carried: the products of a step without its group and its
// carry, for the set-up's r^5..r^8 and the last multiply. Also asm, for the
// reason step() is: given intrinsics, GCC 12 kept m's nine vectors in
// registers and spilled the products and the accumulators (about 50 ymm
// stores and reloads in the last multiply, 15 in the set-up's). Here m
// stays in memory as operands, so x, t and one temporary are all the
// registers it takes, and the last multiply keeps both accumulators and
// the sum in registers. With x limbs < 2^27.4 and 5·m_j < 2^28.7, each call
// adds less than 2^58.5 to a limb.
STITCH_INLINE_AVX2_BMI2 void multiply_add(Lanes& t, const Lanes& x, const Multiplier& m) {
    __m256i p;
    __asm__(STITCH_POLY_PRODUCTS("p")
        : [t0] "+x"(t.l0), [t1] "+x"(t.l1), [t2] "+x"(t.l2), [t3] "+x"(t.l3), [t4] "+x"(t.l4), [p] "=&x"(p)
        : [x0] "x"(x.l0), [x1] "x"(x.l1), [x2] "x"(x.l2), [x3] "x"(x.l3), [x4] "x"(x.l4), [m] "r"(&m), "m"(m));
}

#undef STITCH_POLY_PRODUCTS

STITCH_INLINE_AVX2_BMI2 Lanes zero_lanes() {
    const __m256i z = _mm256_setzero_si256();
    return Lanes{z, z, z, z, z};
}

STITCH_INLINE_AVX2_BMI2 uint64_t lane_sum(__m256i v) {
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
    return uint64_t(_mm_cvtsi128_si64(s));
}

// The multipliers of a call: r^8 in every lane for the steps, and the two
// last multiplies in load_blocks' lane order (positions 0, 2, 1, 3 of a
// group): `near` = (r^4, r^2, r^3, r^1) for the last group, `far` = (r^8,
// r^6, r^7, r^5) for the one before it. They live in memory, as step()
// and multiply_add() take them.
struct Multipliers {
    Multiplier step, near, far;
};

// r^2..r^4 by the scalar MULX multiply (r^k for k >= 2 is not clamped, so it
// can only be the left operand of mulx::multiply, whose right operand needs
// r1 % 4 == 0), then r^5..r^8 as one vector multiply (r^4, r^4, r^4, r^4) ·
// (r, r^2, r^3, r^4), with r^4's multiplier parked in `step` until r^8's
// replaces it. Only the key comes in. The scalar powers are register
// values, not wiped objects: a wipe_object needs its object in memory, and
// that copy cost a store-forwarding stall (g++ 12 copied the key through
// 16-byte loads that spanned its 8-byte stores). On Zen 4 a 20-block call
// took 334 cycles with the wipes of this copy and of the caller's
// accumulator, 273 without (g++ 12; clang 14 332 -> 251). What the
// compiler spills is its own (g++ 12 puts r^2's limbs in the red zone).
STITCH_INLINE_AVX2_BMI2 Lanes low_powers(uint64_t r0, uint64_t r1, uint64_t s1) {
    mulx::PolyAcc a{r0, r1, 0, r0, r1, s1};
    const Base26 p1 = to_base26(a.h0, a.h1, a.h2);
    mulx::reduce(a, mulx::multiply(a));  // each leaves h2 <= 4
    const Base26 p2 = to_base26(a.h0, a.h1, a.h2);
    mulx::reduce(a, mulx::multiply(a));
    const Base26 p3 = to_base26(a.h0, a.h1, a.h2);
    mulx::reduce(a, mulx::multiply(a));
    const Base26 p4 = to_base26(a.h0, a.h1, a.h2);
    return lanes_of(p1, p2, p3, p4);  // (r, r^2, r^3, r^4)
}

// Lane order (3, 1, 2, 0) of a group's owed powers: r^(k+4), r^(k+2),
// r^(k+3), r^(k+1), for the unpacked blocks' positions 0, 2, 1, 3.
constexpr int kPositions = 3 | (1 << 2) | (2 << 4) | (0 << 6);

STITCH_INLINE_AVX2_BMI2 void set_multipliers(Multipliers& m, uint64_t r0, uint64_t r1, uint64_t s1) {
    const Lanes low = low_powers(r0, r1, s1);
    m.step = multiplier(permute<0xff>(low));
    Lanes high = zero_lanes();
    multiply_add(high, low, m.step);
    high = carry(high);  // (r^5, r^6, r^7, r^8)
    m.step = multiplier(permute<0xff>(high));
    m.near = multiplier(permute<kPositions>(low));
    m.far = multiplier(permute<kPositions>(high));
}

// Zeroes the powers with straight-line ymm stores at fixed offsets. A
// wipe() of this size loops, and a plain loop here becomes a memset call
// (clang 14) or stays a loop (g++ 12) whose pointer, hidden from the
// optimiser by an empty asm at each step, put every store's address on one
// serial chain: on Zen 4, g++ 12, a 4-block call went from 205 to 186
// cycles, 20 blocks from 273 to 266. The empty asm after each store makes
// it observable, as in wipe(), so it is neither removed nor merged.
template <class M>
STITCH_INLINE_AVX2_BMI2 void wipe_multipliers(M& m) {
    static_assert(sizeof(M) % sizeof(__m256i) == 0);
    __m256i* v = reinterpret_cast<__m256i*>(&m);
    const __m256i zero = _mm256_setzero_si256();
#pragma GCC unroll 32
    for (size_t i = 0; i < sizeof(M) / sizeof(__m256i); ++i) {
        _mm256_store_si256(v + i, zero);
        __asm__ __volatile__("" : : "r"(v + i) : "memory");
    }
}

STITCH_INLINE_AVX2_BMI2 void finish(mulx::PolyAcc& acc, const Lanes& d);

// The first group of four blocks with h in lane 0, the lane of the first
// block (position 0): both forms start an accumulator from it.
STITCH_INLINE_AVX2_BMI2 Lanes first_group(const mulx::PolyAcc& acc, const uint8_t* in) {
    const Base26 h = to_base26(acc.h0, acc.h1, acc.h2);
    const Base26 zero{0, 0, 0, 0, 0};
    return add(lanes_of(h, zero, zero, zero), load_blocks(in));
}

// h and `groups` (at least one) groups of four blocks, as the two
// accumulators A and B (see the top of this file): group g goes to A when
// g is even, to B when odd, and h joins lane 0 of A, the lane of the first
// block (position 0). Both stay in registers; the steps alternate between
// them, so one waits while the other works. Leaves the new h in acc.
STITCH_INLINE_AVX2_BMI2 void run(mulx::PolyAcc& acc, const Multipliers& m, const uint8_t* in, size_t groups) {
    constexpr size_t kGroup = 4 * kPolyBlock;
    Lanes a = first_group(acc, in);
    Lanes b = zero_lanes();
    size_t g = 1;
    in += kGroup;
    if (g < groups) {
        b = load_blocks(in);
        ++g, in += kGroup;
    }
    for (; g + 1 < groups; g += 2, in += 2 * kGroup) {
        step(a, m.step, in);
        step(b, m.step, in + kGroup);
    }
    if (g < groups) step(a, m.step, in);

    // What each lane still owes: with an odd count A took the last group, so
    // its lanes owe r^4..r^1 and B's (zero when there is one group) r^8..r^5;
    // with an even count the other way round. The choice depends on the
    // length only.
    Lanes d = zero_lanes();
    const bool odd = groups % 2;
    multiply_add(d, a, odd ? m.near : m.far);
    multiply_add(d, b, odd ? m.far : m.near);
    finish(acc, d);
}

// One accumulator, OpenSSL's shape: r^4 in every lane for the steps, one
// last multiply by (r^4, r^2, r^3, r) in load_blocks' lane order, so only
// r..r^4 and two multipliers. Its steps form one chain (a group takes a
// step's latency, not half of it), but the set-up skips r^5..r^8 and the
// last multiply is one, not two: the AVX2 set runs it for a few groups where
// a CPU rule says so (avx2/tuning.hpp).
struct NearMultipliers {
    Multiplier step, near;
};

STITCH_INLINE_AVX2_BMI2 void run_one(mulx::PolyAcc& acc, NearMultipliers& m, const uint8_t* in, size_t groups) {
    constexpr size_t kGroup = 4 * kPolyBlock;
    const Lanes low = low_powers(acc.r0, acc.r1, acc.s1);
    m.step = multiplier(permute<0xff>(low));
    m.near = multiplier(permute<kPositions>(low));
    Lanes a = first_group(acc, in);
    for (size_t g = 1; g < groups; ++g) step(a, m.step, in + g * kGroup);
    Lanes d = zero_lanes();
    multiply_add(d, a, m.near);
    finish(acc, d);
}

// The four lanes' sum of d, carried, into acc's h in 64-bit limbs.
STITCH_INLINE_AVX2_BMI2 void finish(mulx::PolyAcc& acc, const Lanes& d) {
    // Each lane < 2^59.5, so the four lanes add up in 64 bits.
    uint64_t s0 = lane_sum(d.l0), s1 = lane_sum(d.l1), s2 = lane_sum(d.l2), s3 = lane_sum(d.l3),
             s4 = lane_sum(d.l4);

    // One carry pass round the ring (sums < 2^61.5): afterwards limbs
    // 1..4 are < 2^26 and limb 0 < 2^38, so h < 2^130 + 2^38 and h2 <= 4,
    // the range the scalar blocks and poly1305_final take.
    s1 += s0 >> 26;
    s0 &= kMask26;
    s2 += s1 >> 26;
    s1 &= kMask26;
    s3 += s2 >> 26;
    s2 &= kMask26;
    s4 += s3 >> 26;
    s3 &= kMask26;
    s0 += (s4 >> 26) * 5;
    s4 &= kMask26;

    // Back to base 2^64, in 128-bit sums because limb 0 runs past 26 bits.
    u128 t = u128(s0) + (u128(s1) << 26) + (u128(s2) << 52) + (u128(s3) << 78);
    acc.h0 = uint64_t(t);
    t = (t >> 64) + (u128(s4) << 40);
    acc.h1 = uint64_t(t);
    acc.h2 = uint64_t(t >> 64);
}

// The first nblocks % 4 blocks go through MULX, so the vector part is
// whole groups and needs no partial-lane tail. The powers must not outlive
// the call in memory (nor in vector registers: see the end).
template <bool kOneAccumulator>
STITCH_INLINE_AVX2_BMI2 void vector_blocks(Poly1305State& st, const uint8_t* in, size_t nblocks) {
    mulx::PolyAcc acc = mulx::load(st);
    const size_t lead = nblocks % 4;
    mulx::blocks(acc, in, lead);
    if (nblocks >= 4) {
        if constexpr (kOneAccumulator) {
            NearMultipliers m;
            run_one(acc, m, in + lead * kPolyBlock, nblocks / 4);
            wipe_multipliers(m);
        } else {
            Multipliers m;
            set_multipliers(m, acc.r0, acc.r1, acc.s1);
            run(acc, m, in + lead * kPolyBlock, nblocks / 4);
            wipe_multipliers(m);
        }
    }
    mulx::store(st, acc);
    // acc is a register value, as in set_multipliers. Last, so that no r
    // power or h is left in a vector register: GCC may pass h through an
    // xmm register on its way to `st`.
    simd::U32x8::zero_registers();
}

}  // namespace

void poly1305_blocks_avx2_vector(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept {
    vector_blocks<false>(st, in, nblocks);
}

void poly1305_blocks_avx2_vector_one(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept {
    vector_blocks<true>(st, in, nblocks);
}

}  // namespace stitch::kern
