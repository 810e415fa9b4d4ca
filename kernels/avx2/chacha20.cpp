// ChaCha20 over whole blocks (RFC 8439 §2.4) with AVX2: the shape's bulk of
// batches at a time while they last, then the quickest shape for what is
// left. Raw ChaCha20, OpenSSH's 64-bit counter layout and every keystream
// use go through here.
#include "kernels/avx2/chacha20.hpp"

#include <algorithm>

#include "kernels/avx2/kernels.hpp"
#include "kernels/bytes.hpp"

namespace stitch::kern {

namespace {

using avx2::kBatchBlocks;
using avx2::Shape;
using avx2::U32x8;

// The first n blocks of B batches: out = in ^ keystream, or the keystream
// itself when in is null.
template <size_t B>
STITCH_INLINE_AVX2_BMI2 void emit_blocks(const U32x8 (&ks)[B][16], size_t n, const uint8_t* in, uint8_t* out) {
    n = std::min(n, B * kBatchBlocks);  // the bound lets GCC see the unrolled loop stays inside ks
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
template <const Shape& S, size_t B>
STITCH_INLINE_AVX2_BMI2 void run(ChaChaState& st, const uint8_t*& in, uint8_t*& out, size_t n) {
    U32x8 ks[B][16];
    if constexpr (B > 1)
        avx2::keystream<S.rounds>(st, ks);
    else
        avx2::keystream_upto<S.rounds>(st, ks, n, [](int, int) {});
    emit_blocks(ks, n, in, out);
    if (n != B * kBatchBlocks) wipe(ks, sizeof(ks));  // keystream of blocks still to come
    chacha_advance(st.ctr, n);
    if (in) in += n * kChaChaBlock;
    out += n * kChaChaBlock;
}

// What is left after the bulk, n < 8·B: as many batches as it fills
// (measured on Zen 5 in core cycles: 17..23 blocks three batches ~1650;
// 9..16 two ~1200, two single batches ~1570), or with rows_tail the whole
// batches and then 1..4 blocks more as row pairs; then keystream_upto, and
// a lone block as the shape says.
template <const Shape& S, size_t B>
STITCH_INLINE_AVX2_BMI2 void remainder(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t n) {
    if constexpr (B > 1) {
        const size_t tail = n % kBatchBlocks;
        if (n <= (B - 1) * kBatchBlocks) {
            remainder<S, B - 1>(st, in, out, n);
        } else if (S.rows_tail && tail > 0 && tail <= 4) {
            run<S, B - 1>(st, in, out, n - tail);
            remainder<S, 1>(st, in, out, tail);
        } else {
            run<S, B>(st, in, out, n);
        }
    } else if (n > 1 || (n == 1 && !S.lone_block_scalar)) {
        run<S, 1>(st, in, out, n);
    } else if (n == 1) {
        chacha20_blocks_portable(st, in, out, 1);
    }
}

template <const Shape& S>
STITCH_TARGET_AVX2_BMI2 void chacha20_blocks(ChaChaState& st, const uint8_t* in, uint8_t* out,
                                             size_t nblocks) noexcept {
    constexpr size_t kBulk = S.chacha_batches * kBatchBlocks;
    U32x8::clean_upper();  // see clean_upper
    for (; nblocks >= kBulk; nblocks -= kBulk) run<S, S.chacha_batches>(st, in, out, kBulk);
    remainder<S, S.chacha_batches>(st, in, out, nblocks);
    U32x8::zero_registers();
}

}  // namespace

const PerShape<ChaChaBlocksFn> chacha20_blocks_avx2 =
    avx2::for_each_shape<ChaChaBlocksFn>([]<const Shape& S>() { return &chacha20_blocks<S>; });

}  // namespace stitch::kern
