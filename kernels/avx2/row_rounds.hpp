// The ten double rounds of one, two or three block pairs (2, 4 or 6 blocks) in
// the row layout: each ymm register holds one row (four words) of two
// blocks, so a pair is four registers and the diagonal round is a rotation
// of rows a, c and d. No word lives in memory and there is no transpose: a
// shorter critical path than a batch, for the keystream of 1..6 blocks.
// One asm statement with its registers named, as the batch's
// (avx2/batch_rounds.hpp), so g++ and clang emit the same loop, its head on
// a 32-byte boundary as the batch's:
//
//   ymm0..3    rows a, b, c, d of pair 0      ymm4..7   the same of pair 1
//   ymm8..11   the same of pair 2 (three pairs only)
//   ymm14, 15  the shift temporaries
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "kernels/avx2/asm_text.hpp"
#include "kernels/isa.hpp"
#include "kernels/simd/u32x8.hpp"

namespace stitch::kern::avx2 {

// The rows in (pair p: a, b, c, d at in[4p..4p + 4)), and where the
// keystream goes: a buffer in the batch's keystream layout (ks[j] bytes
// 0..31 of block j, ks[8 + j] bytes 32..63), blocks 0..2·Pairs filled.
struct alignas(32) RowFrame {
    simd::U32x8 in[12];
    uint8_t* out;
};

// Diagonals: lane j takes (a[j-1], b[j], c[j+1], d[j+2]). b stays put: it
// is the last word a quarter round finishes and the first the next one
// reads (a += b), so the three rotations run off the serial chain.
#define STITCH_DIAGONALIZE(a, c, d)                                   \
    "vpshufd $0x93, " a ", " a "\n\t"                                 \
    "vpshufd $0x39, " c ", " c "\n\t"                                 \
    "vpshufd $0x4e, " d ", " d "\n\t"
#define STITCH_UNDIAGONALIZE(a, c, d)                                 \
    "vpshufd $0x39, " a ", " a "\n\t"                                 \
    "vpshufd $0x93, " c ", " c "\n\t"                                 \
    "vpshufd $0x4e, " d ", " d "\n\t"

// A pair's rows plus their input, as blocks 2p and 2p + 1 of the keystream
// buffer (pointer in %[out]): a and b make bytes 0..31, c and d 32..63.
#define STITCH_ROWS_OUT(a, b, c, d, p)                                               \
    "vpaddd " #p "*128+0(%[f]), " a ", " a "\n\t"                                    \
    "vpaddd " #p "*128+32(%[f]), " b ", " b "\n\t"                                   \
    "vpaddd " #p "*128+64(%[f]), " c ", " c "\n\t"                                   \
    "vpaddd " #p "*128+96(%[f]), " d ", " d "\n\t"                                   \
    "vperm2i128 $0x20, " b ", " a ", " STITCH_T0 "\n\t"                              \
    "vmovdqa " STITCH_T0 ", " #p "*64+0(%[out])\n\t"                                 \
    "vperm2i128 $0x31, " b ", " a ", " STITCH_T0 "\n\t"                              \
    "vmovdqa " STITCH_T0 ", " #p "*64+32(%[out])\n\t"                                \
    "vperm2i128 $0x20, " d ", " c ", " STITCH_T0 "\n\t"                              \
    "vmovdqa " STITCH_T0 ", " #p "*64+256(%[out])\n\t"                               \
    "vperm2i128 $0x31, " d ", " c ", " STITCH_T0 "\n\t"                              \
    "vmovdqa " STITCH_T0 ", " #p "*64+288(%[out])\n\t"

#define STITCH_ROWS_IN(a, b, c, d, p)                                                \
    "vmovdqa " #p "*128+0(%[f]), " a "\n\t"                                          \
    "vmovdqa " #p "*128+32(%[f]), " b "\n\t"                                         \
    "vmovdqa " #p "*128+64(%[f]), " c "\n\t"                                         \
    "vmovdqa " #p "*128+96(%[f]), " d "\n\t"

// One pair: blocks 0 and 1.
STITCH_INLINE_AVX2_BMI2 void rows_keystream_1(RowFrame& frame) {
    uint32_t rounds;
    __asm__ volatile(STITCH_ROWS_IN("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", 0)
                     "movl $10, %[rounds]\n"
                     ".p2align 5\n1:\n\t"
                     STITCH_QR("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3")
                     STITCH_DIAGONALIZE("%%ymm0", "%%ymm2", "%%ymm3")
                     STITCH_QR("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3")
                     STITCH_UNDIAGONALIZE("%%ymm0", "%%ymm2", "%%ymm3")
                     "decl %[rounds]\n\t"
                     "jnz 1b\n\t"
                     STITCH_ROWS_OUT("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", 0)
                     : [rounds] "=&r"(rounds), "+m"(frame)
                     : [f] "r"(&frame), [out] "r"(frame.out), STITCH_MASKS
                     : "cc", "memory", STITCH_VECTOR_CLOBBERS);
}

// Two pairs side by side: blocks 0..3.
STITCH_INLINE_AVX2_BMI2 void rows_keystream_2(RowFrame& frame) {
    uint32_t rounds;
    __asm__ volatile(STITCH_ROWS_IN("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", 0)
                     STITCH_ROWS_IN("%%ymm4", "%%ymm5", "%%ymm6", "%%ymm7", 1)
                     "movl $10, %[rounds]\n"
                     ".p2align 5\n1:\n\t"
                     STITCH_QR_PAIR("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", "%%ymm4", "%%ymm5", "%%ymm6", "%%ymm7")
                     STITCH_DIAGONALIZE("%%ymm0", "%%ymm2", "%%ymm3")
                     STITCH_DIAGONALIZE("%%ymm4", "%%ymm6", "%%ymm7")
                     STITCH_QR_PAIR("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", "%%ymm4", "%%ymm5", "%%ymm6", "%%ymm7")
                     STITCH_UNDIAGONALIZE("%%ymm0", "%%ymm2", "%%ymm3")
                     STITCH_UNDIAGONALIZE("%%ymm4", "%%ymm6", "%%ymm7")
                     "decl %[rounds]\n\t"
                     "jnz 1b\n\t"
                     STITCH_ROWS_OUT("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", 0)
                     STITCH_ROWS_OUT("%%ymm4", "%%ymm5", "%%ymm6", "%%ymm7", 1)
                     : [rounds] "=&r"(rounds), "+m"(frame)
                     : [f] "r"(&frame), [out] "r"(frame.out), STITCH_MASKS
                     : "cc", "memory", STITCH_VECTOR_CLOBBERS);
}

// Three pairs: blocks 0..5, twelve rows and the two temporaries in
// fourteen registers, the third pair's quarter round after the first two's.
// For 5-6 blocks instead of a batch: ~540 cycles against ~600 measured on
// Zen 4, and llvm-mca-16 puts this double round under the batch's on all six
// of its x86 models (docs/kernels.md). Interleaved line by line with the
// other two (a third shift temporary in ymm12) it ran ~570 on Zen 4.
STITCH_INLINE_AVX2_BMI2 void rows_keystream_3(RowFrame& frame) {
    uint32_t rounds;
    __asm__ volatile(STITCH_ROWS_IN("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", 0)
                     STITCH_ROWS_IN("%%ymm4", "%%ymm5", "%%ymm6", "%%ymm7", 1)
                     STITCH_ROWS_IN("%%ymm8", "%%ymm9", "%%ymm10", "%%ymm11", 2)
                     "movl $10, %[rounds]\n"
                     ".p2align 5\n1:\n\t"
                     STITCH_QR_PAIR("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", "%%ymm4", "%%ymm5", "%%ymm6", "%%ymm7")
                     STITCH_QR("%%ymm8", "%%ymm9", "%%ymm10", "%%ymm11")
                     STITCH_DIAGONALIZE("%%ymm0", "%%ymm2", "%%ymm3")
                     STITCH_DIAGONALIZE("%%ymm4", "%%ymm6", "%%ymm7")
                     STITCH_DIAGONALIZE("%%ymm8", "%%ymm10", "%%ymm11")
                     STITCH_QR_PAIR("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", "%%ymm4", "%%ymm5", "%%ymm6", "%%ymm7")
                     STITCH_QR("%%ymm8", "%%ymm9", "%%ymm10", "%%ymm11")
                     STITCH_UNDIAGONALIZE("%%ymm0", "%%ymm2", "%%ymm3")
                     STITCH_UNDIAGONALIZE("%%ymm4", "%%ymm6", "%%ymm7")
                     STITCH_UNDIAGONALIZE("%%ymm8", "%%ymm10", "%%ymm11")
                     "decl %[rounds]\n\t"
                     "jnz 1b\n\t"
                     STITCH_ROWS_OUT("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", 0)
                     STITCH_ROWS_OUT("%%ymm4", "%%ymm5", "%%ymm6", "%%ymm7", 1)
                     STITCH_ROWS_OUT("%%ymm8", "%%ymm9", "%%ymm10", "%%ymm11", 2)
                     : [rounds] "=&r"(rounds), "+m"(frame)
                     : [f] "r"(&frame), [out] "r"(frame.out), STITCH_MASKS
                     : "cc", "memory", STITCH_VECTOR_CLOBBERS);
}

// The rows of one or two block pairs as separate values, not an array: g++
// 12 gave an array a home on the stack and stored every row there each
// double round (clang 14 did not), 16% slower at a 192-byte open.
template <size_t Pairs>
struct RowRegs;
template <>
struct RowRegs<1> {
    __m256i a0, b0, c0, d0;
};
template <>
struct RowRegs<2> {
    __m256i a0, b0, c0, d0, a1, b1, c1, d1;
};

// One double round of the rows in r, in registers the compiler picks, for
// code that runs other work between double rounds (avx2/aead_short.hpp:
// block 0 and the MAC beside the text's rows). The same lines as the loops
// above, but the shift temporaries are operands too: with ymm14/15
// clobbered instead, g++ 12 moved the rows between registers after every
// double round and spilled one of them.
#pragma push_macro("STITCH_T0")
#pragma push_macro("STITCH_T1")
#undef STITCH_T0
#undef STITCH_T1
#define STITCH_T0 "%[t0]"
#define STITCH_T1 "%[t1]"
STITCH_INLINE_AVX2_BMI2 void rows_double_round(RowRegs<1>& r) {
    __m256i t0, t1;
    __asm__ volatile(STITCH_QR("%[a0]", "%[b0]", "%[c0]", "%[d0]")
                     STITCH_DIAGONALIZE("%[a0]", "%[c0]", "%[d0]")
                     STITCH_QR("%[a0]", "%[b0]", "%[c0]", "%[d0]")
                     STITCH_UNDIAGONALIZE("%[a0]", "%[c0]", "%[d0]")
                     : [a0] "+x"(r.a0), [b0] "+x"(r.b0), [c0] "+x"(r.c0), [d0] "+x"(r.d0), [t0] "=&x"(t0),
                       [t1] "=&x"(t1)
                     : STITCH_MASKS);
}

STITCH_INLINE_AVX2_BMI2 void rows_double_round(RowRegs<2>& r) {
    __m256i t0, t1;
    __asm__ volatile(STITCH_QR_PAIR("%[a0]", "%[b0]", "%[c0]", "%[d0]", "%[a1]", "%[b1]", "%[c1]", "%[d1]")
                     STITCH_DIAGONALIZE("%[a0]", "%[c0]", "%[d0]")
                     STITCH_DIAGONALIZE("%[a1]", "%[c1]", "%[d1]")
                     STITCH_QR_PAIR("%[a0]", "%[b0]", "%[c0]", "%[d0]", "%[a1]", "%[b1]", "%[c1]", "%[d1]")
                     STITCH_UNDIAGONALIZE("%[a0]", "%[c0]", "%[d0]")
                     STITCH_UNDIAGONALIZE("%[a1]", "%[c1]", "%[d1]")
                     : [a0] "+x"(r.a0), [b0] "+x"(r.b0), [c0] "+x"(r.c0), [d0] "+x"(r.d0),
                       [a1] "+x"(r.a1), [b1] "+x"(r.b1), [c1] "+x"(r.c1), [d1] "+x"(r.d1), [t0] "=&x"(t0),
                       [t1] "=&x"(t1)
                     : STITCH_MASKS);
}
#pragma pop_macro("STITCH_T0")
#pragma pop_macro("STITCH_T1")

#undef STITCH_ROWS_IN
#undef STITCH_ROWS_OUT
#undef STITCH_UNDIAGONALIZE
#undef STITCH_DIAGONALIZE

}  // namespace stitch::kern::avx2
