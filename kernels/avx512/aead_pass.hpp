// The AVX-512 one pass over AEAD text (aead_stitched.cpp), and the pieces
// whole-record opens (aead_record.cpp) share with it.
//
// How the MAC rides beside the rounds was measured on Zen 4 (the only
// AVX-512 core at hand; kernels alone, 64 KiB seal, cycles per byte): the
// zmm rounds alone 0.69, Poly1305 on IFMA alone 0.25, and
//   MULX beside the rounds, two chains of 32 blocks a batch    1.14
//   MULX and IFMA beside the rounds, 40 + 24 blocks a batch    1.00
//   chunks of up to 16 KiB in two passes (rounds, then IFMA)   0.96
// Zen 4 runs a zmm op as two 256-bit halves, so the rounds keep every vector
// pipe busy and anything vector beside them costs its full price; and MULX
// work beside them slowed them (a Poly1305 block is a ~17-cycle chain on
// Zen 4, and the integer scheduler it fills holds up the vector ops queued
// behind it). So whole batches run in two passes (chunk), and MULX stays
// beside the rounds only for the short pieces: a remainder of under a
// batch, the text of a first call that has a lane free for block 0. (Block
// 0 of a longer first call is computed in scalar registers beside its
// batch: ScalarKey.)
//
//   seal: the rounds write a chunk's ciphertext, then the MAC reads it while
//         it is still in L1.
//   open: the MAC reads a chunk's ciphertext (and up to 15 bytes past it
//         where the MAC grid is skewed: OpenSSH's 4-byte length) before the
//         rounds overwrite it, so in == out works.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"
#include "kernels/avx512/chacha20.hpp"
#include "kernels/avx512/kernels.hpp"
#include "kernels/avx512/mac_streams.hpp"
#include "kernels/bytes.hpp"
#include "kernels/x86/aead_mac.hpp"
#include "kernels/x86/keep_block.hpp"
#include "kernels/x86/poly1305_mulx.hpp"
#include "kernels/x86/scalar_block.hpp"

namespace stitch::kern::STITCH_AVX512_NS {

using x86::blocks_for;

inline constexpr size_t kBatch = 16;  // blocks in a zmm batch
inline constexpr size_t kBatchBytes = kBatch * kChaChaBlock;
inline constexpr size_t kChunkMaxBatches = 16;  // 16 KiB: a chunk in and out stays in L1

// The Poly1305 key words r ‖ s from bytes 0..31 of block b of a batch.
template <class V>
STITCH_INLINE_AVX512 void key_words(const V ks[], size_t b, uint64_t k[4]) {
    uint8_t block[64];
    store_block(ks, b, block);
    for (int i = 0; i < 4; ++i) k[i] = load_le64(block + 8 * i);
    wipe(block, sizeof(block));
}

// out = in ^ keystream for `bytes` bytes (0 < bytes <= 64·(lanes - first)),
// from block `first` of a batch. A partial last block leaves its keystream in
// st.ks for the next aead_text call, as aead_text_portable does; its bytes
// go through masked loads and stores.
template <class V>
STITCH_INLINE_AVX512 void emit(AeadState& st, const V ks[], size_t first, const uint8_t* in, uint8_t* out,
                               size_t bytes) {
    size_t b = first;
    for (; bytes >= kChaChaBlock; ++b, bytes -= kChaChaBlock) {
        xor_block(ks, b, in, out);
        in += kChaChaBlock;
        out += kChaChaBlock;
    }
    if (bytes > 0) {
        store_block(ks, b, st.ks);
        xor_partial(ks, b, in, out, bytes);
        st.ks_pos = uint32_t(bytes);
    }
}

// Where two batches run in flight (Zen 5) and a record's first call has a
// first chunk of an even number of whole batches: block 0 on its own in
// general registers first, so that Pass takes the chunk's text in whole
// pairs. Beside the first batch (first_chunk) it would leave an odd
// number, one batch running alone with the pipes half idle (Zen 5, EPYC
// model 0x02, TLS 1.3 seals through EVP against the default, beside ->
// alone: 2 KiB 1.25-1.26x -> 1.30-1.33x, 4 KiB 1.42-1.45x -> 1.54-1.58x,
// 16 KiB 1.57-1.59x -> 1.61-1.64x; at 3 KiB, odd, 690 -> 740 ns alone).
STITCH_INLINE_AVX512 bool key_block_alone_first(const AeadState& st, size_t len) {
    const size_t batches = std::min(len, kChunkMaxBatches * kBatchBytes) / kBatchBytes;
    return kTwoBatches && !st.mac_keyed && batches >= 2 && batches % 2 == 0;
}

// Block 0 in general registers: keys st.mac (the held-back AAD absorbed),
// the counter on past it. Outside Pass: inside its run(), the same code
// changed how clang 14 built the short opens there, and a 64-byte open's
// keystream stayed in the frame (avx512_stack_test).
STITCH_INLINE_AVX512 void key_block_alone(AeadState& st) {
    x86::ScalarBlock block0(st.chacha);
    block0.compiled_rounds();
    mulx::PolyAcc acc;
    x86::key_mac(st, acc, block0);
    mulx::store(st.mac, acc);
    wipe_object(block0);
    chacha_advance(st.chacha.ctr, 1);
}

// One aead_text call: where the text and the MAC have got to.
class Pass {
public:
    STITCH_INLINE_AVX512 Pass(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len)
        : st_(st), open_(dir == Direction::open), in_(in), out_(out), ct_(open_ ? in : out), len_(len) {}

