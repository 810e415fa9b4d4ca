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
#include "kernels/x86/scalar_asm_text.hpp"

namespace stitch::kern::x86 {

// One block in general-purpose registers: its ten double rounds in one asm
// statement (rounds()), or a double round per call (double_round(), C++)
// where they fall between other code's lines. The AVX-512 set runs it
// beside a zmm batch (ScalarKey) on the integer ports the vector rounds
// leave idle, and the AVX2 set beside a short record's rows
// (avx2/aead_short.hpp). A lone block is a chain of dependent operations
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
#pragma GCC unroll 16
        for (int i = 0; i < 16; ++i) x[i] = scalar(input_word(st, i));
    }

    // RFC 8439 §2.3's inner_block: chacha20.hpp's scalar quarter round, for
    // a block whose double rounds fall between the lines of C++ vector code
    // (ScalarKey below). Code whose rounds are one asm statement runs
    // x86/scalar_asm_text.hpp's instead.
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

    // The ten double rounds in one asm statement (x86/scalar_asm_text.hpp):
    // the words' places fixed by its text, loaded once and stored once. The
    // C++ double round ten times over was placed by each compiler its own
    // way, with some words on the stack: a lone block 5-6% apart between
    // g++ 12 and clang 14 on Zen 5 (December 2026, docs/benchmarks.md).
    // The AVX2 set runs these; the AVX-512 set, compiled_rounds(), the code
    // measured on Zen 5 (the one CPU whose table runs its lone block here).
    // With this statement in its chacha20_xor_last, g++ 12's build left a
    // 1300-byte stream's keystream on the stack (avx512_stack_test): a spill
    // of the cut pair's kept block, since removed (avx512/chacha20.cpp's
    // cut_pair), so this statement is free to go there once measured.
    STITCH_INLINE_AVX2_BMI2 void rounds() {
        ScalarBlock* blk = this;
        __asm__ volatile(STITCH_GPR_ENTER
                         "movl $10, " STITCH_GPR_COUNT "\n\t"
                         ".p2align 5\n1:\n\t"
                         STITCH_GPR_DOUBLE_ROUND
                         "decl " STITCH_GPR_COUNT "\n\t"
                         "jnz 1b\n\t"
                         STITCH_GPR_LEAVE
                         : [blk] "+r"(blk)
                         :
                         : "cc", "memory", STITCH_GPR_CLOBBERS);
    }

    // The ten double rounds in C++, placed by the compiler.
    STITCH_INLINE_AVX2_BMI2 void compiled_rounds() {
        for (int i = 0; i < 10; ++i) double_round();
    }

    // After the rounds: out[0..64) = in ^ the block (in == nullptr: the block
    // itself; in == out allowed).
    STITCH_INLINE_AVX2_BMI2 void emit(const ChaChaState& st, const uint8_t* in, uint8_t* out) const {
        if (in) {
#pragma GCC unroll 16
            for (int i = 0; i < 16; ++i) store_le32(out + 4 * i, (x[i] + input_word(st, i)) ^ load_le32(in + 4 * i));
        } else {
#pragma GCC unroll 16
            for (int i = 0; i < 16; ++i) store_le32(out + 4 * i, x[i] + input_word(st, i));
        }
    }

    // Word i of the block's input: the constants, the key, the counter row.
    STITCH_INLINE_AVX2_BMI2 static uint32_t input_word(const ChaChaState& st, int i) {
        return i < 4 ? kSigma[i] : i < 12 ? st.key[i - 4] : st.ctr[i - 12];
    }

    // v, kept in a general-purpose register, so that the constructor stores
    // the words one by one, as rounds() loads them: g++ 12 packed them into
    // 16-byte stores, which left those loads without store forwarding
    // (they wait until the stores reach the cache; on Zen 5 the 1-3% this
    // measured is within what code placement does: docs/benchmarks.md).
    STITCH_INLINE_AVX2_BMI2 static uint32_t scalar(uint32_t v) {
        __asm__("" : "+r"(v));
        return v;
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

// Which of ScalarBlock's ten double rounds a caller runs.
enum class Rounds { asm_text, compiled };

// A block that runs alone: out[0..64) = in ^ the block at st's counter (in ==
// nullptr: the block itself), and the counter advanced.
template <Rounds R>
STITCH_INLINE_AVX2_BMI2 void lone_block(ChaChaState& st, const uint8_t* in, uint8_t* out) {
    ScalarBlock block(st);
    if constexpr (R == Rounds::asm_text)
        block.rounds();
    else
        block.compiled_rounds();
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
