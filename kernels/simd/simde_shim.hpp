// Stand-ins for the few intrinsics the AVX-512 kernels use that SIMDe 0.7.4
// lacks: byte-masked loads and stores, a word shuffle, a lane sum, and
// IFMA's 52-bit multiply-adds.
// Only the emulated test build includes this (kernels/isa_avx512.hpp); each
// is the instruction's definition written lane by lane.
#pragma once

#include <cstdint>
#include <cstring>

namespace stitch::kern::simde_shim {

template <class V>
inline V maskz_loadu_bytes(uint64_t k, const void* p) {
    uint8_t b[sizeof(V)];
    for (size_t i = 0; i < sizeof(V); ++i) b[i] = (k >> i) & 1 ? static_cast<const uint8_t*>(p)[i] : 0;
    V v;
    std::memcpy(&v, b, sizeof(V));
    return v;
}

template <class V>
inline void mask_storeu_bytes(void* p, uint64_t k, V v) {
    uint8_t b[sizeof(V)];
    std::memcpy(b, &v, sizeof(V));
    for (size_t i = 0; i < sizeof(V); ++i)
        if ((k >> i) & 1) static_cast<uint8_t*>(p)[i] = b[i];
}

// VPMADD52LUQ / VPMADD52HUQ: a + low (high) 52 bits of the 104-bit product
// of the low 52 bits of b and c, per 64-bit lane.
template <class V, bool High>
inline V madd52(V a, V b, V c) {
    uint64_t x[sizeof(V) / 8], y[sizeof(V) / 8], z[sizeof(V) / 8];
    std::memcpy(x, &a, sizeof(V));
    std::memcpy(y, &b, sizeof(V));
    std::memcpy(z, &c, sizeof(V));
    constexpr uint64_t m52 = (uint64_t(1) << 52) - 1;
    for (size_t i = 0; i < sizeof(V) / 8; ++i) {
        const unsigned __int128 p = (unsigned __int128)(y[i] & m52) * (z[i] & m52);
        x[i] += High ? uint64_t(p >> 52) : uint64_t(p) & m52;
    }
    std::memcpy(&a, x, sizeof(V));
    return a;
}

// VPSHUFD: within each 128-bit lane, word i takes word (imm >> 2i) & 3.
inline simde__m512i shuffle_epi32(simde__m512i a, int imm) {
    uint32_t x[16], y[16];
    std::memcpy(x, &a, sizeof(x));
    for (int lane = 0; lane < 4; ++lane)
        for (int i = 0; i < 4; ++i) y[4 * lane + i] = x[4 * lane + ((imm >> (2 * i)) & 3)];
    simde__m512i r;
    std::memcpy(&r, y, sizeof(y));
    return r;
}

// The sum of the eight 64-bit lanes.
inline long long reduce_add_epi64(simde__m512i a) {
    uint64_t x[8];
    std::memcpy(x, &a, sizeof(x));
    uint64_t s = 0;
    for (uint64_t v : x) s += v;
    return static_cast<long long>(s);
}

}  // namespace stitch::kern::simde_shim

// Where a SIMDe build defines one of these names itself (clang), ours wins.
#undef _mm512_maskz_loadu_epi8
#undef _mm256_maskz_loadu_epi8
#undef _mm512_mask_storeu_epi8
#undef _mm256_mask_storeu_epi8
#undef _mm512_shuffle_epi32
#undef _mm512_reduce_add_epi64
#undef _mm512_madd52lo_epu64
#undef _mm512_madd52hi_epu64
#undef _mm256_madd52lo_epu64
#undef _mm256_madd52hi_epu64
#define _mm512_maskz_loadu_epi8(k, p) ::stitch::kern::simde_shim::maskz_loadu_bytes<simde__m512i>((k), (p))
#define _mm256_maskz_loadu_epi8(k, p) ::stitch::kern::simde_shim::maskz_loadu_bytes<simde__m256i>((k), (p))
#define _mm512_mask_storeu_epi8(p, k, v) ::stitch::kern::simde_shim::mask_storeu_bytes<simde__m512i>((p), (k), (v))
#define _mm256_mask_storeu_epi8(p, k, v) ::stitch::kern::simde_shim::mask_storeu_bytes<simde__m256i>((p), (k), (v))
#define _mm512_shuffle_epi32(a, imm) ::stitch::kern::simde_shim::shuffle_epi32((a), int(imm))
#define _mm512_reduce_add_epi64(a) ::stitch::kern::simde_shim::reduce_add_epi64(a)
#define _mm512_madd52lo_epu64(a, b, c) ::stitch::kern::simde_shim::madd52<simde__m512i, false>((a), (b), (c))
#define _mm512_madd52hi_epu64(a, b, c) ::stitch::kern::simde_shim::madd52<simde__m512i, true>((a), (b), (c))
#define _mm256_madd52lo_epu64(a, b, c) ::stitch::kern::simde_shim::madd52<simde__m256i, false>((a), (b), (c))
#define _mm256_madd52hi_epu64(a, b, c) ::stitch::kern::simde_shim::madd52<simde__m256i, true>((a), (b), (c))
