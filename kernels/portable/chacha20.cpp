// Portable ChaCha20 block function (RFC 8439 §2.3) and the raw stream on
// top of whichever block kernel dispatch chose. The reference every faster
// path is tested against.
#include "kernels/chacha20.hpp"

#include <algorithm>

#include "kernels/bytes.hpp"
#include "kernels/impl.hpp"

namespace stitch::kern {

void chacha_load_key(ChaChaState& st, const uint8_t key[32]) noexcept {
    for (int i = 0; i < 8; ++i) st.key[i] = load_le32(key + 4 * i);
}

void chacha20_block_portable(const ChaChaState& st, uint8_t out[64]) noexcept {
    uint32_t x[16], in[16];
    for (int i = 0; i < 4; ++i) in[i] = kSigma[i];
    for (int i = 0; i < 8; ++i) in[4 + i] = st.key[i];
    for (int i = 0; i < 4; ++i) in[12 + i] = st.ctr[i];
    for (int i = 0; i < 16; ++i) x[i] = in[i];
    for (int round = 0; round < 10; ++round) {
        quarter_round(x[0], x[4], x[8], x[12]);
        quarter_round(x[1], x[5], x[9], x[13]);
        quarter_round(x[2], x[6], x[10], x[14]);
        quarter_round(x[3], x[7], x[11], x[15]);
        quarter_round(x[0], x[5], x[10], x[15]);
        quarter_round(x[1], x[6], x[11], x[12]);
        quarter_round(x[2], x[7], x[8], x[13]);
        quarter_round(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; ++i) store_le32(out + 4 * i, x[i] + in[i]);
    wipe(x, sizeof(x));
    wipe(in, sizeof(in));
}

void chacha20_blocks_portable(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept {
    uint8_t ks[kChaChaBlock];
    for (size_t b = 0; b < nblocks; ++b) {
        chacha20_block_portable(st, ks);
        chacha_advance(st.ctr, 1);
        if (in) {
            for (size_t i = 0; i < kChaChaBlock; ++i) out[i] = in[i] ^ ks[i];
            in += kChaChaBlock;
        } else {
            std::copy(ks, ks + kChaChaBlock, out);
        }
        out += kChaChaBlock;
    }
    wipe(ks, sizeof(ks));
}

void chacha_stream_reset(ChaChaStream& s) noexcept {
    wipe(s.ks, sizeof(s.ks));
    s.ks_pos = kChaChaBlock;
}

void chacha_stream_xor(const Impl& impl, ChaChaStream& s, const uint8_t* in, uint8_t* out, size_t len) noexcept {
    // Finish the block a previous call left partly used.
    while (len > 0 && s.ks_pos < kChaChaBlock) {
        *out++ = *in++ ^ s.ks[s.ks_pos++];
        --len;
    }
    size_t whole = len / kChaChaBlock;
    if (whole > 0) {
        impl.chacha20_blocks(s.st, in, out, whole);
        in += whole * kChaChaBlock;
        out += whole * kChaChaBlock;
        len -= whole * kChaChaBlock;
    }
    if (len > 0) {
        impl.chacha20_blocks(s.st, nullptr, s.ks, 1);
        for (size_t i = 0; i < len; ++i) out[i] = in[i] ^ s.ks[i];
        s.ks_pos = uint32_t(len);
    }
}

}  // namespace stitch::kern
