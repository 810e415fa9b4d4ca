// Eight 32-bit lanes in one ymm register, with only what the ChaCha20 kernels
// need: add, xor (and the AND of a refusal mask), the four rotations, splat,
// little-endian load/store, the 8x8 transpose and word rotations of the two
// layouts, and the register wipe. Not a general SIMD type. Only AVX2 code
// includes it; every member is inlined into its (target-attributed) caller.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "kernels/isa.hpp"
#include "kernels/x86/zero_vectors.hpp"

namespace stitch::kern::simd {

class U32x8 final {
public:
    U32x8() = default;  // uninitialised, like the register it stands for
    STITCH_INLINE_AVX2_BMI2 explicit U32x8(__m256i v) : v_(v) {}
    STITCH_INLINE_AVX2_BMI2 __m256i raw() const { return v_; }  // for asm operands (avx2/batch_rounds.hpp)

    STITCH_INLINE_AVX2_BMI2 static U32x8 splat(uint32_t w) { return U32x8(_mm256_set1_epi32(int(w))); }
    // Lane i holds i: the per-block counter offsets of an eight-block batch.
    STITCH_INLINE_AVX2_BMI2 static U32x8 iota() { return U32x8(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }

    STITCH_INLINE_AVX2_BMI2 static U32x8 load_le(const uint8_t* p) {
        return U32x8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
    STITCH_INLINE_AVX2_BMI2 void store_le(uint8_t* p) const { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v_); }

    STITCH_INLINE_AVX2_BMI2 U32x8& operator+=(U32x8 o) {
        v_ = _mm256_add_epi32(v_, o.v_);
        return *this;
    }
    STITCH_INLINE_AVX2_BMI2 U32x8& operator-=(U32x8 o) {
        v_ = _mm256_sub_epi32(v_, o.v_);
        return *this;
    }
    STITCH_INLINE_AVX2_BMI2 U32x8& operator^=(U32x8 o) {
        v_ = _mm256_xor_si256(v_, o.v_);
        return *this;
    }
    STITCH_INLINE_AVX2_BMI2 U32x8& operator&=(U32x8 o) {
        v_ = _mm256_and_si256(v_, o.v_);
        return *this;
    }
    STITCH_INLINE_AVX2_BMI2 friend U32x8 operator+(U32x8 a, U32x8 b) { return a += b; }
    STITCH_INLINE_AVX2_BMI2 friend U32x8 operator-(U32x8 a, U32x8 b) { return a -= b; }
    STITCH_INLINE_AVX2_BMI2 friend U32x8 operator&(U32x8 a, U32x8 b) { return a &= b; }
    STITCH_INLINE_AVX2_BMI2 friend U32x8 operator^(U32x8 a, U32x8 b) { return a ^= b; }

    // All ones in lanes where a < b as unsigned words: flipping the sign bits
    // turns AVX2's signed compare into an unsigned one.
    STITCH_INLINE_AVX2_BMI2 static U32x8 unsigned_lt(U32x8 a, U32x8 b) {
        const __m256i sign = _mm256_set1_epi32(int(0x80000000u));
        return U32x8(_mm256_cmpgt_epi32(_mm256_xor_si256(b.v_, sign), _mm256_xor_si256(a.v_, sign)));
    }

    // Rotations by whole bytes are one VPSHUFB against a constant; the rest
    // are two shifts and an OR (AVX2 has no vector rotate).
    template <int N>
    STITCH_INLINE_AVX2_BMI2 U32x8 rotl() const {
        static_assert(N > 0 && N < 32);
        if constexpr (N == 16) {
            const __m256i m = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,  //
                                               2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
            return U32x8(_mm256_shuffle_epi8(v_, m));
        } else if constexpr (N == 8) {
            const __m256i m = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,  //
                                               3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
            return U32x8(_mm256_shuffle_epi8(v_, m));
        } else {
            return U32x8(_mm256_or_si256(_mm256_slli_epi32(v_, N), _mm256_srli_epi32(v_, 32 - N)));
        }
    }

    // Within each 128-bit half, word i moves to word (i - N) mod 4: the
    // diagonal step of ChaCha20 on rows of two blocks.
    template <int N>
    STITCH_INLINE_AVX2_BMI2 U32x8 rotate_words() const {
        static_assert(N > 0 && N < 4);
        constexpr int imm = ((N + 0) & 3) | ((N + 1) & 3) << 2 | ((N + 2) & 3) << 4 | ((N + 3) & 3) << 6;
        return U32x8(_mm256_shuffle_epi32(v_, imm));
    }

    // Two 128-bit halves: lo = (a.lo, b.lo) for Hi = false, (a.hi, b.hi) for Hi = true.
    template <bool Hi>
    STITCH_INLINE_AVX2_BMI2 static U32x8 halves(U32x8 a, U32x8 b) {
        return U32x8(_mm256_permute2x128_si256(a.v_, b.v_, Hi ? 0x31 : 0x20));
    }

    // Words p[0..4) in both halves: one row of the row layout for two blocks.
    STITCH_INLINE_AVX2_BMI2 static U32x8 both_halves(const uint32_t* p) {
        return U32x8(_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    }
    // Words lo[0..4) in the low half and hi[0..4) in the high one: a row of
    // two blocks under different keys.
    STITCH_INLINE_AVX2_BMI2 static U32x8 two_halves(const uint32_t* lo, const uint32_t* hi) {
        const __m128i l = _mm_loadu_si128(reinterpret_cast<const __m128i*>(lo));
        return U32x8(_mm256_inserti128_si256(_mm256_castsi128_si256(l),
                                             _mm_loadu_si128(reinterpret_cast<const __m128i*>(hi)), 1));
    }
    // Adds lo to the 64-bit number in words 0..1 and hi to the one in words
    // 4..5 (little-endian, the carry staying inside each): the row layout's
    // counters, two blocks apart.
    STITCH_INLINE_AVX2_BMI2 U32x8 plus_u64(uint64_t lo, uint64_t hi) const {
        return U32x8(_mm256_add_epi64(v_, _mm256_setr_epi64x(int64_t(lo), 0, int64_t(hi), 0)));
    }

    STITCH_INLINE_AVX2_BMI2 static U32x8 words(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, uint32_t w4,
                                               uint32_t w5, uint32_t w6, uint32_t w7) {
        return U32x8(_mm256_setr_epi32(int(w0), int(w1), int(w2), int(w3), int(w4), int(w5), int(w6), int(w7)));
    }

    // Rows r[0..8) become columns: afterwards r[i] holds lane i of every input
    // row, in row order. Three rounds of unpacks and lane swaps.
    STITCH_INLINE_AVX2_BMI2 static void transpose8(U32x8 r[8]) {
        __m256i t[8], u[8];
#pragma GCC unroll 4
        for (int i = 0; i < 8; i += 2) {
            t[i] = _mm256_unpacklo_epi32(r[i].v_, r[i + 1].v_);
            t[i + 1] = _mm256_unpackhi_epi32(r[i].v_, r[i + 1].v_);
        }
#pragma GCC unroll 2
        for (int i = 0; i < 8; i += 4) {
            u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);
            u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
            u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
            u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
        }
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
            r[i] = U32x8(_mm256_permute2x128_si256(u[i], u[i + 4], 0x20));
            r[i + 4] = U32x8(_mm256_permute2x128_si256(u[i], u[i + 4], 0x31));
        }
    }

