// The ten double rounds of an eight-block batch (RFC 8439 §2.3) in the
// word-per-register layout, with the place of every state word fixed by
// this source rather than by a register allocator:
//
//   ymm0..3    row a (words 0..3)        ymm4..7   row b (words 4..7)
//   ymm13, 11, 15  words 9, 10, 11        ymm8..10  words 12, 13, 14
//   ymm12      word 8 or word 15, whichever the next two quarter rounds use
//   ymm14      the shift temporary of the 12- and 7-bit rotations
//   memory     the other of words 8 and 15, in the frame, swapped with
//              ymm12 at two fixed points of each double round: 2 stores,
//              2 loads
//   memory     the rot16 and rot8 byte-shuffle masks, as VPSHUFB operands
//
// Sixteen words and a temporary do not fit in sixteen registers, so
// something lives in memory. Left to the compiler, g++ 12 made ~67 ymm
// stack accesses per batch and double round and clang 14 ~44, and the two
// builds ran 20% apart (Zen 2). Here the whole loop of ten double rounds is
// one asm statement, so both compilers emit the same instructions, and the
// rounds' only stack traffic is the swap of words 8 and 15 plus loading
// and storing the words once a batch. Words 8 and 15 share a register
// because no pair of quarter rounds between the two swap points uses both
// (libgcrypt's AVX2 code places them so too). OpenSSL's ChaCha20_8x keeps
// two c words in memory and two shift temporaries, 8 accesses a double
// round: the same rotations with one temporary, renamed by the core, ran
// 0.5-1% quicker on Emerald Rapids and llvm-mca-16 models Zen 2's loop
// 14% quicker (docs/kernels.md).
//
// The stitched AEAD puts Poly1305 blocks (MULX, general-purpose registers)
// in four fixed slots of the double round, one after each pair of quarter
// rounds. The out-of-order core overlaps them with these latency-bound
// vector rounds. They must be inside the statement: C++ between round
// statements (a loop over a variable number of blocks) gave g++ 12 reason
// to spill a dozen ymm words around it at every step.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "kernels/avx2/asm_text.hpp"
#include "kernels/isa.hpp"
#include "kernels/simd/u32x8.hpp"
#include "kernels/x86/poly1305_mulx.hpp"

namespace stitch::kern::avx2 {

// What the rounds read and write in memory, addressed off one base
// register. The input words stay as they are through a batch, so a run
// of batches only changes the counter words between them.
struct alignas(32) BatchFrame {
    simd::U32x8 x[16];    // at 32·i: the batch's input words
    // At 512: word 8 during the rounds while ymm12 holds word 15, at 544
    // word 15 while ymm12 holds word 8 (the other stale), and word 14 at
    // 512 while the output runs. 576..639 unused: the offsets below are
    // fixed in the asm text.
    simd::U32x8 held[4];
    uint64_t r0, r1, s1;  // at 640, 648, 656: mulx::PolyAcc's key, for the MAC slots
    uint64_t mac_blocks;  // at 664: Poly1305 blocks the rounds absorb
    const uint8_t* in;    // at 672: the 512 bytes of input (Out::xor_input)
    uint8_t* out;         // at 680: and of output (in == out allowed), or the keystream buffer
    uint32_t rounds_left;  // at 688: the nine-block batch's loop count
    uint32_t pad;
    uint64_t batches_left;  // at 696: a run of MAC batches' count (batches_xor_counter_free)
    // The nine-block batch's ninth block (batch_nine): on entry its counter
    // words (12..15; its other input words are lane 0 of x), then the four
    // of its words the rounds keep in memory, then its first 8 words out.
    uint32_t lone_words[16];  // at 704
    // The runs with the first round's counter-free columns (both forms of
    // batches_xor_counter_free): at 768 the last batch's words 8..14 after
    // its rounds (its word 15 stays at 544), for its output during the next
    // batch's first quarter round; at 992 the words after the first round's
    // quarter rounds of columns 1..3, which read no counter word but 13, by
    // word, with
    // column 1's for word 13 one higher (a lane past word 12's wrap) where
    // column 0's words would be (entry 4r for word 4r + 1), and at 1056
    // (entry 16) the word 13 the first are for.
    simd::U32x8 last[7];
    uint32_t counter_free[24];

