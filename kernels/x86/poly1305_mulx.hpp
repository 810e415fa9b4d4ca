// Poly1305 (RFC 8439 §2.5.1) block arithmetic for the x86 sets (AVX2, AVX-512), in the
// same 64-bit limbs and the same partial reduction as portable/poly1305.cpp,
// so a Poly1305State moves between kernels bit for bit. Split into small
// stages (add the block, multiply, fold 2^130) so the stitched kernels can
// place them between ChaCha20 rounds; BMI2 turns each 64x64 product into one
// MULX, which leaves the flags alone for the add-with-carry chains.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/bytes.hpp"
#include "kernels/isa.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern::mulx {

// The accumulator and key in registers while a kernel runs.
struct PolyAcc {
    uint64_t h0, h1, h2;
    uint64_t r0, r1, s1;
};

// h·r before the 2^130 fold: (d0lo, d0hi) + (d1lo, d1hi)·2^64 + d2·2^128.
struct PolyProduct {
    uint64_t d0lo, d0hi, d1lo, d1hi, d2;
};

// A value the compiler must hold in a general-purpose register here. The
// accumulator and the key go into the MULX asm as registers; left alone,
// g++ 12's SLP vectorizer loaded and built them as pairs in xmm registers
// and extracted them again (VMOVQ, VPEXTRQ), on the way into the MAC's
// serial chain: on Zen 4 an open of 0 / 64 / 192 B took 134 / 152 / 206 ns
// that way and 126 / 145 / 189 with this (clang 14 unchanged).
// (Also a pointer or a length, where g++ 12 would pair two of them in an
// xmm register straight after storing them one by one.)
template <class T>
STITCH_INLINE_AVX2_BMI2 T in_gpr(T x) {
    __asm__("" : "+r"(x));
    return x;
}

STITCH_INLINE_AVX2_BMI2 PolyAcc load(const Poly1305State& st) {
    return PolyAcc{in_gpr(st.h[0]), in_gpr(st.h[1]), in_gpr(st.h[2]),
                   in_gpr(st.r[0]), in_gpr(st.r[1]), in_gpr(st.s1)};
}

// Each limb through a general-purpose register: g++ 12 otherwise loaded h0
// and h1 as one 16-byte pair from an accumulator the MULX asm had just
// written with 8-byte stores, a store-forwarding stall at the end of every
// record's MAC.
STITCH_INLINE_AVX2_BMI2 void store(Poly1305State& st, const PolyAcc& a) {
    st.h[0] = in_gpr(a.h0);
    st.h[1] = in_gpr(a.h1);
    st.h[2] = in_gpr(a.h2);
}

// The stages are written as add/adc chains in asm: GCC 12 spills the halves
// of unsigned __int128 sums (and the outputs of _addcarry_u64/_mulx_u64) to
// the stack when they sit inside the ChaCha20 rounds, which puts a
// store-to-load round trip on every carry of the serial Poly1305 chain.

// Stage 1: h += m + hibit·2^128.
STITCH_INLINE_AVX2_BMI2 void add_block(PolyAcc& a, const uint8_t* m, uint64_t hibit) {
    __asm__("addq 0(%[m]), %[h0]\n\t"
            "adcq 8(%[m]), %[h1]\n\t"
            "adcq %[hibit], %[h2]"
            : [h0] "+&r"(a.h0), [h1] "+&r"(a.h1), [h2] "+&r"(a.h2)
            : [m] "r"(m), [hibit] "rm"(hibit), "m"(*reinterpret_cast<const uint8_t(*)[kPolyBlock]>(m))
            : "cc");
}

