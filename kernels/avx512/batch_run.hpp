// A run of whole sixteen-block zmm batches as one asm statement: raw
// ChaCha20's bulk, and the whole batches of the AVX-512 set's AEAD chunks
// and verified opens (chacha20.cpp's chacha20_blocks and chacha20_xor_kept).
//
// Every state word's place is fixed here, not by a register allocator:
//
//   zmm0..15   the batch's words 0..15, sixteen blocks a register
//   zmm16..19  the input words 12..15 (counter, its carry word, nonce),
//              moved on sixteen blocks a batch in the registers
//   zmm20..23  sigma, broadcast from memory at each batch's start; after the
//              feed-forward, the temporaries of the counter step and of the
//              transpose
//   zmm24..31  the key's eight words, broadcast once a call
//
// so the loop makes no stack access at all: its loads are the input text,
// sigma and the first batch's words, its stores the output. Left to the
// compilers, g++ 12 kept the counter words and sigma in the frame, stored
// and reloaded a dozen zmm a batch, and advanced the counter through st.ctr
// in memory; on Emerald Rapids that build's raw ChaCha20 ran 3-7% slower
// when the text was not 64-byte aligned (the default provider's
// ChaCha20_16x: 0.5-1.5%), under the default at 64 KiB. clang 14 made no
// stack access but ordered the transpose so that its build ran 10-13%
// slower than the default at any alignment (docs/benchmarks.md, an
// eleventh visit). OpenSSL's ChaCha20_16x places its state the same way
// (its key words in zmm16..31, sigma reloaded).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/chacha20.hpp"
#include "kernels/isa_avx512.hpp"
#include "kernels/simd/u32x16.hpp"

#if !defined(STITCH_AVX512_EMULATED)

namespace stitch::kern::STITCH_AVX512_NS {

// What the statement reads from memory besides the text, addressed off one
// register: the first batch's input words 12..15 (load_state's; public: the
// counter and the nonce), and what each output block is ANDed with where
// the run keeps or clears a verified open's text (chacha20.hpp's Kept).
struct alignas(64) RunWords {
    simd::U32x16 words[4];  // at 0, 64, 128, 192
    simd::U32x16 keep;      // at 256
};

alignas(64) inline constexpr uint32_t kSixteens[16] = {16, 16, 16, 16, 16, 16, 16, 16,
                                                       16, 16, 16, 16, 16, 16, 16, 16};

}  // namespace stitch::kern::STITCH_AVX512_NS

// --- the asm text ----------------------------------------------------------
#define STITCH_Z(n) "%%zmm" #n

// One line of four quarter rounds, each chain's add, xor and rotation in
// turn (the order chacha20.hpp's line() gives the intrinsic batches):
// a += b; d ^= a; d <<<= r.
#define STITCH_ZLINE(a, b, d, r)                                \
    "vpaddd " STITCH_Z(b) ", " STITCH_Z(a) ", " STITCH_Z(a) "\n\t" \
    "vpxord " STITCH_Z(a) ", " STITCH_Z(d) ", " STITCH_Z(d) "\n\t" \
    "vprold $" #r ", " STITCH_Z(d) ", " STITCH_Z(d) "\n\t"
#define STITCH_ZLINES(a0, b0, d0, a1, b1, d1, a2, b2, d2, a3, b3, d3, r) \
    STITCH_ZLINE(a0, b0, d0, r) STITCH_ZLINE(a1, b1, d1, r) STITCH_ZLINE(a2, b2, d2, r) STITCH_ZLINE(a3, b3, d3, r)

// A half round of four quarter rounds (a_i, b_i, c_i, d_i), RFC 8439 §2.1
// line by line.
#define STITCH_ZHALF(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
    STITCH_ZLINES(a0, b0, d0, a1, b1, d1, a2, b2, d2, a3, b3, d3, 16)                 \
    STITCH_ZLINES(c0, d0, b0, c1, d1, b1, c2, d2, b2, c3, d3, b3, 12)                 \
    STITCH_ZLINES(a0, b0, d0, a1, b1, d1, a2, b2, d2, a3, b3, d3, 8)                  \
    STITCH_ZLINES(c0, d0, b0, c1, d1, b1, c2, d2, b2, c3, d3, b3, 7)

