// ChaCha20 (RFC 8439 §2.3) keystream for the AVX2 kernels: the C++ side of
// the two asm round loops, eight-block batches in the word-per-register
// layout (avx2/batch_rounds.hpp) and one or two block pairs in the row
// layout (avx2/row_rounds.hpp). It builds their input words and hands out
// their keystream in one layout, U32x8 ks[16] (ks[b] bytes 0..31 of block b,
// ks[8 + b] bytes 32..63). Shared by avx2/chacha20.cpp and the AEAD kernels.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/avx2/batch_rounds.hpp"
#include "kernels/avx2/row_rounds.hpp"
#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/isa.hpp"
#include "kernels/simd/u32x8.hpp"

namespace stitch::kern::avx2 {

using simd::U32x8;

inline constexpr size_t kBatchBlocks = 8;

// Input words of a batch whose first block has counter ctr + first (each
// lane's 64-bit counter over words 12-13 carrying on its own).
STITCH_INLINE_AVX2_BMI2 void load_state(const ChaChaState& st, uint32_t first, U32x8 x[16]) {
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) x[i] = U32x8::splat(kSigma[i]);
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) x[4 + i] = U32x8::splat(st.key[i]);
    const U32x8 ctr0 = U32x8::splat(st.ctr[0]);
    x[12] = ctr0 + U32x8::iota() + U32x8::splat(first);
    x[13] = U32x8::splat(st.ctr[1]);
    x[13] -= U32x8::unsigned_lt(x[12], ctr0);  // a wrapped lane carries one (the mask is -1)
    x[14] = U32x8::splat(st.ctr[2]);
    x[15] = U32x8::splat(st.ctr[3]);
}

// The keystream of one batch (eight blocks from st.ctr), without advancing
// st, in the ks layout above; with a MAC, n (at most 40) Poly1305 blocks
// from p absorbed into acc in the rounds' slots (avx2/batch_rounds.hpp).
// One batch in flight, as OpenSSL's ChaCha20_8x: a second would need
// sixteen more words than there are registers.
STITCH_INLINE_AVX2_BMI2 void keystream(const ChaChaState& st, U32x8 (&ks)[1][16]) {
    BatchFrame frame;
    load_state(st, 0, frame.x);
    frame.out = reinterpret_cast<uint8_t*>(ks[0]);
    batch<Out::keystream>(frame);
    frame.wipe_words();  // the key words, and the rounds' row c
}

STITCH_INLINE_AVX2_BMI2 void keystream(const ChaChaState& st, U32x8 (&ks)[1][16], mulx::PolyAcc& acc,
                                       const uint8_t* p, size_t n) {
    BatchFrame frame;
    load_state(st, 0, frame.x);
    frame.out = reinterpret_cast<uint8_t*>(ks[0]);
    frame.mac_blocks = n;
    batch<Out::keystream>(frame, acc, p);
    frame.wipe();  // the MAC's key too
}

// A run of whole batches, out = in ^ keystream 512 bytes at a time: the
// rounds, the input added back, the transpose and the XOR
// (avx2/batch_rounds.hpp), one asm statement a batch or one for a run of
// them. The frame keeps the input words from batch to batch; only the
// counter words change. With a MAC, n (at most 40) Poly1305 blocks from p
// absorbed into acc in the rounds' slots, read before the batch writes any
// output. The frame holds the key: wipe() it when done.
class BatchRun {
public:
    STITCH_INLINE_AVX2_BMI2 explicit BatchRun(const ChaChaState& st) { load_state(st, 0, frame_.x); }

    // The batch at st.ctr (the key words as at construction).
    STITCH_INLINE_AVX2_BMI2 void xor_batch(const ChaChaState& st, const uint8_t* in, uint8_t* out,
                                           mulx::PolyAcc& acc, const uint8_t* p, size_t n) {
        set_counter(st);
        frame_.in = in, frame_.out = out;
        frame_.mac_blocks = n;
        batch<Out::xor_input>(frame_, acc, p);
    }

