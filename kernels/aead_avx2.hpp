// Pieces both AVX2 AEAD kernels (the stitched pass and the short path) share:
// Poly1305 absorption with poly1305_update's buffering but MULX blocks kept
// in registers, and the emission of keystream batches with the partial last
// block parked in st.ks. AVX2-only; everything is inlined.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"
#include "kernels/chacha20_avx2.hpp"
#include "kernels/poly1305_mulx.hpp"

namespace stitch::kern::avx2 {

STITCH_INLINE_AVX2_BMI2 size_t blocks_for(size_t len) { return (len + kChaChaBlock - 1) / kChaChaBlock; }

// poly1305_update with the accumulator in `acc`: tops up a buffered block
// first (the skew of the OpenSSH grid), absorbs whole blocks, buffers the rest.
STITCH_INLINE_AVX2_BMI2 void mac_update(mulx::PolyAcc& acc, Poly1305State& mac, const uint8_t* p, size_t len) {
    if (mac.buf_len > 0) {
        const size_t take = std::min(len, kPolyBlock - mac.buf_len);
        for (size_t i = 0; i < take; ++i) mac.buf[mac.buf_len + i] = p[i];
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
    for (size_t i = 0; i < len; ++i) mac.buf[i] = p[i];
    mac.buf_len = uint32_t(len);
}

// out = in ^ keystream for `bytes` bytes (0 < bytes <= 64·(8B - first)),
// starting at block `first` of B batches. A partial last block leaves its
// keystream in st.ks for the next aead_text call, as aead_text_portable does.
template <size_t B>
STITCH_INLINE_AVX2_BMI2 void emit(AeadState& st, const U32x8 (&ks)[B][16], size_t first, const uint8_t* in,
                                  uint8_t* out, size_t bytes) {
    size_t b = first;
    for (; bytes >= kChaChaBlock; ++b, bytes -= kChaChaBlock) {
        xor_block(ks[b / kBatchBlocks], b % kBatchBlocks, in, out);
        in += kChaChaBlock;
        out += kChaChaBlock;
    }
    if (bytes > 0) {
        store_block(ks[b / kBatchBlocks], b % kBatchBlocks, st.ks);
        for (size_t i = 0; i < bytes; ++i) out[i] = in[i] ^ st.ks[i];
        st.ks_pos = uint32_t(bytes);
    }
}

// Records of 1..kShortMax bytes with the MAC not keyed yet: one keystream
// batch for the key block and the text (aead_short_avx2.cpp).
STITCH_TARGET_AVX2_BMI2 void short_text(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out,
                                        size_t len) noexcept;

}  // namespace stitch::kern::avx2
