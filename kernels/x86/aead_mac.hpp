// The MAC's bookkeeping in the x86 sets' AEAD kernels (AVX2 and AVX-512):
// Poly1305 absorption with poly1305_update's buffering but the MULX
// accumulator kept in registers, where a pass's MAC has got to in the
// ciphertext, and the keying of the MAC from block 0. Everything is inlined
// into the sets' target-attributed callers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/isa.hpp"
#include "kernels/x86/poly1305_mulx.hpp"
#include "kernels/x86/scalar_block.hpp"

namespace stitch::kern::x86 {

// set_block_bytes for the MAC's buffer in the x86 sets: the new bytes moved
// up past the kept ones by one PSHUFB, not by a 128-bit shift in general
// registers, which here hold the MAC and, in the short paths, little else
// free (clang 14's short open of 192 bytes read 3-5 ns slower with it).
alignas(32) inline constexpr uint8_t kBytesUp[32] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,   11,   12,   13,   14,   15};

STITCH_INLINE_AVX2_BMI2 void set_buffer_bytes(uint8_t block[16], size_t at, const uint8_t* p, size_t n) {
    const unsigned __int128 bytes = load_upto16(p, n);
    __m128i out = _mm_set_epi64x(int64_t(uint64_t(bytes >> 64)), int64_t(uint64_t(bytes)));
    if (at > 0) {
        // lane i takes byte i - at, or zero below at
        out = _mm_shuffle_epi8(out, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kBytesUp + 16 - at)));
        out = _mm_or_si128(out, first_bytes(block, at));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(block), out);
}

STITCH_INLINE_AVX2_BMI2 size_t blocks_for(size_t len) { return (len + kChaChaBlock - 1) / kChaChaBlock; }

// poly1305_update with the accumulator in `acc`: tops up a buffered block
// first (the skew of the OpenSSH grid), absorbs whole blocks, buffers the rest.
STITCH_INLINE_AVX2_BMI2 void mac_update(mulx::PolyAcc& acc, Poly1305State& mac, const uint8_t* p, size_t len) {
    if (mac.buf_len > 0) {
        const size_t take = std::min(len, kPolyBlock - mac.buf_len);
        set_buffer_bytes(mac.buf, mac.buf_len, p, take);
        mac.buf_len += uint32_t(take);
        p += take;
        len -= take;
        if (mac.buf_len < kPolyBlock) return;
        mulx::block(acc, mac.buf);
        mac.buf_len = 0;
    }
    const size_t whole = len / kPolyBlock;
    mulx::blocks(acc, p, whole);
    p += whole * kPolyBlock;
    len -= whole * kPolyBlock;
    if (len > 0) set_block_bytes(mac.buf, 0, p, len);
    mac.buf_len = uint32_t(len);
}

// Where a one pass's MAC has got to in the text's ciphertext ct: bytes
// [0, mac) absorbed or held in m.buf.

// Tops up a block the MAC holds back (the OpenSSH grid's 4-byte length)
// from ct[mac, limit).
STITCH_INLINE_AVX2_BMI2 void absorb_head(Poly1305State& m, mulx::PolyAcc& acc, const uint8_t* ct, size_t& mac,
                                         size_t limit) {
    if (m.buf_len == 0 || limit <= mac) return;
    const size_t take = std::min(limit - mac, kPolyBlock - m.buf_len);
    set_buffer_bytes(m.buf, m.buf_len, ct + mac, take);
    m.buf_len += uint32_t(take);
    mac += take;
    if (m.buf_len == kPolyBlock) {
        mulx::block(acc, m.buf);
        m.buf_len = 0;
    }
}

// Whole Poly1305 blocks in ct[mac, limit), once the head is done.
STITCH_INLINE_AVX2_BMI2 size_t whole_blocks(const Poly1305State& m, size_t mac, size_t limit) {
    return m.buf_len == 0 && limit > mac ? (limit - mac) / kPolyBlock : 0;
}

// An open that has reached the end of the text (len) keeps the last bytes
// (less than a block) in the MAC's buffer now, before the plaintext
// overwrites them; they may lie in an earlier batch than the last.
STITCH_INLINE_AVX2_BMI2 void buffer_last(Poly1305State& m, mulx::PolyAcc& acc, const uint8_t* ct, size_t& mac,
                                         size_t limit, size_t len) {
    if (limit < len || mac == len) return;
    mac_update(acc, m, ct + mac, len - mac);
    mac = len;
}

// aead_key_mac(st, block 0, true) with the accumulator in `acc` and the key
// words r ‖ s of block 0 in k: keys st.mac, absorbs the held-back AAD,
// zero-padded to 16 bytes on the rfc8439 grid, buffered on openssh's (its
// 4-byte length is the head of the first text block).
STITCH_INLINE_AVX2_BMI2 void key_mac(AeadState& st, mulx::PolyAcc& acc, const uint64_t k[4]) {
    Poly1305State& m = st.mac;
    acc.h0 = acc.h1 = acc.h2 = 0;
    acc.r0 = mulx::in_gpr(k[0] & 0x0ffffffc0fffffffull);  // poly1305_init's clamp
    acc.r1 = mulx::in_gpr(k[1] & 0x0ffffffc0ffffffcull);
    acc.s1 = mulx::in_gpr(acc.r1 + (acc.r1 >> 2));
    m.r[0] = acc.r0;
    m.r[1] = acc.r1;
    m.s1 = acc.s1;
    m.pad[0] = k[2];
    m.pad[1] = k[3];
    m.buf_len = 0;
    st.mac_keyed = true;

    // Bytes of st.pending past pending_len are zero (aead.hpp), so the last
    // partial block is its own zero padding, and copies run at a constant
    // 16 bytes: a variable-length copy becomes a call to memmove, which
    // would spill the vector rounds this runs beside.
    const size_t whole = st.pending_len / kPolyBlock, rest = st.pending_len % kPolyBlock;
    // At most kPendingMax / kPolyBlock = 2 blocks: block by block, as blocks()
    // takes so few, without its run code inlined at every key_mac.
    for (size_t i = 0; i < whole; ++i) mulx::block(acc, st.pending + i * kPolyBlock);
    if (rest > 0) {
        const uint8_t* tail = st.pending + whole * kPolyBlock;
        if (st.grid == Grid::rfc8439) {
            mulx::block(acc, tail);
        } else {
            std::memcpy(m.buf, tail, kPolyBlock);
            m.buf_len = uint32_t(rest);
        }
    }
    // All of it: a constant size is a few stores, where a variable one is a
    // call to memset, which would spill the vector rounds around it.
    wipe(st.pending, sizeof(st.pending));
    st.pending_len = 0;
}

STITCH_INLINE_AVX2_BMI2 void key_mac(AeadState& st, mulx::PolyAcc& acc, const ScalarBlock& block0) {
    uint64_t k[4];
    block0.key_words(st.chacha, k);
    key_mac(st, acc, k);
}

}  // namespace stitch::kern::x86
