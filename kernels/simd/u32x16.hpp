// Sixteen (zmm) or eight (ymm, AVX512VL) 32-bit lanes for the AVX-512
// ChaCha20 kernels: add, xor, and, rotations in one VPROLD, splat, loads and
// stores (whole, or masked to a byte count: a tail needs no byte loop), the
// transpose from word rows to blocks, and the word rotation of the row
// layout. Not a general SIMD type. Every member is inlined into its
// (target-attributed) caller; kernels/isa_avx512.hpp supplies the
// intrinsics, native or emulated.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/isa_avx512.hpp"

namespace stitch::kern::STITCH_AVX512_NS::simd {

template <size_t N>
struct RegisterOf;
template <>
struct RegisterOf<16> {
    using type = __m512i;
};
template <>
struct RegisterOf<8> {
    using type = __m256i;
};

template <size_t N>
class U32xN final {
public:
    using Reg = typename RegisterOf<N>::type;
    static constexpr size_t kLanes = N;
    static constexpr size_t kBytes = 4 * N;

    U32xN() = default;  // uninitialised, like the register it stands for
    STITCH_INLINE_AVX512 explicit U32xN(Reg v) : v_(v) {}
    STITCH_INLINE_AVX512 Reg raw() const { return v_; }

    STITCH_INLINE_AVX512 static U32xN splat(uint32_t w) {
        if constexpr (N == 16)
            return U32xN(_mm512_set1_epi32(int(w)));
        else
            return U32xN(_mm256_set1_epi32(int(w)));
    }
    STITCH_INLINE_AVX512 static U32xN zero() { return splat(0); }
    // Lane i holds i: the per-block counter offsets of a batch.
    STITCH_INLINE_AVX512 static U32xN iota() {
        if constexpr (N == 16)
            return U32xN(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
        else
            return U32xN(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }
    // Four words repeated in every 128-bit lane (a row of the row layout).
    STITCH_INLINE_AVX512 static U32xN row(const uint32_t w[4]) {
        if constexpr (N == 16)
            return U32xN(_mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w))));
        else
            return U32xN(_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w))));
    }

    STITCH_INLINE_AVX512 static U32xN load_le(const uint8_t* p) {
        if constexpr (N == 16)
            return U32xN(_mm512_loadu_si512(p));
        else
            return U32xN(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
    STITCH_INLINE_AVX512 void store_le(uint8_t* p) const {
        if constexpr (N == 16)
            _mm512_storeu_si512(p, v_);
        else
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v_);
    }
    // Bytes [0, n) from p, zeros above; n <= kBytes. Masked, so nothing past
    // p + n is read (a fault there is suppressed, not taken).
    STITCH_INLINE_AVX512 static U32xN load_le(const uint8_t* p, size_t n) {
        if constexpr (N == 16)
            return U32xN(_mm512_maskz_loadu_epi8(byte_mask(n), p));
        else
            return U32xN(_mm256_maskz_loadu_epi8(uint32_t(byte_mask(n)), p));
    }
    STITCH_INLINE_AVX512 void store_le(uint8_t* p, size_t n) const {
        if constexpr (N == 16)
            _mm512_mask_storeu_epi8(p, byte_mask(n), v_);
        else
            _mm256_mask_storeu_epi8(p, uint32_t(byte_mask(n)), v_);
    }

    STITCH_INLINE_AVX512 U32xN& operator+=(U32xN o) {
        if constexpr (N == 16)
            v_ = _mm512_add_epi32(v_, o.v_);
        else
            v_ = _mm256_add_epi32(v_, o.v_);
        return *this;
    }
    STITCH_INLINE_AVX512 U32xN& operator^=(U32xN o) {
        if constexpr (N == 16)
            v_ = _mm512_xor_si512(v_, o.v_);
        else
            v_ = _mm256_xor_si256(v_, o.v_);
        return *this;
    }
    STITCH_INLINE_AVX512 U32xN& operator&=(U32xN o) {
        if constexpr (N == 16)
            v_ = _mm512_and_si512(v_, o.v_);
        else
            v_ = _mm256_and_si256(v_, o.v_);
        return *this;
    }
    STITCH_INLINE_AVX512 friend U32xN operator+(U32xN a, U32xN b) { return a += b; }
    STITCH_INLINE_AVX512 friend U32xN operator^(U32xN a, U32xN b) { return a ^= b; }
    STITCH_INLINE_AVX512 friend U32xN operator&(U32xN a, U32xN b) { return a &= b; }

    // One VPROLD, whatever the count.
    template <int R>
    STITCH_INLINE_AVX512 U32xN rotl() const {
        static_assert(R > 0 && R < 32);
        if constexpr (N == 16)
            return U32xN(_mm512_rol_epi32(v_, R));
        else
            return U32xN(_mm256_rol_epi32(v_, R));
    }

    // Lanes where a < b as unsigned words hold 1, the others 0: the carry of
    // a lane's counter that wrapped.
    STITCH_INLINE_AVX512 static U32xN carry_if_below(U32xN a, U32xN b) {
        // a < b unsigned is the borrow out of a - b: bit 31 of
        // (~a & b) | (~(a ^ b) & (a - b)). Lane arithmetic only, no mask
        // compare: SIMDe emulates those with a branch per lane, which the
        // constant-time check over the emulated build would rightly report
        // (a counter is nonce-derived state). a - b as a + ~b + 1: SIMDe's
        // zmm subtraction is signed C arithmetic, undefined on a wrap.
        const U32xN diff = a + (b ^ splat(~0u)) + splat(1);
        if constexpr (N == 16)
            return U32xN(_mm512_srli_epi32(
                _mm512_or_si512(_mm512_andnot_si512(a.v_, b.v_),
                                _mm512_andnot_si512(_mm512_xor_si512(a.v_, b.v_), diff.v_)),
                31));
        else
            return U32xN(_mm256_srli_epi32(
                _mm256_or_si256(_mm256_andnot_si256(a.v_, b.v_),
                                _mm256_andnot_si256(_mm256_xor_si256(a.v_, b.v_), diff.v_)),
                31));
    }

    // Within each 128-bit lane, word i moves to word (i - R) mod 4: the
    // diagonal step of the row layout.
    template <int R>
    STITCH_INLINE_AVX512 U32xN rotate_words() const {
        static_assert(R > 0 && R < 4);
        constexpr int imm = ((R + 0) & 3) | ((R + 1) & 3) << 2 | ((R + 2) & 3) << 4 | ((R + 3) & 3) << 6;
        if constexpr (N == 16)
            return U32xN(_mm512_shuffle_epi32(v_, _MM_PERM_ENUM(imm)));
        else
            return U32xN(_mm256_shuffle_epi32(v_, imm));
    }

    // All-ones in bytes [0, n), n <= 64.
    STITCH_INLINE_AVX512 static uint64_t byte_mask(size_t n) {
        return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
    }

private:
    Reg v_;
};

