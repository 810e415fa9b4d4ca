// The asm text of one ChaCha20 block's ten double rounds in
// general-purpose registers (x86/scalar_block.hpp's rounds()), placed by
// this text and not by a compiler's register allocator: fourteen words in
// the fourteen general-purpose registers other than rsp and rbp, and two of
// row c in a frame the statement opens below the red zone, swapped with the
// other two at two fixed points a double round, as OpenSSL's scalar
// ChaCha20 keeps part of row c in memory: eight memory operations a double
// round, off the quarter rounds' chains (a word swapped out is next read
// one line into a later quarter round). The fourteenth register is the one
// the compiler gave the block's address ([blk]), which waits in the frame
// meanwhile: so the statement needs no register besides rsp and rbp, and
// fits where rbp is a frame pointer (-O0, the sanitizers' builds).
// Everything is a macro prefixed STITCH_GPR_; an asm statement that uses
// them passes the block's address as "+r" operand [blk], clobbers
// STITCH_GPR_CLOBBERS and "memory", and has no operand addressed off rsp.
#pragma once

// The registers of words 0..7 and 12..15, and of row c's pair in
// registers: words 8 and 9 in the column round and the diagonal round's
// second half, 10 and 11 between.
#define STITCH_GPR_W0 "%%eax"
#define STITCH_GPR_W1 "%%ebx"
#define STITCH_GPR_W2 "%%ecx"
#define STITCH_GPR_W3 "%%edx"
#define STITCH_GPR_W4 "%%esi"
#define STITCH_GPR_W5 "%%edi"
#define STITCH_GPR_W6 "%%r8d"
#define STITCH_GPR_W7 "%%r9d"
#define STITCH_GPR_C0 "%%r10d"
#define STITCH_GPR_C1 "%%r11d"
#define STITCH_GPR_W12 "%%r12d"
#define STITCH_GPR_W13 "%%r13d"
#define STITCH_GPR_W14 "%%r14d"
#define STITCH_GPR_W15 "%k[blk]"
#define STITCH_GPR_CLOBBERS \
    "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14"

// The frame, 160 bytes below rsp on entry (the red zone is 128): words 10
// and 11, words 8 and 9 while 10 and 11 are in registers, the loop count,
// the block's address.
#define STITCH_GPR_FRAME_BYTES "160"
#define STITCH_GPR_W10_AT "0(%%rsp)"
#define STITCH_GPR_W11_AT "4(%%rsp)"
#define STITCH_GPR_W8_AT "8(%%rsp)"
#define STITCH_GPR_W9_AT "12(%%rsp)"
#define STITCH_GPR_COUNT "16(%%rsp)"
#define STITCH_GPR_BLOCK_AT "24(%%rsp)"

// One line of RFC 8439 §2.1's quarter round (a += b; d ^= a; d <<<= 32 -
// ror) of two quarter rounds side by side. AT&T order: source first. The
// rotation is BMI2's RORX: ROL writes two of the flags and keeps the rest,
// so each waits for the flags of the instruction before it, another
// quarter round's; RORX writes none.
#define STITCH_GPR_QR_LINE(a, b, d, ror, e, f, h) \
    "addl " b ", " a "\n\t"                       \
    "addl " f ", " e "\n\t"                       \
    "xorl " a ", " d "\n\t"                       \
    "xorl " e ", " h "\n\t"                       \
    "rorxl $" #ror ", " d ", " d "\n\t"          \
    "rorxl $" #ror ", " h ", " h "\n\t"
#define STITCH_GPR_QR_PAIR(a, b, c, d, e, f, g, h)                                    \
    STITCH_GPR_QR_LINE(a, b, d, 16, e, f, h) STITCH_GPR_QR_LINE(c, d, b, 20, g, h, f) \
        STITCH_GPR_QR_LINE(a, b, d, 24, e, f, h) STITCH_GPR_QR_LINE(c, d, b, 25, g, h, f)

// Row c's pair in registers swapped: 8 and 9 out, 10 and 11 in, and back.
#define STITCH_GPR_C_TO_10                                   \
    "movl " STITCH_GPR_C0 ", " STITCH_GPR_W8_AT "\n\t"       \
    "movl " STITCH_GPR_C1 ", " STITCH_GPR_W9_AT "\n\t"       \
    "movl " STITCH_GPR_W10_AT ", " STITCH_GPR_C0 "\n\t"      \
    "movl " STITCH_GPR_W11_AT ", " STITCH_GPR_C1 "\n\t"
#define STITCH_GPR_C_TO_8                                    \
    "movl " STITCH_GPR_C0 ", " STITCH_GPR_W10_AT "\n\t"      \
    "movl " STITCH_GPR_C1 ", " STITCH_GPR_W11_AT "\n\t"      \
    "movl " STITCH_GPR_W8_AT ", " STITCH_GPR_C0 "\n\t"       \
    "movl " STITCH_GPR_W9_AT ", " STITCH_GPR_C1 "\n\t"

