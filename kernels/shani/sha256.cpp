// SHA-256 on the x86 SHA extensions. SHA256RNDS2 runs two rounds on the state
// split as {A,B,E,F} and {C,D,G,H}; SHA256MSG1/MSG2 extend the message
// schedule four words at a time. Dispatch takes this only where CPUID reports
// SHA (every Zen, Intel since Goldmont and Ice Lake).
//
// SHA256RNDS2's latency, not its throughput, bounds one block (each pair of
// rounds waits for the last), so HMAC's two pad blocks, independent of each
// other, run interleaved: two blocks in little more than one block's time.
#include <immintrin.h>

#include "kernels/isa.hpp"
#include "kernels/sha2.hpp"

namespace stitch::kern {

namespace {

#define STITCH_SHANI_INLINE __attribute__((always_inline)) STITCH_TARGET_SHANI inline

// H0..H7 in the instruction's layout. Locals are named by their lanes, lane
// 0 first; the two states are Intel's ABEF and CDGH (named from the top lane
// down): abef holds {F,E,B,A}, cdgh {H,G,D,C}.
struct ShaniState {
    __m128i abef, cdgh;
};

STITCH_SHANI_INLINE ShaniState load_state(const uint32_t h[8]) {
    const __m128i abcd = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h));
    const __m128i efgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + 4));
    const __m128i badc = _mm_shuffle_epi32(abcd, 0xb1);
    const __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1b);
    return {_mm_alignr_epi8(badc, hgfe, 8), _mm_blend_epi16(hgfe, badc, 0xf0)};
}

STITCH_SHANI_INLINE void store_state(uint32_t h[8], ShaniState s) {
    const __m128i abef_lanes = _mm_shuffle_epi32(s.abef, 0x1b);                                 // {A,B,E,F}
    const __m128i ghcd = _mm_shuffle_epi32(s.cdgh, 0xb1);                                       // {G,H,C,D}
    _mm_storeu_si128(reinterpret_cast<__m128i*>(h), _mm_blend_epi16(abef_lanes, ghcd, 0xf0));   // {A,B,C,D}
    _mm_storeu_si128(reinterpret_cast<__m128i*>(h + 4), _mm_alignr_epi8(ghcd, abef_lanes, 8));  // {E,F,G,H}
}

// One block into each of N states, the N chains interleaved round by round.
template <int N>
STITCH_SHANI_INLINE void compress(ShaniState (&st)[N], const uint8_t* const (&in)[N]) {
    // Big-endian words: reverse the bytes of each 32-bit lane.
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
    ShaniState start[N];
    __m128i w[N][4];
#pragma GCC unroll 2
    for (int n = 0; n < N; ++n) {
        start[n] = st[n];
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i)
            w[n][i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in[n] + 16 * i)), bswap);
    }
#pragma GCC unroll 16
    for (int g = 0; g < 16; ++g) {
        const __m128i k = _mm_load_si128(reinterpret_cast<const __m128i*>(kSha256K + 4 * g));
#pragma GCC unroll 2
        for (int n = 0; n < N; ++n) {
            __m128i* x = w[n];
            if (g >= 4) {
                // W[t..t+3] = msg2(msg1(W[t-16..], W[t-12..]) + W[t-7..t-4], W[t-4..t-1])
                __m128i t = _mm_sha256msg1_epu32(x[g & 3], x[(g + 1) & 3]);
                t = _mm_add_epi32(t, _mm_alignr_epi8(x[(g + 3) & 3], x[(g + 2) & 3], 4));
                x[g & 3] = _mm_sha256msg2_epu32(t, x[(g + 3) & 3]);
            }
            __m128i wk = _mm_add_epi32(x[g & 3], k);
            st[n].cdgh = _mm_sha256rnds2_epu32(st[n].cdgh, st[n].abef, wk);  // rounds 4g, 4g+1: the new {A,B,E,F}
            wk = _mm_shuffle_epi32(wk, 0x0e);
            st[n].abef = _mm_sha256rnds2_epu32(st[n].abef, st[n].cdgh, wk);  // rounds 4g+2, 4g+3
        }
    }
#pragma GCC unroll 2
    for (int n = 0; n < N; ++n) {
        st[n].abef = _mm_add_epi32(st[n].abef, start[n].abef);
        st[n].cdgh = _mm_add_epi32(st[n].cdgh, start[n].cdgh);
    }
}

// The schedule registers held the message (HMAC's key pads among them).
STITCH_SHANI_INLINE void clear_xmm() {
    __asm__ volatile(
        "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
        "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\tpxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\t"
        "pxor %%xmm8, %%xmm8\n\tpxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
        "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\tpxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15"
        :
        :
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
          "xmm13", "xmm14", "xmm15");
}

}  // namespace

STITCH_TARGET_SHANI void sha256_blocks_shani(uint32_t h[8], const uint8_t* in, size_t nblocks) noexcept {
    ShaniState st[1] = {load_state(h)};
    for (; nblocks; --nblocks, in += 64) {
        const uint8_t* const blocks[1] = {in};
        compress<1>(st, blocks);
    }
    store_state(h, st[0]);
    clear_xmm();
}

STITCH_TARGET_SHANI void sha256_pair_shani(uint32_t h_a[8], const uint8_t* a, uint32_t h_b[8],
                                           const uint8_t* b) noexcept {
    ShaniState st[2] = {load_state(h_a), load_state(h_b)};
    const uint8_t* const blocks[2] = {a, b};
    compress<2>(st, blocks);
    store_state(h_a, st[0]);
    store_state(h_b, st[1]);
    clear_xmm();
}

}  // namespace stitch::kern
