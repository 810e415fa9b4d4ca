// Short opens (up to kShortOpenMax bytes, RFC 8439 §2.8): the text's
// keystream (one to three blocks) in the row layout (avx2/row_rounds.hpp),
// with block 0, the Poly1305 key, either in general-purpose registers beside
// the rows' first half and the MAC keyed from it and absorbing the
// ciphertext beside their second half, or in the rows' lane 0 and the MAC
// after the rounds, as the CPU rules say (avx2/tuning.hpp). A whole-record
// open so has the tag over the ciphertext before a byte is written and
// writes (in ^ keystream) masked by the verdict: the plaintext of an
// authentic record, zeros otherwise, with no branch on the tag. A seal's
// first call of 1..128 bytes takes the same rows with block 0 beside
// them where the CPU rule says so (short_seal): the MAC is keyed and the
// AAD absorbed beside the rounds, but its ciphertext exists only after
// them, so that part of the MAC follows the XOR. (Block 0 and the text's
// first block both in general-purpose registers instead, measured on Zen 5
// in December 2026: level at 1-64 bytes, 4-10% slower at 65-192 with the
// rows beside them; docs/benchmarks.md.)
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

// Pair p's rows after the rounds, plus their input, as blocks 2p and 2p + 1
// of ks (the keystream layout of avx2/chacha20.hpp).
STITCH_INLINE_AVX2_BMI2 void rows_out(U32x8 (&ks)[1][16], const U32x8* in, size_t p, __m256i ra, __m256i rb,
                                      __m256i rc, __m256i rd) {
    const U32x8 a = U32x8(ra) + in[4 * p], b = U32x8(rb) + in[4 * p + 1];
    const U32x8 c = U32x8(rc) + in[4 * p + 2], d = U32x8(rd) + in[4 * p + 3];
    ks[0][2 * p] = U32x8::halves<false>(a, b);
    ks[0][2 * p + 1] = U32x8::halves<true>(a, b);
    ks[0][8 + 2 * p] = U32x8::halves<false>(c, d);
    ks[0][8 + 2 * p + 1] = U32x8::halves<true>(c, d);
}