// RFC 8439 §2.3's inner_block: the columns, then the diagonals.
#define STITCH_ZDOUBLE_ROUND                                           \
    STITCH_ZHALF(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15) \
    STITCH_ZHALF(0, 5, 10, 15, 1, 6, 11, 12, 2, 7, 8, 13, 3, 4, 9, 14)

// Transpose, first half: four words r0..r3 of sixteen blocks become, in
// 128-bit lane L of r_m, those four words of block 4L + m (t0, t1: two
// temporaries).
#define STITCH_ZWORDS_TO_LANES(r0, r1, r2, r3, t0, t1)                       \
    "vpunpckldq " STITCH_Z(r1) ", " STITCH_Z(r0) ", " STITCH_Z(t0) "\n\t"    \
    "vpunpckldq " STITCH_Z(r3) ", " STITCH_Z(r2) ", " STITCH_Z(t1) "\n\t"    \
    "vpunpckhdq " STITCH_Z(r1) ", " STITCH_Z(r0) ", " STITCH_Z(r0) "\n\t"    \
    "vpunpckhdq " STITCH_Z(r3) ", " STITCH_Z(r2) ", " STITCH_Z(r2) "\n\t"    \
    "vpunpckhqdq " STITCH_Z(t1) ", " STITCH_Z(t0) ", " STITCH_Z(r1) "\n\t"   \
    "vpunpckhqdq " STITCH_Z(r2) ", " STITCH_Z(r0) ", " STITCH_Z(r3) "\n\t"   \
    "vpunpcklqdq " STITCH_Z(r2) ", " STITCH_Z(r0) ", " STITCH_Z(r2) "\n\t"   \
    "vpunpcklqdq " STITCH_Z(t1) ", " STITCH_Z(t0) ", " STITCH_Z(r0) "\n\t"

// Second half: a, b, c, d hold words 0-3, 4-7, 8-11, 12-15 of blocks
// 4L + m in lane L; afterwards they hold blocks m, 4 + m, 8 + m, 12 + m
// whole (t0..t3 the temporaries; zmm20..23 here).
#define STITCH_ZLANES_TO_BLOCKS_WITH(a, b, c, d, t0, t1, t2, t3)                         \
    "vshufi32x4 $0x44, " STITCH_Z(b) ", " STITCH_Z(a) ", " STITCH_Z(t0) "\n\t"         \
    "vshufi32x4 $0xee, " STITCH_Z(b) ", " STITCH_Z(a) ", " STITCH_Z(t1) "\n\t"         \
    "vshufi32x4 $0x44, " STITCH_Z(d) ", " STITCH_Z(c) ", " STITCH_Z(t2) "\n\t"         \
    "vshufi32x4 $0xee, " STITCH_Z(d) ", " STITCH_Z(c) ", " STITCH_Z(t3) "\n\t"         \
    "vshufi32x4 $0x88, " STITCH_Z(t2) ", " STITCH_Z(t0) ", " STITCH_Z(a) "\n\t"        \
    "vshufi32x4 $0xdd, " STITCH_Z(t2) ", " STITCH_Z(t0) ", " STITCH_Z(b) "\n\t"        \
    "vshufi32x4 $0x88, " STITCH_Z(t3) ", " STITCH_Z(t1) ", " STITCH_Z(c) "\n\t"        \
    "vshufi32x4 $0xdd, " STITCH_Z(t3) ", " STITCH_Z(t1) ", " STITCH_Z(d) "\n\t"
#define STITCH_ZLANES_TO_BLOCKS(a, b, c, d) STITCH_ZLANES_TO_BLOCKS_WITH(a, b, c, d, 20, 21, 22, 23)

// Block b (in zmm b) out: in ^ keystream, ANDed with the keep mask where
// the run has one.
#define STITCH_ZXOR(b, off) \
    "vpxord " #off "(%[in]), " STITCH_Z(b) ", " STITCH_Z(b) "\n\t"
#define STITCH_ZKEEP(b) "vpandd 256(%[w]), " STITCH_Z(b) ", " STITCH_Z(b) "\n\t"
#define STITCH_ZSTORE(b, off) "vmovdqu32 " STITCH_Z(b) ", " #off "(%[out])\n\t"