    // n (at least 1) batches from st.ctr in one asm statement, out[0..512·n)
    // = in ^ their keystream: raw ChaCha20's bulk. st is not advanced.
    // Runs of two batches or more take the first round's counter-free
    // columns from C++ (batches_xor_counter_free), worked out again every
    // kMaxCounterFreeRun batches, within which word 13 takes at most one
    // more value. A lone batch has no output to hide, and the columns' C++
    // and wipe made it slower: 512 B 218-219 -> 224-228 ns through EVP on
    // Zen 5 (December 2026).
    STITCH_INLINE_AVX2_BMI2 void xor_batches(const ChaChaState& st, const uint8_t* in, uint8_t* out, size_t n) {
        if (n == 1) {
            set_counter(st);
            frame_.in = in, frame_.out = out;
            batch<Out::xor_input>(frame_);
            return;
        }
        counter_free_runs<false>(st, in, out, n, nullptr, nullptr);
    }

    // The same with the MAC: 32 Poly1305 blocks a batch from p, each batch's
    // read before it writes (the steady state of the AEAD's bulk), with the
    // first round's counter-free columns as above.
    STITCH_INLINE_AVX2_BMI2 void xor_batches(const ChaChaState& st, const uint8_t* in, uint8_t* out, size_t n,
                                             mulx::PolyAcc& acc, const uint8_t* p) {
        counter_free_runs<true>(st, in, out, n, &acc, p);
    }

    // The batch at st.ctr, its keystream itself into out[0..512), no input
    // read: keystream asked for with no input, without the buffer, copy
    // and wipe of a keystream call.
    STITCH_INLINE_AVX2_BMI2 void store_batch(const ChaChaState& st, uint8_t* out) {
        set_counter(st);
        frame_.out = out;
        batch<Out::store>(frame_);
    }

    // Seven blocks at st.ctr, out[0..448) = in ^ their keystream: a batch
    // whose eighth block is neither read nor written, so a run's tail of
    // seven needs no keystream buffer to fill, copy and wipe.
    STITCH_INLINE_AVX2_BMI2 void xor_seven(const ChaChaState& st, const uint8_t* in, uint8_t* out) {
        set_counter(st);
        frame_.in = in, frame_.out = out;
        batch<Out::xor_seven>(frame_);
    }

    // Nine blocks from st.ctr: block 0 in general-purpose registers beside
    // the eight from st.ctr + 1, out = in ^ those (batch_nine); block 0's
    // first 32 bytes into key (r ‖ s, little-endian words).
    STITCH_INLINE_AVX2_BMI2 void xor_batch_beside_block0(const ChaChaState& st, const uint8_t* in, uint8_t* out,
                                                         uint64_t key[4]) {
        frame_.in = in, frame_.out = out;
        beside_block0<Out::xor_input>(st, key);
    }

    // The same nine blocks with the eight's keystream into ks instead (the
    // layout of keystream above), for a text of under a batch.
    STITCH_INLINE_AVX2_BMI2 void keystream_beside_block0(const ChaChaState& st, U32x8 (&ks)[1][16],
                                                         uint64_t key[4]) {
        frame_.out = reinterpret_cast<uint8_t*>(ks[0]);
        beside_block0<Out::keystream>(st, key);
    }

    // Nine blocks from st.ctr in one asm statement (batch_nine): the eight
    // from st.ctr in ymm, out[0..512) = in ^ their keystream, and beside
    // them in general-purpose registers the ninth (st.ctr + 8), its whole
    // keystream into last. st is not advanced; wipe() the frame after.
    STITCH_INLINE_AVX2_BMI2 void xor_nine(const ChaChaState& st, const uint8_t* in, uint8_t* out,
                                          uint8_t last[kChaChaBlock]) {
        set_counter(st);
        uint32_t ninth[4] = {st.ctr[0], st.ctr[1], st.ctr[2], st.ctr[3]};
        chacha_advance(ninth, kBatchBlocks);
        for (int i = 0; i < 4; ++i) frame_.lone_words[12 + i] = ninth[i];
        frame_.in = in, frame_.out = out;
        batch_nine<Out::xor_input>(frame_);
        // Words 0..7 came out with their input added; 8..15 get it here.
        for (int i = 0; i < 8; ++i) store_le32(last + 4 * i, frame_.lone_words[i]);
        for (int i = 8; i < 12; ++i) store_le32(last + 4 * i, frame_.lone_words[i] + st.key[i - 4]);
        for (int i = 12; i < 16; ++i) store_le32(last + 4 * i, frame_.lone_words[i] + ninth[i - 12]);
    }

