// The one pass over AEAD text (RFC 8439 §2.8; OpenSSH's grid through the
// same code) of each shape: ChaCha20 in AVX2 batches of eight blocks
// (Shape::aead_batches at a time in the bulk), and Poly1305 of the
// ciphertext in one of two ways (Shape::mac).
//
// Mac::stitched: the scalar MULX Poly1305 runs beside the rounds, so the
// vector and the integer units work at once.
//   seal: a batch's rounds absorb the previous batch's ciphertext (it exists
//         only once that batch is written); the last one's is absorbed after,
//         by the 4-way vector Poly1305 when it is long.
//   open: a batch's rounds absorb its own ciphertext, plus up to 15 bytes of
//         the next batch where the MAC grid is skewed (OpenSSH: 12), all
//         before its output overwrites them, so in == out works.
//
// Mac::two_pass: chunk by chunk (Shape::chunk_blocks), ChaCha20 alone, then
// one 4-way vector Poly1305 run fed each chunk while it is still in L1.
//   seal: a chunk is absorbed once written (whole groups of 64 bytes; the
//         rest waits for the next chunk).
//   open: a chunk, and up to 63 bytes past it, is absorbed before its output
//         overwrites it, so in == out works.
// Both take the same first call (the key block beside the rounds).
#pragma once

#include <algorithm>

#include "kernels/avx2/aead.hpp"
#include "kernels/x86/poly1305_vector.hpp"
#include "kernels/bytes.hpp"

namespace stitch::kern::avx2 {

// The first keystream call of a message computes the key block (block 0)
// in scalar registers beside the text's vector rounds, one double round a
// step for the first kKeySteps steps, and keys the MAC at the next; an open
// absorbs its ciphertext in the steps left. The text then takes the same
// shapes as the rest of the message, with nothing spent on a vector lane for
// block 0 (but see first_call) and no short first batch for an open.
// Measured on Zen 5 (core cycles, kernel calls) with the trailing vector
// MAC below, against a first call of key + 15 blocks (seal) or key + 1
// (open): 1 KiB seal 2440 -> 1970, open 2490 -> 1860; 512 B seal 1890 ->
// 1420, open 1820 -> 1150.
constexpr int kKeySteps = 10;

// Ciphertext blocks absorbed beside one keystream call (its `beside`),
// spread evenly over the 40 steps of keystream(): 32 blocks a batch, so two
// or three per step in the bulk, inside the time the vector rounds take (a
// Poly1305 block costs ~14 core cycles of serial latency, 16 bytes of
// keystream ~17 cycles of vector work).
//
// It holds its own copy of the accumulator, so the compiler keeps it in
// registers through the rounds; a reference into the Pass made it reload h
// from the stack at every step, a store-forwarding delay on the serial chain.
struct MacFeed {
    mulx::PolyAcc acc;
    const uint8_t* p;
    size_t n;
    size_t done = 0;

    STITCH_INLINE_AVX2_BMI2 void operator()(int step, int steps) {
        const size_t target = (size_t(step) + 1) * n / size_t(steps);
        for (; done < target; ++done) mulx::block(acc, p + done * kPolyBlock);
    }
};

// Beside the first keystream call: the key block, then keying the MAC
// (absorbing the held-back AAD), then for an open ct[0, limit) spread over
// the steps left, topping up first a block the MAC holds back (the OpenSSH
// grid's 4-byte length). Its own accumulator, as in MacFeed.
struct KeyingFeed {
    AeadState& st;
    ScalarBlock block0;
    const uint8_t* ct;  // the ciphertext an open absorbs; null for a seal
    size_t limit;
    mulx::PolyAcc acc{};
    size_t head = 0;   // bytes taken into the held-back block
    size_t whole = 0;  // whole blocks from ct + head
    size_t done = 0;

    STITCH_INLINE_AVX2_BMI2 void operator()(int step, int steps) {
        if (step < kKeySteps) {
            block0.double_round();
        } else if (step == kKeySteps) {
            key_mac(st, acc, block0);
            if (ct) start_absorb();
        } else {
            const size_t target = size_t(step - kKeySteps) * whole / size_t(steps - 1 - kKeySteps);
            for (; done < target; ++done) mulx::block(acc, ct + head + done * kPolyBlock);
        }
    }

