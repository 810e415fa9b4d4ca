// Short opens (up to kShortOpenMax bytes, RFC 8439 §2.8): one run of the
// row-layout rounds (avx2/row_rounds.hpp) gives block 0, the Poly1305 key,
// in lane 0 and the text's keystream (one to three blocks) in the lanes
// after it; the MAC is keyed from lane 0 and absorbs the ciphertext. A
// whole-record open computes the tag over the ciphertext first and writes
// (in ^ keystream) masked by the verdict: the plaintext of an authentic
// record, zeros otherwise, with no branch on the tag. (Short seals take the
// one pass, avx2/aead_pass.hpp, whose first call is the same keystream run.)
// Included by the two entry points, avx2/aead_text.cpp and
// avx2/aead_record.cpp.
#pragma once

#include "kernels/avx2/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/verdict.hpp"

namespace stitch::kern::avx2 {

// The text's keystream when the MAC is already keyed (more AAD than could
// be held back): blocks_for(len) blocks from the counter, in lanes 0.. .
STITCH_INLINE_AVX2_BMI2 void keyed_keystream(AeadState& st, U32x8 (&ks)[1][16], size_t len) {
    const size_t n = blocks_for(len);
    if (n == 0) return;
    keystream_upto(st.chacha, ks, n);
    chacha_advance(st.chacha.ctr, n);
}

// Block 0 and the keystream of blocks_for(len) text blocks (0..3) in lanes
// 1.. of ks, the counter advanced past them, and the MAC keyed from lane 0;
// returns its accumulator. Requires !st.mac_keyed.
STITCH_INLINE_AVX2_BMI2 mulx::PolyAcc keying_keystream(AeadState& st, U32x8 (&ks)[1][16], size_t len) {
    mulx::PolyAcc acc;
    if (len == 0) {
        key_mac_alone(st, acc);
        return acc;
    }
    const size_t lanes = 1 + blocks_for(len);
    keystream_upto(st.chacha, ks, lanes);
    chacha_advance(st.chacha.ctr, lanes);
    key_mac(st, acc, ks[0], 0);
    return acc;
}

// out[0..len) = (in ^ keystream from lane first) & keep, len <= 448, keep
// from tag_verdict.
STITCH_INLINE_AVX2_BMI2 void masked_xor(const U32x8 (&ks)[1][16], size_t first, const uint8_t* in, uint8_t* out,
                                        size_t len, uint8_t keep) {
    const U32x8 mask = U32x8::splat(0x01010101u * keep);
    size_t b = first;
    for (; len >= kChaChaBlock; ++b, len -= kChaChaBlock) {
        ((U32x8::load_le(in) ^ ks[0][b]) & mask).store_le(out);
        ((U32x8::load_le(in + 32) ^ ks[0][8 + b]) & mask).store_le(out + 32);
        in += kChaChaBlock;
        out += kChaChaBlock;
    }
    if (len > 0) {
        uint8_t last[kChaChaBlock];
        store_block(ks[0], b, last);
        for (size_t i = 0; i < len; ++i) out[i] = uint8_t((in[i] ^ last[i]) & keep);
        wipe(last, sizeof(last));
    }
}

// Opens of 1..kShortOpenMax bytes with the MAC not keyed yet: the key and
// the text's keystream in one call, then the MAC of the ciphertext before
// the XOR overwrites it (in == out).
STITCH_INLINE_AVX2_BMI2 void short_open(AeadState& st, const uint8_t* in, uint8_t* out, size_t len) {
    U32x8 ks[1][16];
    mulx::PolyAcc acc = keying_keystream(st, ks, len);
    mac_update(acc, st.mac, in, len);
    emit(st, ks, 1, in, out, len);
    mulx::store(st.mac, acc);
    wipe_upto(ks, 1 + blocks_for(len));
}

}  // namespace stitch::kern::avx2
