// Poly1305 (RFC 8439 §2.5.1) with AVX512-IFMA: one block per 64-bit lane
// (eight in a zmm, four in a ymm), in three limbs of 44, 44 and 42 bits, so
// that VPMADD52LUQ/HUQ form each partial product's low and high 52 bits and
// add them up in one instruction.
//
// Horner's rule regrouped: with L lanes, every step multiplies each lane by
// r^L and the last step lane j by r^(L-j) instead; the sum of the lanes is
// the new h. Long runs take sixteen blocks a step in two sets of eight lanes
// (A takes blocks 0..7 of each sixteen, B 8..15; r^16 for the steps, then
// r^(16-j) and r^(8-j)), because one step is a serial chain (IFMA takes four
// cycles on Zen 4, then a carry round): while one set waits the other
// works. Shorter runs take four lanes in a ymm: fewer powers of r to make
// first, and a shorter chain per step. The state arrives and leaves in
// Poly1305State's 64-bit limbs (h2 <= 7 in, h2 <= 4 out), so a run can
// start or end on any kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/x86/poly1305_mulx.hpp"
#include "kernels/isa_avx512.hpp"
#include "kernels/poly1305.hpp"

// GCC warns that a vector type's attributes are dropped when it is a
// template argument; they are not needed there (the types stay distinct).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace stitch::kern::STITCH_AVX512_NS::ifma {

inline constexpr uint64_t kMask44 = (uint64_t(1) << 44) - 1;
inline constexpr uint64_t kMask42 = (uint64_t(1) << 42) - 1;

// Lane-wise 64-bit arithmetic on a zmm (eight lanes) or a ymm (four), so
// the one step below serves both widths.
template <class V>
inline constexpr bool kZmm = std::is_same_v<V, __m512i>;

template <class V>
STITCH_INLINE_AVX512 V splat(uint64_t x) {
    if constexpr (kZmm<V>) return _mm512_set1_epi64(int64_t(x));
    else return _mm256_set1_epi64x(int64_t(x));
}
template <class V>
STITCH_INLINE_AVX512 V add64(V a, V b) {
    if constexpr (kZmm<V>) return _mm512_add_epi64(a, b);
    else return _mm256_add_epi64(a, b);
}
template <class V>
STITCH_INLINE_AVX512 V and64(V a, V b) {
    if constexpr (kZmm<V>) return _mm512_and_si512(a, b);
    else return _mm256_and_si256(a, b);
}
template <class V>
STITCH_INLINE_AVX512 V or64(V a, V b) {
    if constexpr (kZmm<V>) return _mm512_or_si512(a, b);
    else return _mm256_or_si256(a, b);
}
template <int N, class V>
STITCH_INLINE_AVX512 V shl64(V a) {
    if constexpr (kZmm<V>) return _mm512_slli_epi64(a, N);
    else return _mm256_slli_epi64(a, N);
}
template <int N, class V>
STITCH_INLINE_AVX512 V shr64(V a) {
    if constexpr (kZmm<V>) return _mm512_srli_epi64(a, N);
    else return _mm256_srli_epi64(a, N);
}
// acc + the low (high) 52 bits of a·b, per lane.
template <class V>
STITCH_INLINE_AVX512 V madd_lo(V acc, V a, V b) {
    if constexpr (kZmm<V>) return _mm512_madd52lo_epu64(acc, a, b);
    else return _mm256_madd52lo_epu64(acc, a, b);
}
template <class V>
STITCH_INLINE_AVX512 V madd_hi(V acc, V a, V b) {
    if constexpr (kZmm<V>) return _mm512_madd52hi_epu64(acc, a, b);
    else return _mm256_madd52hi_epu64(acc, a, b);
}

// Limbs of the lanes. Between steps each is below 2^45 (2^44 plus a small
// carry), well inside the 52 bits IFMA reads.
template <class V>
struct Lanes {
    V l0, l1, l2;
};

// A multiplier: its limbs, and 20 times limbs 1 and 2 for the products that
// land at 2^132 and above (2^132 = 4·2^130 ≡ 4·5 mod p).
template <class V>
struct Multiplier {
    V r0, r1, r2, t1, t2;
};