    STITCH_INLINE_AVX2_BMI2 void wipe() { frame_.wipe(); }
    // Where no batch of the run had a MAC or a ninth block (raw ChaCha20).
    STITCH_INLINE_AVX2_BMI2 void wipe_words() { frame_.wipe_words(); }

private:
    template <Out O>
    STITCH_INLINE_AVX2_BMI2 void beside_block0(const ChaChaState& st, uint64_t key[4]) {
        uint32_t lanes[4] = {st.ctr[0], st.ctr[1], st.ctr[2], st.ctr[3]};
        chacha_advance(lanes, 1);
        set_counter(lanes);
        for (int i = 0; i < 4; ++i) frame_.lone_words[12 + i] = st.ctr[i];
        batch_nine<O>(frame_);
        for (int i = 0; i < 4; ++i)
            key[i] = frame_.lone_words[2 * i] | uint64_t(frame_.lone_words[2 * i + 1]) << 32;
    }

    // 2^28 batches, 2^31 blocks: word 12 wraps at most once in them.
    static constexpr size_t kMaxCounterFreeRun = size_t(1) << 28;

    // n batches from st.ctr through batches_xor_counter_free (with the MAC
    // from p into *acc where WithMac), in runs of at most
    // kMaxCounterFreeRun, each with its columns worked out afresh; what the
    // runs leave in the frame is wiped after.
    template <bool WithMac>
    STITCH_INLINE_AVX2_BMI2 void counter_free_runs(const ChaChaState& st, const uint8_t* in, uint8_t* out, size_t n,
                                                   mulx::PolyAcc* acc, const uint8_t* p) {
        uint32_t ctr[4] = {st.ctr[0], st.ctr[1], st.ctr[2], st.ctr[3]};
        while (n > 0) {
            const size_t run = std::min(n, kMaxCounterFreeRun);
            set_counter(ctr);
            counter_free_columns(st, ctr);
            frame_.in = in, frame_.out = out;
            if constexpr (WithMac) {
                frame_.batches_left = run;
                batches_xor_counter_free(frame_, *acc, p);
            } else {
                batches_xor_counter_free(frame_, run);
            }
            chacha_advance(ctr, run * kBatchBlocks);
            in += run * kBatchBlocks * kChaChaBlock;
            out += run * kBatchBlocks * kChaChaBlock;
            n -= run;
        }
        frame_.wipe_counter_free();
    }

    // The first column round's quarter rounds of columns 1..3 (words c, 4 +
    // c, 8 + c, 12 + c), which read no counter word but 13, into
    // frame_.counter_free by word; column 1's again with word 13 one higher
    // into entries 0, 4, 8, 12.
    STITCH_INLINE_AVX2_BMI2 void counter_free_columns(const ChaChaState& st, const uint32_t ctr[4]) {
        uint32_t* w = frame_.counter_free;
        for (int c = 1; c < 4; ++c) {
            uint32_t a = kSigma[c], b = st.key[c], k = st.key[4 + c], d = ctr[c];
            quarter_round(a, b, k, d);
            w[c] = a, w[4 + c] = b, w[8 + c] = k, w[12 + c] = d;
        }
        uint32_t a = kSigma[1], b = st.key[1], k = st.key[5], d = ctr[1] + 1;
        quarter_round(a, b, k, d);
        w[0] = a, w[4] = b, w[8] = k, w[12] = d;
        w[16] = ctr[1];
    }

    STITCH_INLINE_AVX2_BMI2 void set_counter(const ChaChaState& st) { set_counter(st.ctr); }
    STITCH_INLINE_AVX2_BMI2 void set_counter(const uint32_t ctr[4]) {
        const U32x8 ctr0 = U32x8::splat(ctr[0]);
        frame_.x[12] = ctr0 + U32x8::iota();
        frame_.x[13] = U32x8::splat(ctr[1]) - U32x8::unsigned_lt(frame_.x[12], ctr0);
    }

