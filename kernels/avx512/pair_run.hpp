// A run of whole pairs of sixteen-block zmm batches, two in flight, as one
// asm statement: what the CPU table's two batches (Zen 5) run for text of
// 32 blocks or more (chacha20.cpp's chacha20_blocks and chacha20_xor_kept).
//
// Zen 5's vector integer operations take two cycles, so one batch's four
// quarter-round chains leave the pipes half idle; two batches side by side
// fill them. Their 32 words take all 32 zmm registers, so every other word
// is a memory operand, and each word's place is fixed here:
//
//   zmm0..15   batch A's words 0..15 (blocks 0..15 of the pair)
//   zmm16..31  batch B's words 0..15 (blocks 16..31)
//   sigma, key broadcast from memory ({1to16}) at the start and in the
//              feed-forward
//   PairWords  the counter words 12, 13 of A and of B (moved on 32 blocks a
//              pair there), the nonce words 14, 15, the keep mask, and four
//              slots where B's words 12..15 wait while A's transpose uses
//              their registers
//
// so each pair of batches makes 4 vector stores and 4 loads of keystream
// words and 4 stores of counter words, at fixed points after the rounds,
// and none inside them. Left to the compilers (the intrinsic keystream2),
// the two builds differed by 10% on Zen 5 (model 0x02): g++ 12's raw
// ChaCha20 at 64 KiB 0.40 c/B, clang 14's 0.36; this statement runs 0.34
// from either (docs/benchmarks.md, "The two batches in one statement").
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/avx512/batch_run.hpp"

#if !defined(STITCH_AVX512_EMULATED)

namespace stitch::kern::STITCH_AVX512_NS {

// What the pair statement reads and writes besides the text and the key,
// addressed off one register. words and keep sit where RunWords has them,
// so the keep step is batch_run's. spill holds keystream after a call: the
// caller wipes it.
struct alignas(64) PairWords {
    simd::U32x16 words[4];  // at 0, 64, 128, 192: A's words 12..15 (B's 14, 15 the same)
    simd::U32x16 keep;      // at 256
    simd::U32x16 b_ctr[2];  // at 320, 384: B's words 12, 13
    simd::U32x16 spill[4];  // at 448, 512, 576, 640: B's words 12..15 during A's transpose
};

alignas(64) inline constexpr uint32_t kThirtyTwos[16] = {32, 32, 32, 32, 32, 32, 32, 32,
                                                         32, 32, 32, 32, 32, 32, 32, 32};

}  // namespace stitch::kern::STITCH_AVX512_NS

// --- the asm text ----------------------------------------------------------

// One step of a half round, both batches: A's four lines (a_i += b_i;
// d_i ^= a_i; d_i <<<= r), then B's.
#define STITCH_ZSTEP2(a0, b0, d0, a1, b1, d1, a2, b2, d2, a3, b3, d3, A0, B0, D0, A1, B1, D1, A2, B2, D2, A3, B3, \
                      D3, r)                                                                                     \
    STITCH_ZLINES(a0, b0, d0, a1, b1, d1, a2, b2, d2, a3, b3, d3, r)                                              \
    STITCH_ZLINES(A0, B0, D0, A1, B1, D1, A2, B2, D2, A3, B3, D3, r)

// A half round of both batches: A's quarter rounds on (a_i, b_i, c_i, d_i),
// B's on (A_i, B_i, C_i, D_i), RFC 8439 §2.1 line by line.
#define STITCH_ZHALF2(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3, A0, B0, C0, D0, A1, B1, C1, D1, \
                      A2, B2, C2, D2, A3, B3, C3, D3)                                                                \
    STITCH_ZSTEP2(a0, b0, d0, a1, b1, d1, a2, b2, d2, a3, b3, d3, A0, B0, D0, A1, B1, D1, A2, B2, D2, A3, B3, D3, 16) \
    STITCH_ZSTEP2(c0, d0, b0, c1, d1, b1, c2, d2, b2, c3, d3, b3, C0, D0, B0, C1, D1, B1, C2, D2, B2, C3, D3, B3, 12) \
    STITCH_ZSTEP2(a0, b0, d0, a1, b1, d1, a2, b2, d2, a3, b3, d3, A0, B0, D0, A1, B1, D1, A2, B2, D2, A3, B3, D3, 8)  \
    STITCH_ZSTEP2(c0, d0, b0, c1, d1, b1, c2, d2, b2, c3, d3, b3, C0, D0, B0, C1, D1, B1, C2, D2, B2, C3, D3, B3, 7)