// The text's keystream (blocks 1..n from the counter, n = blocks_for(len),
// 1..3) in the row layout, with block 0 in general-purpose registers and the
// MAC beside the rows, so the rounds and the MAC overlap instead of
// following each other: block 0 takes its ten double rounds beside the
// rows' first `key_rounds` (two beside each of the first 10 - key_rounds),
// the MAC is keyed from it (the held-back AAD absorbed), and an open's
// ciphertext ct[0..len) is absorbed in equal runs of whole Poly1305 blocks
// beside the rows' other double rounds. A seal (Dir) passes ct = nullptr:
// its ciphertext exists only after the rounds. The keystream lands in lanes
// 0..n-1 of ks and the counter is advanced past it; returns the
// accumulator. Requires !st.mac_keyed and 1 <= len <= kShortMax (192:
// three blocks, two pairs).
template <Direction Dir, size_t Pairs>
STITCH_INLINE_AVX2_BMI2 mulx::PolyAcc key_beside_rows(AeadState& st, U32x8 (&ks)[1][16], const uint8_t* ct,
                                                      size_t len) {
    // The rows' double rounds with the MAC beside them: one for each four
    // Poly1305 blocks of text and AAD, one to five (two of block 0's beside
    // each row round at most, so ten fit in the other five or more). Splits
    // measured on Zen 5 (December 2026, core cycles of a whole-record open
    // with its nonce and AAD): 64 B two 567-600, four 640; 128 B three or
    // four 595. This tree: 64 B 778 -> 558, 128 B 852 -> 570, 192 B 910 ->
    // 716 against the MAC after the rounds (docs/benchmarks.md). A seal has
    // the AAD alone to absorb: one.
    const size_t text_blocks = Dir == Direction::open ? (len + kPolyBlock - 1) / kPolyBlock : 0;
    const size_t mac_rounds = std::clamp<size_t>((text_blocks + 1 + 3) / 4, 1, 5);  // with the AAD block
    const size_t key_rounds = 10 - mac_rounds;

    U32x8 in[4 * Pairs];
    for (size_t p = 0; p < Pairs; ++p) load_rows(st.chacha, 1 + 2 * p, in + 4 * p);
    RowRegs<Pairs> r;
    r.a0 = in[0].raw(), r.b0 = in[1].raw(), r.c0 = in[2].raw(), r.d0 = in[3].raw();
    if constexpr (Pairs == 2) r.a1 = in[4].raw(), r.b1 = in[5].raw(), r.c1 = in[6].raw(), r.d1 = in[7].raw();
    // The input rows wait in memory until the end: kept in registers beside
    // two pairs' rows they left too few, and g++ 12 spilled the rows inside
    // the rounds instead.
    __asm__ volatile("" : "+m"(in));
    x86::ScalarBlock block0(st.chacha);
    for (size_t i = 0; i < key_rounds; ++i) {
        rows_double_round(r);
        block0.double_round();
        if (i < mac_rounds) block0.double_round();
    }
    mulx::PolyAcc acc;
    key_mac(st, acc, block0);
    wipe_object(block0);
    if constexpr (Dir == Direction::seal) {
        for (size_t i = 0; i < mac_rounds; ++i) rows_double_round(r);
    } else {
        // The head first (on the OpenSSH grid the held-back length's block
        // is topped up from the text), then whole blocks in equal runs
        // beside the rounds, and the partial last block buffered after
        // them: no byte copies beside the rounds.
        size_t mac = 0;
        absorb_head(st.mac, acc, ct, mac, len);
        const size_t whole = (len - mac) / kPolyBlock, run = (whole + mac_rounds - 1) / mac_rounds;
        for (size_t i = 0, done = 0; i < mac_rounds; ++i) {
            rows_double_round(r);
            const size_t n = std::min(run, whole - done);
            mulx::blocks(acc, ct + mac + done * kPolyBlock, n);
            done += n;
        }
        mac += whole * kPolyBlock;
        if (mac < len) mac_update(acc, st.mac, ct + mac, len - mac);
    }
    // Rows plus their input; pair p is blocks 2p and 2p + 1 of the text.
    rows_out(ks, in, 0, r.a0, r.b0, r.c0, r.d0);
    if constexpr (Pairs == 2) rows_out(ks, in, 1, r.a1, r.b1, r.c1, r.d1);
    U32x8::wipe<4 * Pairs>(in);  // the key's words
    chacha_advance(st.chacha.ctr, 1 + blocks_for(len));
    return acc;
}

// Block 0 in lane 0 of the row pairs the text's blocks take anyway (lanes
// 1..n, n = blocks_for(len)), the MAC keyed from lane 0 after the rounds and
// ct[0..len) absorbed: where that is quicker than block 0 in general-purpose
// registers beside the rows (avx2/tuning.hpp). A one-block text (1..64
// bytes) shares one pair wherever lone blocks run in lanes (kLoneBlockInGpr
// false): measured on Zen 4 (kernel, December 2026), a 64-byte open 175-191
// -> 164-169 ns. Two or three blocks (65..192 bytes) take two pairs and up
// to thirteen Poly1305 blocks after the rounds on Emerald Rapids only
// (kShortRecordKeyInGpr false). The counter advanced past block 0 and the
// text's blocks; returns the accumulator.
template <size_t Pairs>
STITCH_INLINE_AVX2_BMI2 mulx::PolyAcc open_after_rows(AeadState& st, U32x8 (&ks)[1][16], const uint8_t* ct,
                                                      size_t len) {
    keystream_rows<Pairs>(st.chacha, ks);
    mulx::PolyAcc acc;
    key_mac(st, acc, ks[0], 0);
    mac_update(acc, st.mac, ct, len);
    const size_t blocks = 1 + blocks_for(len);  // block 0 and the text's
    chacha_advance(st.chacha.ctr, blocks);
    return acc;
}