// A value below 2^131 (64-bit limbs, h2 <= 7) in 44-bit limbs.
struct Base44 {
    uint64_t l0, l1, l2;
};

STITCH_INLINE_AVX512 Base44 to_base44(uint64_t h0, uint64_t h1, uint64_t h2) {
    return Base44{h0 & kMask44, ((h0 >> 44) | (h1 << 20)) & kMask44, (h1 >> 24) | (h2 << 40)};
}

// x·5·2^K as (x << K+2) + (x << K). Written so, clang 14 folds the sum
// into one VPMULLQ, which on Intel Emerald Rapids takes 15-16 cycles
// against 2 for the shift and add (measured), on the serial chain of every
// step: POLY1305 of 16 KiB ran 5-10% longer from clang's build than from
// g++'s (December 2026; Zen 4's VPMULLQ takes 3). The empty asm, which
// emits nothing, hides the first shift from that fold (tests/scripts/
// test_machine_code.py checks that no VPMULLQ is left).
template <int K, class V>
STITCH_INLINE_AVX512 V times5_shl(V x) {
    V high = shl64<K + 2>(x);
#if !defined(STITCH_AVX512_EMULATED)
    __asm__("" : "+v"(high));
#endif
    return add64(high, shl64<K>(x));
}

template <class V>
STITCH_INLINE_AVX512 V times20(V x) { return times5_shl<2>(x); }

// 16-byte blocks as 44/44/42-bit limbs with the 2^128 bit of each set,
// from the low and high halves of the blocks.
template <class V>
STITCH_INLINE_AVX512 Lanes<V> split_blocks(V lo, V hi) {
    const V mask44 = splat<V>(kMask44);
    return Lanes<V>{and64(lo, mask44), and64(or64(shr64<44>(lo), shl64<20>(hi)), mask44),
                    or64(shr64<24>(hi), splat<V>(uint64_t(1) << 40))};
}

// Eight blocks, one per lane, in order. Each 64 bytes loaded once, as clang
// 14 does by itself: with g++ the empty asm keeps a and b in registers for
// both permutes. Without it g++ 12 loaded each twice (a plain load, then
// the permutes' memory operand), and where the text was not 64-byte aligned
// POLY1305 of 16-64 KiB took 6% longer than aligned; with it 1%, and
// aligned 1.5% quicker. In clang's build the same asm cost 1.5-2% where
// unaligned (Emerald Rapids, 2026-12-06).
STITCH_INLINE_AVX512 Lanes<__m512i> load8(const uint8_t* m) {
    __m512i a = _mm512_loadu_si512(m), b = _mm512_loadu_si512(m + 64);
#if !defined(STITCH_AVX512_EMULATED) && !defined(__clang__)
    __asm__("" : "+v"(a), "+v"(b));
#endif
    return split_blocks(_mm512_permutex2var_epi64(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b),
                        _mm512_permutex2var_epi64(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b));
}

// Four blocks, in lanes 0, 2, 1, 3 (one unpack per half; the last step's
// powers are laid out to match).
STITCH_INLINE_AVX512 Lanes<__m256i> load4(const uint8_t* m) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + 32));
    return split_blocks(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
}

// Which limb's products a step takes first. The carry round below finishes
// limb 1 first (masked once its carry is out), then limb 2, then limb 0
// (which waits for the fold from 2^130), so in limb order each step's
// first IFMAs wait for the previous step's last op; in the carry round's
// order they start while it is still running. The same instructions
// either way. Measured on Zen 5 (December 2026): POLY1305 of 256 B-16 KiB
// 0-13% quicker in the carry order from both compilers, no size slower
// with two sets of four ymm lanes up to 191 blocks; with the zmm sets from
// 32 blocks (Zen 5's width since), 512 B 1-3% slower, 1.5-4 KiB 2-6%
// quicker. On Zen 4 an order from limb 1 was measured mixed (3-4% quicker
// at 192-320 B, 4-6% slower at 512 B-4 KiB). So the CPU table chooses
// (avx512/set.cpp's ifma_carry_order): the carry order on Zen 5, limb
// order elsewhere. The powers of r are made with limb order: their
// multiplies' inputs are all ready at once.
enum class Order : uint8_t { limbs, carry };