    STITCH_INLINE_AVX2_BMI2 void start_absorb() {
        Poly1305State& m = st.mac;
        if (m.buf_len > 0) {
            head = std::min(limit, kPolyBlock - m.buf_len);
            for (size_t i = 0; i < head; ++i) m.buf[m.buf_len + i] = ct[i];
            m.buf_len += uint32_t(head);
            if (m.buf_len < kPolyBlock) return;
            mulx::block(acc, m.buf);
            m.buf_len = 0;
        }
        whole = (limit - head) / kPolyBlock;
    }
};

// One aead_text call: where the text and the MAC have got to.
template <const Shape& S>
class Pass {
public:
    STITCH_INLINE_AVX2_BMI2 Pass(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len)
        : st_(st), open_(dir == Direction::open), in_(in), out_(out), ct_(open_ ? in : out), len_(len) {}

    STITCH_INLINE_AVX2_BMI2 void run() {
        if (st_.mac_keyed) {
            acc_ = mulx::load(st_.mac);
        } else {
            first_call();
        }
        if constexpr (S.mac == Mac::stitched) {
            while (pos_ < len_) stitched_call(blocks_for(len_ - pos_));
            trailing_mac();
        } else {
            two_pass();
        }
        mulx::store(st_.mac, acc_);
    }

private:
    static constexpr size_t kBulk = S.aead_batches * kBatchBlocks;

    // Up to one bulk call's worth of the `left` text blocks, as
    // chacha20_blocks_avx2 would run them: the bulk while it lasts, then as
    // many batches as the rest fills (with rows_tail, whole batches first and
    // a tail of 1..4 in a call of its own), then keystream_upto.
    template <size_t B = S.aead_batches>
    STITCH_INLINE_AVX2_BMI2 void stitched_call(size_t left) {
        if constexpr (B > 1) {
            const size_t tail = left % kBatchBlocks;
            if (S.rows_tail && left < B * kBatchBlocks && left > (B - 1) * kBatchBlocks && tail > 0 && tail <= 4)
                batches<B - 1>(left - tail);  // the tail then takes a call of its own
            else if (left > (B - 1) * kBatchBlocks)
                batches<B>(std::min(left, B * kBatchBlocks));
            else
                stitched_call<B - 1>(left);
        } else {
            batches<1>(std::min(left, kBatchBlocks));
        }
    }

    // The same shapes for the call that keys the MAC.
    template <size_t B = S.aead_batches>
    STITCH_INLINE_AVX2_BMI2 void keying_call(size_t n) {
        if constexpr (B > 1) {
            if (n > (B - 1) * kBatchBlocks)
                keying_batches<B>(n);
            else
                keying_call<B - 1>(n);
        } else {
            keying_batches<1>(n);
        }
    }

    STITCH_INLINE_AVX2_BMI2 void first_call() {
        // Past one bulk call, the first call takes the remainder (1..kBulk
        // blocks), so that every later call is a whole bulk one. A seal's
        // first call has no MAC beside it anyway, and its last call's MAC
        // trails it: a short last call would leave most of a bulk call's
        // MAC to trail unstitched. Measured at 16 KiB on Zen 5: the
        // remainder last cost 2.5% (seal) and 5% (open) more.
        const size_t left = blocks_for(len_);
        size_t n = left > kBulk ? (left - 1) % kBulk + 1 : left;
        // rows_tail: 1..4 blocks past whole batches go first, as row pairs,
        // and the whole batches follow in a call of their own.
        if (S.rows_tail && n > kBatchBlocks && n % kBatchBlocks > 0 && n % kBatchBlocks <= 4) n %= kBatchBlocks;
        // A seal of 3 or 7 blocks leaves a lane idle in its shape (two row
        // pairs, one batch): block 0 takes it (~50 cycles quicker than the
        // scalar block beside, measured on Zen 5). At one block the scalar
        // one wins by a little, since it keys the MAC during the rounds.
        if (!open_ && (n == 3 || n == 7)) {
            vector_key_call(n);
            return;
        }
        keying_call(n);
    }