// Blocks 0..15, block b in zmm b, out through OUT(b, offset).
#define STITCH_ZOUT_BLOCKS_0_15(OUT)                                  \
    OUT(0, 0x000) OUT(1, 0x040) OUT(2, 0x080) OUT(3, 0x0c0)           \
    OUT(4, 0x100) OUT(5, 0x140) OUT(6, 0x180) OUT(7, 0x1c0)           \
    OUT(8, 0x200) OUT(9, 0x240) OUT(10, 0x280) OUT(11, 0x2c0)         \
    OUT(12, 0x300) OUT(13, 0x340) OUT(14, 0x380) OUT(15, 0x3c0)

// What a statement that holds state in every zmm register clobbers.
#define STITCH_ZCLOBBERS                                                                                       \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",   \
        "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",      \
        "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "k1", "cc", "memory"

// The statement's text, with OUT(b, offset) writing block b.
#define STITCH_ZRUN_TEXT(OUT) \
        /* The key's words and the first batch's words 12..15, once a call. */ \
        "vpbroadcastd 0(%[key]), %%zmm24\n\t" \
        "vpbroadcastd 4(%[key]), %%zmm25\n\t" \
        "vpbroadcastd 8(%[key]), %%zmm26\n\t" \
        "vpbroadcastd 12(%[key]), %%zmm27\n\t" \
        "vpbroadcastd 16(%[key]), %%zmm28\n\t" \
        "vpbroadcastd 20(%[key]), %%zmm29\n\t" \
        "vpbroadcastd 24(%[key]), %%zmm30\n\t" \
        "vpbroadcastd 28(%[key]), %%zmm31\n\t" \
        "vmovdqu32 0(%[w]), %%zmm16\n\t" \
        "vmovdqu32 64(%[w]), %%zmm17\n\t" \
        "vmovdqu32 128(%[w]), %%zmm18\n\t" \
        "vmovdqu32 192(%[w]), %%zmm19\n\t" \
        ".p2align 5\n" \
        "1:\n\t" \
        "vpbroadcastd 0(%[sigma]), %%zmm20\n\t" \
        "vpbroadcastd 4(%[sigma]), %%zmm21\n\t" \
        "vpbroadcastd 8(%[sigma]), %%zmm22\n\t" \
        "vpbroadcastd 12(%[sigma]), %%zmm23\n\t" \
        "vmovdqa32 %%zmm20, %%zmm0\n\t" \
        "vmovdqa32 %%zmm21, %%zmm1\n\t" \
        "vmovdqa32 %%zmm22, %%zmm2\n\t" \
        "vmovdqa32 %%zmm23, %%zmm3\n\t" \
        "vmovdqa32 %%zmm24, %%zmm4\n\t" \
        "vmovdqa32 %%zmm25, %%zmm5\n\t" \
        "vmovdqa32 %%zmm26, %%zmm6\n\t" \
        "vmovdqa32 %%zmm27, %%zmm7\n\t" \
        "vmovdqa32 %%zmm28, %%zmm8\n\t" \
        "vmovdqa32 %%zmm29, %%zmm9\n\t" \
        "vmovdqa32 %%zmm30, %%zmm10\n\t" \
        "vmovdqa32 %%zmm31, %%zmm11\n\t" \
        "vmovdqa32 %%zmm16, %%zmm12\n\t" \
        "vmovdqa32 %%zmm17, %%zmm13\n\t" \
        "vmovdqa32 %%zmm18, %%zmm14\n\t" \
        "vmovdqa32 %%zmm19, %%zmm15\n\t" \
        "mov $10, %[r]\n\t" \
        ".p2align 5\n" \
        "2:\n\t" \
        STITCH_ZDOUBLE_ROUND \
        "dec %[r]\n\t" \
        "jnz 2b\n\t" \
        /* The feed-forward. */ \
        "vpaddd %%zmm20, %%zmm0, %%zmm0\n\t" \
        "vpaddd %%zmm21, %%zmm1, %%zmm1\n\t" \
        "vpaddd %%zmm22, %%zmm2, %%zmm2\n\t" \
        "vpaddd %%zmm23, %%zmm3, %%zmm3\n\t" \
        "vpaddd %%zmm24, %%zmm4, %%zmm4\n\t" \
        "vpaddd %%zmm25, %%zmm5, %%zmm5\n\t" \
        "vpaddd %%zmm26, %%zmm6, %%zmm6\n\t" \
        "vpaddd %%zmm27, %%zmm7, %%zmm7\n\t" \
        "vpaddd %%zmm28, %%zmm8, %%zmm8\n\t" \
        "vpaddd %%zmm29, %%zmm9, %%zmm9\n\t" \
        "vpaddd %%zmm30, %%zmm10, %%zmm10\n\t" \
        "vpaddd %%zmm31, %%zmm11, %%zmm11\n\t" \
        "vpaddd %%zmm16, %%zmm12, %%zmm12\n\t" \
        "vpaddd %%zmm17, %%zmm13, %%zmm13\n\t" \
        "vpaddd %%zmm18, %%zmm14, %%zmm14\n\t" \
        "vpaddd %%zmm19, %%zmm15, %%zmm15\n\t" \
        /* Each lane's counter on sixteen blocks; a lane whose word 12 */ \
        /* wrapped (now under 16) carries one into word 13. */ \
        "vpaddd %[sixteens], %%zmm16, %%zmm16\n\t" \
        "vpcmpud $1, %[sixteens], %%zmm16, %%k1\n\t" \
        "vpmovm2d %%k1, %%zmm20\n\t" \
        "vpsubd %%zmm20, %%zmm17, %%zmm17\n\t" \
        /* Words to blocks: block b in zmm b. */ \
        STITCH_ZWORDS_TO_LANES(0, 1, 2, 3, 20, 21) \
        STITCH_ZWORDS_TO_LANES(4, 5, 6, 7, 22, 23) \
        STITCH_ZWORDS_TO_LANES(8, 9, 10, 11, 20, 21) \
        STITCH_ZWORDS_TO_LANES(12, 13, 14, 15, 22, 23) \
        STITCH_ZLANES_TO_BLOCKS(0, 4, 8, 12) \
        STITCH_ZLANES_TO_BLOCKS(1, 5, 9, 13) \
        STITCH_ZLANES_TO_BLOCKS(2, 6, 10, 14) \
        STITCH_ZLANES_TO_BLOCKS(3, 7, 11, 15) \
        STITCH_ZOUT_BLOCKS_0_15(OUT) \
        "add $1024, %[in]\n\t" \
        "add $1024, %[out]\n\t" \
        "dec %[n]\n\t" \
        "jnz 1b\n\t"

