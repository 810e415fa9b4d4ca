// Impl::chacha20_two_keys for the AVX-512 set: the block under `first` in
// 128-bit lane 3 of one zmm row set beside `rest`'s first three blocks
// (chacha20.hpp's row layout, one rotation an instruction), and a second
// set beside it for rest's fourth and fifth. OpenSSH's length block and a
// short packet's blocks so cost one set's chain where they were two calls'
// chains one after the other.
#include "kernels/avx512/chacha20.hpp"
#include "kernels/avx512/kernels.hpp"

namespace stitch::kern::STITCH_AVX512_NS {

namespace {

// Row `row` of first's block into 128-bit lane 3 of r.
STITCH_INLINE_AVX512 U32x16 with_lane3(const U32x16& r, const uint32_t* row) {
    return U32x16(_mm512_inserti32x4(r.raw(), _mm_loadu_si128(reinterpret_cast<const __m128i*>(row)), 3));
}

// Lane 3 of the row set `in` (blocks 0..2 of rest's) becomes first's block:
// its key rows and its own counter row. Three statements: as a loop over
// an array of the three rows' addresses, g++ 12 kept the loop and took the
// rows through the stack (an OpenSSH seal of 16 bytes 10% slower than
// clang 14's build on the 0xA7 Xeon guest).
STITCH_INLINE_AVX512 void first_in_lane3(const ChaChaState& first, U32x16 in[4]) {
    in[1] = with_lane3(in[1], first.key);
    in[2] = with_lane3(in[2], first.key + 4);
    in[3] = with_lane3(in[3], first.ctr);
}

}  // namespace

void chacha20_two_keys(const ChaChaState& first, const ChaChaState& rest, size_t n, uint8_t* out) noexcept {
    clean_upper();
    n = n < 1 ? 1 : n > 5 ? 5 : n;
    U32x16 in[8], r[8];
    load_rows(rest, in, 0);
    first_in_lane3(first, in);
    if (n <= 3) {
        rows_keystream(in, r, Nothing{});
        rows_to_blocks(r);
    } else {
        load_rows(rest, in + 4, 3);
        row_sets_keystream<2>(in, r);
    }
    r[3].store_le(out);  // first's block
    for (size_t b = 0; b < n; ++b) r[b < 3 ? b : b + 1].store_le(out + (1 + b) * kChaChaBlock);
    wipe_vectors(in);
    wipe_vectors(r);
    zero_registers();
}

}  // namespace stitch::kern::STITCH_AVX512_NS