    // The first n text blocks (counter + 1 on) from B batches, with
    // KeyingFeed beside their rounds.
    template <size_t B>
    STITCH_INLINE_AVX2_BMI2 void keying_batches(size_t n) {
        const size_t bytes = std::min(len_, n * kChaChaBlock);
        const size_t limit = open_ ? open_limit(n) : 0;
        KeyingFeed feed{st_, ScalarBlock(st_.chacha), open_ ? ct_ : nullptr, limit};
        ChaChaState text = st_.chacha;
        chacha_advance(text.ctr, 1);
        U32x8 ks[B][16];
        if constexpr (B > 1)
            keystream<S.rounds>(text, ks, feed);
        else
            keystream_upto<S.rounds>(text, ks, n, feed);
        acc_ = feed.acc;
        mac_ = feed.head + feed.whole * kPolyBlock;
        if (open_) buffer_last(limit);
        emit(st_, ks, 0, in_, out_, bytes);
        wipe_unused(ks, n, bytes);
        chacha_advance(st_.chacha.ctr, 1 + n);
        pos_ = bytes;
    }

    // A seal whose key block fits in a lane the shape of its text leaves
    // idle: block 0 from the vector rounds, the MAC keyed after them.
    STITCH_INLINE_AVX2_BMI2 void vector_key_call(size_t n) {
        const size_t bytes = std::min(len_, n * kChaChaBlock);
        U32x8 ks[1][16];
        keystream_upto<S.rounds>(st_.chacha, ks, 1 + n, [](int, int) {});
        key_mac(st_, acc_, ks[0], 0);
        emit(st_, ks, 1, in_, out_, bytes);
        wipe_upto(ks, 1 + n);
        chacha_advance(st_.chacha.ctr, 1 + n);
        pos_ = bytes;
    }

    // Wipes ks unless every lane went to the output: lanes left unused hold
    // keystream of blocks still to come (or the Poly1305 key).
    template <size_t B>
    STITCH_INLINE_AVX2_BMI2 static void wipe_unused(U32x8 (&ks)[B][16], size_t n, size_t bytes) {
        if (bytes == B * kBatchBlocks * kChaChaBlock) return;
        if constexpr (B == 1)
            wipe_upto(ks, n);
        else
            wipe(ks, sizeof(ks));
    }

    // What is left for the MAC after the last keystream call (a seal's last
    // batch, an open's last few bytes): long runs of whole blocks take the
    // 4-way vector Poly1305, now that the vector units are free.
    STITCH_INLINE_AVX2_BMI2 void trailing_mac() {
        if (mac_ == len_) return;
        const size_t whole = (len_ - mac_) / kPolyBlock;
        if (st_.mac.buf_len == 0 && whole >= S.vector_poly_min) {
            mulx::store(st_.mac, acc_);
            poly1305_blocks_avx2_vector(st_.mac, ct_ + mac_, whole);
            acc_ = mulx::load(st_.mac);
            mac_ += whole * kPolyBlock;
        }
        mac_update(acc_, st_.mac, ct_ + mac_, len_ - mac_);
    }

    // n text blocks from B batches, with the MAC beside their rounds.
    template <size_t B>
    STITCH_INLINE_AVX2_BMI2 void batches(size_t n) {
        const size_t bytes = std::min(len_ - pos_, n * kChaChaBlock);
        const size_t limit = open_ ? open_limit(n) : pos_;
        absorb_head(limit);
        MacFeed feed{acc_, ct_ + mac_, whole_blocks(limit)};
        U32x8 ks[B][16];
        if constexpr (B > 1)
            keystream<S.rounds>(st_.chacha, ks, feed);
        else
            keystream_upto<S.rounds>(st_.chacha, ks, n, feed);
        acc_ = feed.acc;
        mac_ += feed.n * kPolyBlock;
        if (open_) buffer_last(limit);
        emit(st_, ks, 0, in_ + pos_, out_ + pos_, bytes);
        // Lanes left unused hold keystream of blocks still to come.
        wipe_unused(ks, n, bytes);
        chacha_advance(st_.chacha.ctr, n);
        pos_ += bytes;
    }

    // How far an open may read for the n blocks from pos: to the end of the
    // last Poly1305 block that starts inside them.
    STITCH_INLINE_AVX2_BMI2 size_t open_limit(size_t n) const {
        return std::min(len_, pos_ + n * kChaChaBlock + kPolyBlock - 1);
    }

    // The shared MAC bookkeeping (avx2/aead.hpp) on this pass's state.
    STITCH_INLINE_AVX2_BMI2 void absorb_head(size_t limit) { avx2::absorb_head(st_.mac, acc_, ct_, mac_, limit); }
    STITCH_INLINE_AVX2_BMI2 size_t whole_blocks(size_t limit) const { return avx2::whole_blocks(st_.mac, mac_, limit); }
    STITCH_INLINE_AVX2_BMI2 void buffer_last(size_t limit) { avx2::buffer_last(st_.mac, acc_, ct_, mac_, limit, len_); }

