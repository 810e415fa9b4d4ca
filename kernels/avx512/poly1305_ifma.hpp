// Poly1305 (RFC 8439 §2.5.1) with AVX512-IFMA: eight blocks a step, one per
// 64-bit lane, in three limbs of 44, 44 and 42 bits, so that VPMADD52LUQ/HUQ
// form each partial product's low and high 52 bits and add them up in one
// instruction.
//
// Horner's rule regrouped: sixteen blocks a step in two sets of lanes (A
// takes blocks 0..7 of each sixteen, B 8..15), every step multiplying each
// lane by r^16; the last step multiplies lane j of A by r^(16-j) and of B by
// r^(8-j) instead, and the sum of all lanes is the new h. Two sets, because
// one step is a serial chain (IFMA takes four cycles on Zen 4, then a carry
// round): while one waits the other works. The
// state arrives and leaves in Poly1305State's 64-bit limbs (h2 <= 7 in,
// h2 <= 4 out), so a run can start or end on any kernel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/avx2/poly1305_mulx.hpp"
#include "kernels/avx512/isa.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern::STITCH_AVX512_NS::ifma {

inline constexpr uint64_t kMask44 = (uint64_t(1) << 44) - 1;
inline constexpr uint64_t kMask42 = (uint64_t(1) << 42) - 1;

// Limbs of eight lanes. Between steps each is below 2^45 (2^44 plus a small
// carry), well inside the 52 bits IFMA reads.
struct Lanes {
    __m512i l0, l1, l2;
};

// A multiplier: its limbs, and 20 times limbs 1 and 2 for the products that
// land at 2^132 and above (2^132 = 4·2^130 ≡ 4·5 mod p).
struct Multiplier {
    __m512i r0, r1, r2, t1, t2;
};

// A value below 2^131 (64-bit limbs, h2 <= 7) in 44-bit limbs.
struct Base44 {
    uint64_t l0, l1, l2;
};

STITCH_INLINE_AVX512 Base44 to_base44(uint64_t h0, uint64_t h1, uint64_t h2) {
    return Base44{h0 & kMask44, ((h0 >> 44) | (h1 << 20)) & kMask44, (h1 >> 24) | (h2 << 40)};
}

STITCH_INLINE_AVX512 __m512i splat(uint64_t x) { return _mm512_set1_epi64(int64_t(x)); }

STITCH_INLINE_AVX512 __m512i times20(__m512i x) { return _mm512_add_epi64(_mm512_slli_epi64(x, 4), _mm512_slli_epi64(x, 2)); }

// Lane j holds the value of p[j].
STITCH_INLINE_AVX512 Multiplier multiplier(const Base44 p[8]) {
    const __m512i r0 = _mm512_setr_epi64(int64_t(p[0].l0), int64_t(p[1].l0), int64_t(p[2].l0), int64_t(p[3].l0),
                                         int64_t(p[4].l0), int64_t(p[5].l0), int64_t(p[6].l0), int64_t(p[7].l0));
    const __m512i r1 = _mm512_setr_epi64(int64_t(p[0].l1), int64_t(p[1].l1), int64_t(p[2].l1), int64_t(p[3].l1),
                                         int64_t(p[4].l1), int64_t(p[5].l1), int64_t(p[6].l1), int64_t(p[7].l1));
    const __m512i r2 = _mm512_setr_epi64(int64_t(p[0].l2), int64_t(p[1].l2), int64_t(p[2].l2), int64_t(p[3].l2),
                                         int64_t(p[4].l2), int64_t(p[5].l2), int64_t(p[6].l2), int64_t(p[7].l2));
    return Multiplier{r0, r1, r2, times20(r1), times20(r2)};
}

// Eight 16-byte blocks (one per lane, in order) as 44/44/42-bit limbs with
// the 2^128 bit of each block set.
STITCH_INLINE_AVX512 Lanes load_blocks(const uint8_t* m) {
    const __m512i a = _mm512_loadu_si512(m), b = _mm512_loadu_si512(m + 64);
    const __m512i lo = _mm512_permutex2var_epi64(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b);
    const __m512i hi = _mm512_permutex2var_epi64(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b);
    const __m512i mask44 = splat(kMask44);
    return Lanes{_mm512_and_si512(lo, mask44),
                 _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo, 44), _mm512_slli_epi64(hi, 20)), mask44),
                 _mm512_or_si512(_mm512_srli_epi64(hi, 24), splat(uint64_t(1) << 40))};
}

