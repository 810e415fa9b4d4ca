// The stitched one pass over AEAD text (RFC 8439 §2.8; OpenSSH's grid through
// the same code): ChaCha20 in AVX2 batches of eight blocks (three batches
// at a time in the bulk), with the scalar MULX Poly1305 of the ciphertext run
// beside the rounds, so the vector and the integer units work at once.
//
//   seal: a batch's rounds absorb the previous batch's ciphertext (it exists
//         only once that batch is written); the last one's is absorbed after.
//   open: a batch's rounds absorb its own ciphertext, plus up to 15 bytes of
//         the next batch where the MAC grid is skewed (OpenSSH: 12), all
//         before its output overwrites them, so in == out works.
#include <algorithm>

#include "kernels/aead_avx2.hpp"
#include "kernels/avx2.hpp"
#include "kernels/bytes.hpp"

namespace stitch::kern {

namespace {

using avx2::blocks_for;
using avx2::kBatchBlocks;
using avx2::U32x8;

// A seal's first batch is the key block and seven text blocks; when the text
// runs past that, two batches (key and fifteen): no MAC can run beside the
// first keystream call of a seal anyway, and a second batch in the same call
// costs less than half a batch more. An open's first batch, when the text
// runs past seven blocks, carries one text block: the MAC key comes out of
// it, so the MAC can run beside every later batch.
constexpr size_t kSealFirstBlocks = kBatchBlocks - 1;
constexpr size_t kSealFirstDoubleBlocks = 2 * kBatchBlocks - 1;
constexpr size_t kOpenFirstBlocks = 1;

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

// One aead_text call: where the text and the MAC have got to.
class Pass {
public:
    STITCH_INLINE_AVX2_BMI2 Pass(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len)
        : st_(st), open_(dir == Direction::open), in_(in), out_(out), ct_(open_ ? in : out), len_(len) {}

    STITCH_INLINE_AVX2_BMI2 void run() {
        if (st_.mac_keyed)
            acc_ = mulx::load(st_.mac);
        else
            key_batch();
        // The shapes of chacha20_blocks_avx2: three batches in the bulk and
        // for 17..23 blocks, two for 9..16, then keystream_upto.
        while (pos_ < len_) {
            const size_t left = blocks_for(len_ - pos_);
            if (left > 2 * kBatchBlocks)
                batches<avx2::kBulkBatches>(std::min(left, avx2::kBulkBlocks));
            else if (left > kBatchBlocks)
                batches<2>(left);
            else
                batches<1>(left);
        }
        if (mac_ < len_) avx2::mac_update(acc_, st_.mac, ct_ + mac_, len_ - mac_);
        mulx::store(st_.mac, acc_);
    }

private:
    // The first batch: block 0 keys the MAC (absorbing the held-back AAD);
    // the rest is text. An open absorbs its ciphertext here, as the key only
    // arrives with this batch's keystream.
    STITCH_INLINE_AVX2_BMI2 void key_batch() {
        const size_t text_blocks = blocks_for(len_);
        if (!open_ && text_blocks > kSealFirstBlocks) {
            key_batch<2>(std::min(text_blocks, kSealFirstDoubleBlocks));
        } else {
            const bool short_first = open_ && text_blocks > kSealFirstBlocks;
            key_batch<1>(short_first ? kOpenFirstBlocks : text_blocks);
        }
    }

    // Block 0 and n text blocks from B batches' worth of keystream.
    template <size_t B>
    STITCH_INLINE_AVX2_BMI2 void key_batch(size_t n) {
        U32x8 ks[B][16];
        if constexpr (B == 2)
            avx2::keystream(st_.chacha, ks);
        else
            avx2::keystream_upto(st_.chacha, ks, 1 + n, [](int, int) {});
        uint8_t block0[kChaChaBlock];
        avx2::store_block(ks[0], 0, block0);
        aead_key_mac(st_, block0, true);
        wipe(block0, sizeof(block0));
        acc_ = mulx::load(st_.mac);

        if (open_) {
            const size_t limit = open_limit(n);
            absorb_head(limit);
            const size_t w = whole_blocks(limit);
            mulx::blocks(acc_, ct_ + mac_, w);
            mac_ += w * kPolyBlock;
            buffer_last(limit);
        }
        const size_t bytes = std::min(len_, n * kChaChaBlock);
        avx2::emit(st_, ks, 1, in_, out_, bytes);
        wipe(ks, sizeof(ks));  // the Poly1305 key and unused lanes
        chacha_advance(st_.chacha.ctr, 1 + n);
        pos_ = bytes;
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
        if (bytes != B * kBatchBlocks * kChaChaBlock) wipe(ks, sizeof(ks));
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
    if (!st.mac_keyed && len <= kShortMax) {
        avx2::short_text(st, dir, in, out, len);
        return;
    }
    Pass(st, dir, in, out, len).run();
    U32x8::zero_registers();
}

}  // namespace stitch::kern