    // --- Mac::two_pass ---------------------------------------------------

    // After the first call: chunk by chunk, the MAC before the keystream
    // (open) or after it (seal), through one vector run for the rest of the
    // call when that is long enough (its set-up is paid once a call), else
    // through MULX.
    STITCH_INLINE_AVX2_BMI2 void two_pass() {
        vector_ = (len_ - mac_) / kPolyBlock >= S.vector_poly_min;
        if (!open_) mac_through(pos_);  // what the first call wrote
        while (pos_ < len_) {
            const size_t n = std::min(blocks_for(len_ - pos_), S.chunk_blocks);
            if (open_) {
                const size_t limit = std::min(len_, pos_ + n * kChaChaBlock + kGroupBytes - 1);
                mac_through(limit);
                if (limit == len_) finish_mac();
            }
            const size_t end = pos_ + std::min(len_ - pos_, n * kChaChaBlock);
            while (pos_ < end) keystream_call(blocks_for(end - pos_));
            if (!open_) mac_through(pos_);
        }
        finish_mac();
    }

    static constexpr size_t kGroupBytes = 4 * kPolyBlock;

    // Absorbs ct[mac, limit) as far as whole Poly1305 blocks (MULX) or whole
    // groups of four (the vector run) go, topping up a held-back block first
    // (the OpenSSH grid's length). Only the end of the text leaves a partial
    // block after that.
    STITCH_INLINE_AVX2_BMI2 void mac_through(size_t limit) {
        if (st_.mac.buf_len > 0) {
            absorb_head(limit);
            if (st_.mac.buf_len > 0) return;
        }
        if (vector_) {
            const size_t groups = (limit - mac_) / kGroupBytes;
            if (groups == 0) return;
            if (!run_started_) {
                poly1305_vector_begin(run_, acc_);
                run_started_ = true;
            }
            poly1305_vector_absorb(run_, ct_ + mac_, groups);
            mac_ += groups * kGroupBytes;
        } else {
            const size_t whole = (limit - mac_) / kPolyBlock;
            mulx::blocks(acc_, ct_ + mac_, whole);
            mac_ += whole * kPolyBlock;
        }
    }

    // Ends the vector run and takes what is left (less than a group) through
    // MULX, buffering a partial block.
    STITCH_INLINE_AVX2_BMI2 void finish_mac() {
        if (run_started_) {
            poly1305_vector_end(run_, acc_);
            run_started_ = false;
        }
        if (mac_ < len_) mac_update(acc_, st_.mac, ct_ + mac_, len_ - mac_);
        mac_ = len_;
    }

    // Up to one bulk call's worth of the n text blocks from pos, no MAC.
    template <size_t B = S.aead_batches>
    STITCH_INLINE_AVX2_BMI2 void keystream_call(size_t left) {
        if constexpr (B > 1) {
            if (left > (B - 1) * kBatchBlocks)
                plain_batches<B>(std::min(left, B * kBatchBlocks));
            else
                keystream_call<B - 1>(left);
        } else {
            plain_batches<1>(std::min(left, kBatchBlocks));
        }
    }

    template <size_t B>
    STITCH_INLINE_AVX2_BMI2 void plain_batches(size_t n) {
        const size_t bytes = std::min(len_ - pos_, n * kChaChaBlock);
        U32x8 ks[B][16];
        if constexpr (B > 1)
            keystream<S.rounds>(st_.chacha, ks);
        else
            keystream_upto<S.rounds>(st_.chacha, ks, n, [](int, int) {});
        emit(st_, ks, 0, in_ + pos_, out_ + pos_, bytes);
        wipe_unused(ks, n, bytes);
        chacha_advance(st_.chacha.ctr, n);
        pos_ += bytes;
    }

    AeadState& st_;
    const bool open_;
    const uint8_t* in_;
    uint8_t* out_;
    const uint8_t* ct_;  // the MAC reads ciphertext: in_ for open, out_ for seal
    const size_t len_;
    size_t pos_ = 0;  // text written
    size_t mac_ = 0;  // text absorbed, or held in st.mac.buf
    mulx::PolyAcc acc_{};
    // Mac::two_pass: whether this call's MAC takes the vector run, and
    // whether the run has taken h yet.
    bool vector_ = false;
    bool run_started_ = false;
    Poly1305VectorRun run_;
};

}  // namespace stitch::kern::avx2
