// One ChaCha20 block in general-purpose registers: block 0 of a message (the
// Poly1305 key) beside the AVX-512 set's first batch, and a block that runs
// alone (raw ChaCha20's single block, lone_block) in the AVX-512 set, and in
// the AVX2 set where its CPU rule says so (Zen 5: avx2/tuning.hpp), with
// block 0 when no text is beside it.
#pragma once

#include <cstdint>

#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/isa.hpp"

namespace stitch::kern::x86 {

// One block in general-purpose registers, a double round per call. The
// AVX-512 set runs it beside a zmm batch (ScalarKey) on the integer ports the
// vector rounds leave idle. A lone block is a chain of dependent operations
// whichever registers hold it: four quarter rounds side by side in
// general-purpose registers take one-cycle adds, XORs and rotates, where the
// row layout (avx2/row_rounds.hpp) adds three shuffles a half round and, on
// Zen 5, two-cycle vector operations: there the ten double rounds took ~300
// cycles against ~490 for a row pair (measured, December 2026). Where vector
// operations take one cycle the row pair wins: Zen 4 332 cycles against 426
// here (stitch_core_bounds, December 2026), four integer units to Zen 5's six.
struct ScalarBlock {
    uint32_t x[16];

    STITCH_INLINE_AVX2_BMI2 explicit ScalarBlock(const ChaChaState& st) {
        for (int i = 0; i < 4; ++i) x[i] = kSigma[i];
        for (int i = 0; i < 8; ++i) x[4 + i] = st.key[i];
        for (int i = 0; i < 4; ++i) x[12 + i] = st.ctr[i];
    }

    // RFC 8439 §2.3's inner_block: chacha20.hpp's scalar quarter round.
    STITCH_INLINE_AVX2_BMI2 void double_round() {
        quarter_round(0, 4, 8, 12);
        quarter_round(1, 5, 9, 13);
        quarter_round(2, 6, 10, 14);
        quarter_round(3, 7, 11, 15);
        quarter_round(0, 5, 10, 15);
        quarter_round(1, 6, 11, 12);
        quarter_round(2, 7, 8, 13);
        quarter_round(3, 4, 9, 14);
    }

    // For clang, an empty asm keeps each quarter round's words in
    // general-purpose registers: without it clang 14 packs the four quarter
    // rounds of a half round into the lanes of an xmm register, a row layout
    // with more shuffles than avx2/row_rounds.hpp, on the vector pipes a
    // batch beside it needs (a lone block 212 ns against g++ 12's 92 on Zen
    // 5, December 2026; with the asm 88). g++ 12 keeps the words in general
    // registers by itself and schedules them 7% slower with the asm.
    STITCH_INLINE_AVX2_BMI2 void quarter_round(int a, int b, int c, int d) {
        kern::quarter_round(x[a], x[b], x[c], x[d]);
#if defined(__clang__)
        __asm__("" : "+r"(x[a]), "+r"(x[b]), "+r"(x[c]), "+r"(x[d]));
#endif
    }

    STITCH_INLINE_AVX2_BMI2 void rounds() {
        for (int i = 0; i < 10; ++i) double_round();
    }

    // After the rounds: out[0..64) = in ^ the block (in == nullptr: the block
    // itself; in == out allowed).
    STITCH_INLINE_AVX2_BMI2 void emit(const ChaChaState& st, const uint8_t* in, uint8_t* out) const {
        for (int i = 0; i < 16; ++i) {
            const uint32_t word = i < 4 ? kSigma[i] : i < 12 ? st.key[i - 4] : st.ctr[i - 12];
            const uint32_t v = x[i] + word;
            store_le32(out + 4 * i, in ? v ^ load_le32(in + 4 * i) : v);
        }
    }

    // After ten double rounds: bytes 0..31 of the block (st's counter) as
    // four little-endian 64-bit words, the Poly1305 key r ‖ s.
    STITCH_INLINE_AVX2_BMI2 void key_words(const ChaChaState& st, uint64_t k[4]) const {
        for (int i = 0; i < 2; ++i) {
            k[i] = (x[2 * i] + kSigma[2 * i]) | uint64_t(x[2 * i + 1] + kSigma[2 * i + 1]) << 32;
            k[2 + i] = (x[4 + 2 * i] + st.key[2 * i]) | uint64_t(x[5 + 2 * i] + st.key[2 * i + 1]) << 32;
        }
    }
};

// A block that runs alone: out[0..64) = in ^ the block at st's counter (in ==
// nullptr: the block itself), and the counter advanced.
STITCH_INLINE_AVX2_BMI2 void lone_block(ChaChaState& st, const uint8_t* in, uint8_t* out) {
    ScalarBlock block(st);
    block.rounds();
    block.emit(st, in, out);
    wipe_object(block);
    chacha_advance(st.ctr, 1);
}

// Block 0 (the Poly1305 key) in general-purpose registers beside an
// AVX-512 zmm batch that has no lane free for it (80 steps), a double round
// every eight steps. Measured on
// Zen 4 (a zmm batch alone ~720 cycles): with this beside ~740, with the
// block as a row of the row layout beside instead (one line of a quarter
// round a step) ~980; the vector pipes have no room for it, the integer
// units do.
struct ScalarKey {
    ScalarBlock block0;
    STITCH_INLINE_AVX2_BMI2 void operator()(int step, int) {
        if (step % 8 == 0) block0.double_round();
    }
};

}  // namespace stitch::kern::x86
