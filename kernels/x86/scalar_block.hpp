// Block 0 of a message (the Poly1305 key) in general-purpose registers, for
// the x86 sets to compute beside their vector rounds: the AVX2 set's first
// keystream call and short open, the AVX-512 set's first batch.
#pragma once

#include <cstdint>

#include "kernels/chacha20.hpp"
#include "kernels/isa.hpp"

namespace stitch::kern::x86 {

// One block in general-purpose registers, a double round per call, to run
// beside the vector rounds (their `beside` steps) on the integer ports they
// leave idle. The first keystream call of a message (avx2/aead_pass.hpp)
// and the short open (avx2/aead_short.hpp) compute the Poly1305 key block
// this way, so the MAC is keyed halfway through the text's rounds and no
// vector lane goes to block 0; the AVX-512 set runs it beside a zmm batch
// (ScalarKey). On Zen 5 a vector op takes two cycles and a scalar one one:
// the ten double rounds took ~300 cycles there against ~490 for a row pair.
// On Zen 2/3/4 (one-cycle vector ops, separate integer and vector pipes)
// the two should finish about together; on Intel cores, where scalar and
// vector ops share ports, the block's ~1000 scalar ops will slow the rounds
// beside it somewhat (not measured).
struct ScalarBlock {
    uint32_t x[16];

    STITCH_INLINE_AVX2_BMI2 explicit ScalarBlock(const ChaChaState& st) {
        for (int i = 0; i < 4; ++i) x[i] = kSigma[i];
        for (int i = 0; i < 8; ++i) x[4 + i] = st.key[i];
        for (int i = 0; i < 4; ++i) x[12 + i] = st.ctr[i];
    }

    // RFC 8439 §2.3's inner_block: chacha20.hpp's scalar quarter round.
    STITCH_INLINE_AVX2_BMI2 void double_round() {
        kern::quarter_round(x[0], x[4], x[8], x[12]);
        kern::quarter_round(x[1], x[5], x[9], x[13]);
        kern::quarter_round(x[2], x[6], x[10], x[14]);
        kern::quarter_round(x[3], x[7], x[11], x[15]);
        kern::quarter_round(x[0], x[5], x[10], x[15]);
        kern::quarter_round(x[1], x[6], x[11], x[12]);
        kern::quarter_round(x[2], x[7], x[8], x[13]);
        kern::quarter_round(x[3], x[4], x[9], x[14]);
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