// a·m mod 2^130 − 5, limbs back below 2^45. Each partial product of a
// 45-bit limb and a limb below 2^49 is below 2^94: IFMA gives its low 52
// bits and its high part (below 2^42) separately, and the high part of limb
// i weighs 2^(44i + 52) = 2^(44(i+1)) · 2^8; limb 2's lands at 2^140 ≡
// 5·2^10.
STITCH_INLINE_AVX512 Lanes multiply(const Lanes& a, const Multiplier& m) {
    const __m512i z = _mm512_setzero_si512();
    __m512i d0 = _mm512_madd52lo_epu64(z, a.l0, m.r0);
    __m512i d1 = _mm512_madd52lo_epu64(z, a.l0, m.r1);
    __m512i d2 = _mm512_madd52lo_epu64(z, a.l0, m.r2);
    __m512i e0 = _mm512_madd52hi_epu64(z, a.l0, m.r0);
    __m512i e1 = _mm512_madd52hi_epu64(z, a.l0, m.r1);
    __m512i e2 = _mm512_madd52hi_epu64(z, a.l0, m.r2);
    d0 = _mm512_madd52lo_epu64(d0, a.l1, m.t2);
    d1 = _mm512_madd52lo_epu64(d1, a.l1, m.r0);
    d2 = _mm512_madd52lo_epu64(d2, a.l1, m.r1);
    e0 = _mm512_madd52hi_epu64(e0, a.l1, m.t2);
    e1 = _mm512_madd52hi_epu64(e1, a.l1, m.r0);
    e2 = _mm512_madd52hi_epu64(e2, a.l1, m.r1);
    d0 = _mm512_madd52lo_epu64(d0, a.l2, m.t1);
    d1 = _mm512_madd52lo_epu64(d1, a.l2, m.t2);
    d2 = _mm512_madd52lo_epu64(d2, a.l2, m.r0);
    e0 = _mm512_madd52hi_epu64(e0, a.l2, m.t1);
    e1 = _mm512_madd52hi_epu64(e1, a.l2, m.t2);
    e2 = _mm512_madd52hi_epu64(e2, a.l2, m.r0);
    // Now d_i < 3·2^52, e_i < 3·2^42.
    d1 = _mm512_add_epi64(d1, _mm512_slli_epi64(e0, 8));
    d2 = _mm512_add_epi64(d2, _mm512_slli_epi64(e1, 8));
    const __m512i f = _mm512_slli_epi64(e2, 10);
    d0 = _mm512_add_epi64(d0, _mm512_add_epi64(f, _mm512_slli_epi64(f, 2)));  // + 5·2^10·e2
    // One carry round: d0 -> d1 -> d2, and d2's bits from 2^130 back to d0
    // times 5.
    const __m512i mask44 = splat(kMask44);
    d1 = _mm512_add_epi64(d1, _mm512_srli_epi64(d0, 44));
    d0 = _mm512_and_si512(d0, mask44);
    d2 = _mm512_add_epi64(d2, _mm512_srli_epi64(d1, 44));
    d1 = _mm512_and_si512(d1, mask44);
    const __m512i c = _mm512_srli_epi64(d2, 42);
    d2 = _mm512_and_si512(d2, splat(kMask42));
    d0 = _mm512_add_epi64(d0, _mm512_add_epi64(c, _mm512_slli_epi64(c, 2)));
    return Lanes{d0, d1, d2};
}

// A multiplier from lanes of values (limbs below 2^45): 20·limb stays
// below 2^50, inside IFMA's 52 bits.
STITCH_INLINE_AVX512 Multiplier multiplier(const Lanes& v) {
    return Multiplier{v.l0, v.l1, v.l2, times20(v.l1), times20(v.l2)};
}

// Lane `lane` of v in every lane, or the lanes in reverse order.
STITCH_INLINE_AVX512 Lanes permute(const Lanes& v, __m512i index) {
    return Lanes{_mm512_permutexvar_epi64(index, v.l0), _mm512_permutexvar_epi64(index, v.l1),
                 _mm512_permutexvar_epi64(index, v.l2)};
}

// The powers a run needs, from the clamped key: r^16 in every lane for the
// steps, and for the last step (r^16, ..., r^9) on the first lanes and
// (r^8, ..., r^1) on the second.
struct Powers {
    Multiplier step, last_a, last_b;
};