    STITCH_INLINE_AVX512 void run() {
        if (st_.mac_keyed)
            acc_ = mulx::load(st_.mac);
        else
            first_call();
        while (pos_ < len_) {
            const size_t left = len_ - pos_;
            if (left >= kBatchBytes) {
                // A chunk of whole batches, and the tail too if it ends the text.
                const size_t chunk_bytes = kChunkMaxBatches * kBatchBytes;
                chunk(pos_ + (left <= chunk_bytes ? left : chunk_bytes));
                continue;
            }
            const size_t blocks = blocks_for(left);
            if (blocks > 8)
                batch<16>(blocks);
            else if (blocks > 4)
                batch<8>(blocks);
            else
                rows(blocks);
        }
        trailing_mac();
        mulx::store(st_.mac, acc_);
    }

private:
    // Block 0 from a lane the shape of a short text leaves free; a longer
    // text's first batch gets it from a row beside its rounds.
    STITCH_INLINE_AVX512 void first_call() {
        const size_t n = blocks_for(len_);
        if (n <= 1)
            key_lane_rows2(n);
        else if (n <= 3)
            key_lane_rows(n);
        else if (n <= 7 && kRowSets)
            key_lane_row_sets<2>(n);
        else if (n <= 7)
            key_lane<8>(n);
        else if (n <= 11 && kRowSets)
            key_lane_row_sets<3>(n);
        else if (n <= 15)
            key_lane<16>(n);
        else if (!open_ && keyed_pair_fits(len_))
            key_lane_pair();
        else
            first_chunk();
    }

    // A seal of 17..31 text blocks where pairs run (Zen 5): one pair cut
    // short, block 0 in its free lane; the MAC after it (trailing_mac). An
    // open's MAC must read the ciphertext before the text is written, and
    // the key before that: it takes first_chunk.
    STITCH_INLINE_AVX512 void key_lane_pair() {
        uint64_t k[4];
        chacha20_xor_keyed(st_.chacha, in_, out_, len_, st_.ks, k);
        x86::key_mac(st_, acc_, k);
        wipe(k, sizeof(k));
        if (len_ % kChaChaBlock) st_.ks_pos = uint32_t(len_ % kChaChaBlock);
        pos_ = len_;
    }

    // Block 0 and n <= 3 text blocks in the row layout, block 0 in lane 0.
    STITCH_INLINE_AVX512 void key_lane_rows(size_t n) {
        U32x16 r[4];
        keystream_rows(st_.chacha, r, Nothing{});
        rows_to_blocks(r);
        keyed_from_lane(r, n);
        wipe_vectors(r);
    }

    // Block 0 and n <= 1 text block in the row layout on ymm (see rows2 in
    // chacha20.cpp).
    STITCH_INLINE_AVX512 void key_lane_rows2(size_t n) {
        U32x8 r[4], ks[16];
        keystream_rows(st_.chacha, r, Nothing{});
        rows_to_blocks(r, ks);
        keyed_from_lane(ks, n);
        wipe_vectors(r);
        wipe_rows2(ks);
    }

