// The message state machine around the one pass: nonce, held-back AAD,
// counter room, the grid's framing and the tag. No per-byte work here except
// the few bytes of a partly used keystream block.
#include "kernels/aead.hpp"

#include <algorithm>

#include "kernels/bytes.hpp"
#include "kernels/impl.hpp"

namespace stitch::kern {

void aead_init(AeadState& st, const Impl& impl, Grid grid) noexcept {
    wipe_object(st);
    st.impl = &impl;
    st.grid = grid;
    st.ks_pos = kChaChaBlock;
}

void aead_set_key(AeadState& st, const uint8_t key[32]) noexcept { chacha_load_key(st.chacha, key); }

// A new message on the counter words already in st.chacha.ctr. The callers
// write those words in place with one 16-byte store (bytes.hpp,
// store_words4). Passed through a 4-word array on the stack, g++ 12 stored
// them as three narrower stores and copied them with one 16-byte load,
// which waits for them to reach the cache (~18 cycles of an OpenSSH packet
// on Zen 4, where clang 14 built the words in registers).
static void start_message(AeadState& st) noexcept {
    wipe_object(st.mac);
    wipe(st.ks, sizeof(st.ks));
    wipe(st.pending, sizeof(st.pending));
    st.ks_pos = kChaChaBlock;
    st.aad_len = st.text_len = 0;
    st.pending_len = 0;
    st.mac_keyed = st.text_started = false;
    if (st.grid == Grid::rfc8439) {
        // The key block takes counter ctr[0]; text blocks ctr[0]+1 .. 2^32−1.
        st.text_room = (uint64_t(0xffffffffu) - st.chacha.ctr[0]) * kChaChaBlock;
    } else {
        st.text_room = UINT64_MAX;
    }
}

void aead_restart(AeadState& st, const uint32_t ctr[4]) noexcept {
    std::copy(ctr, ctr + 4, st.chacha.ctr);
    start_message(st);
}

void aead_set_nonce(AeadState& st, const uint8_t nonce[12], uint32_t first_counter) noexcept {
    store_words4(st.chacha.ctr, first_counter, load_le32(nonce), load_le32(nonce + 4), load_le32(nonce + 8));
    start_message(st);
}

void aead_set_seqnr(AeadState& st, uint64_t seqnr) noexcept {
    store_seqnr_row(st.chacha.ctr, seqnr);
    start_message(st);
}

void aead_key_mac(AeadState& st, const uint8_t block0[kChaChaBlock], bool for_text) noexcept {
    poly1305_init(st.mac, block0);
    st.mac_keyed = true;
    if (st.pending_len > 0) {
        poly1305_update(*st.impl, st.mac, st.pending, st.pending_len);
        wipe(st.pending, st.pending_len);
        st.pending_len = 0;
    }
    if (for_text && st.grid == Grid::rfc8439) poly1305_pad16(*st.impl, st.mac);
}

// Generates block 0 on its own: used only when the message has no text or
// more AAD than can be held back.
static void key_mac_alone(AeadState& st, bool for_text) noexcept {
    uint8_t block0[kChaChaBlock];
    st.impl->chacha20_blocks(st.chacha, nullptr, block0, 1);
    aead_key_mac(st, block0, for_text);
    wipe(block0, sizeof(block0));
}

bool aead_aad(AeadState& st, const uint8_t* aad, size_t len) noexcept {
    if (st.text_started) return false;
    if (len == 0) return true;
    st.aad_len += len;
    if (!st.mac_keyed && st.pending_len + len <= kPendingMax) {
        if (st.pending_len + len <= kPolyBlock)
            set_block_bytes(st.pending, st.pending_len, aad, len);  // one store: key_mac reads it whole
        else
            copy_short(st.pending + st.pending_len, aad, len);
        st.pending_len += uint32_t(len);
        return true;
    }
    if (!st.mac_keyed) key_mac_alone(st, false);
    poly1305_update(*st.impl, st.mac, aad, len);
    return true;
}

bool aead_text(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept {
    if (len == 0) return true;
    if (len > st.text_room - st.text_len) return false;
    if (!st.text_started) {
        st.text_started = true;
        if (st.mac_keyed && st.grid == Grid::rfc8439) poly1305_pad16(*st.impl, st.mac);
    }
    st.text_len += len;
    // Finish a keystream block an earlier call left partly used; the MAC
    // always sees ciphertext (read before it is overwritten when in == out).
    if (st.ks_pos < kChaChaBlock) {
        size_t take = std::min(len, size_t(kChaChaBlock - st.ks_pos));
        const uint8_t* ks = st.ks + st.ks_pos;
        if (dir == Direction::open) poly1305_update(*st.impl, st.mac, in, take);
        xor_short(out, in, ks, take);
        if (dir == Direction::seal) poly1305_update(*st.impl, st.mac, out, take);
        st.ks_pos += uint32_t(take);
        in += take;
        out += take;
        len -= take;
    }
    if (len > 0) st.impl->aead_text(st, dir, in, out, len);
    return true;
}

void aead_text_with_keystream(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len,
                              const uint8_t* ks) noexcept {
    aead_key_mac(st, ks, true);
    st.text_started = true;
    st.text_len = len;
    st.text_room = len;  // the whole text: a later aead_text call is refused
    if (dir == Direction::seal) {
        xor_short(out, in, ks + kChaChaBlock, len);
        poly1305_update(*st.impl, st.mac, out, len);
    } else {
        poly1305_update(*st.impl, st.mac, in, len);
    }
    chacha_advance(st.chacha.ctr, 1 + (len + kChaChaBlock - 1) / kChaChaBlock);
}

void aead_final(AeadState& st, uint8_t tag[16]) noexcept {
    if (!st.mac_keyed) key_mac_alone(st, false);
    if (st.grid == Grid::rfc8439) {
        // The zero-padded last text block (if any) and the lengths block in
        // one poly1305_blocks call: a call less on every record's tail.
        Poly1305State& m = st.mac;
        uint8_t tail[2 * kPolyBlock] = {};
        const size_t padded = m.buf_len > 0 ? kPolyBlock : 0;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(tail), first_bytes(m.buf, m.buf_len));
        m.buf_len = 0;
        store_le64(tail + padded, st.aad_len);
        store_le64(tail + padded + 8, st.text_len);
        st.impl->poly1305_blocks(m, tail, padded / kPolyBlock + 1);
        wipe(tail, sizeof(tail));
    }
    poly1305_final(*st.impl, st.mac, tag);
    wipe(st.ks, sizeof(st.ks));
    st.ks_pos = kChaChaBlock;
    st.mac_keyed = false;
}

bool aead_open_record(AeadState& st, const uint8_t* in, uint8_t* out, size_t len, const uint8_t tag[16]) noexcept {
    if (st.text_started || len > st.text_room) return false;
    st.text_started = true;
    st.text_len = len;
    if (st.mac_keyed && st.grid == Grid::rfc8439) poly1305_pad16(*st.impl, st.mac);
    return st.impl->aead_open_record(st, in, out, len, tag);
}

void aead_wipe(AeadState& st) noexcept {
    const Impl* impl = st.impl;
    Grid grid = st.grid;
    wipe_object(st);
    st.impl = impl;
    st.grid = grid;
    st.ks_pos = kChaChaBlock;
}

}  // namespace stitch::kern
