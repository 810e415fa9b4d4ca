// The stitched one pass over AEAD text (RFC 8439 §2.8; OpenSSH's grid through
// the same code): ChaCha20 in AVX2 batches of eight blocks (three batches
// at a time in the bulk), with the scalar MULX Poly1305 of the ciphertext run
// beside the rounds, so the vector and the integer units work at once.
//
//   seal: a batch's rounds absorb the previous batch's ciphertext (it exists
//         only once that batch is written); the last one's is absorbed after,
//         by the 4-way vector Poly1305 when it is long.
//   open: a batch's rounds absorb its own ciphertext, plus up to 15 bytes of
//         the next batch where the MAC grid is skewed (OpenSSH: 12), all
//         before its output overwrites them, so in == out works.
#include <algorithm>

#include "kernels/avx2/aead.hpp"
#include "kernels/avx2/kernels.hpp"
#include "kernels/bytes.hpp"
#include "kernels/avx2/poly1305_vector.hpp"

namespace stitch::kern {

namespace {

using avx2::blocks_for;
using avx2::kBatchBlocks;
using avx2::U32x8;

// The first keystream call of a message computes the key block (block 0)
// in scalar registers beside the text's vector rounds, one double round a
// step for the first kKeySteps steps, and keys the MAC at the next; an open
// absorbs its ciphertext in the steps left. The text then takes the same
// shapes as the rest of the message, with nothing spent on a vector lane for
// block 0 (but see first_call) and no short first batch for an open.
// Measured here (Zen 5, core cycles, kernel calls) with the trailing vector
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
    avx2::ScalarBlock block0;
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
            avx2::key_mac(st, acc, block0);
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
        while (pos_ < len_) {
            const size_t left = blocks_for(len_ - pos_);
            if (left > 2 * kBatchBlocks)
                batches<avx2::kBulkBatches>(std::min(left, avx2::kBulkBlocks));
            else if (left > kBatchBlocks)
                batches<2>(left);
            else
                batches<1>(left);
        }
        trailing_mac();
        mulx::store(st_.mac, acc_);
    }

private:
    // The shapes of chacha20_blocks_avx2: three batches in the bulk and for
    // 17..23 blocks, two for 9..16, then keystream_upto; the call that keys
    // the MAC takes the same shapes.
    STITCH_INLINE_AVX2_BMI2 void first_call() {
        // Past one bulk call, the first call takes the remainder (1..24
        // blocks), so that every later call is a whole bulk one. A seal's
        // first call has no MAC beside it anyway, and its last call's MAC
        // trails it: a short last call would leave most of a bulk call's
        // MAC to trail unstitched. Measured at 16 KiB: the remainder last
        // cost 2.5% (seal) and 5% (open) more.
        const size_t left = blocks_for(len_);
        const size_t n = left > avx2::kBulkBlocks ? (left - 1) % avx2::kBulkBlocks + 1 : left;
        // A seal of 3 or 7 blocks leaves a lane idle in its shape (two row
        // pairs, one batch): block 0 takes it (~50 cycles quicker than the
        // scalar block beside, measured here). At one block the scalar one
        // wins by a little, since it keys the MAC during the rounds.
        if (!open_ && (n == 3 || n == 7)) {
            vector_key_call(n);
            return;
        }
        if (n > 2 * kBatchBlocks)
            keying_batches<avx2::kBulkBatches>(n);
        else if (n > kBatchBlocks)
            keying_batches<2>(n);
        else
            keying_batches<1>(n);
    }

    // The first n text blocks (counter + 1 on) from B batches, with
    // KeyingFeed beside their rounds.
    template <size_t B>
    STITCH_INLINE_AVX2_BMI2 void keying_batches(size_t n) {
        const size_t bytes = std::min(len_, n * kChaChaBlock);
        const size_t limit = open_ ? open_limit(n) : 0;
        KeyingFeed feed{st_, avx2::ScalarBlock(st_.chacha), open_ ? ct_ : nullptr, limit};
        ChaChaState text = st_.chacha;
        chacha_advance(text.ctr, 1);
        U32x8 ks[B][16];
        if constexpr (B > 1)
            avx2::keystream(text, ks, feed);
        else
            avx2::keystream_upto(text, ks, n, feed);
        acc_ = feed.acc;
        mac_ = feed.head + feed.whole * kPolyBlock;
        if (open_) buffer_last(limit);
        avx2::emit(st_, ks, 0, in_, out_, bytes);
        wipe_unused(ks, n, bytes);
        chacha_advance(st_.chacha.ctr, 1 + n);
        pos_ = bytes;
    }