    // Block 0 and n < 4·K text blocks as K zmm row sets.
    template <size_t K>
    STITCH_INLINE_AVX512 void key_lane_row_sets(size_t n) {
        U32x16 r[4 * K];
        keystream_row_sets<K>(st_.chacha, r);
        keyed_from_lane(r, n);
        wipe_vectors(r);
    }

    template <size_t N>
    STITCH_INLINE_AVX512 void key_lane(size_t n) {
        U32xN<N> ks[16];
        keystream<N>(st_.chacha, 0, ks);
        keyed_from_lane(ks, n);
        wipe_vectors(ks);
    }

    // Keys the MAC from block 0 of ks, then (an open) absorbs the text's
    // ciphertext before the output may overwrite it, and writes n blocks.
    template <class V>
    STITCH_INLINE_AVX512 void keyed_from_lane(const V ks[], size_t n) {
        uint64_t k[4];
        key_words(ks, 0, k);
        x86::key_mac(st_, acc_, k);
        wipe(k, sizeof(k));
        const size_t bytes = std::min(len_, n * kChaChaBlock);
        if (open_) vector_mac(bytes);
        emit(st_, ks, 1, in_, out_, bytes);
        chacha_advance(st_.chacha.ctr, 1 + n);
        pos_ = bytes;
    }

    // Sixteen or more text blocks: the first chunk (up to 16 KiB, a partial
    // tail included) in two passes, its first batch (counter + 1 on) with
    // block 0 beside it in scalar registers. One MAC pass over the whole
    // chunk: IFMA takes 16 blocks in ~62 cycles where MULX takes ~16 a block
    // (Zen 4), so a tail is cheaper in the pass than beside its own rounds.
    STITCH_INLINE_AVX512 void first_chunk() {
        const size_t end = std::min(len_, kChunkMaxBatches * kBatchBytes);
        x86::ScalarKey key{x86::ScalarBlock(st_.chacha)};
        U32x16 ks[16];
        keystream<16>(st_.chacha, 1, ks, key);
        x86::key_mac(st_, acc_, key.block0);
        wipe(&key, sizeof(key));
        chacha_advance(st_.chacha.ctr, 1 + kBatch);
        if (open_) vector_mac(std::min(len_, end + kPolyBlock - 1));
        const size_t first = std::min(end, kBatchBytes);
        emit(st_, ks, 0, in_, out_, first);
        wipe_vectors(ks);
        pos_ = first;
        rounds(end);
        if (!open_) vector_mac(pos_);
    }

    // Whole batches in two passes (up to a chunk, and the tail with them
    // when the text ends in this chunk): the MAC of all their ciphertext on
    // the vector Poly1305 before the rounds for an open, after them for a
    // seal.
    STITCH_INLINE_AVX512 void chunk(size_t end) {
        if (open_) vector_mac(std::min(len_, end + kPolyBlock - 1));
        rounds(end);
        if (!open_) vector_mac(pos_);
    }

    // The rounds alone from pos to end, in the set's chacha20_blocks (a loop
    // of batches written inline here measured 14% slower: its emit loop kept
    // the batch in memory): whole batches in place, then what is left (under
    // a batch) as keystream in one call, the last partial block's kept in
    // st.ks.
    STITCH_INLINE_AVX512 void rounds(size_t end) {
        const size_t batches = (end - pos_) / kBatchBytes;
        if (batches > 0) chacha20_blocks(st_.chacha, in_ + pos_, out_ + pos_, batches * kBatch);
        pos_ += batches * kBatchBytes;
        if (end == pos_) return;
        const size_t left = end - pos_, blocks = blocks_for(left);
        alignas(64) uint8_t ks[kBatchBytes];
        chacha20_blocks(st_.chacha, nullptr, ks, blocks);
        for (size_t i = 0; i < left; i += kChaChaBlock) {
            const size_t n = std::min(kChaChaBlock, left - i);
            (U32x16::load_le(in_ + pos_ + i, n) ^ U32x16::load_le(ks + i)).store_le(out_ + pos_ + i, n);
        }
        if (left % kChaChaBlock != 0) {
            const uint8_t* last = ks + (blocks - 1) * kChaChaBlock;
            x86::keep_block(st_.ks, U32x8::load_le(last).raw(), U32x8::load_le(last + 32).raw());
            st_.ks_pos = uint32_t(left % kChaChaBlock);
        }
        wipe_blocks(ks, blocks);
        pos_ = end;
    }