    // What a batch without a MAC leaves that is secret: the key's words
    // (x[4..11]) and the words the rounds held in memory; sigma, the
    // counter and the nonce are public. Twelve stores, not the frame's 24:
    // raw ChaCha20 pays them once a call.
    STITCH_INLINE_AVX2_BMI2 void wipe_words() {
        simd::U32x8::wipe<8>(x + 4);
        simd::U32x8::wipe<4>(held);
    }
    // What batches_xor_counter_free leaves besides: a batch's rounds
    // (keystream less its input) and the key-derived words.
    STITCH_INLINE_AVX2_BMI2 void wipe_counter_free() {
        simd::U32x8::wipe<7>(last);
        simd::U32x8::wipe<3>(reinterpret_cast<simd::U32x8*>(counter_free));
    }
    // Those, the MAC's key and the ninth block too.
    STITCH_INLINE_AVX2_BMI2 void wipe() {
        wipe_words();
        simd::U32x8::wipe<4>(reinterpret_cast<simd::U32x8*>(this) + 20);
    }
};
static_assert(sizeof(BatchFrame) == 34 * 32);
static_assert(offsetof(BatchFrame, held) == 512 && offsetof(BatchFrame, r0) == 640 &&
              offsetof(BatchFrame, s1) == 656 && offsetof(BatchFrame, mac_blocks) == 664 &&
              offsetof(BatchFrame, in) == 672 && offsetof(BatchFrame, out) == 680 &&
              offsetof(BatchFrame, rounds_left) == 688 && offsetof(BatchFrame, batches_left) == 696 &&
              offsetof(BatchFrame, lone_words) == 704 && offsetof(BatchFrame, last) == 768 &&
              offsetof(BatchFrame, counter_free) == 992);

// A run of batches moves each lane's counter on eight blocks at a time.
alignas(32) static constexpr uint32_t kEights[8] = {8, 8, 8, 8, 8, 8, 8, 8};
alignas(32) static constexpr uint32_t kSevens[8] = {7, 7, 7, 7, 7, 7, 7, 7};

// --- the asm text ----------------------------------------------------------
#define STITCH_A0 "%%ymm0"
#define STITCH_A1 "%%ymm1"
#define STITCH_A2 "%%ymm2"
#define STITCH_A3 "%%ymm3"
#define STITCH_B0 "%%ymm4"
#define STITCH_B1 "%%ymm5"
#define STITCH_B2 "%%ymm6"
#define STITCH_B3 "%%ymm7"
#define STITCH_C9 "%%ymm13"
#define STITCH_C10 "%%ymm11"
#define STITCH_C11 "%%ymm15"
#define STITCH_D12 "%%ymm8"
#define STITCH_D13 "%%ymm9"
#define STITCH_D14 "%%ymm10"
#define STITCH_HELD "%%ymm12"  // word 8, or word 15

// The word in ymm12 goes home (to frame offset `out`) and the other comes
// in (from `in`).
#define STITCH_SWAP_HELD(out, in)                     \
    "vmovdqa " STITCH_HELD ", " #out "(%[f])\n\t"     \
    "vmovdqa " #in "(%[f]), " STITCH_HELD "\n\t"

// Two quarter rounds side by side with one shift temporary: each rotation
// by 12 or 7 done before the other's starts (the core renames ymm14).
#define STITCH_ROTL_EACH(x0, x1, n, rn) STITCH_ROTL(x0, n, rn) STITCH_ROTL(x1, n, rn)
#define STITCH_BATCH_QR_PAIR(a0, b0, c0, d0, a1, b1, c1, d1) \
    STITCH_QR_PAIR_ROTATING(STITCH_ROTL_EACH, a0, b0, c0, d0, a1, b1, c1, d1)

// A double round: columns (0, 4, 8, 12) (1, 5, 9, 13) with word 8 in
// ymm12; word 8 home and word 15 in; (2, 6, 10, 14) (3, 7, 11, 15);
// diagonals (0, 5, 10, 15) (1, 6, 11, 12), word 15 still in; word 15 home
// and word 8 in; (2, 7, 8, 13) (3, 4, 9, 14).
// SLOT(j) after each pair: where the stitched AEAD's MAC blocks go.
#define STITCH_DOUBLE_ROUND(SLOT)                                                                           \
    STITCH_BATCH_QR_PAIR(STITCH_A0, STITCH_B0, STITCH_HELD, STITCH_D12, STITCH_A1, STITCH_B1, STITCH_C9, STITCH_D13)  \
    SLOT(0)                                                                                                 \
    STITCH_SWAP_HELD(512, 544)                                                                              \
    STITCH_BATCH_QR_PAIR(STITCH_A2, STITCH_B2, STITCH_C10, STITCH_D14, STITCH_A3, STITCH_B3, STITCH_C11, STITCH_HELD) \
    SLOT(1)                                                                                                 \
    STITCH_BATCH_QR_PAIR(STITCH_A0, STITCH_B1, STITCH_C10, STITCH_HELD, STITCH_A1, STITCH_B2, STITCH_C11, STITCH_D12) \
    SLOT(2)                                                                                                 \
    STITCH_SWAP_HELD(544, 512)                                                                              \
    STITCH_BATCH_QR_PAIR(STITCH_A2, STITCH_B3, STITCH_HELD, STITCH_D13, STITCH_A3, STITCH_B0, STITCH_C9, STITCH_D14)  \
    SLOT(3)

// The input words into their registers, word 15 into its frame slot.
#define STITCH_LOAD_WORDS                                                                               \
    "vmovdqa 0(%[f]), " STITCH_A0 "\n\t" "vmovdqa 32(%[f]), " STITCH_A1 "\n\t"                          \
    "vmovdqa 64(%[f]), " STITCH_A2 "\n\t" "vmovdqa 96(%[f]), " STITCH_A3 "\n\t"                         \
    "vmovdqa 128(%[f]), " STITCH_B0 "\n\t" "vmovdqa 160(%[f]), " STITCH_B1 "\n\t"                       \
    "vmovdqa 192(%[f]), " STITCH_B2 "\n\t" "vmovdqa 224(%[f]), " STITCH_B3 "\n\t"                       \
    "vmovdqa 480(%[f]), " STITCH_T0 "\n\t" "vmovdqa " STITCH_T0 ", 544(%[f])\n\t"                       \
    "vmovdqa 256(%[f]), " STITCH_HELD "\n\t" "vmovdqa 288(%[f]), " STITCH_C9 "\n\t"                     \
    "vmovdqa 320(%[f]), " STITCH_C10 "\n\t" "vmovdqa 352(%[f]), " STITCH_C11 "\n\t"                     \
    "vmovdqa 384(%[f]), " STITCH_D12 "\n\t" "vmovdqa 416(%[f]), " STITCH_D13 "\n\t"                     \
    "vmovdqa 448(%[f]), " STITCH_D14 "\n\t"

// Eight words of the batch in registers R0..R7 (lane j = block j), with
// their input words at frame offset `in` added, become 32 bytes of each
// block (`half` says which), and EMIT puts each block's 32 bytes where they
// go. An 8x8 transpose in place: two unpack levels leave block j's words in
// the low (j < 4) or high 128 bits of two registers, and VPERM2I128 joins
// them into Y. X and Y are the only other registers it needs.
#define STITCH_ADD_INPUT(r, off) "vpaddd " #off "(%[f]), " r ", " r "\n\t"
#define STITCH_UNPACK(op, x, y, to) "vpunpck" op " " y ", " x ", " to "\n\t"  // to = unpack(x, y)
#define STITCH_HALF_OUT(EMIT, R0, R1, R2, R3, R4, R5, R6, R7, X, Y, in, half)                             \
    STITCH_ADD_INPUT(R0, in) STITCH_ADD_INPUT(R1, in+32) STITCH_ADD_INPUT(R2, in+64)                      \
    STITCH_ADD_INPUT(R3, in+96) STITCH_ADD_INPUT(R4, in+128) STITCH_ADD_INPUT(R5, in+160)                 \
    STITCH_ADD_INPUT(R6, in+192) STITCH_ADD_INPUT(R7, in+224)                                             \
    STITCH_UNPACK("ldq", R0, R1, X) STITCH_UNPACK("hdq", R0, R1, R1)     /* t0 X, t1 R1 */                \
    STITCH_UNPACK("ldq", R2, R3, R0) STITCH_UNPACK("hdq", R2, R3, R3)    /* t2 R0, t3 R3 */               \
    STITCH_UNPACK("ldq", R4, R5, R2) STITCH_UNPACK("hdq", R4, R5, R5)    /* t4 R2, t5 R5 */               \
    STITCH_UNPACK("ldq", R6, R7, R4) STITCH_UNPACK("hdq", R6, R7, R7)    /* t6 R4, t7 R7 */               \
    STITCH_UNPACK("lqdq", X, R0, R6) STITCH_UNPACK("hqdq", X, R0, R0)    /* u0 R6, u1 R0 */               \
    STITCH_UNPACK("lqdq", R1, R3, X) STITCH_UNPACK("hqdq", R1, R3, R3)   /* u2 X, u3 R3 */                \
    STITCH_UNPACK("lqdq", R2, R4, R1) STITCH_UNPACK("hqdq", R2, R4, R4)  /* u4 R1, u5 R4 */               \
    STITCH_UNPACK("lqdq", R5, R7, R2) STITCH_UNPACK("hqdq", R5, R7, R7)  /* u6 R2, u7 R7 */               \
    EMIT(R6, R1, 0x20, 0, half, Y) EMIT(R0, R4, 0x20, 1, half, Y)                                         \
    EMIT(X, R2, 0x20, 2, half, Y) EMIT(R3, R7, 0x20, 3, half, Y)                                          \
    EMIT(R6, R1, 0x31, 4, half, Y) EMIT(R0, R4, 0x31, 5, half, Y)                                         \
    EMIT(X, R2, 0x31, 6, half, Y) EMIT(R3, R7, 0x31, 7, half, Y)

// Block `block`'s 32 bytes at byte `half` of it: XORed with the input
// (pointer in g0) into the output (g1), the two 64-byte-block streams.
#define STITCH_EMIT_XOR(u, v, sel, block, half, Y)                               \
    "vperm2i128 $" #sel ", " v ", " u ", " Y "\n\t"                            \
    "vpxor " #block "*64+" #half "(%[g0]), " Y ", " Y "\n\t"                   \
    "vmovdqu " Y ", " #block "*64+" #half "(%[g1])\n\t"
// Or the same for blocks 0..6 only, block 7 neither read nor written: a
// run of seven blocks XORed in place of a keystream buffer, its copy and its
// wipe (raw ChaCha20's 385-448 B, and a tail of seven).
#define STITCH_EMIT_XOR_SEVEN(u, v, sel, block, half, Y) STITCH_EMIT_XOR_SEVEN_##block(u, v, sel, half, Y)
#define STITCH_EMIT_XOR_SEVEN_0(u, v, sel, half, Y) STITCH_EMIT_XOR(u, v, sel, 0, half, Y)
#define STITCH_EMIT_XOR_SEVEN_1(u, v, sel, half, Y) STITCH_EMIT_XOR(u, v, sel, 1, half, Y)
#define STITCH_EMIT_XOR_SEVEN_2(u, v, sel, half, Y) STITCH_EMIT_XOR(u, v, sel, 2, half, Y)
#define STITCH_EMIT_XOR_SEVEN_3(u, v, sel, half, Y) STITCH_EMIT_XOR(u, v, sel, 3, half, Y)
#define STITCH_EMIT_XOR_SEVEN_4(u, v, sel, half, Y) STITCH_EMIT_XOR(u, v, sel, 4, half, Y)
#define STITCH_EMIT_XOR_SEVEN_5(u, v, sel, half, Y) STITCH_EMIT_XOR(u, v, sel, 5, half, Y)
#define STITCH_EMIT_XOR_SEVEN_6(u, v, sel, half, Y) STITCH_EMIT_XOR(u, v, sel, 6, half, Y)
#define STITCH_EMIT_XOR_SEVEN_7(u, v, sel, half, Y)
// Or stored as they are into the output (g1), block after block: the
// keystream itself, for callers that ask for it with no input.
#define STITCH_EMIT_STORE(u, v, sel, block, half, Y)                             \
    "vperm2i128 $" #sel ", " v ", " u ", " Y "\n\t"                            \
    "vmovdqu " Y ", " #block "*64+" #half "(%[g1])\n\t"
// Or stored as they are into a keystream buffer in the layout the C++ side
// uses (g1): bytes 0..31 of block j at 32·j, bytes 32..63 at 256 + 32·j.
#define STITCH_EMIT_KEYSTREAM(u, v, sel, block, half, Y)                         \
    "vperm2i128 $" #sel ", " v ", " u ", " Y "\n\t"                            \
    "vmovdqa " Y ", " #block "*32+" #half "(%[g1])\n\t"

// After the rounds (word 8 in ymm12, word 15 in the frame): word 14 goes
// to the frame too, so that words 0..7 (rows a, b) make bytes 0..31 of
// every block with ymm14 and ymm10 to spare, beside the other c and d
// words in their registers; then words 14 and 15 come in where row a was
// and words 8..15 make bytes 32..63.
#define STITCH_OUT(EMIT, second_half)                                                                   \
    "movq 672(%[f]), %[g0]\n\t"                                                                        \
    "movq 680(%[f]), %[g1]\n\t"                                                                        \
    STITCH_OUT_AT_G(EMIT, second_half)
#define STITCH_OUT_AT_G(EMIT, second_half)                                                              \
    "vmovdqa " STITCH_D14 ", 512(%[f])\n\t"                                                            \
    STITCH_HALF_OUT(EMIT, STITCH_A0, STITCH_A1, STITCH_A2, STITCH_A3, STITCH_B0, STITCH_B1, STITCH_B2,   \
                    STITCH_B3, STITCH_T0, STITCH_D14, 0, 0)                                             \
    "vmovdqa 512(%[f]), " STITCH_A0 "\n\t" "vmovdqa 544(%[f]), " STITCH_A1 "\n\t"                       \
    STITCH_HALF_OUT(EMIT, STITCH_HELD, STITCH_C9, STITCH_C10, STITCH_C11, STITCH_D12, STITCH_D13,        \
                    STITCH_A0, STITCH_A1, STITCH_T0, STITCH_D14, 256, second_half)
#define STITCH_XOR_OUT STITCH_OUT(STITCH_EMIT_XOR, 32)
#define STITCH_XOR_SEVEN_OUT STITCH_OUT(STITCH_EMIT_XOR_SEVEN, 32)
#define STITCH_KEYSTREAM_OUT STITCH_OUT(STITCH_EMIT_KEYSTREAM, 256)
#define STITCH_STORE_OUT STITCH_OUT(STITCH_EMIT_STORE, 32)

// One Poly1305 block from p into h (mulx::block's arithmetic, the key read
// off the frame), p moving on, when the double round's credit allows: the
// credit gains mac_blocks each double round and a block costs ten, so
// double round i ends with floor((i + 1)·n / 10) blocks done, n in all, at
// most four a double round for n <= 40.
// h1 lives in RDX, MULX's implicit source, and the product's middle limb is
// summed there; 5·(h2 >> 2) takes SHRX by a register holding 2. Each saves
// a copy a block, 64 instructions a batch: the front end issues the MAC's
// beside the rounds', and on Emerald Rapids their sum is what bounds the
// stitched batch while the core's other thread is busy (docs/kernels.md).
// One Poly1305 block at p + off into h: what a slot runs.
#define STITCH_MAC_BLOCK_AT(off)                           \
    "addq " #off "(%[p]), %[h0]\n\t"                         \
    "adcq " #off "+8(%[p]), %%rdx\n\t"                       \
    "adcq $1, %[h2]\n\t"                                    \
    "mulxq 656(%[f]), %[g0], %[g1]\n\t"  /* h1·s1 */        \
    "mulxq 640(%[f]), %[t1], %[e1]\n\t"  /* h1·r0 */        \
    "movq %[h0], %%rdx\n\t"                                 \
    "mulxq 640(%[f]), %[h0], %[e0]\n\t"  /* h0·r0 */        \
    "addq %[g0], %[h0]\n\t"                                 \
    "adcq %[g1], %[e0]\n\t"                                 \
    "mulxq 648(%[f]), %%rdx, %[g1]\n\t"  /* h0·r1 */        \
    "addq %[t1], %%rdx\n\t"                                 \
    "adcq %[g1], %[e1]\n\t"                                 \
    "movq %[h2], %[g0]\n\t"                                 \
    "imulq 656(%[f]), %[g0]\n\t"         /* h2·s1 */        \
    "addq %[g0], %%rdx\n\t"                                 \
    "adcq $0, %[e1]\n\t"                                    \
    "imulq 640(%[f]), %[h2]\n\t"         /* h2·r0 */        \
    "addq %[e0], %%rdx\n\t"                                 \
    "adcq %[e1], %[h2]\n\t"                                 \
    "movq %[h2], %[g0]\n\t"              /* 2^130 = 5 */    \
    "andq $-4, %[g0]\n\t"                                   \
    "shrxq %[two], %[h2], %[g1]\n\t"                        \
    "andq $3, %[h2]\n\t"                                    \
    "addq %[g1], %[g0]\n\t"                                 \
    "addq %[g0], %[h0]\n\t"                                 \
    "adcq $0, %%rdx\n\t"                                    \
    "adcq $0, %[h2]\n\t"
#define STITCH_MAC_SLOT(j)                                  \
    "cmpq $10, %[credit]\n\t"                               \
    "jb 9" #j "f\n\t"                                       \
    "subq $10, %[credit]\n\t"                               \
    STITCH_MAC_BLOCK_AT(0)                                  \
    "addq $16, %[p]\n"                                      \
    "9" #j ":\n\t"
// The steady run's slots (32 blocks a batch), none with a credit test:
// slots 0-2 of each of the nine whole double rounds take a block addressed
// off p, which moves on once after them, slot 3 none; the first double
// round, whose column round is mostly done before the run
// (batches_xor_counter_free), takes one after each of its diagonal pairs,
// and three more go at the batch's end, where they overlap the next
// batch's lone quarter round and output, which leave the integer units
// idle. Other splits (3-2-0, 2-1-2, 0-0-5 and others) measured level on
// Zen 5 within the noise (1-2%); llvm-mca-16's whole-batch models put this
// one at or under the run before on all six cores and 2-1-2 4% over it on
// znver4 (December 2026, docs/benchmarks.md). Against
// a credit test in every slot, 11 instructions fewer a double round (~4%
// of the batch's): on Emerald Rapids 2-3% quicker at 4-16 KiB in the
// host's busy phases (a busy SMT sibling, inferred), ~0.5-1% in idle ones
// (docs/benchmarks.md).
#define STITCH_STEADY_SLOT(j) STITCH_STEADY_SLOT_##j
#define STITCH_STEADY_SLOT_0 STITCH_MAC_BLOCK_AT(0)
#define STITCH_STEADY_SLOT_1 STITCH_MAC_BLOCK_AT(16)
#define STITCH_STEADY_SLOT_2 STITCH_MAC_BLOCK_AT(32) "addq $48, %[p]\n\t"
#define STITCH_STEADY_SLOT_3
#define STITCH_FIRST_SLOT(j) STITCH_FIRST_SLOT_##j
#define STITCH_FIRST_SLOT_2 STITCH_MAC_BLOCK_AT(0) "addq $16, %[p]\n\t"
#define STITCH_FIRST_SLOT_3 STITCH_MAC_BLOCK_AT(0) "addq $16, %[p]\n\t"
#define STITCH_END_SLOT STITCH_MAC_BLOCK_AT(0) STITCH_MAC_BLOCK_AT(16) STITCH_MAC_BLOCK_AT(32) "addq $48, %[p]\n\t"
#define STITCH_NO_SLOT(j)

// The nine-block batch's ninth block (a seal's block 0, the Poly1305 key,
// beside its first eight text blocks: avx2/aead_pass.hpp), in
// general-purpose registers beside the eight in ymm, which leave the integer
// units idle. Its words are 32-bit registers the compiler picks: rows a and
// b always, and a pair of c words and a pair of d words, the other four in
// frame.lone_words (at 704 + 4·i), swapped at fixed points as the vector
// rounds swap words 8 and 15. At the top of each double round the pairs hold
// c8, c9 (CP, CQ) and d13, d12 (DP, DQ). DP and DQ are the operands the
// output code takes as its pointers (g0, g1) once the key is out. Thirteen
// general registers in all with the frame's: the loop count lives in the
// frame, and the masks are rip-relative, so it fits at -O0 and under the
// sanitizers, whose frame pointer takes one more.
#define STITCH_SA0 "%k[sa0]"
#define STITCH_SA1 "%k[sa1]"
#define STITCH_SA2 "%k[sa2]"
#define STITCH_SA3 "%k[sa3]"
#define STITCH_SB0 "%k[sb0]"
#define STITCH_SB1 "%k[sb1]"
#define STITCH_SB2 "%k[sb2]"
#define STITCH_SB3 "%k[sb3]"
#define STITCH_SCP "%k[scp]"
#define STITCH_SCQ "%k[scq]"
#define STITCH_SDP "%k[g0]"
#define STITCH_SDQ "%k[g1]"
#define STITCH_SADD(x, y) "addl " y ", " x "\n\t"
#define STITCH_SXOR(x, y) "xorl " y ", " x "\n\t"
#define STITCH_SROL(x, n) "roll $" #n ", " x "\n\t"
#define STITCH_SQR_PAIR(a0, b0, c0, d0, a1, b1, c1, d1)                                                   \
    STITCH_SADD(a0, b0) STITCH_SADD(a1, b1) STITCH_SXOR(d0, a0) STITCH_SXOR(d1, a1)                        \
    STITCH_SROL(d0, 16) STITCH_SROL(d1, 16)                                                              \
    STITCH_SADD(c0, d0) STITCH_SADD(c1, d1) STITCH_SXOR(b0, c0) STITCH_SXOR(b1, c1)                        \
    STITCH_SROL(b0, 12) STITCH_SROL(b1, 12)                                                              \
    STITCH_SADD(a0, b0) STITCH_SADD(a1, b1) STITCH_SXOR(d0, a0) STITCH_SXOR(d1, a1)                        \
    STITCH_SROL(d0, 8) STITCH_SROL(d1, 8)                                                                \
    STITCH_SADD(c0, d0) STITCH_SADD(c1, d1) STITCH_SXOR(b0, c0) STITCH_SXOR(b1, c1)                        \
    STITCH_SROL(b0, 7) STITCH_SROL(b1, 7)
#define STITCH_SSTORE(r, i) "movl " r ", 704+4*" #i "(%[f])\n\t"
#define STITCH_SLOAD(r, i) "movl 704+4*" #i "(%[f]), " r "\n\t"
#define STITCH_XLOAD(r, i) "movl 32*" #i "(%[f]), " r "\n\t"  // input word i: lane 0 of frame.x[i]

// The c and d pairs go home (the words named first) and four others come
// in, as STITCH_SWAP_HELD does for the vector rounds' words 8 and 15; or
// one d word.
#define STITCH_LONE_SWAP(cp_out, cq_out, dp_out, dq_out, cp_in, cq_in, dp_in, dq_in)            \
    STITCH_SSTORE(STITCH_SCP, cp_out) STITCH_SSTORE(STITCH_SCQ, cq_out)                          \
    STITCH_SSTORE(STITCH_SDP, dp_out) STITCH_SSTORE(STITCH_SDQ, dq_out)                          \
    STITCH_SLOAD(STITCH_SCP, cp_in) STITCH_SLOAD(STITCH_SCQ, cq_in)                              \
    STITCH_SLOAD(STITCH_SDP, dp_in) STITCH_SLOAD(STITCH_SDQ, dq_in)
#define STITCH_LONE_SWAP_D(d, out, in) STITCH_SSTORE(d, out) STITCH_SLOAD(d, in)

// Slot j of the double round holds the ninth block's quarter rounds of the
// same place: columns (0, 4, 8, 12) (1, 5, 9, 13); c8, c9, d12, d13 out and
// c10, c11, d14, d15 in; (2, 6, 10, 14) (3, 7, 11, 15); d14 out, d12 in;
// diagonals (0, 5, 10, 15) (1, 6, 11, 12); c10, c11, d12, d15 out and c8,
// c9, d13, d14 in; (2, 7, 8, 13) (3, 4, 9, 14); d14 out, d12 in.
#define STITCH_LONE_SLOT_0                                                                       \
    STITCH_SQR_PAIR(STITCH_SA0, STITCH_SB0, STITCH_SCP, STITCH_SDQ, STITCH_SA1, STITCH_SB1, STITCH_SCQ, STITCH_SDP) \
    STITCH_LONE_SWAP(8, 9, 13, 12, 10, 11, 14, 15)
#define STITCH_LONE_SLOT_1                                                                       \
    STITCH_SQR_PAIR(STITCH_SA2, STITCH_SB2, STITCH_SCP, STITCH_SDP, STITCH_SA3, STITCH_SB3, STITCH_SCQ, STITCH_SDQ) \
    STITCH_LONE_SWAP_D(STITCH_SDP, 14, 12)
#define STITCH_LONE_SLOT_2                                                                       \
    STITCH_SQR_PAIR(STITCH_SA0, STITCH_SB1, STITCH_SCP, STITCH_SDQ, STITCH_SA1, STITCH_SB2, STITCH_SCQ, STITCH_SDP) \
    STITCH_LONE_SWAP(10, 11, 12, 15, 8, 9, 13, 14)
#define STITCH_LONE_SLOT_3                                                                       \
    STITCH_SQR_PAIR(STITCH_SA2, STITCH_SB3, STITCH_SCP, STITCH_SDP, STITCH_SA3, STITCH_SB0, STITCH_SCQ, STITCH_SDQ) \
    STITCH_LONE_SWAP_D(STITCH_SDQ, 14, 12)
#define STITCH_LONE_SLOT(j) STITCH_LONE_SLOT_##j

// The ninth block's words into their registers: words 0..11 from lane 0 of
// frame.x (c10, c11 into their frame slots through DP), the counter words
// 12..15 from frame.lone_words, where the caller put them.
#define STITCH_LONE_LOAD                                                                         \
    STITCH_XLOAD(STITCH_SA0, 0) STITCH_XLOAD(STITCH_SA1, 1) STITCH_XLOAD(STITCH_SA2, 2)          \
    STITCH_XLOAD(STITCH_SA3, 3) STITCH_XLOAD(STITCH_SB0, 4) STITCH_XLOAD(STITCH_SB1, 5)          \
    STITCH_XLOAD(STITCH_SB2, 6) STITCH_XLOAD(STITCH_SB3, 7) STITCH_XLOAD(STITCH_SCP, 8)          \
    STITCH_XLOAD(STITCH_SCQ, 9)                                                                  \
    STITCH_XLOAD(STITCH_SDP, 10) STITCH_SSTORE(STITCH_SDP, 10)                                   \
    STITCH_XLOAD(STITCH_SDP, 11) STITCH_SSTORE(STITCH_SDP, 11)                                   \
    STITCH_SLOAD(STITCH_SDQ, 12) STITCH_SLOAD(STITCH_SDP, 13)

// After the rounds, before the eight vector blocks go out: the ninth
// block's words 0..7 with their input words added back (lane 0 of frame.x)
// into frame.lone_words: block 0's first 32 bytes, the Poly1305 key.
#define STITCH_LONE_KEY_WORD(r, i) "addl 32*" #i "(%[f]), " r "\n\t" STITCH_SSTORE(r, i)
#define STITCH_LONE_KEY_OUT                                                                      \
    STITCH_LONE_KEY_WORD(STITCH_SA0, 0) STITCH_LONE_KEY_WORD(STITCH_SA1, 1)                      \
    STITCH_LONE_KEY_WORD(STITCH_SA2, 2) STITCH_LONE_KEY_WORD(STITCH_SA3, 3)                      \
    STITCH_LONE_KEY_WORD(STITCH_SB0, 4) STITCH_LONE_KEY_WORD(STITCH_SB1, 5)                      \
    STITCH_LONE_KEY_WORD(STITCH_SB2, 6) STITCH_LONE_KEY_WORD(STITCH_SB3, 7)
// Then its c and d pairs home (c8, c9, d13, d12 at the end of the last
// double round), so frame.lone_words[8..16) holds words 8..15 as the rounds
// left them, before the output takes DP and DQ for its pointers: raw
// ChaCha20's ninth block adds their input words back in C++.
#define STITCH_LONE_HOME                                                                         \
    STITCH_SSTORE(STITCH_SCP, 8) STITCH_SSTORE(STITCH_SCQ, 9)                                    \
    STITCH_SSTORE(STITCH_SDP, 13) STITCH_SSTORE(STITCH_SDQ, 12)

// The loop of ten double rounds with the MAC's slots, the credit topped
// up by the batch's block count each double round, and the general
// registers it names (those of STITCH_MAC_SLOT among them): what a
// batch with the MAC and a run of them share.
#define STITCH_MAC_ROUNDS                                                                           \
    "movl $10, %[rounds]\n"                                                                         \
    ".p2align 5\n1:\n\t"                                                                            \
    "addq 664(%[f]), %[credit]\n\t"                                                                \
    STITCH_DOUBLE_ROUND(STITCH_MAC_SLOT)                                                            \
    "decl %[rounds]\n\t"                                                                           \
    "jnz 1b\n\t"
#define STITCH_MAC_OUTPUTS_BUT_CREDIT                                                               \
    [rounds] "=&r"(rounds), [h0] "+&r"(acc.h0), "+d"(acc.h1), [h2] "+&r"(acc.h2), [p] "+&r"(p),    \
        [g0] "=&r"(g0), [g1] "=&r"(g1), [e0] "=&r"(e0), [e1] "=&r"(e1), [t1] "=&r"(t1)
#define STITCH_MAC_OUTPUTS [credit] "+&r"(credit), STITCH_MAC_OUTPUTS_BUT_CREDIT

// The asm statement of a whole batch: the words in, the loop of ten double
// rounds (with the MAC slots, or none), the words out through OUT. The
// memory clobber: it reads the MAC's blocks and frame.in, and writes
// frame.out, through pointers; it covers the frame too, whose address is
// an operand (the MAC's statement takes no "+m"(frame): at -O0 g++ 12
// would need a fourteenth general register for it). Every loop head sits
// on a 32-byte boundary (.p2align 5: a few NOPs, run once a batch), so
// where it falls does not move with the code around it; an unrelated
// change that shifted the seal's loops cost a 1 KiB seal 2% on Zen 4.
#define STITCH_BATCH(OUT)                                                                           \
    __asm__ volatile(STITCH_LOAD_WORDS                                                              \
                     "movl $10, %[rounds]\n"                                                        \
                     ".p2align 5\n1:\n\t"                                                           \
                     STITCH_DOUBLE_ROUND(STITCH_NO_SLOT)                                            \
                     "decl %[rounds]\n\t"                                                          \
                     "jnz 1b\n\t"                                                                  \
                     OUT                                                                            \
                     : [rounds] "=&r"(rounds), [g0] "=&r"(g0), [g1] "=&r"(g1), "+m"(frame)          \
                     : [f] "r"(&frame), STITCH_MASKS                                                \
                     : "cc", "memory", STITCH_VECTOR_CLOBBERS)
// A run of batches in one statement, as OpenSSL's ChaCha20_8x runs them: in
// and out move on inside it, and each batch's counter words come from the
// last batch's in the frame. Between batches of separate statements, the
// C++ that set the counter and the pointers cost raw ChaCha20 1-2% of its
// time on Emerald Rapids (docs/benchmarks.md). Words 12 and 13 of each
// lane are one 64-bit counter: word 12 moves on eight, and word 13 takes
// the carry where word 12 wrapped (it is then below eight: min(w, 7) == w).
// STITCH_COUNTER_HOME: the next batch's word 12, in register w, home, and
// word 13 carried; ymm1 and ymm2 its temporaries.
#define STITCH_COUNTER_HOME(w)                                                                        \
    "vpminud %[seven], " w ", %%ymm1\n\t"                                                            \
    "vpcmpeqd " w ", %%ymm1, %%ymm1\n\t"   /* -1 where word 12 wrapped */                           \
    "vmovdqa 416(%[f]), %%ymm2\n\t"                                                                 \
    "vpsubd %%ymm1, %%ymm2, %%ymm2\n\t"                                                             \
    "vmovdqa " w ", 384(%[f])\n\t"                                                                  \
    "vmovdqa %%ymm2, 416(%[f])\n\t"
#define STITCH_NEXT_COUNTER                                                                         \
    "vmovdqa 384(%[f]), %%ymm0\n\t"                                                                 \
    "vpaddd %[eight], %%ymm0, %%ymm0\n\t"                                                           \
    STITCH_COUNTER_HOME("%%ymm0")
// Raw ChaCha20's run with the first round's counter-free columns. Of the
// first column round's four quarter rounds only (0, 4, 8, 12) reads word
// 12; the other three read the key, sigma, the nonce and word 13, which is
// one of two values in a run of under 2^32 blocks (one more in the lanes
// past word 12's wrap). So their sixteen ops a quarter round are done once
// a run, in C++, and their twelve words broadcast from frame.counter_free
// each batch, column 1's chosen per lane by a mask of word 13 (a blend, no
// branch: the counter is the nonce's, and secret to the kernels). The one
// quarter round that is left takes five registers (words 0, 4, 8, 12 in
// ymm9, 10, 12, 8; ymm11 its shift temporary), so the previous batch's
// output runs beside it in the other eleven: words 0..7 still in ymm0..7,
// words 8..14 from frame.last. Its chain and the output's overlap, where
// the run before (until 2026-12-07) put each batch's output after its
// rounds and the next batch's rounds after that: on Zen 5, whose two-cycle
// chain bounds the batch, raw ChaCha20 of 4-64 KiB 1-7% quicker through
// EVP (docs/benchmarks.md). The next batch's counter waits in ymm13 until
// the output has added the last batch's input words back.
#define STITCH_COUNTER_FREE_QR0                                                                       \
    "vmovdqa 0(%[f]), %%ymm9\n\t" "vmovdqa 128(%[f]), %%ymm10\n\t"                                    \
    "vmovdqa 256(%[f]), %%ymm12\n\t" "vmovdqa %%ymm13, %%ymm8\n\t"                                    \
    STITCH_QR_T("%%ymm9", "%%ymm10", "%%ymm12", "%%ymm8", "%%ymm11")
// Words 8..14 of the batch (8 in ymm12, 9..14 in their registers) into
// frame.last; word 15 stays in its swap slot at 544, which the next
// batch's diagonals overwrite only after the output has read it.
#define STITCH_COUNTER_FREE_KEEP                                                                      \
    "vmovdqa " STITCH_HELD ", 768(%[f])\n\t" "vmovdqa " STITCH_C9 ", 800(%[f])\n\t"                  \
    "vmovdqa " STITCH_C10 ", 832(%[f])\n\t" "vmovdqa " STITCH_C11 ", 864(%[f])\n\t"                  \
    "vmovdqa " STITCH_D12 ", 896(%[f])\n\t" "vmovdqa " STITCH_D13 ", 928(%[f])\n\t"                  \
    "vmovdqa " STITCH_D14 ", 960(%[f])\n\t"
// The kept batch out at g0/g1: words 0..7 from ymm0..7, 8..14 from
// frame.last and 15 from 544, ymm14 and ymm15 the transpose's two spare
// registers.
#define STITCH_COUNTER_FREE_OUT                                                                       \
    STITCH_HALF_OUT(STITCH_EMIT_XOR, STITCH_A0, STITCH_A1, STITCH_A2, STITCH_A3, STITCH_B0, STITCH_B1,  \
                    STITCH_B2, STITCH_B3, "%%ymm14", "%%ymm15", 0, 0)                                 \
    "vmovdqa 768(%[f]), %%ymm0\n\t" "vmovdqa 800(%[f]), %%ymm1\n\t"                                   \
    "vmovdqa 832(%[f]), %%ymm2\n\t" "vmovdqa 864(%[f]), %%ymm3\n\t"                                   \
    "vmovdqa 896(%[f]), %%ymm4\n\t" "vmovdqa 928(%[f]), %%ymm5\n\t"                                   \
    "vmovdqa 960(%[f]), %%ymm6\n\t" "vmovdqa 544(%[f]), %%ymm7\n\t"                                   \
    STITCH_HALF_OUT(STITCH_EMIT_XOR, "%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", "%%ymm4", "%%ymm5",        \
                    "%%ymm6", "%%ymm7", "%%ymm14", "%%ymm15", 256, 32)
// After the lone quarter round: its words home (a0, b4 to ymm0, ymm4; c8
// to the frame, where the diagonals' swap fetches it), the other twelve
// broadcast in (word 15 into ymm12, as a double round's diagonals start;
// column 1's four blended by the word-13 mask in ymm14, ymm11 the other
// value), then the diagonals, SLOT(2) and SLOT(3) after their pairs as in
// a double round.
#define STITCH_COUNTER_FREE_COLUMN1(w, next, reg)                                                     \
    "vpbroadcastd " #w "(%[f]), " reg "\n\t" "vpbroadcastd " #next "(%[f]), %%ymm11\n\t"             \
    "vpblendvb %%ymm14, " reg ", %%ymm11, " reg "\n\t"
#define STITCH_COUNTER_FREE_DIAGONALS(SLOT)                                                           \
    "vmovdqa %%ymm9, " STITCH_A0 "\n\t" "vmovdqa %%ymm10, " STITCH_B0 "\n\t"                          \
    "vpbroadcastd 1056(%[f]), %%ymm14\n\t" "vpcmpeqd 416(%[f]), %%ymm14, %%ymm14\n\t"               \
    STITCH_COUNTER_FREE_COLUMN1(996, 992, STITCH_A1) STITCH_COUNTER_FREE_COLUMN1(1012, 1008, STITCH_B1) \
    STITCH_COUNTER_FREE_COLUMN1(1028, 1024, STITCH_C9) STITCH_COUNTER_FREE_COLUMN1(1044, 1040, STITCH_D13) \
    "vpbroadcastd 1000(%[f]), " STITCH_A2 "\n\t"                                                      \
    "vpbroadcastd 1004(%[f]), " STITCH_A3 "\n\t"                                                      \
    "vpbroadcastd 1016(%[f]), " STITCH_B2 "\n\t" "vpbroadcastd 1020(%[f]), " STITCH_B3 "\n\t"          \
    "vpbroadcastd 1032(%[f]), " STITCH_C10 "\n\t"                                                     \
    "vpbroadcastd 1036(%[f]), " STITCH_C11 "\n\t"                                                     \
    "vpbroadcastd 1048(%[f]), " STITCH_D14 "\n\t"                                                     \
    "vmovdqa " STITCH_HELD ", 512(%[f])\n\t" "vpbroadcastd 1052(%[f]), " STITCH_HELD "\n\t"           \
    STITCH_BATCH_QR_PAIR(STITCH_A0, STITCH_B1, STITCH_C10, STITCH_HELD, STITCH_A1, STITCH_B2, STITCH_C11, STITCH_D12) \
    SLOT(2)                                                                                           \
    STITCH_SWAP_HELD(544, 512)                                                                        \
    STITCH_BATCH_QR_PAIR(STITCH_A2, STITCH_B3, STITCH_HELD, STITCH_D13, STITCH_A3, STITCH_B0, STITCH_C9, STITCH_D14)  \
    SLOT(3)
#define STITCH_NINE_DOUBLE_ROUNDS(SLOT)                                                               \
    "movl $9, %[rounds]\n"                                                                            \
    ".p2align 5\n1:\n\t"                                                                              \
    STITCH_DOUBLE_ROUND(SLOT)                                                                         \
    "decl %[rounds]\n\t"                                                                             \
    "jnz 1b\n\t"
#define STITCH_COUNTER_FREE_ROUNDS                                                                    \
    STITCH_COUNTER_FREE_DIAGONALS(STITCH_NO_SLOT) STITCH_NINE_DOUBLE_ROUNDS(STITCH_NO_SLOT)
// The next batch's word 12 waits in ymm13 while the output adds the last
// batch's counter words back; then it goes home, word 13 carried. Both
// runs (with the MAC and without) start so: the first batch's lone quarter
// round, then the loop head (label 2) with the next batch's.
#define STITCH_COUNTER_FREE_NEXT_WORD12 "vmovdqa 384(%[f]), %%ymm13\n\t" "vpaddd %[eight], %%ymm13, %%ymm13\n\t"
#define STITCH_COUNTER_FREE_LOOP_HEAD                                                                 \
    "vmovdqa 384(%[f]), %%ymm13\n\t" STITCH_COUNTER_FREE_QR0 "jmp 3f\n"                               \
    ".p2align 5\n2:\n\t" STITCH_COUNTER_FREE_NEXT_WORD12 STITCH_COUNTER_FREE_QR0
#define STITCH_BATCH_RUN_COUNTER_FREE                                                                 \
    __asm__ volatile("movq 672(%[f]), %[g0]\n\t"                                                      \
                     "movq 680(%[f]), %[g1]\n\t"                                                      \
                     STITCH_COUNTER_FREE_LOOP_HEAD                                                    \
                     STITCH_COUNTER_FREE_OUT                                                          \
                     STITCH_COUNTER_HOME("%%ymm13")                                              \
                     "addq $512, %[g0]\n\t"                                                           \
                     "addq $512, %[g1]\n"                                                             \
                     "3:\n\t"                                                                         \
                     STITCH_COUNTER_FREE_ROUNDS                                                       \
                     STITCH_COUNTER_FREE_KEEP                                                         \
                     "decq %[n]\n\t"                                                                  \
                     "jnz 2b\n\t"                                                                     \
                     STITCH_COUNTER_FREE_OUT                                                          \
                     STITCH_COUNTER_FREE_NEXT_WORD12 STITCH_COUNTER_HOME("%%ymm13")                   \
                     : [rounds] "=&r"(rounds), [g0] "=&r"(g0), [g1] "=&r"(g1), [n] "+r"(n), "+m"(frame) \
                     : [f] "r"(&frame), [eight] "m"(kEights), [seven] "m"(kSevens), STITCH_MASKS      \
                     : "cc", "memory", STITCH_VECTOR_CLOBBERS)
// The same run with the MAC in the slots, 32 blocks each batch (the grid
// then needs nothing between batches, p simply moving on), in the steady
// slots and the first round's counter-free columns as raw ChaCha20's run
// above. A batch's output runs beside the next batch's lone quarter round,
// before that batch's MAC slots: a seal's MAC reads the ciphertext one
// batch behind, which is then in memory, and an open's reads its own
// batch's (and up to 15 bytes past it), which its output overwrites only
// during the next batch. On Zen 5 without AVX-512, seal and open of 16-64
// KiB 2-4% quicker through EVP than the run before (one with the output
// after the rounds and a credit slot, until 2026-12-07; docs/benchmarks.md).
// Its twelve general registers leave none for the pointers or the count,
// so those live in the frame (672, 680, 696).
#define STITCH_KEPT_OUT_AT_FRAME                                                                    \
    "movq 672(%[f]), %[g0]\n\t" "movq 680(%[f]), %[g1]\n\t" STITCH_COUNTER_FREE_OUT
#define STITCH_BATCH_MAC_RUN_COUNTER_FREE                                                           \
    __asm__ volatile(STITCH_COUNTER_FREE_LOOP_HEAD                                                  \
                     STITCH_KEPT_OUT_AT_FRAME                                                       \
                     STITCH_COUNTER_HOME("%%ymm13")                                                 \
                     "addq $512, 672(%[f])\n\t"                                                     \
                     "addq $512, 680(%[f])\n"                                                        \
                     "3:\n\t"                                                                       \
                     STITCH_COUNTER_FREE_DIAGONALS(STITCH_FIRST_SLOT)                               \
                     STITCH_NINE_DOUBLE_ROUNDS(STITCH_STEADY_SLOT)                                  \
                     STITCH_COUNTER_FREE_KEEP                                                       \
                     STITCH_END_SLOT                                                                \
                     "decq 696(%[f])\n\t"                                                           \
                     "jnz 2b\n\t" STITCH_KEPT_OUT_AT_FRAME                                          \
                     STITCH_COUNTER_FREE_NEXT_WORD12 STITCH_COUNTER_HOME("%%ymm13")                 \
                     "addq $512, 672(%[f])\n\t"                                                     \
                     "addq $512, 680(%[f])\n\t"                                                     \
                     : STITCH_MAC_OUTPUTS_BUT_CREDIT                                                \
                     : [f] "r"(&frame), [two] "r"(two), [eight] "m"(kEights), [seven] "m"(kSevens), \
                       STITCH_MASKS                                                                 \
                     : "cc", "memory", STITCH_VECTOR_CLOBBERS)
#define STITCH_BATCH_NINE(OUT)                                                                      \
    __asm__ volatile(STITCH_LOAD_WORDS                                                              \
                     STITCH_LONE_LOAD                                                               \
                     "movl $10, 688(%[f])\n"                                                         \
                     ".p2align 5\n1:\n\t"                                                           \
                     STITCH_DOUBLE_ROUND(STITCH_LONE_SLOT)                                          \
                     "decl 688(%[f])\n\t"                                                           \
                     "jnz 1b\n\t"                                                                  \
                     STITCH_LONE_KEY_OUT                                                            \
                     STITCH_LONE_HOME                                                               \
                     OUT                                                                            \
                     : [sa0] "=&r"(sa[0]), [sa1] "=&r"(sa[1]), [sa2] "=&r"(sa[2]), [sa3] "=&r"(sa[3]), \
                       [sb0] "=&r"(sb[0]), [sb1] "=&r"(sb[1]), [sb2] "=&r"(sb[2]), [sb3] "=&r"(sb[3]), \
                       [scp] "=&r"(scp), [scq] "=&r"(scq), [g0] "=&r"(g0), [g1] "=&r"(g1) \
                     : [f] "r"(&frame), STITCH_MASKS                                                \
                     : "cc", "memory", STITCH_VECTOR_CLOBBERS)
#define STITCH_BATCH_MAC(OUT)                                                                       \
    __asm__ volatile(STITCH_LOAD_WORDS                                                              \
                     STITCH_MAC_ROUNDS                                                              \
                     OUT                                                                            \
                     : STITCH_MAC_OUTPUTS                                                           \
                     : [f] "r"(&frame), [two] "r"(two), STITCH_MASKS                                \
                     : "cc", "memory", STITCH_VECTOR_CLOBBERS)

// What a batch makes of its words: frame.out[0..512) = frame.in ^ the
// keystream (in == out allowed), or the same for the first seven blocks
// (frame.out[0..448), nothing past it read or written), or the keystream
// alone into frame.out, a buffer aligned to 32 in the layout of
// avx2::keystream (U32x8 ks[16]: ks[j] bytes 0..31 of block j, ks[8 + j]
// bytes 32..63), or the keystream alone into frame.out[0..512) block after
// block (frame.in not read). frame.x is left as it is.
enum class Out : uint8_t { xor_input, xor_seven, keystream, store };

template <Out O>
STITCH_INLINE_AVX2_BMI2 void batch(BatchFrame& frame) {
    uint32_t rounds;
    uint64_t g0, g1;
    if constexpr (O == Out::xor_input)
        STITCH_BATCH(STITCH_XOR_OUT);
    else if constexpr (O == Out::xor_seven)
        STITCH_BATCH(STITCH_XOR_SEVEN_OUT);
    else if constexpr (O == Out::store)
        STITCH_BATCH(STITCH_STORE_OUT);
    else
        STITCH_BATCH(STITCH_KEYSTREAM_OUT);
}

// The same run with the first round's counter-free columns in
// frame.counter_free (BatchRun::counter_free_columns, for frame.x's word 13
// in lane 0), n·8 < 2^32 blocks so that word 13 takes at most its next
// value. frame.last is left holding the last batch's rounds
// (wipe_counter_free).
STITCH_INLINE_AVX2_BMI2 void batches_xor_counter_free(BatchFrame& frame, size_t n) {
    uint32_t rounds;
    uint64_t g0, g1;
    STITCH_BATCH_RUN_COUNTER_FREE;
}

// The same with frame.mac_blocks (at most 40) Poly1305 blocks from p
// absorbed into acc in the slots, double round i ending with
// floor((i + 1)·n / 10) of them done; p comes back past them. The blocks are
// read before any output is written, so they may lie in frame.in's bytes
// (an open in place).
template <Out O>
STITCH_INLINE_AVX2_BMI2 void batch(BatchFrame& frame, mulx::PolyAcc& acc, const uint8_t*& p) {
    static_assert(O != Out::xor_seven);
    uint32_t rounds;
    uint64_t credit = 0, g0, g1, e0, e1, t1;
    const uint64_t two = 2;
    frame.r0 = acc.r0, frame.r1 = acc.r1, frame.s1 = acc.s1;
    if constexpr (O == Out::xor_input)
        STITCH_BATCH_MAC(STITCH_XOR_OUT);
    else
        STITCH_BATCH_MAC(STITCH_KEYSTREAM_OUT);
}

// frame.batches_left (at least 1, at most 2^28) batches in a row, each as
// batch<xor_input> with the MAC: 32 Poly1305 blocks a batch from p (which
// moves on), read before that batch writes its output (frame.mac_blocks is
// not read); the first round's counter-free columns in frame.counter_free
// as for the run without the MAC. frame.in and frame.out are left past the
// run, frame.x's counter words at the block after it, frame.batches_left at
// 0, frame.last holding the last batch's rounds (wipe_counter_free).
STITCH_INLINE_AVX2_BMI2 void batches_xor_counter_free(BatchFrame& frame, mulx::PolyAcc& acc, const uint8_t*& p) {
    uint32_t rounds;
    uint64_t g0, g1, e0, e1, t1;
    const uint64_t two = 2;
    frame.r0 = acc.r0, frame.r1 = acc.r1, frame.s1 = acc.s1;
    STITCH_BATCH_MAC_RUN_COUNTER_FREE;
}

// Nine blocks: what batch<O> makes of the eight blocks of frame.x
// (xor_input or keystream) and, in general-purpose registers beside their
// rounds, a ninth with lane 0's words but the counter words in
// frame.lone_words[12..16), its first 32 bytes left in
// frame.lone_words[0..8) as little-endian words and its words 8..15 after
// the rounds, their input not added, in frame.lone_words[8..16).
template <Out O>
STITCH_INLINE_AVX2_BMI2 void batch_nine(BatchFrame& frame) {
    static_assert(O != Out::xor_seven);
    uint64_t sa[4], sb[4], scp, scq, g0, g1;
    if constexpr (O == Out::xor_input)
        STITCH_BATCH_NINE(STITCH_XOR_OUT);
    else
        STITCH_BATCH_NINE(STITCH_KEYSTREAM_OUT);
}

#undef STITCH_BATCH_NINE
#undef STITCH_BATCH_RUN_COUNTER_FREE
#undef STITCH_COUNTER_FREE_LOOP_HEAD
#undef STITCH_COUNTER_FREE_NEXT_WORD12
#undef STITCH_COUNTER_FREE_ROUNDS
#undef STITCH_COUNTER_FREE_COLUMN1
#undef STITCH_COUNTER_FREE_OUT
#undef STITCH_COUNTER_FREE_KEEP
#undef STITCH_COUNTER_FREE_QR0
#undef STITCH_BATCH_MAC_RUN_COUNTER_FREE
#undef STITCH_KEPT_OUT_AT_FRAME
#undef STITCH_NINE_DOUBLE_ROUNDS
#undef STITCH_COUNTER_FREE_DIAGONALS
#undef STITCH_FIRST_SLOT
#undef STITCH_FIRST_SLOT_2
#undef STITCH_FIRST_SLOT_3
#undef STITCH_END_SLOT
#undef STITCH_STEADY_SLOT
#undef STITCH_STEADY_SLOT_0
#undef STITCH_STEADY_SLOT_1
#undef STITCH_STEADY_SLOT_2
#undef STITCH_STEADY_SLOT_3
#undef STITCH_MAC_OUTPUTS_BUT_CREDIT
#undef STITCH_MAC_OUTPUTS
#undef STITCH_MAC_ROUNDS
#undef STITCH_NEXT_COUNTER
#undef STITCH_COUNTER_HOME
#undef STITCH_OUT_AT_G
#undef STITCH_LONE_HOME
#undef STITCH_LONE_KEY_OUT
#undef STITCH_LONE_KEY_WORD
#undef STITCH_LONE_LOAD
#undef STITCH_LONE_SLOT
#undef STITCH_LONE_SLOT_0
#undef STITCH_LONE_SLOT_1
#undef STITCH_LONE_SLOT_2
#undef STITCH_LONE_SLOT_3
#undef STITCH_LONE_SWAP_D
#undef STITCH_LONE_SWAP
#undef STITCH_XLOAD
#undef STITCH_SLOAD
#undef STITCH_SSTORE
#undef STITCH_SQR_PAIR
#undef STITCH_SROL
#undef STITCH_SXOR
#undef STITCH_SADD
#undef STITCH_SDQ
#undef STITCH_SDP
#undef STITCH_SCQ
#undef STITCH_SCP
#undef STITCH_SB3
#undef STITCH_SB2
#undef STITCH_SB1
#undef STITCH_SB0
#undef STITCH_SA3
#undef STITCH_SA2
#undef STITCH_SA1
#undef STITCH_SA0
#undef STITCH_BATCH_MAC
#undef STITCH_BATCH
#undef STITCH_NO_SLOT
#undef STITCH_MAC_SLOT
#undef STITCH_XOR_OUT
#undef STITCH_XOR_SEVEN_OUT
#undef STITCH_EMIT_XOR_SEVEN
#undef STITCH_EMIT_XOR_SEVEN_0
#undef STITCH_EMIT_XOR_SEVEN_1
#undef STITCH_EMIT_XOR_SEVEN_2
#undef STITCH_EMIT_XOR_SEVEN_3
#undef STITCH_EMIT_XOR_SEVEN_4
#undef STITCH_EMIT_XOR_SEVEN_5
#undef STITCH_EMIT_XOR_SEVEN_6
#undef STITCH_EMIT_XOR_SEVEN_7
#undef STITCH_HALF_OUT
#undef STITCH_EMIT_XOR
#undef STITCH_EMIT_KEYSTREAM
#undef STITCH_OUT
#undef STITCH_KEYSTREAM_OUT
#undef STITCH_STORE_OUT
#undef STITCH_EMIT_STORE
#undef STITCH_UNPACK
#undef STITCH_ADD_INPUT
#undef STITCH_LOAD_WORDS
#undef STITCH_DOUBLE_ROUND
#undef STITCH_BATCH_QR_PAIR
#undef STITCH_ROTL_EACH
#undef STITCH_SWAP_HELD
#undef STITCH_HELD
#undef STITCH_D14
#undef STITCH_D13
#undef STITCH_D12
#undef STITCH_C11
#undef STITCH_C10
#undef STITCH_C9
#undef STITCH_B3
#undef STITCH_B2
#undef STITCH_B1
#undef STITCH_B0
#undef STITCH_A3
#undef STITCH_A2
#undef STITCH_A1
#undef STITCH_A0

}  // namespace stitch::kern::avx2