// Stage 2: the six products. r1 is a multiple of 4, so the 2^128 terms fold
// into s1 = 5·r1/4 exactly; h2 is a few bits, so its products are single
// 64-bit IMULs. MULX takes one factor in rdx and leaves the flags alone.
STITCH_INLINE_AVX2_BMI2 PolyProduct multiply(const PolyAcc& a) {
    PolyProduct p;
    uint64_t t0, t1;
    __asm__("movq %[h0], %%rdx\n\t"
            "mulxq %[r0], %[d0lo], %[d0hi]\n\t"  // h0·r0
            "mulxq %[r1], %[d1lo], %[d1hi]\n\t"  // h0·r1
            "movq %[h1], %%rdx\n\t"
            "mulxq %[s1], %[t0], %[t1]\n\t"      // h1·s1
            "addq %[t0], %[d0lo]\n\t"
            "adcq %[t1], %[d0hi]\n\t"
            "mulxq %[r0], %[t0], %[t1]\n\t"      // h1·r0
            "addq %[t0], %[d1lo]\n\t"
            "adcq %[t1], %[d1hi]\n\t"
            "movq %[h2], %[t0]\n\t"
            "imulq %[s1], %[t0]\n\t"             // h2·s1
            "addq %[t0], %[d1lo]\n\t"
            "adcq $0, %[d1hi]\n\t"
            "movq %[h2], %[d2]\n\t"
            "imulq %[r0], %[d2]"                   // h2·r0
            : [d0lo] "=&r"(p.d0lo), [d0hi] "=&r"(p.d0hi), [d1lo] "=&r"(p.d1lo), [d1hi] "=&r"(p.d1hi),
              [d2] "=&r"(p.d2), [t0] "=&r"(t0), [t1] "=&r"(t1)
            : [h0] "r"(a.h0), [h1] "r"(a.h1), [h2] "r"(a.h2), [r0] "r"(a.r0), [r1] "r"(a.r1), [s1] "r"(a.s1)
            : "rdx", "cc");
    return p;
}

// Stage 3: propagate the carries and fold the bits from 2^130 up back in,
// times 5 (4·(d2>>2) + (d2>>2)), leaving h2 a few bits wide: the same
// partial reduction as the portable code, bit for bit.
STITCH_INLINE_AVX2_BMI2 void reduce(PolyAcc& a, PolyProduct p) {
    uint64_t fold, quarter;
    __asm__("addq %[d0hi], %[d1lo]\n\t"
            "adcq %[d1hi], %[d2]\n\t"
            "movq %[d2], %[fold]\n\t"
            "andq $-4, %[fold]\n\t"
            "movq %[d2], %[quarter]\n\t"
            "shrq $2, %[quarter]\n\t"
            "andq $3, %[d2]\n\t"
            "addq %[quarter], %[fold]\n\t"
            "addq %[fold], %[d0lo]\n\t"
            "adcq $0, %[d1lo]\n\t"
            "adcq $0, %[d2]"
            : [d0lo] "+&r"(p.d0lo), [d1lo] "+&r"(p.d1lo), [d2] "+&r"(p.d2), [fold] "=&r"(fold),
              [quarter] "=&r"(quarter)
            : [d0hi] "r"(p.d0hi), [d1hi] "r"(p.d1hi)
            : "cc");
    a.h0 = p.d0lo;
    a.h1 = p.d1lo;
    a.h2 = p.d2;
}

// One whole 16-byte block (with its 2^128 bit): the three stages above in
// one asm statement, the same arithmetic bit for bit, in eight registers
// and rdx. The products land where the limbs they replace were (h1·r0 in
// h1 once rdx holds h1, h0·r0 in h0 once rdx holds h0). (The AVX2 batch
// runs the same lines inside its round loop, avx2/batch_rounds.hpp.) The
// key stays in registers: left the choice ("rm"), clang 14 stored r0, r1
// and s1 to the stack at every block of a loop.
STITCH_INLINE_AVX2_BMI2 void block(PolyAcc& a, const uint8_t* m) {
    uint64_t t0, t1, d0hi, d1hi;
    __asm__("addq 0(%[m]), %[h0]\n\t"           // h += m + 2^128
            "adcq 8(%[m]), %[h1]\n\t"
            "adcq $1, %[h2]\n\t"
            "movq %[h1], %%rdx\n\t"
            "mulxq %[s1], %[t0], %[t1]\n\t"     // h1·s1        -> d0
            "mulxq %[r0], %[h1], %[d1hi]\n\t"   // h1·r0        -> d1 (low limb in h1)
            "movq %[h0], %%rdx\n\t"
            "mulxq %[r0], %[h0], %[d0hi]\n\t"   // h0·r0        -> d0 (low limb in h0)
            "addq %[t0], %[h0]\n\t"
            "adcq %[t1], %[d0hi]\n\t"
            "mulxq %[r1], %[t0], %[t1]\n\t"     // h0·r1        -> d1
            "addq %[t0], %[h1]\n\t"
            "adcq %[t1], %[d1hi]\n\t"
            "movq %[h2], %[t0]\n\t"
            "imulq %[s1], %[t0]\n\t"            // h2·s1        -> d1
            "addq %[t0], %[h1]\n\t"
            "adcq $0, %[d1hi]\n\t"
            "imulq %[r0], %[h2]\n\t"            // h2·r0 = d2   (in h2)
            "addq %[d0hi], %[h1]\n\t"           // carries: d1 += d0 >> 64, d2 += d1 >> 64
            "adcq %[d1hi], %[h2]\n\t"
            "movq %[h2], %[t0]\n\t"             // fold 2^130 and up, times 5
            "andq $-4, %[t0]\n\t"
            "movq %[h2], %[t1]\n\t"
            "shrq $2, %[t1]\n\t"
            "andq $3, %[h2]\n\t"
            "addq %[t1], %[t0]\n\t"
            "addq %[t0], %[h0]\n\t"
            "adcq $0, %[h1]\n\t"
            "adcq $0, %[h2]"
            : [h0] "+&r"(a.h0), [h1] "+&r"(a.h1), [h2] "+&r"(a.h2), [t0] "=&r"(t0), [t1] "=&r"(t1),
              [d0hi] "=&r"(d0hi), [d1hi] "=&r"(d1hi)
            : [m] "r"(m), [r0] "r"(a.r0), [r1] "r"(a.r1), [s1] "r"(a.s1),
              "m"(*reinterpret_cast<const uint8_t(*)[kPolyBlock]>(m))
            : "rdx", "cc");
}

