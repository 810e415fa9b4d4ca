// The one pass over AEAD text (RFC 8439 §2.8; OpenSSH's grid through the
// same code): ChaCha20 in batches of eight blocks, and the scalar MULX
// Poly1305 of the ciphertext in the batch rounds' fixed slots
// (avx2/batch_rounds.hpp), so the vector and the integer units work at once.
// A whole batch in the bulk is one asm statement: rounds, MAC slots, the
// input added back, the transpose and the XOR.
//   seal: a batch's rounds absorb the previous call's ciphertext (it exists
//         only once that call has written it); the last call's is absorbed
//         after, by the four-lane vector Poly1305 when it is long.
//   open: a batch's rounds absorb its own ciphertext, and up to 15 bytes of
//         the next where the MAC grid is skewed (OpenSSH: 12), all before
//         its output overwrites them, so in == out works.
// The first call of a message computes block 0, the Poly1305 key, in lane
// 0 beside up to seven text blocks ("key block from the first batch"); the
// MAC is keyed once its rounds are done, so an open absorbs that call's
// ciphertext after them, before writing (run() keeps that call short).
#pragma once

#include <algorithm>

#include "kernels/avx2/aead.hpp"
#include "kernels/avx2/kernels.hpp"
#include "kernels/avx2/set.hpp"
#include "kernels/avx2/tuning.hpp"
#include "kernels/bytes.hpp"

namespace stitch::kern::avx2 {

// absorb_head out of line, for the pass: it runs only where the MAC holds a
// block back (the OpenSSH grid's first, a split update), but inlined at
// every batch it made g++ 12 lay out the bulk seal loop anew, 10–14 ns
// slower at 1–2 KiB on Zen 4. (The short paths keep it inline: their rows
// are live in registers there, and a call would spill them.)
[[gnu::noinline]] STITCH_TARGET_AVX2_BMI2 inline void absorb_head_apart(Poly1305State& m, mulx::PolyAcc& acc,
                                                                        const uint8_t* ct, size_t& mac,
                                                                        size_t limit) noexcept {
    absorb_head(m, acc, ct, mac, limit);
}

// One aead_text call: where the text and the MAC have got to.
class Pass {
public:
    STITCH_INLINE_AVX2_BMI2 Pass(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len)
        : st_(st), open_(dir == Direction::open), in_(in), out_(out), ct_(open_ ? in : out), len_(len) {}

    STITCH_INLINE_AVX2_BMI2 void run() {
        const bool key_beside = !st_.mac_keyed && !open_ && key_beside_takes(kKeyBesideBatch, len_);
        if (st_.mac_keyed) {
            acc_ = mulx::load(st_.mac);
        } else if (!key_beside) {
            // A seal takes seven text blocks with block 0: its first call
            // has no MAC beside it either way. An open's first call is
            // absorbed with nothing beside it, so it takes few blocks: the
            // text's blocks mod 8 up to kOpenFirstMax, the rest then going
            // in whole batches with their own ciphertext beside; else block
            // 0 alone, and the last call takes the remainder with its MAC
            // beside.
            const size_t blocks = blocks_for(len_);
            const size_t rest = blocks % kBatchBlocks;
            keying_call(open_ ? (rest <= kOpenFirstMax ? rest : 0) : std::min(blocks, kBatchBlocks - 1));
        }
        if (key_beside && len_ < kBatchBytes) {
            keying_short_batch();
        } else if (key_beside || len_ - pos_ >= kBatchBytes) {
            BatchRun batches(st_.chacha);
            if (key_beside) keying_batch(batches);
            while (len_ - pos_ >= kBatchBytes) {
                if (const size_t run = steady_batches(); run > 2)
                    bulk_run(batches, run);
                else
                    bulk_batch(batches);
            }
            batches.wipe();
        }
        while (pos_ < len_) tail_call(std::min(blocks_for(len_ - pos_), kBatchBlocks));
        trailing_mac();
        mulx::store(st_.mac, acc_);
    }

private:
    static constexpr size_t kBatchBytes = kBatchBlocks * kChaChaBlock;

