// ChaCha20 over whole blocks (RFC 8439 §2.4) with AVX-512: sixteen-block
// zmm batches while they last, then the quickest shape for what is left.
// (Scalar blocks beside the batch, on the idle integer units, measured
// slower on Zen 4: two of them took a batch from ~700 to ~940 cycles.)
// Raw ChaCha20, OpenSSH's 64-bit counter layout and every keystream use of
// the AVX-512 set go through here.
#include "kernels/avx512/chacha20.hpp"

#include "kernels/avx512/kernels.hpp"
#include "kernels/bytes.hpp"

namespace stitch::kern::STITCH_AVX512_NS {

namespace {

// n blocks (n <= N) of one word-per-register batch: out = in ^ keystream,
// or the keystream itself when in is null.
template <size_t N>
STITCH_INLINE_AVX512 void batch(ChaChaState& st, const uint8_t*& in, uint8_t*& out, size_t n) {
    U32xN<N> ks[16];
    keystream<N>(st, 0, ks);
#pragma GCC unroll 16
    for (size_t b = 0; b < n; ++b) {
        if (in)
            xor_block(ks, b, in + b * kChaChaBlock, out + b * kChaChaBlock);
        else
            store_block(ks, b, out + b * kChaChaBlock);
    }
    if (n != N) wipe(ks, sizeof(ks));  // keystream of blocks still to come
    chacha_advance(st.ctr, n);
    if (in) in += n * kChaChaBlock;
    out += n * kChaChaBlock;
}

// n <= 4 blocks in the row layout.
STITCH_INLINE_AVX512 void rows(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t n) {
    U32x16 r[4];
    keystream_rows(st, r, Nothing{});
    rows_to_blocks(r);
#pragma GCC unroll 16
    for (size_t b = 0; b < n; ++b) {
        if (in)
            xor_block(r, b, in + b * kChaChaBlock, out + b * kChaChaBlock);
        else
            store_block(r, b, out + b * kChaChaBlock);
    }
    if (n != 4) wipe(r, sizeof(r));
    chacha_advance(st.ctr, n);
}

}  // namespace

void chacha20_blocks(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept {
    clean_upper();
    for (; nblocks >= 16; nblocks -= 16) batch<16>(st, in, out, 16);
    if (nblocks > 8)
        batch<16>(st, in, out, nblocks);
    else if (nblocks > 4)
        batch<8>(st, in, out, nblocks);
    else if (nblocks > 0)
        rows(st, in, out, nblocks);
    zero_registers();
}

}  // namespace stitch::kern::STITCH_AVX512_NS