// a·m mod 2^130 − 5, limbs back below 2^45. Each partial product of a
// 45-bit limb and a limb below 2^49 is below 2^94: IFMA gives its low 52
// bits and its high part (below 2^42) separately, and the high part of limb
// i weighs 2^(44i + 52) = 2^(44(i+1)) · 2^8; limb 2's lands at 2^140 ≡
// 5·2^10.
// The sums of multiply(): d_k the low 52 bits of the products landing in
// limb k, e_k the high parts.
template <class V>
struct Sums {
    V d0, d1, d2, e0, e1, e2;
};

// s += x·(m0, m1, m2): one limb of a times the multiplier's limbs that
// weigh it into limbs 0, 1 and 2.
template <class V>
STITCH_INLINE_AVX512 void add_products(Sums<V>& s, V x, V m0, V m1, V m2) {
    s.d0 = madd_lo(s.d0, x, m0);
    s.d1 = madd_lo(s.d1, x, m1);
    s.d2 = madd_lo(s.d2, x, m2);
    s.e0 = madd_hi(s.e0, x, m0);
    s.e1 = madd_hi(s.e1, x, m1);
    s.e2 = madd_hi(s.e2, x, m2);
}

template <Order O = Order::limbs, class V>
STITCH_INLINE_AVX512 Lanes<V> multiply(const Lanes<V>& a, const Multiplier<V>& m) {
    const V z = splat<V>(0);
    Sums<V> s{z, z, z, z, z, z};
    if constexpr (O == Order::limbs) {
        add_products(s, a.l0, m.r0, m.r1, m.r2);
        add_products(s, a.l1, m.t2, m.r0, m.r1);
        add_products(s, a.l2, m.t1, m.t2, m.r0);
    } else {
        add_products(s, a.l1, m.t2, m.r0, m.r1);
        add_products(s, a.l2, m.t1, m.t2, m.r0);
        add_products(s, a.l0, m.r0, m.r1, m.r2);
    }
    V d0 = s.d0, d1 = s.d1, d2 = s.d2;
    const V e0 = s.e0, e1 = s.e1, e2 = s.e2;
    // Now d_i < 3·2^52, e_i < 3·2^42.
    d1 = add64(d1, shl64<8>(e0));
    d2 = add64(d2, shl64<8>(e1));
    d0 = add64(d0, times5_shl<10>(e2));
    // One carry round: d0 -> d1 -> d2, and d2's bits from 2^130 back to d0
    // times 5.
    const V mask44 = splat<V>(kMask44);
    d1 = add64(d1, shr64<44>(d0));
    d0 = and64(d0, mask44);
    d2 = add64(d2, shr64<44>(d1));
    d1 = and64(d1, mask44);
    const V c = shr64<42>(d2);
    d2 = and64(d2, splat<V>(kMask42));
    d0 = add64(d0, times5_shl<0>(c));
    return Lanes<V>{d0, d1, d2};
}

// A multiplier from lanes of values (limbs below 2^45): 20·limb stays
// below 2^50, inside IFMA's 52 bits.
template <class V>
STITCH_INLINE_AVX512 Multiplier<V> multiplier(const Lanes<V>& v) {
    return Multiplier<V>{v.l0, v.l1, v.l2, times20(v.l1), times20(v.l2)};
}

template <class V>
STITCH_INLINE_AVX512 Lanes<V> add(const Lanes<V>& a, const Lanes<V>& b) {
    return Lanes<V>{add64(a.l0, b.l0), add64(a.l1, b.l1), add64(a.l2, b.l2)};
}

// --- the powers of r ---------------------------------------------------------