    // A seal whose key block fits in a lane the shape of its text leaves
    // idle: block 0 from the vector rounds, the MAC keyed after them.
    STITCH_INLINE_AVX2_BMI2 void vector_key_call(size_t n) {
        const size_t bytes = std::min(len_, n * kChaChaBlock);
        U32x8 ks[1][16];
        avx2::keystream_upto(st_.chacha, ks, 1 + n, [](int, int) {});
        avx2::key_mac(st_, acc_, ks[0], 0);
        avx2::emit(st_, ks, 1, in_, out_, bytes);
        avx2::wipe_upto(ks, 1 + n);
        chacha_advance(st_.chacha.ctr, 1 + n);
        pos_ = bytes;
    }

    // Wipes ks unless every lane went to the output: lanes left unused hold
    // keystream of blocks still to come (or the Poly1305 key).
    template <size_t B>
    STITCH_INLINE_AVX2_BMI2 static void wipe_unused(U32x8 (&ks)[B][16], size_t n, size_t bytes) {
        if (bytes == B * kBatchBlocks * kChaChaBlock) return;
        if constexpr (B == 1)
            avx2::wipe_upto(ks, n);
        else
            wipe(ks, sizeof(ks));
    }

    // What is left for the MAC after the last keystream call (a seal's last
    // batch, an open's last few bytes): long runs of whole blocks take the
    // 4-way vector Poly1305, now that the vector units are free.
    STITCH_INLINE_AVX2_BMI2 void trailing_mac() {
        if (mac_ == len_) return;
        const size_t whole = (len_ - mac_) / kPolyBlock;
        if (st_.mac.buf_len == 0 && whole >= kPoly1305Avx2MinBlocks) {
            mulx::store(st_.mac, acc_);
            poly1305_blocks_avx2(st_.mac, ct_ + mac_, whole);
            acc_ = mulx::load(st_.mac);
            mac_ += whole * kPolyBlock;
        }
        avx2::mac_update(acc_, st_.mac, ct_ + mac_, len_ - mac_);
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
            avx2::keystream(st_.chacha, ks, feed);
        else
            avx2::keystream_upto(st_.chacha, ks, n, feed);
        acc_ = feed.acc;
        mac_ += feed.n * kPolyBlock;
        if (open_) buffer_last(limit);
        avx2::emit(st_, ks, 0, in_ + pos_, out_ + pos_, bytes);
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

    // Tops up a block the MAC holds back (the OpenSSH grid's 4-byte length)
    // from ct[mac, limit).
    STITCH_INLINE_AVX2_BMI2 void absorb_head(size_t limit) {
        Poly1305State& m = st_.mac;
        if (m.buf_len == 0 || limit <= mac_) return;
        const size_t take = std::min(limit - mac_, kPolyBlock - m.buf_len);
        for (size_t i = 0; i < take; ++i) m.buf[m.buf_len + i] = ct_[mac_ + i];
        m.buf_len += uint32_t(take);
        mac_ += take;
        if (m.buf_len == kPolyBlock) {
            mulx::block(acc_, m.buf);
            m.buf_len = 0;
        }
    }

    // Whole Poly1305 blocks in ct[mac, limit), once the head is done.
    STITCH_INLINE_AVX2_BMI2 size_t whole_blocks(size_t limit) const {
        return st_.mac.buf_len == 0 && limit > mac_ ? (limit - mac_) / kPolyBlock : 0;
    }

    // An open that has reached the end of the text keeps the last bytes
    // (less than a block) in the MAC's buffer now, before the plaintext
    // overwrites them; they may lie in an earlier batch than the last.
    STITCH_INLINE_AVX2_BMI2 void buffer_last(size_t limit) {
        if (limit < len_ || mac_ == len_) return;
        avx2::mac_update(acc_, st_.mac, ct_ + mac_, len_ - mac_);
        mac_ = len_;
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
};

}  // namespace

void aead_text_avx2(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept {
    U32x8::clean_upper();
    // Short opens have their own path (the MAC keyed and fed beside one row
    // run, measured ~10% quicker than the pass at 192 B); short seals take
    // the pass, whose first call is the same single keystream call.
    if (dir == Direction::open && !st.mac_keyed && len <= kShortMax) {
        avx2::short_open(st, in, out, len);
        return;
    }
    Pass(st, dir, in, out, len).run();
    U32x8::zero_registers();
}

}  // namespace stitch::kern
