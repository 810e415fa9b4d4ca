// Short opens (up to kShortOpenMax bytes, RFC 8439 §2.8): one run of the row-layout
// rounds gives the text's keystream (one to three blocks) while the Poly1305
// key block is computed beside it in scalar registers (ScalarBlock), so the
// MAC is keyed and the ciphertext absorbed during those rounds. A
// whole-record open computes the tag over the ciphertext first and writes
// (in ^ keystream) masked by the verdict: the plaintext of an authentic
// record, zeros otherwise, with no branch on the tag. (Short seals take the
// one pass, avx2/aead_pass.hpp: their MAC needs the keystream first, so
// nothing here would run beside the rounds but the key.) Included by the two
// entry points, avx2/aead_text.cpp and avx2/aead_record.cpp.
#pragma once

#include "kernels/avx2/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/verdict.hpp"

namespace stitch::kern::avx2 {

// The text's keystream when the MAC is already keyed (more AAD than could
// be held back): blocks_for(len) blocks from the counter.
STITCH_INLINE_AVX2_BMI2 void keyed_keystream(AeadState& st, U32x8 (&ks)[1][16], size_t len) {
    const size_t n = blocks_for(len);
    if (n == 0) return;
    keystream_upto(st.chacha, ks, n);
    chacha_advance(st.chacha.ctr, n);
}

// Beside steps (of keystream_rows' 20) that run the key block, one double
// round each; the MAC is keyed at the next step and the later ones absorb
// ciphertext. On Zen 5 a scalar double round (~25 cycles) fits in a step
// of the vector rounds (~28), so the key arrives halfway.
constexpr int kShortKeySteps = 10;

// What runs beside the text's rounds: the key block, then keying the MAC,
// then `ct_blocks` whole blocks of the ciphertext ct spread over the steps
// left.
struct ShortFeed {
    AeadState& st;
    mulx::PolyAcc acc;
    const uint8_t* ct;
    size_t ct_blocks;
    ScalarBlock block0{st.chacha};
    size_t done = 0;

    STITCH_INLINE_AVX2_BMI2 void operator()(int step, int steps) {
        if (step < kShortKeySteps) {
            block0.double_round();
        } else if (step == kShortKeySteps) {
            key_mac(st, acc, block0);
        } else {
            const size_t target = size_t(step - kShortKeySteps) * ct_blocks / size_t(steps - 1 - kShortKeySteps);
            for (; done < target; ++done) mulx::block(acc, ct + done * kPolyBlock);
        }
    }
};

// The keystream of blocks_for(len) text blocks (0..3) into ks, from the
// counter after the key block, with ShortFeed beside the rounds; returns its
// accumulator. The caller advances the counter. Requires !st.mac_keyed.
// (An empty record runs the key block alone.)
STITCH_INLINE_AVX2_BMI2 mulx::PolyAcc short_rounds(AeadState& st, U32x8 (&ks)[1][16], size_t len,
                                                   const uint8_t* ct, size_t ct_blocks) {
    ShortFeed feed{st, {}, ct, ct_blocks};
    ChaChaState text = st.chacha;
    chacha_advance(text.ctr, 1);
    const size_t n = blocks_for(len);
    if (n > 2) {
        keystream_rows<2>(text, ks, feed);
    } else if (n > 0) {
        keystream_rows<1>(text, ks, feed);
    } else {
        for (int step = 0; step <= kShortKeySteps; ++step) feed(step, 20);
    }
    return feed.acc;
}

// Whole ciphertext blocks the rounds may absorb: on the rfc8439 grid the MAC
// is block-aligned once keyed; openssh's is 4 bytes in and takes mac_update.
STITCH_INLINE_AVX2_BMI2 size_t aligned_blocks(const AeadState& st, size_t len) {
    return st.grid == Grid::rfc8439 ? len / kPolyBlock : 0;
}

// out[0..len) = (in ^ keystream) & keep, len <= 512, keep from tag_verdict.
STITCH_INLINE_AVX2_BMI2 void masked_xor(const U32x8 (&ks)[1][16], const uint8_t* in, uint8_t* out, size_t len,
                                        uint8_t keep) {
    const U32x8 mask = U32x8::splat(0x01010101u * keep);
    size_t b = 0;
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

// Opens of 1..kShortOpenMax bytes with the MAC not keyed yet: the text's
// keystream in one call, the key block and the MAC beside its rounds.
STITCH_INLINE_AVX2_BMI2 void short_open(AeadState& st, const uint8_t* in, uint8_t* out, size_t len) {
    U32x8 ks[1][16];
    const size_t early = aligned_blocks(st, len);
    mulx::PolyAcc acc = short_rounds(st, ks, len, in, early);
    chacha_advance(st.chacha.ctr, 1 + blocks_for(len));
    // The rest of the ciphertext before the XOR overwrites it (in == out).
    mac_update(acc, st.mac, in + early * kPolyBlock, len - early * kPolyBlock);
    emit(st, ks, 0, in, out, len);
    mulx::store(st.mac, acc);
    wipe_upto(ks, blocks_for(len));
}

}  // namespace stitch::kern::avx2
