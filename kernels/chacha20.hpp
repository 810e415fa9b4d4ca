// ChaCha20 (RFC 8439 §2.1–2.4) as the kernels share it: the state the caller
// owns, the scalar quarter round, and the streaming keystream over any split.
#pragma once

#include <emmintrin.h>  // SSE2: part of x86-64's baseline

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace stitch::kern {

struct Impl;

inline constexpr size_t kChaChaBlock = 64;

// State words 4..15. ctr[0] is the block counter; it carries into ctr[1]
// (a 64-bit counter over words 12–13), which is what OpenSSL's raw ChaCha20
// and OpenSSH's 64-bit-counter layout both rely on. The AEAD never lets the
// 32-bit counter reach the carry (aead.hpp refuses the message first).
struct alignas(16) ChaChaState {
    uint32_t key[8];
    uint32_t ctr[4];
};

inline constexpr uint32_t kSigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

constexpr uint32_t rotl32(uint32_t v, int n) noexcept { return (v << n) | (v >> (32 - n)); }

// RFC 8439 §2.1, word for word; the AVX2 rounds are written in the same shape.
constexpr void quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) noexcept {
    a += b; d ^= a; d = rotl32(d, 16);
    c += d; b ^= c; b = rotl32(b, 12);
    a += b; d ^= a; d = rotl32(d, 8);
    c += d; b ^= c; b = rotl32(b, 7);
}

// Adds `blocks` to the 64-bit counter in ctr[0..1], the row read and
// written as one 16-byte value: a kernel called next (the tail block of a
// raw ChaCha20 update, the next update) reads the row with one 16-byte
// load, which two 32-bit stores still in flight would hold up until they
// reached the cache.
inline void chacha_advance(uint32_t ctr[4], uint64_t blocks) noexcept {
    __m128i row = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ctr));
    row = _mm_add_epi64(row, _mm_cvtsi64_si128(static_cast<long long>(blocks)));  // lane 0: ctr[1] << 32 | ctr[0]
    _mm_storeu_si128(reinterpret_cast<__m128i*>(ctr), row);
}

// The counter row from a 16-byte IV (four little-endian words) as one
// 16-byte load and one 16-byte store (x86-64 is little-endian, so the words
// are the bytes as they are). A kernel called just after reads the row with
// one 16-byte load, which four 32-bit stores still in flight would hold up
// until they reached the cache.
inline void chacha_set_counter_row(uint32_t ctr[4], const uint8_t iv[16]) noexcept { std::memcpy(ctr, iv, 16); }

void chacha_load_key(ChaChaState& st, const uint8_t key[32]) noexcept;

// One 64-byte block for the current counter (does not advance it).
void chacha20_block_portable(const ChaChaState& st, uint8_t out[64]) noexcept;

// out[0..64n) = in ^ keystream for n whole blocks from st.ctr, then advances
// the counter by n. in == nullptr writes the keystream itself. in == out is
// allowed; partial overlap is not.
void chacha20_blocks_portable(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept;

// Raw ChaCha20 over any update split: the keystream of a partly used block
// is kept in `ks` until the next call.
struct ChaChaStream {
    ChaChaState st;
    uint8_t ks[kChaChaBlock];
    uint32_t ks_pos;  // bytes of ks already used; kChaChaBlock when none is buffered
};

void chacha_stream_reset(ChaChaStream& s) noexcept;  // drops any buffered keystream
void chacha_stream_xor(const Impl& impl, ChaChaStream& s, const uint8_t* in, uint8_t* out, size_t len) noexcept;

}  // namespace stitch::kern