// r^1..r^4 with the MULX code (each power times the clamped r), then two
// doublings on the lanes: (r^1..r^4, r^1..r^4)·r^4 gives r^5..r^8, and
// (r^1..r^8)·r^8 gives r^9..r^16. Measured on Zen 4: ~130 cycles, against
// ~270 for sixteen serial MULX products.
STITCH_INLINE_AVX512 Powers powers(const Poly1305State& st) {
    Base44 p[4];
    mulx::PolyAcc acc{st.r[0], st.r[1], 0, st.r[0], st.r[1], st.s1};  // h = r
    for (int k = 0; k < 4; ++k) {
        p[k] = to_base44(acc.h0, acc.h1, acc.h2);  // r^(k + 1)
        if (k < 3) mulx::reduce(acc, mulx::multiply(acc));
    }
    const Base44 twice[8] = {p[0], p[1], p[2], p[3], p[0], p[1], p[2], p[3]};
    const Multiplier m = multiplier(twice);
    const Lanes low{m.r0, m.r1, m.r2};  // r^1..r^4, twice
    const Lanes r4 = permute(low, splat(3));
    const Lanes high = multiply(low, multiplier(r4));  // lanes 4..7: r^5..r^8
    const Lanes r1_8{_mm512_mask_blend_epi64(0xf0, low.l0, high.l0), _mm512_mask_blend_epi64(0xf0, low.l1, high.l1),
                     _mm512_mask_blend_epi64(0xf0, low.l2, high.l2)};
    const Lanes r9_16 = multiply(r1_8, multiplier(permute(r1_8, splat(7))));
    const __m512i reverse = _mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    return Powers{multiplier(permute(r9_16, splat(7))), multiplier(permute(r9_16, reverse)),
                  multiplier(permute(r1_8, reverse))};
}

STITCH_INLINE_AVX512 Lanes add(const Lanes& a, const Lanes& b) {
    return Lanes{_mm512_add_epi64(a.l0, b.l0), _mm512_add_epi64(a.l1, b.l1), _mm512_add_epi64(a.l2, b.l2)};
}

STITCH_INLINE_AVX512 Lanes zero_lanes() {
    const __m512i z = _mm512_setzero_si512();
    return Lanes{z, z, z};
}

// h (64-bit limbs) in lane 0, zeros elsewhere: where a run starts.
STITCH_INLINE_AVX512 Lanes start(const Poly1305State& st) {
    const Base44 h = to_base44(st.h[0], st.h[1], st.h[2]);
    const __m512i z = _mm512_setzero_si512();
    return Lanes{_mm512_mask_set1_epi64(z, 1, int64_t(h.l0)), _mm512_mask_set1_epi64(z, 1, int64_t(h.l1)),
                 _mm512_mask_set1_epi64(z, 1, int64_t(h.l2))};
}

// The sum of the lanes back into st.h, partially reduced (h2 <= 4).
STITCH_INLINE_AVX512 void finish(Poly1305State& st, const Lanes& a) {
    using u128 = unsigned __int128;
    const uint64_t s0 = uint64_t(_mm512_reduce_add_epi64(a.l0));  // each below 8·2^45
    const uint64_t s1 = uint64_t(_mm512_reduce_add_epi64(a.l1));
    const uint64_t s2 = uint64_t(_mm512_reduce_add_epi64(a.l2));
    u128 t = u128(s0) + (u128(s1) << 44);
    const uint64_t h0 = uint64_t(t);
    t = (t >> 64) + (u128(s2) << 24);  // s2·2^88 = (s2·2^24)·2^64
    const uint64_t h1 = uint64_t(t);
    const uint64_t top = uint64_t(t >> 64);  // bits 128 and up: below 2^8
    // Fold from 2^130 up, times 5.
    const uint64_t c = (top >> 2) * 5;
    t = u128(h0) + c;
    st.h[0] = uint64_t(t);
    t = u128(h1) + uint64_t(t >> 64);
    st.h[1] = uint64_t(t);
    st.h[2] = (top & 3) + uint64_t(t >> 64);
}

// h of st, then `groups` (>= 1) groups of sixteen blocks absorbed, back
// into st.h.
STITCH_INLINE_AVX512 void absorb(Poly1305State& st, const Powers& pw, const uint8_t* m, size_t groups) {
    Lanes a = start(st), b = zero_lanes();
    for (; groups > 1; --groups, m += 16 * kPolyBlock) {
        a = multiply(add(a, load_blocks(m)), pw.step);
        b = multiply(add(b, load_blocks(m + 8 * kPolyBlock)), pw.step);
    }
    a = multiply(add(a, load_blocks(m)), pw.last_a);
    b = multiply(add(b, load_blocks(m + 8 * kPolyBlock)), pw.last_b);
    finish(st, add(a, b));
}

}  // namespace stitch::kern::STITCH_AVX512_NS::ifma
