// SHA-512's compression function (FIPS 180-4 §6.4.2) on AVX2 + BMI2: the
// eighty rounds in general registers with RORX (a rotate into a fresh
// register, so Σ0 and Σ1 cost no moves), the message schedule in vector
// registers, two words per block per step, running beside the rounds.
//
// Where a call has two blocks the schedule is built for both at once: each
// ymm holds two schedule words of the first block in its low half and the
// same two of the second block in its high half (every AVX2 shuffle used
// here stays within its 128-bit half). The first block's rounds run beside
// that work; the second block's W+K is then already on the stack, and its
// rounds are scalar work alone. Two blocks come as consecutive blocks of one
// message (sha512_blocks_avx2) or as one block for each of two states: HMAC's
// key ⊕ ipad and key ⊕ opad (sha512_pair_avx2). A single block uses the
// same code on xmm.
//
// Nothing here branches or indexes on message or state bytes; the stack
// copy of W+K and the vector registers are cleared before returning.
#include <immintrin.h>

#include <type_traits>

#include "kernels/isa.hpp"
#include "kernels/sha2.hpp"

namespace stitch::kern {

namespace {

#define STITCH_SHA512_INLINE STITCH_INLINE_AVX2_BMI2

// --- the schedule, on one block (xmm) or two (ymm) ---------------------------

STITCH_SHA512_INLINE __m128i add(__m128i a, __m128i b) { return _mm_add_epi64(a, b); }
STITCH_SHA512_INLINE __m256i add(__m256i a, __m256i b) { return _mm256_add_epi64(a, b); }
STITCH_SHA512_INLINE __m128i xor_(__m128i a, __m128i b) { return _mm_xor_si128(a, b); }
STITCH_SHA512_INLINE __m256i xor_(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }
template <int N>
STITCH_SHA512_INLINE __m128i shr(__m128i a) { return _mm_srli_epi64(a, N); }
template <int N>
STITCH_SHA512_INLINE __m256i shr(__m256i a) { return _mm256_srli_epi64(a, N); }
template <int N>
STITCH_SHA512_INLINE __m128i shl(__m128i a) { return _mm_slli_epi64(a, N); }
template <int N>
STITCH_SHA512_INLINE __m256i shl(__m256i a) { return _mm256_slli_epi64(a, N); }
// Each 64-bit word's bytes moved by a pshufb pattern (the same in each half).
STITCH_SHA512_INLINE __m128i bytes(__m128i a, __m128i pattern) { return _mm_shuffle_epi8(a, pattern); }
STITCH_SHA512_INLINE __m256i bytes(__m256i a, __m256i pattern) { return _mm256_shuffle_epi8(a, pattern); }
// {lo[1], hi[0]} in each half: the word pair that straddles two registers.
STITCH_SHA512_INLINE __m128i straddle(__m128i hi, __m128i lo) { return _mm_alignr_epi8(hi, lo, 8); }
STITCH_SHA512_INLINE __m256i straddle(__m256i hi, __m256i lo) { return _mm256_alignr_epi8(hi, lo, 8); }

// Byte patterns: big-endian words to host order, and a rotation right by 8.
STITCH_SHA512_INLINE __m128i bswap64_pattern() { return _mm_set_epi64x(0x08090a0b0c0d0e0f, 0x0001020304050607); }
STITCH_SHA512_INLINE __m128i ror8_pattern() { return _mm_set_epi64x(0x080f0e0d0c0b0a09, 0x0007060504030201); }

// σ0(x) = ROTR1 ^ ROTR8 ^ SHR7, σ1(x) = ROTR19 ^ ROTR61 ^ SHR6 (§4.1.3),
// AVX2 having no 64-bit rotate: ROTR8 is a byte shuffle, the others two shifts.
template <class V>
STITCH_SHA512_INLINE V small_sigma0(V x, V ror8) {
    return xor_(xor_(shr<1>(x), shl<63>(x)), xor_(bytes(x, ror8), shr<7>(x)));
}
template <class V>
STITCH_SHA512_INLINE V small_sigma1(V x) {
    return xor_(xor_(xor_(shr<19>(x), shl<45>(x)), xor_(shr<61>(x), shl<3>(x))), shr<6>(x));
}

// One block: xmm. Two: ymm, the first block's words in the low half.
struct OneBlock {
    using V = __m128i;
    STITCH_SHA512_INLINE static V load(const uint8_t* a, const uint8_t*, int i) {
        return _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 16 * i));
    }
    STITCH_SHA512_INLINE static V constants(int t) {
        return _mm_load_si128(reinterpret_cast<const __m128i*>(kSha512K + t));
    }
    STITCH_SHA512_INLINE static V pattern(__m128i p) { return p; }
    STITCH_SHA512_INLINE static void store(uint64_t* wk_a, uint64_t*, V v) {
        _mm_store_si128(reinterpret_cast<__m128i*>(wk_a), v);
    }
};