using U32x16 = U32xN<16>;
using U32x8 = U32xN<8>;

template <int R, size_t N>
STITCH_INLINE_AVX512 U32xN<N> rotl(U32xN<N> v) {
    return v.template rotl<R>();
}

// Word rows to blocks. x[w] holds word w of N blocks (one per lane); after,
// x[2b], x[2b + 1]... see each width: the blocks come out whole, in order,
// as block_bytes(x, b) reads them.
//
// zmm: a 4x4 word transpose inside each 128-bit lane turns each group of
// four word rows into (block 4L + k, words of the group) in lane L of
// register k; a 4x4 transpose of 128-bit lanes across the four groups
// (two rounds of VSHUFI32X4) then puts block 4L + k whole in one register.
// 64 shuffles for 16 blocks, no memory.
STITCH_INLINE_AVX512 void transpose(U32x16 x[16]) {
    __m512i t[16];
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) {  // words 4g..4g+3
        const __m512i a = x[4 * g].raw(), b = x[4 * g + 1].raw(), c = x[4 * g + 2].raw(), d = x[4 * g + 3].raw();
        const __m512i ab0 = _mm512_unpacklo_epi32(a, b), ab1 = _mm512_unpackhi_epi32(a, b);
        const __m512i cd0 = _mm512_unpacklo_epi32(c, d), cd1 = _mm512_unpackhi_epi32(c, d);
        t[4 * g + 0] = _mm512_unpacklo_epi64(ab0, cd0);  // lane L: block 4L + 0
        t[4 * g + 1] = _mm512_unpackhi_epi64(ab0, cd0);  // block 4L + 1
        t[4 * g + 2] = _mm512_unpacklo_epi64(ab1, cd1);  // block 4L + 2
        t[4 * g + 3] = _mm512_unpackhi_epi64(ab1, cd1);  // block 4L + 3
    }
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
        const __m512i g0 = t[k], g1 = t[4 + k], g2 = t[8 + k], g3 = t[12 + k];
        const __m512i u0 = _mm512_shuffle_i32x4(g0, g1, 0x44), u1 = _mm512_shuffle_i32x4(g0, g1, 0xee);
        const __m512i u2 = _mm512_shuffle_i32x4(g2, g3, 0x44), u3 = _mm512_shuffle_i32x4(g2, g3, 0xee);
        x[k] = U32x16(_mm512_shuffle_i32x4(u0, u2, 0x88));       // block k
        x[4 + k] = U32x16(_mm512_shuffle_i32x4(u0, u2, 0xdd));   // block 4 + k
        x[8 + k] = U32x16(_mm512_shuffle_i32x4(u1, u3, 0x88));   // block 8 + k
        x[12 + k] = U32x16(_mm512_shuffle_i32x4(u1, u3, 0xdd));  // block 12 + k
    }
}

// ymm: the same two steps on eight blocks; afterwards x[b] holds bytes
// 0..31 of block b and x[8 + b] bytes 32..63.
STITCH_INLINE_AVX512 void transpose(U32x8 x[16]) {
    __m256i t[16];
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) {
        const __m256i a = x[4 * g].raw(), b = x[4 * g + 1].raw(), c = x[4 * g + 2].raw(), d = x[4 * g + 3].raw();
        const __m256i ab0 = _mm256_unpacklo_epi32(a, b), ab1 = _mm256_unpackhi_epi32(a, b);
        const __m256i cd0 = _mm256_unpacklo_epi32(c, d), cd1 = _mm256_unpackhi_epi32(c, d);
        t[4 * g + 0] = _mm256_unpacklo_epi64(ab0, cd0);  // lane L: block 4L + 0, words 4g..4g+3
        t[4 * g + 1] = _mm256_unpackhi_epi64(ab0, cd0);
        t[4 * g + 2] = _mm256_unpacklo_epi64(ab1, cd1);
        t[4 * g + 3] = _mm256_unpackhi_epi64(ab1, cd1);
    }
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
        // Block k: lane 0 of t[k], t[4+k] (words 0..7), then of t[8+k], t[12+k].
        x[k] = U32x8(_mm256_permute2x128_si256(t[k], t[4 + k], 0x20));
        x[8 + k] = U32x8(_mm256_permute2x128_si256(t[8 + k], t[12 + k], 0x20));
        x[4 + k] = U32x8(_mm256_permute2x128_si256(t[k], t[4 + k], 0x31));
        x[12 + k] = U32x8(_mm256_permute2x128_si256(t[8 + k], t[12 + k], 0x31));
    }
}

}  // namespace stitch::kern::STITCH_AVX512_NS::simd
