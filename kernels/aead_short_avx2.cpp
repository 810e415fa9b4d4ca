// Short records (1..kShortMax bytes, RFC 8439 §2.8): the key block and up to
// three text blocks come out of one keystream batch. A whole-record open
// computes the tag over the ciphertext first and writes (in ^ keystream)
// masked by the verdict: the plaintext of an authentic record, zeros
// otherwise, with no branch on the tag.
#include "kernels/aead_avx2.hpp"
#include "kernels/avx2.hpp"
#include "kernels/bytes.hpp"

namespace stitch::kern {

namespace {

using avx2::blocks_for;
using avx2::U32x8;

// Keystream for [key block ‖] blocks_for(len) text blocks, keying the MAC
// from block 0 when it is not keyed yet. Returns the index of the first text
// block in ks.
STITCH_INLINE_AVX2_BMI2 size_t short_keystream(AeadState& st, U32x8 (&ks)[1][16], size_t len) {
    const size_t first = st.mac_keyed ? 0 : 1;
    const size_t n = first + blocks_for(len);
    if (n == 0) return 0;  // an empty record with the MAC already keyed
    avx2::keystream_upto(st.chacha, ks, n, [](int, int) {});
    if (first) {
        uint8_t block0[kChaChaBlock];
        avx2::store_block(ks[0], 0, block0);
        aead_key_mac(st, block0, true);
        wipe(block0, sizeof(block0));
    }
    chacha_advance(st.chacha.ctr, n);
    return first;
}

// The computed tag against `tag` in constant time: 0xff when they match.
STITCH_INLINE_AVX2_BMI2 uint8_t verdict(AeadState& st, const uint8_t tag[16]) {
    uint8_t computed[16];
    aead_final(st, computed);
    const uint8_t keep = ct_mask(ct_equal(computed, tag, 16));
    wipe(computed, sizeof(computed));
    return keep;
}

// out[0..len) = (in ^ keystream from block `first`) & keep, len <= 64·(8 - first).
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
        avx2::store_block(ks[0], b, last);
        for (size_t i = 0; i < len; ++i) out[i] = uint8_t((in[i] ^ last[i]) & keep);
        wipe(last, sizeof(last));
    }
}

// out[0..len) &= keep: clears a refused record (aead_check_tag's job, 32
// bytes at a time).
STITCH_INLINE_AVX2_BMI2 void mask_output(uint8_t* out, size_t len, uint8_t keep) {
    const U32x8 mask = U32x8::splat(0x01010101u * keep);
    size_t i = 0;
    for (; i + 32 <= len; i += 32) (U32x8::load_le(out + i) & mask).store_le(out + i);
    for (; i < len; ++i) out[i] &= keep;
}

}  // namespace

namespace avx2 {

void short_text(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept {
    U32x8 ks[1][16];
    const size_t first = short_keystream(st, ks, len);
    mulx::PolyAcc acc = mulx::load(st.mac);
    if (dir == Direction::open) mac_update(acc, st.mac, in, len);
    emit(st, ks, first, in, out, len);
    if (dir == Direction::seal) mac_update(acc, st.mac, out, len);
    mulx::store(st.mac, acc);
    wipe(ks, sizeof(ks));
    U32x8::zero_registers();
}

}  // namespace avx2

bool aead_open_record_avx2(AeadState& st, const uint8_t* in, uint8_t* out, size_t len,
                           const uint8_t tag[16]) noexcept {
    if (len > kShortMax) {
        aead_text_avx2(st, Direction::open, in, out, len);
        const uint8_t keep = verdict(st, tag);
        mask_output(out, len, keep);
        U32x8::zero_registers();
        return keep != 0;
    }
    U32x8 ks[1][16];
    const size_t first = short_keystream(st, ks, len);
    mulx::PolyAcc acc = mulx::load(st.mac);
    avx2::mac_update(acc, st.mac, in, len);
    mulx::store(st.mac, acc);
    // Nothing is written before the verdict, so in == out still holds the
    // ciphertext here.
    const uint8_t keep = verdict(st, tag);
    masked_xor(ks, first, in, out, len, keep);
    wipe(ks, sizeof(ks));
    U32x8::zero_registers();
    return keep != 0;
}

}  // namespace stitch::kern