// r^1..r^4 from the clamped key with the MULX code (each power times the
// clamped r), in 44-bit limbs: r^(k+1) in lane k of each limb's ymm, and
// r^4 once more in general registers for the broadcasts. Each power's
// 64-bit limbs go into their lanes as soon as it is made, and the split
// into 44-bit limbs is done on the lanes. Split in general registers first,
// twelve limbs, g++ 12 kept some of them in stack slots until all four
// powers were made and read them back into the vectors, on the path every
// run waits for: POLY1305 of 128 / 192 B took 37 / 43 ns against clang 14's
// 31 / 38 (Zen 4, December 2026); now 34 / 40, clang's within 3%.
struct FirstPowers {
    Lanes<__m256i> v;
    Base44 r4;
};

// h's 64-bit limbs into lane Lane of three ymm.
template <int Lane>
STITCH_INLINE_AVX512 void put_lane(Lanes<__m256i>& v, const mulx::PolyAcc& h) {
    constexpr int k = 3 << (2 * Lane);  // the lane's two 32-bit halves
    v.l0 = _mm256_blend_epi32(v.l0, _mm256_set1_epi64x(int64_t(h.h0)), k);
    v.l1 = _mm256_blend_epi32(v.l1, _mm256_set1_epi64x(int64_t(h.h1)), k);
    v.l2 = _mm256_blend_epi32(v.l2, _mm256_set1_epi64x(int64_t(h.h2)), k);
}

STITCH_INLINE_AVX512 FirstPowers first_powers(const Poly1305State& st) {
    mulx::PolyAcc acc{st.r[0], st.r[1], 0, st.r[0], st.r[1], st.s1};  // h = r
    const __m256i z = _mm256_setzero_si256();
    Lanes<__m256i> h{z, z, z};  // 64-bit limbs
    put_lane<0>(h, acc);
    mulx::reduce(acc, mulx::multiply(acc));
    put_lane<1>(h, acc);
    mulx::reduce(acc, mulx::multiply(acc));
    put_lane<2>(h, acc);
    mulx::reduce(acc, mulx::multiply(acc));
    put_lane<3>(h, acc);
    // to_base44, lane-wise.
    const __m256i mask44 = splat<__m256i>(kMask44);
    const Lanes<__m256i> v{and64(h.l0, mask44), and64(or64(shr64<44>(h.l0), shl64<20>(h.l1)), mask44),
                           or64(shr64<24>(h.l1), shl64<40>(h.l2))};
    return FirstPowers{v, to_base44(acc.h0, acc.h1, acc.h2)};
}

// Lane i of the result is lane (Imm >> 2i) & 3 of v.
template <int Imm>
STITCH_INLINE_AVX512 Lanes<__m256i> permute(const Lanes<__m256i>& v) {
    return Lanes<__m256i>{_mm256_permute4x64_epi64(v.l0, Imm), _mm256_permute4x64_epi64(v.l1, Imm),
                          _mm256_permute4x64_epi64(v.l2, Imm)};
}

// r^4 in every lane.
STITCH_INLINE_AVX512 Lanes<__m256i> r4_everywhere(const FirstPowers& f) {
    return Lanes<__m256i>{splat<__m256i>(f.r4.l0), splat<__m256i>(f.r4.l1), splat<__m256i>(f.r4.l2)};
}

// (r^4, r^2, r^3, r^1), as load4 lays blocks 0..3 out.
STITCH_INLINE_AVX512 Lanes<__m256i> last_four(const FirstPowers& f) { return permute<0x27>(f.v); }

// A ymm run's powers: r^4 in every lane for the steps, and for the last
// (r^4, r^2, r^3, r^1), as load4 lays blocks 0..3 out.
struct Powers4 {
    Multiplier<__m256i> step, last;
};

STITCH_INLINE_AVX512 Powers4 powers4(const FirstPowers& f) {
    return Powers4{multiplier(r4_everywhere(f)), multiplier(last_four(f))};
}

STITCH_INLINE_AVX512 Lanes<__m512i> permute(const Lanes<__m512i>& v, __m512i index) {
    return Lanes<__m512i>{_mm512_permutexvar_epi64(index, v.l0), _mm512_permutexvar_epi64(index, v.l1),
                          _mm512_permutexvar_epi64(index, v.l2)};
}

