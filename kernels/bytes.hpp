// Little-endian loads and stores and a wipe the compiler cannot drop. Shared
// by every kernel; no OpenSSL headers. (The constant-time tag compare is in
// verdict.hpp.)
#pragma once

#include <emmintrin.h>  // SSE2: part of x86-64's baseline

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace stitch::kern {

inline uint32_t load_le32(const uint8_t* p) noexcept {
    uint32_t v;
    std::memcpy(&v, p, 4);  // x86-64 only builds the fast paths; LE is the host order everywhere we run
    return v;
}

inline void store_le32(uint8_t* p, uint32_t v) noexcept { std::memcpy(p, &v, 4); }

inline uint64_t load_le64(const uint8_t* p) noexcept {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline void store_le64(uint8_t* p, uint64_t v) noexcept { std::memcpy(p, &v, 8); }

// Zeroes `len` bytes. The empty asm with a memory clobber makes the stores
// observable, so dead-store elimination cannot remove them. Plain 16-byte
// stores rather than memset: for the few hundred bytes of a record's state
// GCC picks `rep stos` (tens of cycles to start on AMD) or a libc call, and
// this runs on every record.
inline void wipe(void* p, size_t len) noexcept {
    auto* b = static_cast<unsigned char*>(p);
    const __m128i zero = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(b + i), zero);
        __asm__ __volatile__("" : : "r"(b + i) : "memory");  // keeps GCC from folding the loop back into rep stos
    }
    for (; i < len; ++i) b[i] = 0;
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

template <class T>
inline void wipe_object(T& obj) noexcept {
    wipe(&obj, sizeof(obj));
}

}  // namespace stitch::kern
