// ChaCha20 over whole blocks (RFC 8439 §2.4) with AVX2: eight-block batches
// while they last, then the quickest shape for what is left. Raw ChaCha20,
// OpenSSH's 64-bit counter layout and every keystream use go through here.
#include "kernels/avx2/chacha20.hpp"

#include <algorithm>

#include "kernels/avx2/kernels.hpp"
#include "kernels/avx2/set.hpp"
#include "kernels/bytes.hpp"
#include "kernels/x86/keep_block.hpp"
#include "kernels/x86/scalar_block.hpp"

namespace stitch::kern {

namespace {

using avx2::kBatchBlocks;
using avx2::U32x8;

// The first n blocks of a batch: out = in ^ keystream, or the keystream
// itself when in is null.
STITCH_INLINE_AVX2_BMI2 void emit_blocks(const U32x8 (&ks)[1][16], size_t n, const uint8_t* in, uint8_t* out) {
    n = std::min(n, kBatchBlocks);  // the bound lets GCC see the unrolled loop stays inside ks
#pragma GCC unroll 8
    for (size_t b = 0; b < n; ++b) {
        const size_t off = b * kChaChaBlock;
        if (in)
            avx2::xor_block(ks[0], b, in + off, out + off);
        else
            avx2::store_block(ks[0], b, out + off);
    }
}

// n (1..8) blocks from one keystream call; a lone block in general-purpose
// registers (x86/scalar_block.hpp) where the CPU rule says so
// (avx2/tuning.hpp), else as a row pair.
STITCH_INLINE_AVX2_BMI2 void run(ChaChaState& st, const uint8_t*& in, uint8_t*& out, size_t n) {
    if (n == 1 && avx2::kLoneBlockInGpr) {
        x86::lone_block<x86::Rounds::asm_text>(st, in, out);
        if (in) in += kChaChaBlock;
        out += kChaChaBlock;
        return;
    }
    U32x8 ks[1][16];
    avx2::keystream_upto(st, ks, n);
    emit_blocks(ks, n, in, out);
    avx2::wipe_upto(ks, n);  // keystream (of blocks still to come, where n < 8)
    chacha_advance(st.ctr, n);
    if (in) in += n * kChaChaBlock;
    out += n * kChaChaBlock;
}

}  // namespace

STITCH_TARGET_AVX2_BMI2 void chacha20_blocks_avx2(ChaChaState& st, const uint8_t* in, uint8_t* out,
                                                  size_t nblocks) noexcept {
    U32x8::clean_upper();  // see clean_upper
    if (in && nblocks >= kBatchBlocks - 1) {
        avx2::BatchRun batches(st);
        // The last nine blocks in one statement where the CPU rule says so.
        const bool nine = avx2::kRawNineBlocks && nblocks > kBatchBlocks && nblocks % kBatchBlocks == 1;
        if (const size_t run = nblocks / kBatchBlocks - nine; run > 0) {
            batches.xor_batches(st, in, out, run);
            chacha_advance(st.ctr, run * kBatchBlocks);
            in += run * kBatchBlocks * kChaChaBlock;
            out += run * kBatchBlocks * kChaChaBlock;
            nblocks -= run * kBatchBlocks;
        }
        if (nine) {
            uint8_t last[kChaChaBlock];
            batches.xor_nine(st, in, out, last);
            batches.wipe();  // the ninth block's words
            const size_t off = kBatchBlocks * kChaChaBlock;
            xor_short(out + off, in + off, last, kChaChaBlock);
            wipe(last, sizeof(last));
            chacha_advance(st.ctr, kBatchBlocks + 1);
            in += off + kChaChaBlock;
            out += off + kChaChaBlock;
            nblocks = 0;
        } else if (nblocks == kBatchBlocks - 1) {  // a tail of seven: the batch without its eighth block
            batches.xor_seven(st, in, out);
            chacha_advance(st.ctr, nblocks);
            nblocks = 0;
        }
        batches.wipe_words();  // no MAC; the ninth block's words wiped above
    } else if (!in && nblocks >= kBatchBlocks) {
        // Keystream with no input, batch by batch straight into out: the
        // keystream call's buffer, copy and wipe made ~160 ymm stack accesses
        // a batch (g++ 12), more than OpenSSL's ChaCha20_8x (docs/kernels.md).
        avx2::BatchRun batches(st);
        for (; nblocks >= kBatchBlocks; nblocks -= kBatchBlocks) {
            batches.store_batch(st, out);
            chacha_advance(st.ctr, kBatchBlocks);
            out += kBatchBlocks * kChaChaBlock;
        }
        batches.wipe_words();
    }
    if (nblocks > 0) run(st, in, out, nblocks);  // what is left: under a batch
    U32x8::zero_registers();
}

// The blocks' keystream stays in the set's registers (or ks, wiped) and goes
// out by vector XORs; the partial block's keystream goes to kept by asm
// (x86/keep_block.hpp), and its bytes from there. Through a buffer (the
// generic path) a 1000-byte update took its ~1 KiB of keystream out, back in,
// XOR'd and wiped again.
STITCH_TARGET_AVX2_BMI2 void chacha20_xor_last_avx2(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len,
                                                    uint8_t kept[kChaChaBlock]) noexcept {
    U32x8::clean_upper();
    const size_t n = (len + kChaChaBlock - 1) / kChaChaBlock;  // 1..9 (Impl::xor_last_blocks)
    const size_t whole = len / kChaChaBlock;
    if (n > kBatchBlocks) {
        // Eight whole blocks and a partial one: the nine-block statement,
        // or a batch and then the ninth as a lone block.
        avx2::BatchRun batches(st);
        if (avx2::kRawNineBlocks) {
            batches.xor_nine(st, in, out, kept);
            batches.wipe();  // the ninth block's words
            chacha_advance(st.ctr, n);
        } else {
            batches.xor_batches(st, in, out, 1);
            batches.wipe_words();
            chacha_advance(st.ctr, kBatchBlocks);
            const uint8_t* none = nullptr;
            uint8_t* ninth = kept;
            run(st, none, ninth, 1);  // the ninth's keystream into kept; advances st
        }
    } else if (n == 1 && avx2::kLoneBlockInGpr) {
        x86::lone_block<x86::Rounds::asm_text>(st, nullptr, kept);  // advances st
    } else {
        U32x8 ks[1][16];
        avx2::keystream_upto(st, ks, n);
        for (size_t b = 0; b < whole; ++b)
            avx2::xor_block(ks[0], b, in + b * kChaChaBlock, out + b * kChaChaBlock);
        x86::keep_block(kept, ks[0][whole].raw(), ks[0][8 + whole].raw());
        avx2::wipe_upto(ks, n);
        chacha_advance(st.ctr, n);
    }
    xor_short(out + whole * kChaChaBlock, in + whole * kChaChaBlock, kept, len % kChaChaBlock);
    U32x8::zero_registers();
}

}  // namespace stitch::kern