// A run of blocks, the serial chain shortened: each block's fold of
// the bits from 2^130 up, f = 5·(d2 >> 2), is not added into h0 with a carry
// through h1 and h2 before the next block's multiply (block() above), but
// multiplied by r beside the next block's products, two more MULX (f·r0
// into d0, f·r1 into d1). (h + f)·r = h·r + f·r exactly, so the run's
// limbs, once the last fold goes in, are block()'s bit for bit. The chain
// a block loses is the fold's add and carries; the MULX it gains run off it.
// Measured on the 0xA7 Xeon (December 2026, a loop of calls): 15.4 core
// cycles a block for block() in a row, 12.8 this way from 6 blocks. The
// first block has no fold to multiply.
// Bounds (h2 <= 7 on entry, r clamped so r0, r1 < 2^60, s1 < 2^60.33):
// the top limb after the message add is at most 9 (5 after a fold), its
// products with s1 and r0 under 2^64; d0 and d1 each sum products under
// 2^124.4 and a high limb, under 2^126, so d0hi, d1hi < 2^62; d2 < 9·2^60
// + 2^62 < 2^63.7, so f = 5·(d2 >> 2) < 2^64 and f·r0, f·r1 < 2^124.
#define STITCH_MULX_RUN_ADD_BLOCK                         \
    "addq 0(%[m]), %[h0]\n\t"                             \
    "adcq 8(%[m]), %[h1]\n\t"                             \
    "adcq $1, %[h2]\n\t"
// d0 = h0·r0 + h1·s1 (low limb in h0, high in d0hi), d1 = h0·r1 + h1·r0
// (low in h1, high in d1hi).
#define STITCH_MULX_RUN_PRODUCTS                          \
    "movq %[h0], %%rdx\n\t"                               \
    "mulxq %[r0], %[h0], %[d0hi]\n\t"    /* h0·r0 */      \
    "mulxq %[r1], %[t0], %[d1hi]\n\t"    /* h0·r1 */      \
    "movq %[h1], %%rdx\n\t"                               \
    "mulxq %[r0], %[h1], %[t1]\n\t"      /* h1·r0 */      \
    "addq %[t0], %[h1]\n\t"                               \
    "adcq %[t1], %[d1hi]\n\t"                             \
    "mulxq %[s1], %[t0], %[t1]\n\t"      /* h1·s1 */      \
    "addq %[t0], %[h0]\n\t"                               \
    "adcq %[t1], %[d0hi]\n\t"
// The previous block's fold times r: f·r0 into d0, f·r1 into d1.
#define STITCH_MULX_RUN_FOLD_PRODUCTS                     \
    "movq %[f], %%rdx\n\t"                                \
    "mulxq %[r0], %[t0], %[t1]\n\t"                       \
    "addq %[t0], %[h0]\n\t"                               \
    "adcq %[t1], %[d0hi]\n\t"                             \
    "mulxq %[r1], %[t0], %[t1]\n\t"                       \
    "addq %[t0], %[h1]\n\t"                               \
    "adcq %[t1], %[d1hi]\n\t"