// Whether a record of len (1..kShortMax) bytes with the MAC not keyed yet
// runs block 0 in general-purpose registers beside its text's rows
// (key_beside_rows), an open's and a seal's alike: one text block where
// lone blocks run in general registers, two or three where the short
// open's rule says so (avx2/tuning.hpp).
STITCH_INLINE_AVX2_BMI2 bool key_beside_rows_takes(size_t len) {
    return len <= kChaChaBlock ? kLoneBlockInGpr : kShortRecordKeyInGpr;
}

// Block 0, the keystream of the text's blocks_for(len) (0..3) blocks in
// lanes first.., the counter past them, and the MAC keyed and the
// ciphertext ct[0..len) absorbed; returns the accumulator and sets first
// (0, or 1 where block 0 took lane 0). Requires !st.mac_keyed.
STITCH_INLINE_AVX2_BMI2 mulx::PolyAcc keyed_open_keystream(AeadState& st, U32x8 (&ks)[1][16], const uint8_t* ct,
                                                           size_t len, size_t& first) {
    first = 0;
    if (len == 0) {
        mulx::PolyAcc acc;
        key_mac_alone(st, acc);
        return acc;
    }
    if (!key_beside_rows_takes(len)) {
        first = 1;
        return len <= kChaChaBlock ? open_after_rows<1>(st, ks, ct, len) : open_after_rows<2>(st, ks, ct, len);
    }
    if (blocks_for(len) <= 2) return key_beside_rows<Direction::open, 1>(st, ks, ct, len);
    return key_beside_rows<Direction::open, 2>(st, ks, ct, len);
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
        xor_short_masked(out, in, last, len, keep);
        wipe(last, sizeof(last));
    }
}

// Opens of 1..kShortOpenMax bytes with the MAC not keyed yet: the key and
// the text's keystream in one call, then the MAC of the ciphertext before
// the XOR overwrites it (in == out).
STITCH_INLINE_AVX2_BMI2 void short_open(AeadState& st, const uint8_t* in, uint8_t* out, size_t len) {
    U32x8 ks[1][16];
    size_t first;
    mulx::PolyAcc acc = keyed_open_keystream(st, ks, in, len, first);
    emit(st, ks, first, in, out, len);
    mulx::store(st.mac, acc);
    wipe_upto(ks, first + blocks_for(len));
}

// Whether a seal's first call of len bytes (the MAC not keyed yet) takes
// short_seal: a text of one or two blocks (1..kShortSealMax bytes, one row
// pair) where an open of as many blocks runs block 0 beside its rows.
// Three-block texts (129..192 bytes) take the pass: on Zen 5 (kernel,
// December 2026) block 0 beside their two pairs was 3% quicker at best
// and 4% slower by the median in the host's busy phases, and through EVP
// 1.85-1.90x against 1.83-1.85x the default idle, 1.74-1.82x against
// 1.86-1.93x busy (inferred: a busy SMT sibling), as on Emerald Rapids'
// opens (avx2/tuning.hpp).
inline constexpr size_t kShortSealMax = 2 * kChaChaBlock;
STITCH_INLINE_AVX2_BMI2 bool short_seal_takes(size_t len) {
    return len > 0 && len <= kShortSealMax && key_beside_rows_takes(len);
}

// Seals of 1..kShortSealMax bytes with the MAC not keyed yet, where
// short_seal_takes: block 0 beside the text's row pair (key_beside_rows),
// the held-back AAD absorbed beside its last double round, then the XOR
// and the ciphertext's MAC.
STITCH_INLINE_AVX2_BMI2 void short_seal(AeadState& st, const uint8_t* in, uint8_t* out, size_t len) {
    U32x8 ks[1][16];
    mulx::PolyAcc acc = key_beside_rows<Direction::seal, 1>(st, ks, nullptr, len);
    emit(st, ks, 0, in, out, len);
    mac_update(acc, st.mac, out, len);
    mulx::store(st.mac, acc);
    wipe_upto(ks, blocks_for(len));
}

}  // namespace stitch::kern::avx2