struct TwoBlocks {
    using V = __m256i;
    STITCH_SHA512_INLINE static V load(const uint8_t* a, const uint8_t* b, int i) {
        return _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 16 * i))),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * i)), 1);
    }
    STITCH_SHA512_INLINE static V constants(int t) {
        return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(kSha512K + t)));
    }
    STITCH_SHA512_INLINE static V pattern(__m128i p) { return _mm256_broadcastsi128_si256(p); }
    STITCH_SHA512_INLINE static void store(uint64_t* wk_a, uint64_t* wk_b, V v) {
        _mm_store_si128(reinterpret_cast<__m128i*>(wk_a), _mm256_castsi256_si128(v));
        _mm_store_si128(reinterpret_cast<__m128i*>(wk_b), _mm256_extracti128_si256(v, 1));
    }
};

// --- the rounds --------------------------------------------------------------

STITCH_SHA512_INLINE uint64_t rotr(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

// One round, the working variables' roles named (an unrolled group of eight
// rotates the names). Maj(a,b,c) = ((a^b) & (b^c)) ^ b, and this round's
// a^b is the next round's b^c: `bc` is read, `ab` written.
//
// The sums are ordered for the round's longest chain, e to the next e:
// h + W+K first (ready early), then Ch (two steps after e), then Σ1 (three),
// then d. Compilers reassociate integer sums freely and put h and W+K last,
// which made that chain seven operations long instead of five; the empty asm
// statements pin the order and emit nothing. (On the shared 2-vCPU Emerald
// Rapids this was measured on the rounds are bound by throughput, not by
// that chain, and the two orders time alike within the noise.)
#define STITCH_SHA512_AVX2_KEEP(x) __asm__("" : "+r"(x))
#define STITCH_SHA512_AVX2_ROUND(a, b, c, d, e, f, g, h, wk, bc, ab)  \
    do {                                                             \
        h += (wk);                                                   \
        STITCH_SHA512_AVX2_KEEP(h);                                  \
        h += (e & f) ^ (~e & g);                                     \
        STITCH_SHA512_AVX2_KEEP(h);                                  \
        h += rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41);                \
        d += h;                                                      \
        ab = a ^ b;                                                  \
        h += (rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)) + ((ab & bc) ^ b); \
    } while (0)

#define STITCH_SHA512_AVX2_EIGHT(wk, t)                                       \
    do {                                                                      \
        STITCH_SHA512_AVX2_ROUND(a, b, c, d, e, f, g, hh, wk[t + 0], x1, x0); \
        STITCH_SHA512_AVX2_ROUND(hh, a, b, c, d, e, f, g, wk[t + 1], x0, x1); \
        STITCH_SHA512_AVX2_ROUND(g, hh, a, b, c, d, e, f, wk[t + 2], x1, x0); \
        STITCH_SHA512_AVX2_ROUND(f, g, hh, a, b, c, d, e, wk[t + 3], x0, x1); \
        STITCH_SHA512_AVX2_ROUND(e, f, g, hh, a, b, c, d, wk[t + 4], x1, x0); \
        STITCH_SHA512_AVX2_ROUND(d, e, f, g, hh, a, b, c, wk[t + 5], x0, x1); \
        STITCH_SHA512_AVX2_ROUND(c, d, e, f, g, hh, a, b, wk[t + 6], x1, x0); \
        STITCH_SHA512_AVX2_ROUND(b, c, d, e, f, g, hh, a, wk[t + 7], x0, x1); \
    } while (0)

// The loops below run sixteen rounds a turn, not unrolled further: eighty
// unrolled rounds with their schedule are some 30 KiB of code, past the
// decoded-µop cache, and were decode-bound (Emerald Rapids, measured). After
// sixteen rounds the names are back in place and x0/x1 in step.