#define STITCH_ZOUT_PLAIN(b, off) STITCH_ZXOR(b, off) STITCH_ZSTORE(b, off)
#define STITCH_ZOUT_KEPT(b, off) STITCH_ZXOR(b, off) STITCH_ZKEEP(b) STITCH_ZSTORE(b, off)
#define STITCH_ZRUN_OPERANDS                                                                                \
    : [in] "+r"(in), [out] "+r"(out), [n] "+r"(batches), [r] "=&r"(rounds)                                   \
    : [key] "r"(st.key), [sigma] "r"(kSigma), [w] "r"(&w), [sixteens] "m"(kSixteens)                         \
    : STITCH_ZCLOBBERS

namespace stitch::kern::STITCH_AVX512_NS {

// `batches` (> 0) whole batches from st.ctr on: out = in ^ keystream (in ==
// out allowed), ANDed with w.keep where Keep. Leaves the keystream and the
// key in zmm registers, which the caller's zero_registers clears; does not
// advance st.
template <bool Keep>
STITCH_INLINE_AVX512 void batch_run(const ChaChaState& st, const RunWords& w, const uint8_t* in, uint8_t* out,
                                    size_t batches) {
    size_t rounds;
    if constexpr (Keep)
        __asm__ volatile(STITCH_ZRUN_TEXT(STITCH_ZOUT_KEPT) STITCH_ZRUN_OPERANDS);
    else
        __asm__ volatile(STITCH_ZRUN_TEXT(STITCH_ZOUT_PLAIN) STITCH_ZRUN_OPERANDS);
}

}  // namespace stitch::kern::STITCH_AVX512_NS

#endif  // !STITCH_AVX512_EMULATED