// RFC 8439 §2.3's inner_block for both: the columns, then the diagonals.
#define STITCH_ZDOUBLE_ROUND2                                                                          \
    STITCH_ZHALF2(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,                                \
                  16, 20, 24, 28, 17, 21, 25, 29, 18, 22, 26, 30, 19, 23, 27, 31)                      \
    STITCH_ZHALF2(0, 5, 10, 15, 1, 6, 11, 12, 2, 7, 8, 13, 3, 4, 9, 14,                                \
                  16, 21, 26, 31, 17, 22, 27, 28, 18, 23, 24, 29, 19, 20, 25, 30)

// Input words 0..11 (sigma, then the key) into or onto z0..z11, each by
// OP(offset, base, z): a broadcast at the start, an add in the
// feed-forward.
#define STITCH_ZINPUT_0_11(OP, z0, z1, z2, z3, z4, z5, z6, z7, z8, z9, z10, z11)            \
    OP(0, sigma, z0) OP(4, sigma, z1) OP(8, sigma, z2) OP(12, sigma, z3)                      \
    OP(0, key, z4) OP(4, key, z5) OP(8, key, z6) OP(12, key, z7)                              \
    OP(16, key, z8) OP(20, key, z9) OP(24, key, z10) OP(28, key, z11)
#define STITCH_ZBROADCAST(off, base, z) "vpbroadcastd " #off "(%[" #base "]), " STITCH_Z(z) "\n\t"
#define STITCH_ZCOPY(from, to) "vmovdqa32 " STITCH_Z(from) ", " STITCH_Z(to) "\n\t"
#define STITCH_ZLOAD(off, z) "vmovdqa32 " #off "(%[w]), " STITCH_Z(z) "\n\t"
#define STITCH_ZSPILL(z, off) "vmovdqa32 " STITCH_Z(z) ", " #off "(%[w])\n\t"
// The feed-forward of one word from a broadcast dword or a PairWords vector.
#define STITCH_ZADD_B(off, base, z) "vpaddd " #off "(%[" #base "])%{1to16%}, " STITCH_Z(z) ", " STITCH_Z(z) "\n\t"
#define STITCH_ZADD_W(off, z) "vpaddd " #off "(%[w]), " STITCH_Z(z) ", " STITCH_Z(z) "\n\t"

// One batch's 64-bit lane counters (words 12, 13 at lo, hi of PairWords)
// on 32 blocks; a lane whose word 12 wrapped (now under 32) carries one
// into word 13. t0, t1: temporaries.
#define STITCH_ZCOUNTER_ON_32(lo, hi, t0, t1)                                     \
    STITCH_ZLOAD(lo, t0)                                                          \
    "vpaddd %[thirtytwos], " STITCH_Z(t0) ", " STITCH_Z(t0) "\n\t"                \
    "vpcmpud $1, %[thirtytwos], " STITCH_Z(t0) ", %%k1\n\t"                       \
    STITCH_ZSPILL(t0, lo)                                                         \
    "vpmovm2d %%k1, " STITCH_Z(t0) "\n\t"                                         \
    STITCH_ZLOAD(hi, t1)                                                          \
    "vpsubd " STITCH_Z(t0) ", " STITCH_Z(t1) ", " STITCH_Z(t1) "\n\t"              \
    STITCH_ZSPILL(t1, hi)