// Eighty rounds from the W+K on the stack into h, feed-forward included.
STITCH_SHA512_INLINE void rounds(uint64_t h[8], const uint64_t* wk) {
    uint64_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    uint64_t x0, x1 = b ^ c;
#pragma GCC unroll 1
    for (int t = 0; t < 80; t += 16) {
        STITCH_SHA512_AVX2_EIGHT(wk, t);
        STITCH_SHA512_AVX2_EIGHT(wk, t + 8);
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

// Block in_a into h_a and, with TwoBlocks, block in_b into h_b (which may be
// h_a: then in_b is the block after in_a). wk holds 2 x 80 words.
template <class L>
STITCH_SHA512_INLINE void compress(uint64_t* h_a, const uint8_t* in_a, uint64_t* h_b, const uint8_t* in_b,
                                   uint64_t* wk) {
    using V = typename L::V;
    uint64_t* const wk_a = wk;
    uint64_t* const wk_b = wk + 80;
    const V bswap = L::pattern(bswap64_pattern()), ror8 = L::pattern(ror8_pattern());
    V w[8];  // w[i]: W[2i], W[2i+1] of the sixteen-word window (mod 16)
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
        w[i] = bytes(L::load(in_a, in_b, i), bswap);
        L::store(wk_a + 2 * i, wk_b + 2 * i, add(w[i], L::constants(2 * i)));
    }

    uint64_t a = h_a[0], b = h_a[1], c = h_a[2], d = h_a[3], e = h_a[4], f = h_a[5], g = h_a[6], hh = h_a[7];
    uint64_t x0, x1 = b ^ c;
    // Rounds t..t+15 of block a beside the schedule's words t+16..t+31, a
    // schedule step (two words, replacing the pair sixteen back) after every
    // second round, so vector and scalar work share the ports evenly.
#define STITCH_SHA512_AVX2_STEP(i)                                                                                \
    do {                                                                                                         \
        const V w15 = straddle(w[((i) + 1) & 7], w[i]);                                                          \
        const V w7 = straddle(w[((i) + 5) & 7], w[((i) + 4) & 7]);                                               \
        w[i] = add(add(w[i], small_sigma0(w15, ror8)), add(w7, small_sigma1(w[((i) + 7) & 7])));                 \
        L::store(wk_a + t + 16 + 2 * (i), wk_b + t + 16 + 2 * (i), add(w[i], L::constants(t + 16 + 2 * (i))));  \
    } while (0)
#pragma GCC unroll 1
    for (int t = 0; t < 64; t += 16) {
#pragma GCC unroll 2
        for (int half = 0; half < 2; ++half) {
            const int r = t + 8 * half;
            const int s = 4 * half;
            STITCH_SHA512_AVX2_STEP(s + 0);
            STITCH_SHA512_AVX2_ROUND(a, b, c, d, e, f, g, hh, wk_a[r + 0], x1, x0);
            STITCH_SHA512_AVX2_ROUND(hh, a, b, c, d, e, f, g, wk_a[r + 1], x0, x1);
            STITCH_SHA512_AVX2_STEP(s + 1);
            STITCH_SHA512_AVX2_ROUND(g, hh, a, b, c, d, e, f, wk_a[r + 2], x1, x0);
            STITCH_SHA512_AVX2_ROUND(f, g, hh, a, b, c, d, e, wk_a[r + 3], x0, x1);
            STITCH_SHA512_AVX2_STEP(s + 2);
            STITCH_SHA512_AVX2_ROUND(e, f, g, hh, a, b, c, d, wk_a[r + 4], x1, x0);
            STITCH_SHA512_AVX2_ROUND(d, e, f, g, hh, a, b, c, wk_a[r + 5], x0, x1);
            STITCH_SHA512_AVX2_STEP(s + 3);
            STITCH_SHA512_AVX2_ROUND(c, d, e, f, g, hh, a, b, wk_a[r + 6], x1, x0);
            STITCH_SHA512_AVX2_ROUND(b, c, d, e, f, g, hh, a, wk_a[r + 7], x0, x1);
        }
    }
#undef STITCH_SHA512_AVX2_STEP
    STITCH_SHA512_AVX2_EIGHT(wk_a, 64);
    STITCH_SHA512_AVX2_EIGHT(wk_a, 72);
    h_a[0] += a;
    h_a[1] += b;
    h_a[2] += c;
    h_a[3] += d;
    h_a[4] += e;
    h_a[5] += f;
    h_a[6] += g;
    h_a[7] += hh;
    if constexpr (std::is_same_v<L, TwoBlocks>) rounds(h_b, wk_b);
}

#undef STITCH_SHA512_AVX2_EIGHT
#undef STITCH_SHA512_AVX2_ROUND
#undef STITCH_SHA512_AVX2_KEEP

// The stack's W+K and the vector registers held the message (HMAC's key
// pads among them). Unrolled 32-byte stores: bytes.hpp's wipe() loops 16
// bytes a turn, a tenth of a block's time here. The asm keeps the stores.
template <int Words>
STITCH_SHA512_INLINE void clear(uint64_t* wk) {
    const __m256i zero = _mm256_setzero_si256();
#pragma GCC unroll 40
    for (int i = 0; i < Words; i += 4) _mm256_store_si256(reinterpret_cast<__m256i*>(wk + i), zero);
    __asm__ __volatile__("" : : "r"(wk) : "memory");
    _mm256_zeroall();
}

}  // namespace

STITCH_TARGET_AVX2_BMI2 void sha512_blocks_avx2(uint64_t h[8], const uint8_t* in, size_t nblocks) noexcept {
    alignas(32) uint64_t wk[2 * 80];
    if (nblocks == 1) {  // HMAC's and HKDF's usual call
        compress<OneBlock>(h, in, nullptr, nullptr, wk);
        clear<80>(wk);
        return;
    }
    for (; nblocks >= 2; nblocks -= 2, in += 256) compress<TwoBlocks>(h, in, h, in + 128, wk);
    if (nblocks) compress<OneBlock>(h, in, nullptr, nullptr, wk);
    clear<160>(wk);
}

STITCH_TARGET_AVX2_BMI2 void sha512_pair_avx2(uint64_t h_a[8], const uint8_t* a, uint64_t h_b[8],
                                              const uint8_t* b) noexcept {
    alignas(32) uint64_t wk[2 * 80];
    compress<TwoBlocks>(h_a, a, h_b, b, wk);
    clear<160>(wk);
}

}  // namespace stitch::kern