    // Block 0 in lane 0 and n (0..7) text blocks; the MAC keyed from lane 0
    // after the rounds, and an open's ciphertext of the call absorbed
    // before it is overwritten.
    STITCH_INLINE_AVX2_BMI2 void keying_call(size_t n) {
        if (n == 0) {
            key_mac_alone(st_, acc_);
            return;
        }
        const size_t bytes = std::min(len_, n * kChaChaBlock);
        U32x8 ks[1][16];
        keystream_upto(st_.chacha, ks, 1 + n);
        key_mac(st_, acc_, ks[0], 0);
        if (open_ && bytes > 0) {
            const size_t limit = std::min(len_, bytes + kPolyBlock - 1);
            absorb_head(limit);
            absorb_whole(whole_blocks(limit));
            buffer_last(limit);
        }
        if (bytes > 0) emit(st_, ks, 1, in_, out_, bytes);
        wipe_upto(ks, 1 + n);
        chacha_advance(st_.chacha.ctr, 1 + n);
        pos_ = bytes;
    }

    // Where the CPU rule says so (avx2/tuning.hpp), a seal's first call is a
    // whole batch of text in one asm statement with block 0 beside it in
    // general-purpose registers, the MAC keyed from it after: the text's
    // blocks then take whole batches, and a 1 KiB seal two, not three.
    STITCH_INLINE_AVX2_BMI2 void keying_batch(BatchRun& batches) {
        uint64_t k[4];
        batches.xor_batch_beside_block0(st_.chacha, mulx::in_gpr(in_), mulx::in_gpr(out_), k);
        key_mac(st_, acc_, k);
        wipe(k, sizeof(k));
        chacha_advance(st_.chacha.ctr, 1 + kBatchBlocks);
        pos_ = kBatchBytes;
    }

    // The same for a text of under a batch, eight blocks with the last
    // partial (449-511 bytes): the batch's keystream goes into a buffer,
    // and its last block's is kept for the next call as a tail's is. Out
    // of line: inlined, its second copy of the nine-block statement moved
    // the code of whole batches, and a 512-byte seal through EVP ran 2-3%
    // slower on Emerald Rapids (December 2026).
    [[gnu::noinline]] STITCH_TARGET_AVX2_BMI2 void keying_short_batch() noexcept {
        BatchRun batches(st_.chacha);
        U32x8 ks[1][16];
        uint64_t k[4];
        batches.keystream_beside_block0(st_.chacha, ks, k);
        batches.wipe();
        emit(st_, ks, 0, in_, out_, len_);
        U32x8::wipe<16>(ks[0]);
        key_mac(st_, acc_, k);
        wipe(k, sizeof(k));
        chacha_advance(st_.chacha.ctr, 1 + kBatchBlocks);
        pos_ = len_;
    }

    // A whole batch in one asm statement, the MAC beside its rounds. An
    // open's MAC reads to the end of the last Poly1305 block that starts in
    // the batch; where that is the end of the text, the last partial block
    // goes into the MAC's buffer first, as the batch will overwrite it.
    STITCH_INLINE_AVX2_BMI2 void bulk_batch(BatchRun& batches) {
        const size_t limit = open_ ? std::min(len_, pos_ + kBatchBytes + kPolyBlock - 1) : pos_;
        absorb_head(limit);
        const size_t whole = whole_blocks(limit);
        const uint8_t* mac_from = ct_ + mac_;
        mac_ += whole * kPolyBlock;
        if (open_ && limit == len_ && mac_ < len_) {
            set_block_bytes(st_.mac.buf, 0, ct_ + mac_, len_ - mac_);
            st_.mac.buf_len = uint32_t(len_ - mac_);
            mac_ = len_;
        }
        // pos_ through a register: g++ 12 read it as one 16-byte pair with
        // mac_, just stored with 8 bytes (a store-forwarding stall a batch).
        const size_t pos = mulx::in_gpr(pos_);
        batches.xor_batch(st_.chacha, in_ + pos, out_ + pos, acc_, mac_from, whole);
        chacha_advance(st_.chacha.ctr, kBatchBlocks);
        pos_ = pos + kBatchBytes;
    }

    // How many batches from pos_ on each absorb exactly the 32 MAC blocks of
    // a batch's worth of text with no bookkeeping between them: the MAC's
    // buffer empty, 32 whole blocks due now, and (an open) none of them
    // reaching the end of the text, where its last partial block must be
    // buffered first. Each batch then leaves pos_ - mac_ as it found it.
    STITCH_INLINE_AVX2_BMI2 size_t steady_batches() const {
        const size_t limit = open_ ? pos_ + kBatchBytes + kPolyBlock - 1 : pos_;
        if (whole_blocks(limit) != kBatchBytes / kPolyBlock) return 0;
        const size_t left = len_ - pos_;
        if (!open_) return left / kBatchBytes;
        return left >= kBatchBytes + kPolyBlock ? (left - kBatchBytes - kPolyBlock) / kBatchBytes + 1 : 0;
    }