// A run on two sets of lanes: r^(2L) in every lane for the steps, and for
// the last step r^(2L-j) on the first set and r^(L-j) on the second, for
// block j of each set's L (in the order the loads lay them out).
template <class V>
struct TwoSets {
    Multiplier<V> step, last_a, last_b;
};

// Two sets of four: r^5..r^8 are (r^1..r^4)·r^4; the steps take r^8, the
// last (r^8, r^6, r^7, r^5) and (r^4, r^2, r^3, r^1).
STITCH_INLINE_AVX512 TwoSets<__m256i> two_sets_of_four(const FirstPowers& f) {
    const Lanes<__m256i> r5_8 = multiply(f.v, multiplier(r4_everywhere(f)));
    return TwoSets<__m256i>{multiplier(permute<0xff>(r5_8)), multiplier(permute<0x27>(r5_8)),
                            multiplier(last_four(f))};
}

// Two sets of eight: (r^1..r^4, r^1..r^4)·r^4 gives r^5..r^8 on the upper
// lanes, and (r^1..r^8)·r^8 gives r^9..r^16. Measured on Zen 4: ~130
// cycles, against ~270 for sixteen serial MULX products.
STITCH_INLINE_AVX512 TwoSets<__m512i> two_sets_of_eight(const FirstPowers& f) {
    const Lanes<__m256i>& r1_4 = f.v;
    const Lanes<__m512i> low{_mm512_broadcast_i64x4(r1_4.l0), _mm512_broadcast_i64x4(r1_4.l1),
                             _mm512_broadcast_i64x4(r1_4.l2)};
    const Lanes<__m512i> high = multiply(low, multiplier(permute(low, splat<__m512i>(3))));
    const Lanes<__m512i> r1_8{_mm512_mask_blend_epi64(0xf0, low.l0, high.l0),
                              _mm512_mask_blend_epi64(0xf0, low.l1, high.l1),
                              _mm512_mask_blend_epi64(0xf0, low.l2, high.l2)};
    const Lanes<__m512i> r9_16 = multiply(r1_8, multiplier(permute(r1_8, splat<__m512i>(7))));
    const __m512i reverse = _mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    return TwoSets<__m512i>{multiplier(permute(r9_16, splat<__m512i>(7))), multiplier(permute(r9_16, reverse)),
                            multiplier(permute(r1_8, reverse))};
}

// --- runs --------------------------------------------------------------------

// h (64-bit limbs) in lane 0, zeros elsewhere: where a run starts. Each
// limb is read on its own (mulx::load): clang 14 read limb 2 of the 44-bit
// split, (h1 >> 24) | (h2 << 40), as one 8-byte load from byte 11 of h,
// across the two 8-byte stores poly1305_init or the MAC had just made, which
// the store queue cannot forward: on Zen 5 POLY1305 of 128, 192 and 256 B
// (a run of whole groups of four, no MULX head before it) took 14-28%
// longer than g++ 12's build (kernel, December 2026).
template <class V>
STITCH_INLINE_AVX512 Lanes<V> start(const Poly1305State& st) {
    const mulx::PolyAcc acc = mulx::load(st);
    const Base44 h = to_base44(acc.h0, acc.h1, acc.h2);
    if constexpr (kZmm<V>) {
        const __m512i z = _mm512_setzero_si512();
        return Lanes<V>{_mm512_mask_set1_epi64(z, 1, int64_t(h.l0)), _mm512_mask_set1_epi64(z, 1, int64_t(h.l1)),
                        _mm512_mask_set1_epi64(z, 1, int64_t(h.l2))};
    } else {
        return Lanes<V>{_mm256_setr_epi64x(int64_t(h.l0), 0, 0, 0), _mm256_setr_epi64x(int64_t(h.l1), 0, 0, 0),
                        _mm256_setr_epi64x(int64_t(h.l2), 0, 0, 0)};
    }
}

