// Impl::chacha20_two_keys for the AVX2 set: one block under one key and up
// to five under another as one to three row pairs (avx2/row_rounds.hpp),
// the first pair's halves under the two keys, so the two keys' blocks cost
// one call's rounds where they were two calls' one after the other.
#include "kernels/avx2/chacha20.hpp"
#include "kernels/avx2/kernels.hpp"

namespace stitch::kern {

namespace {

using avx2::U32x8;

// Rows of block a_off of a (low half) and block b_off of b (high half),
// each counter moved on as load_rows moves it.
STITCH_INLINE_AVX2_BMI2 void load_two_rows(const ChaChaState& a, uint64_t a_off, const ChaChaState& b,
                                           uint64_t b_off, U32x8 r[4]) {
    r[0] = U32x8::both_halves(kSigma);
    r[1] = U32x8::two_halves(a.key, b.key);
    r[2] = U32x8::two_halves(a.key + 4, b.key + 4);
    r[3] = U32x8::two_halves(a.ctr, b.ctr).plus_u64(a_off, b_off);
}

}  // namespace

STITCH_TARGET_AVX2_BMI2 void chacha20_two_keys_avx2(const ChaChaState& first, const ChaChaState& rest, size_t n,
                                                    uint8_t* out) noexcept {
    U32x8::clean_upper();
    n = std::clamp<size_t>(n, 1, 5);
    U32x8 ks[1][16];
    avx2::RowFrame frame;
    load_two_rows(first, 0, rest, 0, frame.in);  // lanes 0, 1: first's block, rest's first
    frame.out = reinterpret_cast<uint8_t*>(ks[0]);
    if (n == 1) {
        avx2::rows_keystream_1(frame);
    } else if (n <= 3) {
        avx2::load_rows(rest, 1, frame.in + 4);  // lanes 2, 3: rest's second and third
        avx2::rows_keystream_2(frame);
    } else {
        avx2::load_rows(rest, 1, frame.in + 4);
        avx2::load_rows(rest, 3, frame.in + 8);  // lanes 4, 5: rest's fourth and fifth
        avx2::rows_keystream_3(frame);
    }
    U32x8::wipe<12>(frame.in);  // both keys' words
    for (size_t b = 0; b <= n; ++b) avx2::store_block(ks[0], b, out + b * kChaChaBlock);
    U32x8::wipe<6>(&ks[0][0]);
    U32x8::wipe<6>(&ks[0][8]);
    U32x8::zero_registers();
}

}  // namespace stitch::kern