// h2's products (d1 += h2·s1, d2 = h2·r0), the carries d0 -> d1 -> d2,
// and the fold split off: f = 5·(d2 >> 2), h2 = d2 & 3.
#define STITCH_MULX_RUN_TOP_AND_FOLD                      \
    "movq %[h2], %[t0]\n\t"                               \
    "imulq %[s1], %[t0]\n\t"                              \
    "addq %[t0], %[h1]\n\t"                               \
    "adcq $0, %[d1hi]\n\t"                                \
    "imulq %[r0], %[h2]\n\t"                              \
    "addq %[d0hi], %[h1]\n\t"                             \
    "adcq %[d1hi], %[h2]\n\t"                             \
    "movq %[h2], %[f]\n\t"                                \
    "shrq $2, %[f]\n\t"                                   \
    "leaq (%[f],%[f],4), %[f]\n\t"                        \
    "andq $3, %[h2]\n\t"

// n (2..kRunMaxBlocks) blocks as one run; blocks() below splits longer
// ones. The memory operand says what it reads: a "memory" clobber instead
// made clang 14 store the AVX-512 set's keystream rows to the stack around
// it (its stack wipe test caught them), and one of 2^30 bytes kept clang
// compiling a file for 20 minutes. Not named in the asm text, so m needs
// no early clobber and the operand may share its register. The count n
// lives in memory: the operands took every register clang 14 had left in
// the AVX-512 set's functions (their frame pointer realigns the stack).
inline constexpr size_t kRunMaxBlocks = 64;
inline constexpr size_t kRunMinBlocks = 12;
STITCH_INLINE_AVX2_BMI2 void run(PolyAcc& a, const uint8_t* m, size_t n) {
    uint64_t f, t0, t1, d0hi, d1hi;
    __asm__(STITCH_MULX_RUN_ADD_BLOCK
            STITCH_MULX_RUN_PRODUCTS
            STITCH_MULX_RUN_TOP_AND_FOLD
            "1:\n\t"
            "addq $16, %[m]\n\t"
            "decq %[n]\n\t"
            "jz 2f\n\t"
            STITCH_MULX_RUN_ADD_BLOCK
            STITCH_MULX_RUN_PRODUCTS
            STITCH_MULX_RUN_FOLD_PRODUCTS
            STITCH_MULX_RUN_TOP_AND_FOLD
            "jmp 1b\n"
            "2:\n\t"
            "addq %[f], %[h0]\n\t"
            "adcq $0, %[h1]\n\t"
            "adcq $0, %[h2]"
            : [h0] "+&r"(a.h0), [h1] "+&r"(a.h1), [h2] "+&r"(a.h2), [f] "=&r"(f), [t0] "=&r"(t0), [t1] "=&r"(t1),
              [d0hi] "=&r"(d0hi), [d1hi] "=&r"(d1hi), [m] "+r"(m), [n] "+m"(n)
            : [r0] "r"(a.r0), [r1] "r"(a.r1), [s1] "r"(a.s1),
              "m"(*reinterpret_cast<const uint8_t(*)[kRunMaxBlocks * kPolyBlock]>(m))
            : "rdx", "cc");
}

// The n blocks at m: runs of kRunMinBlocks and more as runs, shorter ones
// block() by block(). On the 0xA7 Xeon (December 2026, the AVX2 set, AVX-512
// hidden from both sides, old and new module in turn over 8-10 processes)
// through EVP: 4-block runs were 3-5% slower as a run (TLS 1.3 seal 64 B,
// POLY1305 64 B) and 8-block ones about 2% (seal 128 B), where 12 and 19
// blocks were 2-9% quicker (seal 192-304 B, POLY1305 192-304 B); the kernel
// calls alone had the run quicker from 5 blocks.
STITCH_INLINE_AVX2_BMI2 void blocks(PolyAcc& a, const uint8_t* m, size_t n) {
    while (n >= kRunMinBlocks) {
        const size_t k = n < kRunMaxBlocks ? n : kRunMaxBlocks;
        run(a, m, k);
        m += k * kPolyBlock;
        n -= k;
    }
    for (size_t i = 0; i < n; ++i) block(a, m + i * kPolyBlock);
}
#undef STITCH_MULX_RUN_ADD_BLOCK
#undef STITCH_MULX_RUN_PRODUCTS
#undef STITCH_MULX_RUN_FOLD_PRODUCTS
#undef STITCH_MULX_RUN_TOP_AND_FOLD

}  // namespace stitch::kern::mulx
