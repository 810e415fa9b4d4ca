// ChaCha20 over whole blocks (RFC 8439 §2.4) with AVX2: three eight-block
// batches at a time while they last, then the quickest shape for what is
// left. Raw ChaCha20, OpenSSH's 64-bit counter layout and every keystream
// use go through here.
#include "kernels/avx2/kernels.hpp"
#include "kernels/bytes.hpp"
#include "kernels/avx2/chacha20.hpp"

namespace stitch::kern {

namespace {

using avx2::kBatchBlocks;
using avx2::U32x8;

// The first n blocks of B batches: out = in ^ keystream, or the keystream
// itself when in is null.
template <size_t B>
STITCH_INLINE_AVX2_BMI2 void emit_blocks(const U32x8 (&ks)[B][16], size_t n, const uint8_t* in, uint8_t* out) {
#pragma GCC unroll 32
    for (size_t b = 0; b < n; ++b) {
        const size_t off = b * kChaChaBlock;
        if (in)
            avx2::xor_block(ks[b / kBatchBlocks], b % kBatchBlocks, in + off, out + off);
        else
            avx2::store_block(ks[b / kBatchBlocks], b % kBatchBlocks, out + off);
    }
}

// n blocks from B batches' worth of keystream (n <= 8·B).
template <size_t B>
STITCH_INLINE_AVX2_BMI2 void run(ChaChaState& st, const uint8_t*& in, uint8_t*& out, size_t n) {
    U32x8 ks[B][16];
    if constexpr (B > 1)
        avx2::keystream(st, ks);
    else
        avx2::keystream_upto(st, ks, n, [](int, int) {});
    emit_blocks(ks, n, in, out);
    if (n != B * kBatchBlocks) wipe(ks, sizeof(ks));  // keystream of blocks still to come
    chacha_advance(st.ctr, n);
    if (in) in += n * kChaChaBlock;
    out += n * kChaChaBlock;
}

}  // namespace

void chacha20_blocks_avx2(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept {
    U32x8::clean_upper();  // see clean_upper
    for (; nblocks >= avx2::kBulkBlocks; nblocks -= avx2::kBulkBlocks)
        run<avx2::kBulkBatches>(st, in, out, avx2::kBulkBlocks);
    // What is left, in the quickest shape measured here (core cycles, Zen 5):
    // 17..23 blocks three batches (~1650), 9..16 two (~1200; two single
    // batches ~1570), a lone block the scalar code (~370 against ~490 for a
    // row pair), the rest as keystream_upto says.
    if (nblocks > 2 * kBatchBlocks)
        run<avx2::kBulkBatches>(st, in, out, nblocks);
    else if (nblocks > kBatchBlocks)
        run<2>(st, in, out, nblocks);
    else if (nblocks > 1)
        run<1>(st, in, out, nblocks);
    else if (nblocks == 1)
        chacha20_blocks_portable(st, in, out, 1);
    U32x8::zero_registers();
}

}  // namespace stitch::kern
