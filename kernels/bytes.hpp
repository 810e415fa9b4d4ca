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
inline void wipe_loop(unsigned char* b, size_t len) noexcept {
    const __m128i zero = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(b + i), zero);
        __asm__ __volatile__("" : : "r"(b + i) : "memory");  // keeps GCC from folding the loop back into rep stos
    }
    for (; i < len; ++i) b[i] = 0;
    __asm__ __volatile__("" : : "r"(b) : "memory");
}

// Nearly every wipe is of an object's size, known when compiling: those
// become straight-line stores. g++ 12 kept the loop (and a byte loop for
// the tail) where clang 14 unrolled it: ~30 instructions a record on the
// AEAD's tail. Other lengths loop.
__attribute__((always_inline)) inline void wipe(void* p, size_t len) noexcept {
    auto* b = static_cast<unsigned char*>(p);
    if (!__builtin_constant_p(len) || len > 512) {
        wipe_loop(b, len);
        return;
    }
    const __m128i zero = _mm_setzero_si128();
    size_t i = 0;
#pragma GCC unroll 32
    for (; i + 16 <= len; i += 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(b + i), zero);
        __asm__ __volatile__("" : : "r"(b + i) : "memory");
    }
    if (i + 8 <= len) {
        std::memset(b + i, 0, 8);
        i += 8;
    }
#pragma GCC unroll 8
    for (; i < len; ++i) b[i] = 0;
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

// The first n (at most 16) of the 16 bytes at p, the rest zero: a partial
// block without a byte loop (g++ 12 made one of 16 steps, with a branch
// each; the mask depends on n, a length, never on the bytes).
inline __m128i byte_index() noexcept { return _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }

inline __m128i first_bytes(const uint8_t p[16], size_t n) noexcept {
    const __m128i keep = _mm_cmplt_epi8(byte_index(), _mm_set1_epi8(static_cast<char>(n)));
    return _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), keep);
}

// Four 32-bit words as one 16-byte store. A row the kernels then read with
// one 16-byte load must not be written as narrower stores: such a load
// cannot take its bytes from several stores still in flight, and waits for
// them to reach the cache (~15 cycles on Zen 4).
inline void store_words4(uint32_t dst[4], uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) noexcept {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm_setr_epi32(int(w0), int(w1), int(w2), int(w3)));
}

// Copies n <= 32 bytes with at most two loads and two stores, each pair
// overlapping in the middle, where std::copy of a length known only at run
// time is a call to memmove (~15 cycles on Zen 4): the AEAD's held-back AAD
// (5, 13 or 4 bytes a record). It reads and writes only [0, n); the branches
// are on the length, never on the bytes.
inline void copy_short(uint8_t* dst, const uint8_t* src, size_t n) noexcept {
    if (n >= 16) {
        const __m128i head = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
        const __m128i tail = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + n - 16));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), head);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + n - 16), tail);
    } else if (n >= 8) {
        uint64_t head, tail;
        std::memcpy(&head, src, 8);
        std::memcpy(&tail, src + n - 8, 8);
        std::memcpy(dst, &head, 8);
        std::memcpy(dst + n - 8, &tail, 8);
    } else if (n >= 4) {
        uint32_t head, tail;
        std::memcpy(&head, src, 4);
        std::memcpy(&tail, src + n - 4, 4);
        std::memcpy(dst, &head, 4);
        std::memcpy(dst + n - 4, &tail, 4);
    } else if (n > 0) {
        const uint8_t first = src[0], middle = src[n / 2], last = src[n - 1];
        dst[0] = first;
        dst[n / 2] = middle;
        dst[n - 1] = last;
    }
}

// out = in ^ ks for n < 64 bytes (a partly used keystream block): 16 bytes
// at a time, then the rest as two overlapping loads of each of in and ks,
// both read before either store, so in == out works. g++ 12 made a byte
// loop of it (and clang 14 a vector one); this is the same few
// instructions from both. Reads and writes only [0, n).
inline void xor_short(uint8_t* out, const uint8_t* in, const uint8_t* ks, size_t n) noexcept {
    for (; n >= 16; n -= 16, in += 16, ks += 16, out += 16) {
        const __m128i x = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)),
                                        _mm_loadu_si128(reinterpret_cast<const __m128i*>(ks)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), x);
    }
    if (n >= 8) {
        uint64_t head, tail, ks_head, ks_tail;
        std::memcpy(&head, in, 8);
        std::memcpy(&tail, in + n - 8, 8);
        std::memcpy(&ks_head, ks, 8);
        std::memcpy(&ks_tail, ks + n - 8, 8);
        head ^= ks_head;
        tail ^= ks_tail;
        std::memcpy(out, &head, 8);
        std::memcpy(out + n - 8, &tail, 8);
    } else if (n >= 4) {
        uint32_t head, tail, ks_head, ks_tail;
        std::memcpy(&head, in, 4);
        std::memcpy(&tail, in + n - 4, 4);
        std::memcpy(&ks_head, ks, 4);
        std::memcpy(&ks_tail, ks + n - 4, 4);
        head ^= ks_head;
        tail ^= ks_tail;
        std::memcpy(out, &head, 4);
        std::memcpy(out + n - 4, &tail, 4);
    } else if (n > 0) {
        const uint8_t first = in[0] ^ ks[0], middle = in[n / 2] ^ ks[n / 2], last = in[n - 1] ^ ks[n - 1];
        out[0] = first;
        out[n / 2] = middle;
        out[n - 1] = last;
    }
}

template <class T>
inline void wipe_object(T& obj) noexcept {
    wipe(&obj, sizeof(obj));
}

}  // namespace stitch::kern
