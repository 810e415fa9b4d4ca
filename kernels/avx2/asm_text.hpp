// The asm text both AVX2 round loops share (avx2/batch_rounds.hpp, eight
// blocks a word per register; avx2/row_rounds.hpp, two or four blocks a row
// per register): RFC 8439 §2.1's quarter round one line per line, written
// as strings so the loops can name their registers. Everything is a macro
// prefixed STITCH_; nothing here emits code by itself.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace stitch::kern::avx2 {

// The rotations by 16 and 8 bits of every 32-bit lane as byte shuffles.
alignas(32) static constexpr uint8_t kRot16[32] = {2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
                                                   2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13};
alignas(32) static constexpr uint8_t kRot8[32] = {3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
                                                  3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14};

}  // namespace stitch::kern::avx2

// The shift temporaries of the 12- and 7-bit rotations (the batch's loop
// uses the first alone).
#define STITCH_T0 "%%ymm14"
#define STITCH_T1 "%%ymm15"

// AT&T order: source first, destination last.
#define STITCH_ADD(x, y) "vpaddd " y ", " x ", " x "\n\t"  // x += y
#define STITCH_XOR(x, y) "vpxor " y ", " x ", " x "\n\t"   // x ^= y
#define STITCH_SHUF(x, mask) "vpshufb %[" mask "], " x ", " x "\n\t"
#define STITCH_ROTL(x, n, rn)                                \
    "vpslld $" #n ", " x ", " STITCH_T0 "\n\t"               \
    "vpsrld $" #rn ", " x ", " x "\n\t"                      \
    "vpor " STITCH_T0 ", " x ", " x "\n\t"
#define STITCH_ROTL2(x0, x1, n, rn)                          \
    "vpslld $" #n ", " x0 ", " STITCH_T0 "\n\t"              \
    "vpslld $" #n ", " x1 ", " STITCH_T1 "\n\t"              \
    "vpsrld $" #rn ", " x0 ", " x0 "\n\t"                    \
    "vpsrld $" #rn ", " x1 ", " x1 "\n\t"                    \
    "vpor " STITCH_T0 ", " x0 ", " x0 "\n\t"                 \
    "vpor " STITCH_T1 ", " x1 ", " x1 "\n\t"

// One quarter round: a += b; d ^= a; d <<<= 16; c += d; b ^= c; b <<<= 12; …
#define STITCH_QR(a, b, c, d)                                                                              \
    STITCH_ADD(a, b) STITCH_XOR(d, a) STITCH_SHUF(d, "rot16")                                              \
    STITCH_ADD(c, d) STITCH_XOR(b, c) STITCH_ROTL(b, 12, 20)                                               \
    STITCH_ADD(a, b) STITCH_XOR(d, a) STITCH_SHUF(d, "rot8")                                               \
    STITCH_ADD(c, d) STITCH_XOR(b, c) STITCH_ROTL(b, 7, 25)

// The same with the shift temporary t.
#define STITCH_ROTL_T(x, n, rn, t)                           \
    "vpslld $" #n ", " x ", " t "\n\t"                       \
    "vpsrld $" #rn ", " x ", " x "\n\t"                      \
    "vpor " t ", " x ", " x "\n\t"
#define STITCH_QR_T(a, b, c, d, t)                                                                         \
    STITCH_ADD(a, b) STITCH_XOR(d, a) STITCH_SHUF(d, "rot16")                                              \
    STITCH_ADD(c, d) STITCH_XOR(b, c) STITCH_ROTL_T(b, 12, 20, t)                                          \
    STITCH_ADD(a, b) STITCH_XOR(d, a) STITCH_SHUF(d, "rot8")                                               \
    STITCH_ADD(c, d) STITCH_XOR(b, c) STITCH_ROTL_T(b, 7, 25, t)

// Two quarter rounds side by side (…0 and …1), one line per line of RFC
// 8439 §2.1, so the two independent chains interleave; ROTL2 rotates both
// b words (STITCH_ROTL2 with two temporaries, or the batch's with one).
#define STITCH_QR_PAIR_ROTATING(ROTL2, a0, b0, c0, d0, a1, b1, c1, d1)                                    \
    STITCH_ADD(a0, b0) STITCH_ADD(a1, b1) STITCH_XOR(d0, a0) STITCH_XOR(d1, a1)                            \
    STITCH_SHUF(d0, "rot16") STITCH_SHUF(d1, "rot16")                                                      \
    STITCH_ADD(c0, d0) STITCH_ADD(c1, d1) STITCH_XOR(b0, c0) STITCH_XOR(b1, c1)                            \
    ROTL2(b0, b1, 12, 20)                                                                                  \
    STITCH_ADD(a0, b0) STITCH_ADD(a1, b1) STITCH_XOR(d0, a0) STITCH_XOR(d1, a1)                            \
    STITCH_SHUF(d0, "rot8") STITCH_SHUF(d1, "rot8")                                                        \
    STITCH_ADD(c0, d0) STITCH_ADD(c1, d1) STITCH_XOR(b0, c0) STITCH_XOR(b1, c1)                            \
    ROTL2(b0, b1, 7, 25)
#define STITCH_QR_PAIR(a0, b0, c0, d0, a1, b1, c1, d1) \
    STITCH_QR_PAIR_ROTATING(STITCH_ROTL2, a0, b0, c0, d0, a1, b1, c1, d1)

// Operands and clobbers every round loop's asm statement takes.
#define STITCH_VECTOR_CLOBBERS                                                                           \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",    \
        "xmm12", "xmm13", "xmm14", "xmm15"
#define STITCH_MASKS [rot16] "m"(kRot16), [rot8] "m"(kRot8)