    BatchFrame frame_;
};

// Up to four blocks in the row layout instead (avx2/row_rounds.hpp): each
// register holds one row of two blocks, so nothing spills and nothing needs
// a transpose, and the critical path is shorter than a batch's.

// Rows of the block pair `first`, first + 1 (counted from st.ctr) into r[0..4).
// Each row is a 16-byte load into both halves, the counters (chacha_advance's
// 64-bit number in words 12..13) one 64-bit add: built word by word, g++ 12
// assembled them in general registers and through the stack.
STITCH_INLINE_AVX2_BMI2 void load_rows(const ChaChaState& st, uint64_t first, U32x8 r[4]) {
    r[0] = U32x8::both_halves(kSigma);
    r[1] = U32x8::both_halves(st.key);
    r[2] = U32x8::both_halves(st.key + 4);
    r[3] = U32x8::both_halves(st.ctr).plus_u64(first, first + 1);
}

// Pairs block pairs (two or four blocks from st.ctr) into ks[0..2·Pairs) and
// ks[8..8 + 2·Pairs), without advancing st.
template <size_t Pairs>
STITCH_INLINE_AVX2_BMI2 void keystream_rows(const ChaChaState& st, U32x8 (&ks)[1][16]) {
    static_assert(Pairs >= 1 && Pairs <= 3);
    RowFrame frame;
    for (size_t p = 0; p < Pairs; ++p) load_rows(st, 2 * p, frame.in + 4 * p);
    frame.out = reinterpret_cast<uint8_t*>(ks[0]);
    if constexpr (Pairs == 1)
        rows_keystream_1(frame);
    else if constexpr (Pairs == 2)
        rows_keystream_2(frame);
    else
        rows_keystream_3(frame);
    U32x8::wipe<4 * Pairs>(frame.in);  // the key's words
}

// The first n (1..8) blocks of one batch in the quickest shape for n:
// measured on Zen 5 (core cycles), one row pair ~490, two ~590, a batch
// ~750; on Zen 4 (a kernel call), one pair ~385, two ~455, three ~540, a
// batch into the buffer ~600.
STITCH_INLINE_AVX2_BMI2 void keystream_upto(const ChaChaState& st, U32x8 (&ks)[1][16], size_t n) {
    if (n > 6)
        keystream(st, ks);
    else if (n > 4)
        keystream_rows<3>(st, ks);
    else if (n > 2)
        keystream_rows<2>(st, ks);
    else
        keystream_rows<1>(st, ks);
}

// Wipes what keystream_upto(st, ks, n) filled, in constant-size pieces the
// compiler writes as a few vector stores (a whole-array wipe of 512 bytes
// cost a REP STOS start-up on the short records).
STITCH_INLINE_AVX2_BMI2 void wipe_upto(U32x8 (&ks)[1][16], size_t n) {
    if (n > 6) {
        U32x8::wipe<16>(ks[0]);
    } else if (n > 4) {
        U32x8::wipe<6>(&ks[0][0]);
        U32x8::wipe<6>(&ks[0][8]);
    } else if (n > 2) {
        U32x8::wipe<4>(&ks[0][0]);
        U32x8::wipe<4>(&ks[0][8]);
    } else if (n > 0) {
        U32x8::wipe<2>(&ks[0][0]);
        U32x8::wipe<2>(&ks[0][8]);
    }
}

// out[0..64) = in ^ block b of ks (in == out allowed).
STITCH_INLINE_AVX2_BMI2 void xor_block(const U32x8 ks[16], size_t b, const uint8_t* in, uint8_t* out) {
    const U32x8 lo = U32x8::load_le(in) ^ ks[b];
    const U32x8 hi = U32x8::load_le(in + 32) ^ ks[8 + b];
    lo.store_le(out);
    hi.store_le(out + 32);
}

STITCH_INLINE_AVX2_BMI2 void store_block(const U32x8 ks[16], size_t b, uint8_t* out) {
    ks[b].store_le(out);
    ks[8 + b].store_le(out + 32);
}

}  // namespace stitch::kern::avx2