// Words to blocks for one batch of sixteen registers r0..r15 with four
// temporaries: block m in r_m.
#define STITCH_ZTRANSPOSE(r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15, t0, t1, t2, t3) \
    STITCH_ZWORDS_TO_LANES(r0, r1, r2, r3, t0, t1)                                                         \
    STITCH_ZWORDS_TO_LANES(r4, r5, r6, r7, t2, t3)                                                         \
    STITCH_ZWORDS_TO_LANES(r8, r9, r10, r11, t0, t1)                                                       \
    STITCH_ZWORDS_TO_LANES(r12, r13, r14, r15, t2, t3)                                                     \
    STITCH_ZLANES_TO_BLOCKS_WITH(r0, r4, r8, r12, t0, t1, t2, t3)                                          \
    STITCH_ZLANES_TO_BLOCKS_WITH(r1, r5, r9, r13, t0, t1, t2, t3)                                          \
    STITCH_ZLANES_TO_BLOCKS_WITH(r2, r6, r10, r14, t0, t1, t2, t3)                                         \
    STITCH_ZLANES_TO_BLOCKS_WITH(r3, r7, r11, r15, t0, t1, t2, t3)

// Blocks 16..31 (B's), block b in zmm b after B's transpose, out
// through OUT(b, offset).
#define STITCH_ZOUT_BLOCKS_16_31(OUT)                                 \
    OUT(16, 0x400) OUT(17, 0x440) OUT(18, 0x480) OUT(19, 0x4c0)       \
    OUT(20, 0x500) OUT(21, 0x540) OUT(22, 0x580) OUT(23, 0x5c0)       \
    OUT(24, 0x600) OUT(25, 0x640) OUT(26, 0x680) OUT(27, 0x6c0)       \
    OUT(28, 0x700) OUT(29, 0x740) OUT(30, 0x780) OUT(31, 0x7c0)

// The statement's text, with OUT(b, offset) writing A's block b and
// OUT_B(b, offset) B's.
#define STITCH_ZPAIR_TEXT(OUT, OUT_B) \
        ".p2align 5\n" \
        "1:\n\t" \
        /* Both batches' input words: B's 0..11 and 14, 15 are A's. */ \
        STITCH_ZINPUT_0_11(STITCH_ZBROADCAST, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) \
        STITCH_ZLOAD(0, 12) STITCH_ZLOAD(64, 13) STITCH_ZLOAD(128, 14) STITCH_ZLOAD(192, 15) \
        STITCH_ZCOPY(0, 16) STITCH_ZCOPY(1, 17) STITCH_ZCOPY(2, 18) STITCH_ZCOPY(3, 19) \
        STITCH_ZCOPY(4, 20) STITCH_ZCOPY(5, 21) STITCH_ZCOPY(6, 22) STITCH_ZCOPY(7, 23) \
        STITCH_ZCOPY(8, 24) STITCH_ZCOPY(9, 25) STITCH_ZCOPY(10, 26) STITCH_ZCOPY(11, 27) \
        STITCH_ZLOAD(320, 28) STITCH_ZLOAD(384, 29) STITCH_ZCOPY(14, 30) STITCH_ZCOPY(15, 31) \
        "mov $10, %[r]\n\t" \
        ".p2align 5\n" \
        "2:\n\t" \
        STITCH_ZDOUBLE_ROUND2 \
        "dec %[r]\n\t" \
        "jnz 2b\n\t" \
        /* The feed-forward, A then B. */ \
        STITCH_ZINPUT_0_11(STITCH_ZADD_B, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) \
        STITCH_ZADD_W(0, 12) STITCH_ZADD_W(64, 13) STITCH_ZADD_W(128, 14) STITCH_ZADD_W(192, 15) \
        STITCH_ZINPUT_0_11(STITCH_ZADD_B, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27) \
        STITCH_ZADD_W(320, 28) STITCH_ZADD_W(384, 29) STITCH_ZADD_W(128, 30) STITCH_ZADD_W(192, 31) \
        /* B's words 12..15 wait in memory; their registers take the */ \
        /* counter step and A's transpose. */ \
        STITCH_ZSPILL(28, 448) STITCH_ZSPILL(29, 512) STITCH_ZSPILL(30, 576) STITCH_ZSPILL(31, 640) \
        STITCH_ZCOUNTER_ON_32(0, 64, 28, 29) \
        STITCH_ZCOUNTER_ON_32(320, 384, 30, 31) \
        STITCH_ZTRANSPOSE(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 28, 29, 30, 31) \
        STITCH_ZOUT_BLOCKS_0_15(OUT) \
        /* B back whole; A's registers are the temporaries now. */ \
        STITCH_ZLOAD(448, 28) STITCH_ZLOAD(512, 29) STITCH_ZLOAD(576, 30) STITCH_ZLOAD(640, 31) \
        STITCH_ZTRANSPOSE(16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 0, 1, 2, 3) \
        STITCH_ZOUT_BLOCKS_16_31(OUT_B) \
        "add $2048, %[in]\n\t" \
        "add $2048, %[out]\n\t" \
        "dec %[n]\n\t" \
        "jnz 1b\n\t"

