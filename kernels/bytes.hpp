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

// The n (at most 16) bytes at p as a little-endian number, read with loads
// that stay inside [p, p + n): two 8- or 4-byte loads, the first and the
// last, overlapping, or three single bytes. The branches are on n, never on
// the bytes.
inline unsigned __int128 load_upto16(const uint8_t* p, size_t n) noexcept {
    using u128 = unsigned __int128;
    if (n > 8) return u128(load_le64(p + n - 8) >> (8 * (16 - n))) << 64 | load_le64(p);
    if (n == 8) return load_le64(p);
    if (n >= 4) return load_le32(p) | uint64_t(load_le32(p + n - 4)) << (8 * (n - 4));
    if (n > 0) return uint64_t(p[0]) | uint64_t(p[n / 2]) << (8 * (n / 2)) | uint64_t(p[n - 1]) << (8 * (n - 1));
    return 0;
}

// Sets bytes [at, at + n) of a 16-byte block (at < 16, at + n <= 16) from p, keeps
// those before `at` and zeroes those after, with one 16-byte store: Poly1305's
// buffered block and the AEAD's held-back AAD, which are read back whole or
// in 8-byte halves. A load takes its bytes from a store still in flight only
// where one store covers it; after narrower stores it waits for them to reach
// the cache (poly1305_final's 16-byte load of the block: ~37 cycles on Zen 4,
// measured). So every write of such a block is whole, and a block that keeps
// bytes (at > 0) was itself written by this function.
inline void set_block_bytes(uint8_t block[16], size_t at, const uint8_t* p, size_t n) noexcept {
    const unsigned __int128 bytes = load_upto16(p, n) << (8 * at);
    __m128i out = _mm_set_epi64x(int64_t(uint64_t(bytes >> 64)), int64_t(uint64_t(bytes)));
    if (at > 0) out = _mm_or_si128(out, first_bytes(block, at));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(block), out);
}

// Four 32-bit words as one 16-byte store. A row the kernels then read with
// one 16-byte load must not be written as narrower stores: such a load
// cannot take its bytes from several stores still in flight, and waits for
// them to reach the cache (~15 cycles on Zen 4).
inline void store_words4(uint32_t dst[4], uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) noexcept {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm_setr_epi32(int(w0), int(w1), int(w2), int(w3)));
}

// out = (in ^ ks) & keep for n bytes, sizeof(Word) <= n <= 2·sizeof(Word),
// as two loads of each side (the first and the last Word, overlapping in
// the middle), both read before either store, so out == in works; ks ==
// nullptr copies; keep is 0xff or 0x00 (a tag verdict's mask). Reads and
// writes only [0, n).
template <class Word>
[[gnu::always_inline]] inline void two_words(uint8_t* out, const uint8_t* in, const uint8_t* ks, size_t n,
                                             uint8_t keep) noexcept {
    constexpr size_t w = sizeof(Word);
    Word head, tail;
    std::memcpy(&head, in, w);
    std::memcpy(&tail, in + n - w, w);
    if (ks) {
        Word ks_head, ks_tail;
        std::memcpy(&ks_head, ks, w);
        std::memcpy(&ks_tail, ks + n - w, w);
        head ^= ks_head;
        tail ^= ks_tail;
    }
    const Word mask = Word(Word(~Word(0)) / 0xff) * keep;  // keep in every byte
    head &= mask;
    tail &= mask;
    std::memcpy(out, &head, w);
    std::memcpy(out + n - w, &tail, w);
}

// The same for n bytes of a short run (ks == nullptr copies): 16 bytes at a
// time, then two words of 8 or 4 bytes, or three single bytes. The branches
// are on the length, never on the bytes nor on keep (the default, 0xff,
// folds away). Always inlined: with keep, g++ 12 made a call of it at 14
// places in stitch.so, every short record's and stream's tail among them.
[[gnu::always_inline]] inline void short_bytes(uint8_t* out, const uint8_t* in, const uint8_t* ks, size_t n,
                                               uint8_t keep = 0xff) noexcept {
    const __m128i mask = _mm_set1_epi8(char(keep));
    for (; n >= 16; n -= 16, in += 16, out += 16) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
        if (ks) {
            x = _mm_xor_si128(x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(ks)));
            ks += 16;
        }
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_and_si128(x, mask));
    }
    if (n >= 8) {
        two_words<uint64_t>(out, in, ks, n, keep);
    } else if (n >= 4) {
        two_words<uint32_t>(out, in, ks, n, keep);
    } else if (n > 0) {
        const uint8_t k0 = ks ? ks[0] : 0, k1 = ks ? ks[n / 2] : 0, k2 = ks ? ks[n - 1] : 0;
        const uint8_t first = (in[0] ^ k0) & keep, middle = (in[n / 2] ^ k1) & keep, last = (in[n - 1] ^ k2) & keep;
        out[0] = first;
        out[n / 2] = middle;
        out[n - 1] = last;
    }
}

// Copies n <= 32 bytes with a few loads and stores where std::copy of a
// length known only at run time is a call to memmove (~15 cycles on Zen 4):
// the AEAD's held-back AAD (5, 13 or 4 bytes a record).
inline void copy_short(uint8_t* dst, const uint8_t* src, size_t n) noexcept { short_bytes(dst, src, nullptr, n); }

// out = in ^ ks for the n bytes of a short run (a partly used keystream
// block; a raw ChaCha20 run of at most one batch), in == out allowed. g++
// 12 made a byte loop of it (and clang 14 a vector one); this is the same
// few instructions from both.
inline void xor_short(uint8_t* out, const uint8_t* in, const uint8_t* ks, size_t n) noexcept {
    short_bytes(out, in, ks, n);
}

// out = (in ^ ks) & keep for the n bytes of a record's partial last block,
// keep 0xff or 0x00 (a tag verdict's mask): the same few instructions from
// both compilers, where g++ 12 made a byte loop of the plain loop (kernel,
// the AVX2 open of 97-127 B, December 2026: 8-13% slower than clang 14's).
inline void xor_short_masked(uint8_t* out, const uint8_t* in, const uint8_t* ks, size_t n, uint8_t keep) noexcept {
    short_bytes(out, in, ks, n, keep);
}

template <class T>
inline void wipe_object(T& obj) noexcept {
    wipe(&obj, sizeof(obj));
}

}  // namespace stitch::kern