    // The MAC over ct[mac, limit) on poly1305_blocks (IFMA or the AVX2
    // vector code for long runs, MULX for short ones); an open that reaches
    // the end of the text buffers its last partial block now.
    STITCH_INLINE_AVX512 void vector_mac(size_t limit) {
        absorb_head(limit);
        const size_t whole = whole_blocks(limit);
        if (whole > 0) {
            mulx::store(st_.mac, acc_);
            poly1305_blocks(st_.mac, ct_ + mac_, whole);
            acc_ = mulx::load(st_.mac);
            mac_ += whole * kPolyBlock;
        }
        if (open_) buffer_last(limit);
    }

    // A tail of n < 16 text blocks from a batch of N lanes, with MULX beside
    // its rounds: an open's own ciphertext, a seal's lagging one.
    template <size_t N>
    STITCH_INLINE_AVX512 void batch(size_t n) {
        const size_t bytes = std::min(len_ - pos_, n * kChaChaBlock);
        const size_t limit = open_ ? open_limit(n) : pos_;
        absorb_head(limit);
        OneStream feed{acc_, ct_ + mac_, whole_blocks(limit)};
        U32xN<N> ks[16];
        keystream<N>(st_.chacha, 0, ks, feed);
        acc_ = feed.result();
        mac_ += feed.n * kPolyBlock;
        if (open_) buffer_last(limit);
        emit(st_, ks, 0, in_ + pos_, out_ + pos_, bytes);
        wipe_vectors(ks);  // emit's loop keeps them in memory; unused lanes hold keystream of blocks to come
        chacha_advance(st_.chacha.ctr, n);
        pos_ += bytes;
    }

    // n <= 4 text blocks in the row layout.
    STITCH_INLINE_AVX512 void rows(size_t n) {
        const size_t bytes = std::min(len_ - pos_, n * kChaChaBlock);
        const size_t limit = open_ ? open_limit(n) : pos_;
        absorb_head(limit);
        OneStream feed{acc_, ct_ + mac_, whole_blocks(limit)};
        U32x16 r[4];
        keystream_rows(st_.chacha, r, feed);
        rows_to_blocks(r);
        acc_ = feed.result();
        mac_ += feed.n * kPolyBlock;
        if (open_) buffer_last(limit);
        emit(st_, r, 0, in_ + pos_, out_ + pos_, bytes);
        wipe_vectors(r);
        chacha_advance(st_.chacha.ctr, n);
        pos_ += bytes;
    }

    // What is left for the MAC after the last keystream call: a seal's
    // lagging ciphertext (or an open's, on a path that did not buffer it).
    STITCH_INLINE_AVX512 void trailing_mac() {
        if (mac_ == len_) return;
        vector_mac(len_);
        x86::mac_update(acc_, st_.mac, ct_ + mac_, len_ - mac_);
        mac_ = len_;
    }

    // How far an open may read for the n blocks from pos: to the end of the
    // last Poly1305 block that starts inside them.
    STITCH_INLINE_AVX512 size_t open_limit(size_t n) const {
        return std::min(len_, pos_ + n * kChaChaBlock + kPolyBlock - 1);
    }

    // The shared MAC bookkeeping (avx2/aead.hpp) on this pass's state.
    STITCH_INLINE_AVX512 void absorb_head(size_t limit) { x86::absorb_head(st_.mac, acc_, ct_, mac_, limit); }
    STITCH_INLINE_AVX512 size_t whole_blocks(size_t limit) const { return x86::whole_blocks(st_.mac, mac_, limit); }
    STITCH_INLINE_AVX512 void buffer_last(size_t limit) { x86::buffer_last(st_.mac, acc_, ct_, mac_, limit, len_); }

    AeadState& st_;
    const bool open_;
    const uint8_t* in_;
    uint8_t* out_;
    const uint8_t* ct_;  // the MAC reads ciphertext: in_ for open, out_ for seal
    const size_t len_;
    size_t pos_ = 0;  // text written
    size_t mac_ = 0;  // text absorbed, or held in st.mac.buf
    mulx::PolyAcc acc_{};
};

}  // namespace stitch::kern::STITCH_AVX512_NS
