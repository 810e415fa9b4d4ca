// Portable one pass over AEAD text (RFC 8439 §2.8, and OpenSSH's grid through
// the same code): generate keystream a few blocks at a time, MAC the
// ciphertext, XOR. Written over st.impl's block functions so it is the
// reference for the stitched kernels and the fallback for every other CPU.
#include <algorithm>

#include "kernels/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/impl.hpp"
#include "kernels/verdict.hpp"

namespace stitch::kern {

namespace {

constexpr size_t kChunkBlocks = 4;

// out = in ^ ks over len bytes, with the MAC over the ciphertext side.
void xor_and_mac(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, const uint8_t* ks, size_t len) noexcept {
    if (dir == Direction::open) poly1305_update(*st.impl, st.mac, in, len);
    for (size_t i = 0; i < len; ++i) out[i] = in[i] ^ ks[i];
    if (dir == Direction::seal) poly1305_update(*st.impl, st.mac, out, len);
}

// Keeps the unused end of the last keystream block for the next call.
void keep_tail(AeadState& st, const uint8_t* last_block, size_t used) noexcept {
    if (used == kChaChaBlock) return;
    std::copy(last_block, last_block + kChaChaBlock, st.ks);
    st.ks_pos = uint32_t(used);
}

size_t blocks_for(size_t len) noexcept { return (len + kChaChaBlock - 1) / kChaChaBlock; }

}  // namespace

void aead_text_portable(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept {
    const Impl& impl = *st.impl;
    uint8_t ks[kChunkBlocks * kChaChaBlock];
    size_t first = 0;  // keystream blocks of ks before the text's
    size_t n = std::min(blocks_for(len), kChunkBlocks - 1);
    if (!st.mac_keyed) {
        // Key block and the first text blocks in one call (the short path
        // for records up to kShortMax: one call covers them whole).
        impl.chacha20_blocks(st.chacha, nullptr, ks, 1 + n);
        aead_key_mac(st, ks, true);
        first = 1;
    } else {
        n = std::min(blocks_for(len), kChunkBlocks);
        impl.chacha20_blocks(st.chacha, nullptr, ks, n);
    }
    for (;;) {
        size_t take = std::min(len, n * kChaChaBlock);
        xor_and_mac(st, dir, in, out, ks + first * kChaChaBlock, take);
        in += take;
        out += take;
        len -= take;
        if (len == 0) {
            size_t used_in_last = take - (n - 1) * kChaChaBlock;
            keep_tail(st, ks + (first + n - 1) * kChaChaBlock, used_in_last);
            break;
        }
        first = 0;
        n = std::min(blocks_for(len), kChunkBlocks);
        impl.chacha20_blocks(st.chacha, nullptr, ks, n);
    }
    wipe(ks, sizeof(ks));
}

bool aead_open_record_portable(AeadState& st, const uint8_t* in, uint8_t* out, size_t len,
                               const uint8_t tag[16]) noexcept {
    if (len > kShortMax) {
        aead_text_portable(st, Direction::open, in, out, len);
        return verdict_and_wipe(st, out, len, tag);
    }
    // Short record: one keystream call, MAC the ciphertext, and decrypt only
    // an authentic record.
    const Impl& impl = *st.impl;
    uint8_t ks[(1 + kShortMax / kChaChaBlock) * kChaChaBlock];
    size_t first = 0;
    if (!st.mac_keyed) {
        impl.chacha20_blocks(st.chacha, nullptr, ks, 1 + blocks_for(len));
        aead_key_mac(st, ks, true);
        first = kChaChaBlock;
    } else if (len > 0) {
        impl.chacha20_blocks(st.chacha, nullptr, ks, blocks_for(len));
    }
    poly1305_update(impl, st.mac, in, len);
    // Nothing has been written to out yet, so in == out still holds ciphertext.
    // The keystream is masked to zero on a refusal: the XOR then writes zeros.
    const uint8_t keep = tag_verdict(st, tag);
    for (size_t i = 0; i < len; ++i) out[i] = (in[i] ^ ks[first + i]) & keep;
    wipe(ks, sizeof(ks));
    return keep != 0;
}

}  // namespace stitch::kern