#define STITCH_ZPAIR_OPERANDS                                                                                       \
    : [in] "+r"(in), [out] "+r"(out), [n] "+r"(pairs), [r] "=&r"(rounds)                                              \
    : [key] "r"(st.key), [sigma] "r"(kSigma), [w] "r"(&w), [thirtytwos] "m"(kThirtyTwos)                            \
    : STITCH_ZCLOBBERS

// One of B's blocks of keystream into the cut pair's buffer (pair_cut).
#define STITCH_ZKEYSTREAM_B(b, off) "vmovdqa32 " STITCH_Z(b) ", " #off "-0x400(%[ks])\n\t"

#define STITCH_ZPAIR_CUT_OPERANDS                                                                                   \
    : [in] "+r"(in), [out] "+r"(out), [n] "+r"(pairs), [r] "=&r"(rounds)                                              \
    : [key] "r"(st.key), [sigma] "r"(kSigma), [w] "r"(&w), [thirtytwos] "m"(kThirtyTwos), [ks] "r"(ks)              \
    : STITCH_ZCLOBBERS

namespace stitch::kern::STITCH_AVX512_NS {

// `pairs` (> 0) whole pairs of batches from the counters in w on: out = in ^
// keystream (in == out allowed), ANDed with w.keep where Keep. Moves w's
// counters on; leaves keystream in w.spill and the key and keystream in
// zmm registers, which the caller wipes and zero_registers clears; does
// not advance st.
template <bool Keep>
STITCH_INLINE_AVX512 void pair_run(const ChaChaState& st, PairWords& w, const uint8_t* in, uint8_t* out,
                                   size_t pairs) {
    size_t rounds;
    if constexpr (Keep)
        __asm__ volatile(STITCH_ZPAIR_TEXT(STITCH_ZOUT_KEPT, STITCH_ZOUT_KEPT) STITCH_ZPAIR_OPERANDS);
    else
        __asm__ volatile(STITCH_ZPAIR_TEXT(STITCH_ZOUT_PLAIN, STITCH_ZOUT_PLAIN) STITCH_ZPAIR_OPERANDS);
}

// One pair cut short, for 17..32 blocks: batch A's sixteen blocks as
// pair_run's (out = in ^ keystream, ANDed with w.keep where Keep), batch
// B's keystream into ks, from which the caller takes the blocks it needs
// and which it wipes. B's work is on pipes A leaves idle (Zen 5), so the
// pair costs about what A alone does. Leaves what pair_run leaves.
template <bool Keep>
STITCH_INLINE_AVX512 void pair_cut(const ChaChaState& st, PairWords& w, uint8_t ks[16 * kChaChaBlock],
                                   const uint8_t* in, uint8_t* out) {
    size_t rounds, pairs = 1;
    if constexpr (Keep)
        __asm__ volatile(STITCH_ZPAIR_TEXT(STITCH_ZOUT_KEPT, STITCH_ZKEYSTREAM_B) STITCH_ZPAIR_CUT_OPERANDS);
    else
        __asm__ volatile(STITCH_ZPAIR_TEXT(STITCH_ZOUT_PLAIN, STITCH_ZKEYSTREAM_B) STITCH_ZPAIR_CUT_OPERANDS);
}

}  // namespace stitch::kern::STITCH_AVX512_NS

#endif  // !STITCH_AVX512_EMULATED