    // `run` such batches in one asm statement (avx2/batch_rounds.hpp): the
    // counter and the pointers move on inside it. Per batch, the C++ that
    // set them cost raw ChaCha20 1-2% on Emerald Rapids (docs/benchmarks.md).
    // Runs of one or two go batch by batch: as runs they made a 1 KiB open
    // 1-2% slower there and a 1536-byte open 1-5% (cause not found), where
    // runs of three and more were level or quicker.
    STITCH_INLINE_AVX2_BMI2 void bulk_run(BatchRun& batches, size_t run) {
        const uint8_t* mac_from = ct_ + mac_;
        mac_ += run * kBatchBytes;
        const size_t pos = mulx::in_gpr(pos_);
        batches.xor_batches(st_.chacha, in_ + pos, out_ + pos, run, acc_, mac_from);
        chacha_advance(st_.chacha.ctr, run * kBatchBlocks);
        pos_ = pos + run * kBatchBytes;
    }

    // The last n (1..8) text blocks, or fewer bytes, in one keystream call:
    // with MAC work, a batch with the MAC in its slots (even for one block:
    // a seal's tail has the previous batch's 32 blocks to absorb, which take
    // longer than a row pair's rounds); without, the quickest shape for n.
    STITCH_INLINE_AVX2_BMI2 void tail_call(size_t n) {
        const size_t bytes = std::min(len_ - pos_, n * kChaChaBlock);
        const size_t limit = open_ ? std::min(len_, pos_ + n * kChaChaBlock + kPolyBlock - 1) : pos_;
        absorb_head(limit);
        const size_t whole = whole_blocks(limit);
        U32x8 ks[1][16];
        if (whole > 0)
            keystream(st_.chacha, ks, acc_, ct_ + mac_, whole);
        else
            keystream_upto(st_.chacha, ks, n);
        mac_ += whole * kPolyBlock;
        if (open_) buffer_last(limit);
        emit(st_, ks, 0, in_ + pos_, out_ + pos_, bytes);
        if (whole > 0 || n > 4)
            U32x8::wipe<16>(ks[0]);  // lanes left hold keystream of blocks to come
        else
            wipe_upto(ks, n);
        chacha_advance(st_.chacha.ctr, n);
        pos_ += bytes;
    }

    // What is left for the MAC after the last keystream call (a seal's last
    // call, an open's last few bytes).
    STITCH_INLINE_AVX2_BMI2 void trailing_mac() {
        if (mac_ == len_) return;
        absorb_head(len_);
        absorb_whole(whole_blocks(len_));
        mac_update(acc_, st_.mac, ct_ + mac_, len_ - mac_);
        mac_ = len_;
    }

    // `whole` blocks from mac, with nothing beside them: long runs take the
    // four-lane vector Poly1305, now that the vector units are free, in the
    // shape the CPU rule gives their count (poly1305_blocks_avx2: one
    // accumulator for 20-31 blocks on Emerald Rapids, 20-63 on Ice Lake-SP,
    // 20-23 on Zen 4).
    STITCH_INLINE_AVX2_BMI2 void absorb_whole(size_t whole) {
        if (whole >= kVectorPolyMin) {
            mulx::store(st_.mac, acc_);
            poly1305_blocks_avx2(st_.mac, ct_ + mac_, whole);
            acc_ = mulx::load(st_.mac);
        } else {
            mulx::blocks(acc_, ct_ + mac_, whole);
        }
        mac_ += whole * kPolyBlock;
    }

    // The shared MAC bookkeeping (avx2/aead.hpp) on this pass's state.
    STITCH_INLINE_AVX2_BMI2 void absorb_head(size_t limit) {
        if (st_.mac.buf_len > 0 && limit > mac_) absorb_head_apart(st_.mac, acc_, ct_, mac_, limit);
    }
    STITCH_INLINE_AVX2_BMI2 size_t whole_blocks(size_t limit) const { return avx2::whole_blocks(st_.mac, mac_, limit); }
    STITCH_INLINE_AVX2_BMI2 void buffer_last(size_t limit) { avx2::buffer_last(st_.mac, acc_, ct_, mac_, limit, len_); }

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

}  // namespace stitch::kern::avx2