    // Zeroes N registers' worth of memory at p (32-byte aligned): N stores
    // straight, where bytes.hpp's wipe takes 16 bytes a step (~500
    // instructions a 512-byte seal on its frames, measured). The empty asm
    // makes the stores observable, so none is dropped as dead.
    template <size_t N>
    STITCH_INLINE_AVX2_BMI2 static void wipe(U32x8* p) {
        const __m256i zero = _mm256_setzero_si256();
#pragma GCC unroll 32
        for (size_t i = 0; i < N; ++i) _mm256_store_si256(&p[i].v_, zero);
        __asm__ __volatile__("" : : "r"(p) : "memory");
    }

    // Clears every ymm register: no key or keystream stays behind when a
    // kernel returns, and the upper halves are clean for SSE code after us
    // (x86/zero_vectors.hpp says how, and why not VZEROALL).
    STITCH_INLINE_AVX2_BMI2 static void zero_registers() {
        __asm__ __volatile__(STITCH_ZERO_XMM0_TO_15 ::: STITCH_XMM0_TO_15_CLOBBERS);
    }

    // At kernel entry: marks the upper halves clean whatever ran before
    // (libc's AVX-512 string and copy routines run between our calls under
    // EVP). Measured on Zen 5 through the provider: a 1 KiB seal took 760 ns
    // without it and 540 with it; the kernel called directly, 470.
    STITCH_INLINE_AVX2_BMI2 static void clean_upper() { _mm256_zeroupper(); }

private:
    __m256i v_;
};

template <int N>
STITCH_INLINE_AVX2_BMI2 U32x8 rotl(U32x8 v) {
    return v.template rotl<N>();
}

}  // namespace stitch::kern::simd
