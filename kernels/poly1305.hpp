// Poly1305 (RFC 8439 §2.5) in base 2^64: h = h0 + h1·2^64 + h2·2^128,
// r = r0 + r1·2^64. Every kernel (portable, MULX) shares this state, so a
// message may be started on one and finished on another.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stitch::kern {

struct Impl;

inline constexpr size_t kPolyBlock = 16;

struct Poly1305State {
    uint64_t h[3];
    uint64_t r[2];
    uint64_t s1;  // r1 + r1/4 = 5·r1/4: r1's low two bits are clamped to 0, so 2^130 ≡ 5 folds exactly
    uint64_t pad[2];  // the "s" half of the one-time key, added at the end
    alignas(16) uint8_t buf[kPolyBlock];
    uint32_t buf_len;  // bytes waiting in buf, always < 16 between calls
};

void poly1305_init(Poly1305State& st, const uint8_t key[32]) noexcept;

// Absorbs any number of bytes; whole blocks go through impl.poly1305_blocks.
void poly1305_update(const Impl& impl, Poly1305State& st, const uint8_t* in, size_t len) noexcept;

// RFC 8439 §2.8 grid: zero-pads a buffered partial block to 16 and absorbs it.
void poly1305_pad16(const Impl& impl, Poly1305State& st) noexcept;

// Ends the message (a partial block is terminated by a 1 byte, §2.5.1), writes
// the tag and wipes the state.
void poly1305_final(const Impl& impl, Poly1305State& st, uint8_t tag[16]) noexcept;

// Absorbs `nblocks` full 16-byte blocks (each with the 2^128 bit).
void poly1305_blocks_portable(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept;

}  // namespace stitch::kern