template <class V>
STITCH_INLINE_AVX512 uint64_t lane_sum(V v) {
    if constexpr (kZmm<V>) {
        return uint64_t(_mm512_reduce_add_epi64(v));
    } else {
        const __m128i x = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        return uint64_t(_mm_cvtsi128_si64(_mm_add_epi64(x, _mm_unpackhi_epi64(x, x))));
    }
}

// The sum of the lanes back into st.h, partially reduced (h2 <= 4).
template <class V>
STITCH_INLINE_AVX512 void finish(Poly1305State& st, const Lanes<V>& a) {
    uint64_t h0 = lane_sum(a.l0);  // each below 8·2^45
    uint64_t h1 = lane_sum(a.l1);
    uint64_t h2 = lane_sum(a.l2);
    // h0 + h1·2^44 + h2·2^88 in 64-bit limbs, and the bits from 2^130 up
    // (below 2^8) folded back times 5. One asm statement: from the same
    // lines in C++ (unsigned __int128) g++ 12 made a longer chain of SHLD,
    // ADC and register moves than clang 14, a few cycles more at the end
    // of every run (Zen 5, December 2026).
    uint64_t t0, t1;
    __asm__("movq %[h1], %[t0]\n\t"
            "shlq $44, %[t0]\n\t"             // h1·2^44, low limb
            "shrq $20, %[h1]\n\t"             //          high limb
            "movq %[h2], %[t1]\n\t"
            "shlq $24, %[t1]\n\t"             // h2·2^88, middle limb
            "shrq $40, %[h2]\n\t"             //          top limb
            "addq %[t0], %[h0]\n\t"
            "adcq %[t1], %[h1]\n\t"
            "adcq $0, %[h2]\n\t"              // bits 128 and up
            "movq %[h2], %[t0]\n\t"
            "shrq $2, %[t0]\n\t"
            "leaq (%[t0],%[t0],4), %[t0]\n\t"  // (bits 130 and up)·5
            "andq $3, %[h2]\n\t"
            "addq %[t0], %[h0]\n\t"
            "adcq $0, %[h1]\n\t"
            "adcq $0, %[h2]"
            : [h0] "+&r"(h0), [h1] "+&r"(h1), [h2] "+&r"(h2), [t0] "=&r"(t0), [t1] "=&r"(t1)
            :
            : "cc");
    st.h[0] = h0;
    st.h[1] = h1;
    st.h[2] = h2;
}

// h of st, then `groups` (>= 1) groups of four blocks absorbed on a ymm,
// back into st.h.
template <Order O>
STITCH_INLINE_AVX512 void absorb4(Poly1305State& st, const Powers4& pw, const uint8_t* m, size_t groups) {
    Lanes<__m256i> a = start<__m256i>(st);
    for (; groups > 1; --groups, m += 4 * kPolyBlock) a = multiply<O>(add(a, load4(m)), pw.step);
    finish(st, multiply<O>(add(a, load4(m)), pw.last));
}

template <class V>
STITCH_INLINE_AVX512 Lanes<V> load(const uint8_t* m) {
    if constexpr (kZmm<V>) return load8(m);
    else return load4(m);
}

// h of st, then `groups` (>= 1) groups of 2L blocks absorbed on two sets of
// L lanes, back into st.h.
template <Order O, class V>
STITCH_INLINE_AVX512 void absorb_two_sets(Poly1305State& st, const TwoSets<V>& pw, const uint8_t* m, size_t groups) {
    constexpr size_t kSet = (kZmm<V> ? 8 : 4) * kPolyBlock;
    Lanes<V> a = start<V>(st), b{splat<V>(0), splat<V>(0), splat<V>(0)};
    for (; groups > 1; --groups, m += 2 * kSet) {
        a = multiply<O>(add(a, load<V>(m)), pw.step);
        b = multiply<O>(add(b, load<V>(m + kSet)), pw.step);
    }
    a = multiply<O>(add(a, load<V>(m)), pw.last_a);
    b = multiply<O>(add(b, load<V>(m + kSet)), pw.last_b);
    finish(st, add(a, b));
}

}  // namespace stitch::kern::STITCH_AVX512_NS::ifma

#pragma GCC diagnostic pop