// RFC 8439 §2.3's inner_block: the column round, then the diagonal round,
// each two quarter rounds at a time. Words 8 and 9 are in registers before
// and after, 10 and 11 between the halves.
#define STITCH_GPR_DOUBLE_ROUND                                                                              \
    STITCH_GPR_QR_PAIR(STITCH_GPR_W0, STITCH_GPR_W4, STITCH_GPR_C0, STITCH_GPR_W12, STITCH_GPR_W1,          \
                       STITCH_GPR_W5, STITCH_GPR_C1, STITCH_GPR_W13)                                        \
    STITCH_GPR_C_TO_10                                                                                       \
    STITCH_GPR_QR_PAIR(STITCH_GPR_W2, STITCH_GPR_W6, STITCH_GPR_C0, STITCH_GPR_W14, STITCH_GPR_W3,          \
                       STITCH_GPR_W7, STITCH_GPR_C1, STITCH_GPR_W15)                                        \
    STITCH_GPR_QR_PAIR(STITCH_GPR_W0, STITCH_GPR_W5, STITCH_GPR_C0, STITCH_GPR_W15, STITCH_GPR_W1,          \
                       STITCH_GPR_W6, STITCH_GPR_C1, STITCH_GPR_W12)                                        \
    STITCH_GPR_C_TO_8                                                                                        \
    STITCH_GPR_QR_PAIR(STITCH_GPR_W2, STITCH_GPR_W7, STITCH_GPR_C0, STITCH_GPR_W13, STITCH_GPR_W3,          \
                       STITCH_GPR_W4, STITCH_GPR_C1, STITCH_GPR_W14)

// Entry: the frame opened, the block's address and words 10 and 11 in it,
// and the other words in their registers, word 15 last, over the address.
// Exit: the words back in the block, the address back in its register, the
// frame's words zeroed and the frame closed. eax carries the words that
// move between the block and the frame.
#define STITCH_GPR_LOAD_ONE(reg, i) "movl " #i "*4(%[blk]), " reg "\n\t"
#define STITCH_GPR_STORE_ONE(reg, i) "movl " reg ", " #i "*4(%[blk])\n\t"
#define STITCH_GPR_MOVE(from, to) "movl " from ", %%eax\n\t" "movl %%eax, " to "\n\t"
#define STITCH_GPR_REGISTER_WORDS(op)                                                                 \
    op(STITCH_GPR_W1, 1) op(STITCH_GPR_W2, 2) op(STITCH_GPR_W3, 3) op(STITCH_GPR_W4, 4)               \
    op(STITCH_GPR_W5, 5) op(STITCH_GPR_W6, 6) op(STITCH_GPR_W7, 7) op(STITCH_GPR_C0, 8)               \
    op(STITCH_GPR_C1, 9) op(STITCH_GPR_W12, 12) op(STITCH_GPR_W13, 13) op(STITCH_GPR_W14, 14)
#define STITCH_GPR_ENTER                                                      \
    "leaq -" STITCH_GPR_FRAME_BYTES "(%%rsp), %%rsp\n\t"                      \
    "movq %[blk], " STITCH_GPR_BLOCK_AT "\n\t"                                \
    STITCH_GPR_MOVE("40(%[blk])", STITCH_GPR_W10_AT)                          \
    STITCH_GPR_MOVE("44(%[blk])", STITCH_GPR_W11_AT)                          \
    STITCH_GPR_REGISTER_WORDS(STITCH_GPR_LOAD_ONE)                            \
    STITCH_GPR_LOAD_ONE(STITCH_GPR_W0, 0)                                     \
    "movl 60(%[blk]), " STITCH_GPR_W15 "\n\t"
#define STITCH_GPR_LEAVE                                                      \
    "movl " STITCH_GPR_W15 ", " STITCH_GPR_COUNT "\n\t"                       \
    "movq " STITCH_GPR_BLOCK_AT ", %[blk]\n\t"                                \
    STITCH_GPR_REGISTER_WORDS(STITCH_GPR_STORE_ONE)                           \
    STITCH_GPR_STORE_ONE(STITCH_GPR_W0, 0)                                    \
    STITCH_GPR_MOVE(STITCH_GPR_COUNT, "60(%[blk])")                           \
    STITCH_GPR_MOVE(STITCH_GPR_W10_AT, "40(%[blk])")                          \
    STITCH_GPR_MOVE(STITCH_GPR_W11_AT, "44(%[blk])")                          \
    "xorl %%eax, %%eax\n\t" /* no key words left below the stack */           \
    "movq %%rax, 0(%%rsp)\n\t"                                               \
    "movq %%rax, 8(%%rsp)\n\t"                                               \
    "movq %%rax, 16(%%rsp)\n\t"                                              \
    "leaq " STITCH_GPR_FRAME_BYTES "(%%rsp), %%rsp\n\t"
