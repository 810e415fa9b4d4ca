#!/usr/bin/python3
"""Mutants of the AVX2 set's batch core (docs/kernels.md lists them): plants
each in turn in the source, rebuilds the kernel suite in BUILD_DIR, runs it
on the AVX2 set alone (and poly1305_avx2_test, which forces both forms of
the vector Poly1305, and avx2_stack_test, which searches the stack the
kernels leave), and restores the file. Every mutant must be caught.
Not part of CTest (each one is a rebuild, ~30 s).

  tests/kernels/avx2_mutants.py [BUILD_DIR] [INDEX...]     (default: build; all)
"""
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import mutants as runner  # noqa: E402  (tests/mutants.py)

root = runner.root
build = runner.build_dir()
ROUNDS = "kernels/avx2/batch_rounds.hpp"
TEXT = "kernels/avx2/asm_text.hpp"
ROWS = "kernels/avx2/row_rounds.hpp"
CHACHA = "kernels/avx2/chacha20.hpp"
CHACHA_CPP = "kernels/avx2/chacha20.cpp"
PASS = "kernels/avx2/aead_pass.hpp"
SCALAR = "kernels/x86/scalar_block.hpp"
SCALAR_ASM = "kernels/x86/scalar_asm_text.hpp"
AEAD = "kernels/avx2/aead.hpp"
SHORT = "kernels/avx2/aead_short.hpp"
VECTOR = "kernels/x86/poly1305_vector.cpp"
MULX = "kernels/avx2/poly1305.cpp"
POLY_FINAL = "kernels/portable/poly1305.cpp"
ZERO = "kernels/x86/zero_vectors.hpp"
TWO_KEYS = "kernels/avx2/two_keys.cpp"
OPENSSH = "kernels/openssh.cpp"
AEAD_CPP = "kernels/aead.cpp"
mutants = [
    # The memory swap points of words 8 and 15.
    ("column swap: word 15 not brought in (word 8 stays in ymm12)", ROUNDS,
     "STITCH_SWAP_HELD(512, 544)", "STITCH_SWAP_HELD(512, 512)"),
    ("diagonal swap sends word 15 home to word 8's slot", ROUNDS,
     "STITCH_SWAP_HELD(544, 512)", "STITCH_SWAP_HELD(512, 512)"),
    ("word 15 left out of its slot at the start (word 14 there)", ROUNDS,
     '"vmovdqa 480(%[f]), " STITCH_T0', '"vmovdqa 448(%[f]), " STITCH_T0'),
    ("the output's spill of word 14 lands on word 15", ROUNDS,
     '"vmovdqa " STITCH_D14 ", 512(%[f])\\n\\t"', '"vmovdqa " STITCH_D14 ", 544(%[f])\\n\\t"'),
    # The round body.
    ("first diagonal pair takes word 14 for word 15", ROUNDS,
     "STITCH_BATCH_QR_PAIR(STITCH_A0, STITCH_B1, STITCH_C10, STITCH_HELD,",
     "STITCH_BATCH_QR_PAIR(STITCH_A0, STITCH_B1, STITCH_C10, STITCH_D14,"),
    ("one temporary: the second rotation of a pair rotates the first b word again", ROUNDS,
     "#define STITCH_ROTL_EACH(x0, x1, n, rn) STITCH_ROTL(x0, n, rn) STITCH_ROTL(x1, n, rn)",
     "#define STITCH_ROTL_EACH(x0, x1, n, rn) STITCH_ROTL(x0, n, rn) STITCH_ROTL(x0, n, rn)"),
    ("12-bit rotation shifts right by 19 (both quarter rounds of a pair)", TEXT,
     "    ROTL2(b0, b1, 12, 20)", "    ROTL2(b0, b1, 12, 19)"),
    ("8-bit rotation by the 16-bit mask (the first of a pair)", TEXT,
     'STITCH_SHUF(d0, "rot8") STITCH_SHUF(d1, "rot8")', 'STITCH_SHUF(d0, "rot16") STITCH_SHUF(d1, "rot8")'),
    # The row pairs (one to four blocks).
    ("row pairs: the diagonal step turns row d one word too far", ROWS,
     '"vpshufd $0x4e, " d ", " d "\\n\\t"', '"vpshufd $0x39, " d ", " d "\\n\\t"'),
    ("row pairs: bytes 32..63 of the odd block from the low halves", ROWS,
     '"vperm2i128 $0x31, " d ", " c ", "', '"vperm2i128 $0x20, " d ", " c ", "'),
    ("three pairs: the third pair's rows out to the second's place", ROWS,
     'STITCH_ROWS_OUT("%%ymm8", "%%ymm9", "%%ymm10", "%%ymm11", 2)',
     'STITCH_ROWS_OUT("%%ymm8", "%%ymm9", "%%ymm10", "%%ymm11", 1)'),
    ("three pairs: the third pair's diagonal quarter round left out", ROWS,
     'STITCH_QR("%%ymm8", "%%ymm9", "%%ymm10", "%%ymm11")\n                     STITCH_UNDIAGONALIZE',
     'STITCH_UNDIAGONALIZE'),
    ("three pairs: the third pair starts from the second's rows", ROWS,
     'STITCH_ROWS_IN("%%ymm8", "%%ymm9", "%%ymm10", "%%ymm11", 2)',
     'STITCH_ROWS_IN("%%ymm8", "%%ymm9", "%%ymm10", "%%ymm11", 1)'),
    ("five blocks take two pairs (four blocks)", CHACHA,
     "else if (n > 4)\n        keystream_rows<3>", "else if (n > 5)\n        keystream_rows<3>"),
    ("seven blocks: block 6 not written", ROUNDS,
     "#define STITCH_EMIT_XOR_SEVEN_6(u, v, sel, half, Y) STITCH_EMIT_XOR(u, v, sel, 6, half, Y)",
     "#define STITCH_EMIT_XOR_SEVEN_6(u, v, sel, half, Y)"),
    ("seven blocks: block 7 written past the end", ROUNDS,
     "#define STITCH_EMIT_XOR_SEVEN_7(u, v, sel, half, Y)\n",
     "#define STITCH_EMIT_XOR_SEVEN_7(u, v, sel, half, Y) STITCH_EMIT_XOR(u, v, sel, 7, half, Y)\n"),
    # The wipes of what a batch leaves on the stack (tests/wipe/avx2_stack_test).
    ("a batch's wipe leaves the words held in memory", ROUNDS,
     "        simd::U32x8::wipe<8>(x + 4);\n        simd::U32x8::wipe<4>(held);",
     "        simd::U32x8::wipe<8>(x + 4);"),
    ("a batch's wipe leaves key words 8..11 (x[8..11])", ROUNDS,
     "        simd::U32x8::wipe<8>(x + 4);", "        simd::U32x8::wipe<4>(x + 4);"),
    ("eight blocks of keystream alone: the buffer not wiped", CHACHA_CPP,
     "    avx2::wipe_upto(ks, n);  // keystream", "    if (n != kBatchBlocks) avx2::wipe_upto(ks, n);  // keystream"),
    # Raw ChaCha20's run of batches in one statement (STITCH_BATCH_RUN_COUNTER_FREE).
    ("run: word 13 does not keep the carry", ROUNDS,
     '"vmovdqa %%ymm2, 416(%[f])\\n\\t"', '""'),
    ("run: the carry test takes eight for seven (a lane at 8 carries)", ROUNDS,
     "kSevens[8] = {7, 7, 7, 7, 7, 7, 7, 7};", "kSevens[8] = {8, 8, 8, 8, 8, 8, 8, 8};"),
    ("run: the counter moves seven blocks a batch", ROUNDS,
     '"vpaddd %[eight], %%ymm13, %%ymm13\\n\\t"', '"vpaddd %[seven], %%ymm13, %%ymm13\\n\\t"'),
    ("run: the output does not move on", ROUNDS, '"addq $512, %[g1]\\n"', '"addq $0, %[g1]\\n"'),
    ("run: the input moves on 448 bytes", ROUNDS, '"addq $512, %[g0]\\n\\t"', '"addq $448, %[g0]\\n\\t"'),
    # The run's first round with its counter-free columns loaded (2026-12-07).
    ("counter-free: column 1 keeps word 13's first value in every lane (no blend)", ROUNDS,
     '"vpblendvb %%ymm14, " reg ", %%ymm11, " reg "\\n\\t"', '""'),
    ("counter-free: the lanes' mask from word 13 after the round, not before", ROUNDS,
     '"vpbroadcastd 1056(%[f]), %%ymm14', '"vpbroadcastd 1044(%[f]), %%ymm14'),
    ("counter-free: column 1 for the higher word 13 computed from the same word 13", CHACHA,
     "d = ctr[1] + 1;", "d = ctr[1];"),
    ("counter-free: word 11 broadcast from word 10's entry", ROUNDS,
     '"vpbroadcastd 1036(%[f]), " STITCH_C11', '"vpbroadcastd 1032(%[f]), " STITCH_C11'),
    ("counter-free: the lone quarter round's c8 not put where the diagonals' swap fetches it", ROUNDS,
     '"vmovdqa " STITCH_HELD ", 512(%[f])\\n\\t" "vpbroadcastd 1052', '"vpbroadcastd 1052'),
    ("counter-free: the lone quarter round swaps c and d", ROUNDS,
     'STITCH_QR_T("%%ymm9", "%%ymm10", "%%ymm12", "%%ymm8", "%%ymm11")',
     'STITCH_QR_T("%%ymm9", "%%ymm10", "%%ymm8", "%%ymm12", "%%ymm11")'),
    ("counter-free: the kept batch's word 15 read from word 8's swap slot", ROUNDS,
     '"vmovdqa 544(%[f]), %%ymm7\\n\\t"', '"vmovdqa 512(%[f]), %%ymm7\\n\\t"'),
    ("counter-free: the kept batch's output reads word 9 for word 8", ROUNDS,
     '"vmovdqa 768(%[f]), %%ymm0\\n\\t"', '"vmovdqa 800(%[f]), %%ymm0\\n\\t"'),
    ("counter-free: the next counter home before the last batch's output adds its own", ROUNDS,
     '"vmovdqa %%ymm13, %%ymm8\\n\\t"', '"vmovdqa %%ymm13, %%ymm8\\n\\t" "vmovdqa %%ymm13, 384(%[f])\\n\\t"'),
    ("counter-free: the wipe leaves the last batch's words", ROUNDS,
     "        simd::U32x8::wipe<7>(last);\n", ""),
    ("counter-free: the wipe leaves the columns' words", ROUNDS,
     "        simd::U32x8::wipe<3>(reinterpret_cast<simd::U32x8*>(counter_free));\n", ""),
    ("run: the state's counter moves one batch for the run", CHACHA_CPP,
     "chacha_advance(st.ctr, run * kBatchBlocks);", "chacha_advance(st.ctr, kBatchBlocks);"),
    # The AEAD's bulk as a run of MAC batches in one statement with the counter-free columns
    # (STITCH_BATCH_MAC_RUN_COUNTER_FREE, Pass::bulk_run; 2026-12-07).
    ("MAC run: the output moves on 448 bytes a batch", ROUNDS,
     '"addq $512, 680(%[f])\\n"', '"addq $448, 680(%[f])\\n"'),
    ("MAC run: the input does not move on", ROUNDS,
     '"addq $512, 672(%[f])\\n\\t"', '"addq $0, 672(%[f])\\n\\t"'),
    ("MAC run: the first double round's second slot takes no block (31 a batch)", ROUNDS,
     '#define STITCH_FIRST_SLOT_3 STITCH_MAC_BLOCK_AT(0) "addq $16, %[p]\\n\\t"',
     '#define STITCH_FIRST_SLOT_3'),
    ("MAC run: the end slot takes four blocks (33 a batch)", ROUNDS,
     '#define STITCH_END_SLOT STITCH_MAC_BLOCK_AT(0) STITCH_MAC_BLOCK_AT(16) STITCH_MAC_BLOCK_AT(32) "addq $48',
     '#define STITCH_END_SLOT STITCH_MAC_BLOCK_AT(0) STITCH_MAC_BLOCK_AT(16) STITCH_MAC_BLOCK_AT(32) '
     'STITCH_MAC_BLOCK_AT(48) "addq $64'),
    ("MAC run: the end slot reads its first block twice", ROUNDS,
     '#define STITCH_END_SLOT STITCH_MAC_BLOCK_AT(0) STITCH_MAC_BLOCK_AT(16)',
     '#define STITCH_END_SLOT STITCH_MAC_BLOCK_AT(0) STITCH_MAC_BLOCK_AT(0)'),
    ("MAC run: p does not move on after the first diagonal pair's block", ROUNDS,
     '#define STITCH_FIRST_SLOT_2 STITCH_MAC_BLOCK_AT(0) "addq $16, %[p]\\n\\t"',
     '#define STITCH_FIRST_SLOT_2 STITCH_MAC_BLOCK_AT(0)'),
    ("MAC run: the run's last batch not written", ROUNDS,
     '"jnz 2b\\n\\t" STITCH_KEPT_OUT_AT_FRAME', '"jnz 2b\\n\\t"'),
    ("counter-free runs: the wipe after them left out (both runs)", CHACHA,
     '        frame_.wipe_counter_free();\n    }\n\n    // The first column round',
     '    }\n\n    // The first column round'),
    ("steady slots: slot 1 reads slot 0's block", ROUNDS,
     "#define STITCH_STEADY_SLOT_1 STITCH_MAC_BLOCK_AT(16)", "#define STITCH_STEADY_SLOT_1 STITCH_MAC_BLOCK_AT(0)"),
    ("steady slots: slot 2 reads the next double round's first block", ROUNDS,
     'STITCH_MAC_BLOCK_AT(32) "addq $48, %[p]', 'STITCH_MAC_BLOCK_AT(48) "addq $48, %[p]'),
    ("steady slots: p moves on two blocks a double round, not three", ROUNDS,
     '"addq $48, %[p]\\n\\t"', '"addq $32, %[p]\\n\\t"'),
    ("MAC block: the high limb added without the low limb's carry", ROUNDS,
     '"adcq " #off "+8(%[p]), %%rdx\\n\\t"', '"addq " #off "+8(%[p]), %%rdx\\n\\t"'),
    ("MAC run: an open's run takes the batch that reaches the text's end", PASS,
     "        if (!open_) return left / kBatchBytes;", "        return left / kBatchBytes;"),
    ("MAC run: taken without 32 blocks due (a seal's first bulk batch)", PASS,
     "        if (whole_blocks(limit) != kBatchBytes / kPolyBlock) return 0;", ""),
    ("MAC run: the MAC's place moves one batch for the run", PASS,
     "        mac_ += run * kBatchBytes;", "        mac_ += kBatchBytes;"),
    # The MAC slots.
    ("slot schedule: a block costs 11 credits (blocks left out)", ROUNDS,
     '"cmpq $10, %[credit]\\n\\t"', '"cmpq $11, %[credit]\\n\\t"'),
    ("slot pointer skips a block", ROUNDS, '"addq $16, %[p]\\n"', '"addq $32, %[p]\\n"'),
    ("slot block without its 2^128 bit", ROUNDS, '"adcq $1, %[h2]\\n\\t"', '"adcq $0, %[h2]\\n\\t"'),
    ("slot multiplies h0 by r0 for r1", ROUNDS,
     '"mulxq 648(%[f]), %%rdx, %[g1]\\n\\t"', '"mulxq 640(%[f]), %%rdx, %[g1]\\n\\t"'),
    ("slot's middle limb leaves out h1·r0", ROUNDS, '"addq %[t1], %%rdx\\n\\t"', '"addq $0, %%rdx\\n\\t"'),
    ("slot reduces by h2 >> 1 (the shift count's register)", ROUNDS,
     "    const uint64_t two = 2;", "    const uint64_t two = 1;"),
    # The output: transpose, input added back, XOR.
    ("block 5 takes the low halves", ROUNDS,
     "EMIT(R0, R4, 0x31, 5, half, Y)", "EMIT(R0, R4, 0x20, 5, half, Y)"),
    ("rows c and d add the input of rows b and c", ROUNDS,
     "STITCH_A0, STITCH_A1, STITCH_T0, STITCH_D14, 256, second_half)",
     "STITCH_A0, STITCH_A1, STITCH_T0, STITCH_D14, 224, second_half)"),
    ("words 14 and 15 back in swapped for the second half", ROUNDS,
     '"vmovdqa 512(%[f]), " STITCH_A0 "\\n\\t" "vmovdqa 544(%[f]), " STITCH_A1',
     '"vmovdqa 544(%[f]), " STITCH_A0 "\\n\\t" "vmovdqa 512(%[f]), " STITCH_A1'),
    ("second unpack level pairs t1 with t2", ROUNDS,
     'STITCH_UNPACK("lqdq", R1, R3, X)', 'STITCH_UNPACK("lqdq", R1, R0, X)'),
    # The counter between batches.
    ("a lane's wrap of word 12 not carried into word 13", CHACHA,
     "frame_.x[13] = U32x8::splat(ctr[1]) - U32x8::unsigned_lt(frame_.x[12], ctr0);",
     "frame_.x[13] = U32x8::splat(ctr[1]);"),
    # The MAC grid offsets and the tail.
    ("open reads no further than its batch (OpenSSH's skewed block overwritten first)", PASS,
     "const size_t limit = open_ ? std::min(len_, pos_ + kBatchBytes + kPolyBlock - 1) : pos_;",
     "const size_t limit = open_ ? std::min(len_, pos_ + kBatchBytes) : pos_;"),
    ("seal absorbs a block past what is written", PASS,
     "const size_t limit = open_ ? std::min(len_, pos_ + kBatchBytes + kPolyBlock - 1) : pos_;",
     "const size_t limit = open_ ? std::min(len_, pos_ + kBatchBytes + kPolyBlock - 1) : std::min(len_, pos_ + kPolyBlock);"),
    ("open's last partial block not buffered before the last batch writes", PASS,
     "if (open_ && limit == len_ && mac_ < len_) {", "if (false && open_ && limit == len_ && mac_ < len_) {"),
    ("tail call's partial block not buffered before it is overwritten", PASS,
     "        if (open_) buffer_last(limit);\n        emit(st_, ks, 0,", "        emit(st_, ks, 0,"),
    # A lone block in general-purpose registers (x86/scalar_block.hpp).
    ("lone block: nine double rounds", SCALAR,
     '"movl $10, " STITCH_GPR_COUNT', '"movl $9, " STITCH_GPR_COUNT'),
    # Its asm text's fixed places (x86/scalar_asm_text.hpp).
    ("lone block: the column swap brings word 11 in for word 10", SCALAR_ASM,
     '"movl " STITCH_GPR_W10_AT ", " STITCH_GPR_C0', '"movl " STITCH_GPR_W11_AT ", " STITCH_GPR_C0'),
    ("lone block: the diagonal swap brings word 9 back for word 8", SCALAR_ASM,
     '"movl " STITCH_GPR_W8_AT ", " STITCH_GPR_C0', '"movl " STITCH_GPR_W9_AT ", " STITCH_GPR_C0'),
    ("lone block: the 12-bit rotation by 11 (RORX 21)", SCALAR_ASM,
     "STITCH_GPR_QR_LINE(c, d, b, 20, g, h, f)", "STITCH_GPR_QR_LINE(c, d, b, 21, g, h, f)"),
    ("lone block: the first diagonal pair takes word 14 for word 15", SCALAR_ASM,
     "STITCH_GPR_QR_PAIR(STITCH_GPR_W0, STITCH_GPR_W5, STITCH_GPR_C0, STITCH_GPR_W15,",
     "STITCH_GPR_QR_PAIR(STITCH_GPR_W0, STITCH_GPR_W5, STITCH_GPR_C0, STITCH_GPR_W14,"),
    ("lone block: word 15 (in the address's register) not stored back", SCALAR_ASM,
     '    STITCH_GPR_MOVE(STITCH_GPR_COUNT, "60(%[blk])")                           \\\n', ''),
    ("lone block: words 10 and 11 not back from the frame", SCALAR_ASM,
     '    STITCH_GPR_MOVE(STITCH_GPR_W10_AT, "40(%[blk])")                          \\\n', ''),
    ("lone block: words 10 and 11 left in the frame (its first slot not zeroed)", SCALAR_ASM,
     '    "movq %%rax, 0(%%rsp)\\n\\t"                                               \\\n', ''),
    ("lone block: words 8 and 9 of the last column round left in the frame", SCALAR_ASM,
     '    "movq %%rax, 8(%%rsp)\\n\\t"                                               \\\n', ''),
    ("lone block: the counter word not added back", SCALAR,
     "i < 12 ? st.key[i - 4] : st.ctr[i - 12];", "i < 12 ? st.key[i - 4] : 0u;"),
    ("lone block: the counter not advanced", SCALAR,
     "    wipe_object(block);\n    chacha_advance(st.ctr, 1);", "    wipe_object(block);"),
    ("lone key block: the text starts at block 0", AEAD,
     "    }\n    chacha_advance(st.chacha.ctr, 1);\n}", "    }\n}"),
    # A seal's block 0 in general registers beside its first batch (batch_nine; Zen 4 and Zen 5).
    ("ninth block: slot 1 brings d13 in where d12 belongs", ROUNDS,
     "STITCH_LONE_SWAP_D(STITCH_SDP, 14, 12)", "STITCH_LONE_SWAP_D(STITCH_SDP, 14, 13)"),
    ("ninth block: slot 0 sends c8 home to c9's place", ROUNDS,
     "STITCH_LONE_SWAP(8, 9, 13, 12, 10, 11, 14, 15)", "STITCH_LONE_SWAP(9, 9, 13, 12, 10, 11, 14, 15)"),
    ("ninth block: the first diagonal pair takes d12 for d15", ROUNDS,
     "STITCH_SQR_PAIR(STITCH_SA0, STITCH_SB1, STITCH_SCP, STITCH_SDQ, STITCH_SA1, STITCH_SB2, STITCH_SCQ, STITCH_SDP)",
     "STITCH_SQR_PAIR(STITCH_SA0, STITCH_SB1, STITCH_SCP, STITCH_SDP, STITCH_SA1, STITCH_SB2, STITCH_SCQ, STITCH_SDQ)"),
    ("ninth block: the 12-bit rotation of the second quarter round by 11", ROUNDS,
     "STITCH_SROL(b0, 12) STITCH_SROL(b1, 12)", "STITCH_SROL(b0, 12) STITCH_SROL(b1, 11)"),
    ("ninth block: c11 not put in its frame slot at the start (c10 twice)", ROUNDS,
     "STITCH_XLOAD(STITCH_SDP, 11) STITCH_SSTORE(STITCH_SDP, 11)",
     "STITCH_XLOAD(STITCH_SDP, 10) STITCH_SSTORE(STITCH_SDP, 11)"),
    ("ninth block: nine double rounds", ROUNDS, '"movl $10, 688(%[f])', '"movl $9, 688(%[f])'),
    ("ninth block: key word 5 stored over word 4", ROUNDS,
     "STITCH_LONE_KEY_WORD(STITCH_SB1, 5)", "STITCH_LONE_KEY_WORD(STITCH_SB1, 4)"),
    ("ninth block: the lanes start at block 0's counter", CHACHA,
     "        chacha_advance(lanes, 1);\n", ""),
    ("ninth block: r and s from the words' halves swapped", CHACHA,
     "key[i] = frame_.lone_words[2 * i] | uint64_t(frame_.lone_words[2 * i + 1]) << 32;",
     "key[i] = frame_.lone_words[2 * i + 1] | uint64_t(frame_.lone_words[2 * i]) << 32;"),
    ("seal after block 0 beside a batch: the counter advanced eight", PASS,
     "chacha_advance(st_.chacha.ctr, 1 + kBatchBlocks);", "chacha_advance(st_.chacha.ctr, kBatchBlocks);"),
    ("seal of 449-511 bytes beside block 0: the last byte not written", PASS,
     "emit(st_, ks, 0, in_, out_, len_);", "emit(st_, ks, 0, in_, out_, len_ - 1);"),
    ("seal of 449-511 bytes beside block 0: the keystream buffer not wiped", PASS,
     "        emit(st_, ks, 0, in_, out_, len_);\n        U32x8::wipe<16>(ks[0]);",
     "        emit(st_, ks, 0, in_, out_, len_);"),
    ("seal of 449-511 bytes beside block 0: the counter advanced eight", PASS,
     "        chacha_advance(st_.chacha.ctr, 1 + kBatchBlocks);\n        pos_ = len_;",
     "        chacha_advance(st_.chacha.ctr, kBatchBlocks);\n        pos_ = len_;"),
    ("seal of 449-511 bytes beside block 0: the eighth block's first half from the seventh's", CHACHA,
     "        frame_.out = reinterpret_cast<uint8_t*>(ks[0]);\n        beside_block0<Out::keystream>(st, key);",
     "        frame_.out = reinterpret_cast<uint8_t*>(ks[0]);\n        beside_block0<Out::keystream>(st, key);\n"
     "        ks[0][7] = ks[0][6];"),
    # Short opens: block 0 and the MAC beside the text's rows (avx2/aead_short.hpp).
    ("short open: block 0 one double round short", SHORT,
     "if (i < mac_rounds) block0.double_round();", "if (i + 1 < mac_rounds) block0.double_round();"),
    ("short open: the rows start at block 0's counter", SHORT,
     "load_rows(st.chacha, 1 + 2 * p, in + 4 * p);", "load_rows(st.chacha, 2 * p, in + 4 * p);"),
    ("short open: MAC runs rounded down (the last whole blocks left out)", SHORT,
     "run = (whole + mac_rounds - 1) / mac_rounds;", "run = whole / mac_rounds;"),
    ("short open: one MAC run fewer", SHORT,
     "for (size_t i = 0, done = 0; i < mac_rounds; ++i) {", "for (size_t i = 0, done = 0; i + 1 < mac_rounds; ++i) {"),
    ("short open: the partial last block not absorbed", SHORT,
     "if (mac < len) mac_update(acc, st.mac, ct + mac, len - mac);", "if (false) mac_update(acc, st.mac, ct + mac, len - mac);"),
    ("short open: the OpenSSH grid's held-back block not topped up first", SHORT,
     "    absorb_head(st.mac, acc, ct, mac, len);\n", ""),
    ("short open: the counter not advanced past block 0", SHORT,
     "chacha_advance(st.chacha.ctr, 1 + blocks_for(len));", "chacha_advance(st.chacha.ctr, blocks_for(len));"),
    ("short open: bytes 0..31 of the odd block from the low halves", SHORT,
     "ks[0][2 * p + 1] = U32x8::halves<true>(a, b);", "ks[0][2 * p + 1] = U32x8::halves<false>(a, b);"),
    # Short seals: block 0 beside the text's rows, the ciphertext's MAC after
    # the XOR (aead_short.hpp's short_seal, aead_text.cpp's choice).
    ("short seal: the MAC reads the plaintext", SHORT,
     "    mac_update(acc, st.mac, out, len);\n", "    mac_update(acc, st.mac, in, len);\n"),
    ("short seal: the rows one double round short after block 0", SHORT,
     "for (size_t i = 0; i < mac_rounds; ++i) rows_double_round(r);",
     "for (size_t i = 0; i + 1 < mac_rounds; ++i) rows_double_round(r);"),
    ("short seal taken by three-block texts (one pair: a lane it lacks)", SHORT,
     "inline constexpr size_t kShortSealMax = 2 * kChaChaBlock;",
     "inline constexpr size_t kShortSealMax = 3 * kChaChaBlock;"),
    ("short seal: its keystream left on the stack", SHORT,
     "    mulx::store(st.mac, acc);\n    wipe_upto(ks, blocks_for(len));\n}",
     "    mulx::store(st.mac, acc);\n}"),
    ("short seal taken with the MAC already keyed (a later call re-keys it)", "kernels/avx2/aead_text.cpp",
     "dir == Direction::seal && !st.mac_keyed &&", "dir == Direction::seal &&"),
    ("short seal: the partial last block's keystream not kept for the next call", SHORT,
     "    emit(st, ks, 0, in, out, len);\n    mac_update", "    emit(st, ks, 0, in, out, len);\n    st.ks_pos = 0;\n    mac_update"),
    ("rows beside other work: pair 1's diagonal turns rows c and d the wrong way", ROWS,
     'STITCH_DIAGONALIZE("%[a1]", "%[c1]", "%[d1]")', 'STITCH_DIAGONALIZE("%[a1]", "%[d1]", "%[c1]")'),
    # Block 0 and lone blocks as a row pair where vector operations take one
    # cycle (kLoneBlockInGpr false: STITCH_AVX2_KEY_BLOCK=lane, Zen 4), and a
    # 65-192 byte open's block 0 in the rows' lane 0 (kShortRecordKeyInGpr
    # false: lane, Emerald Rapids).
    ("key block alone as a row pair: the MAC keyed from block 1", AEAD,
     "        key_mac(st, acc, ks[0], 0);\n        wipe_upto(ks, 1);", "        key_mac(st, acc, ks[0], 1);\n        wipe_upto(ks, 1);"),
    ("open with block 0 in the rows: the MAC keyed from the text's first block", SHORT,
     "    key_mac(st, acc, ks[0], 0);\n    mac_update(acc, st.mac, ct, len);",
     "    key_mac(st, acc, ks[0], 1);\n    mac_update(acc, st.mac, ct, len);"),
    ("open with block 0 in the rows: the last ciphertext byte left out of the MAC", SHORT,
     "mac_update(acc, st.mac, ct, len);", "mac_update(acc, st.mac, ct, len - 1);"),
    ("open with block 0 in the rows: the counter not advanced past block 0", SHORT,
     "const size_t blocks = 1 + blocks_for(len);", "const size_t blocks = blocks_for(len);"),
    ("open with block 0 in the rows: the text read from lane 0 (block 0's keystream)", SHORT,
     "        first = 1;\n", "        first = 0;\n"),
    ("open with block 0 in the rows: two-block texts in one pair (a lane the pair lacks)", SHORT,
     "return len <= kChaChaBlock ? open_after_rows<1>", "return len <= 2 * kChaChaBlock ? open_after_rows<1>"),
    ("open with block 0 in the rows: three-block texts in one pair", SHORT,
     ": open_after_rows<2>(st, ks, ct, len);", "\n               : len <= 2 * kChaChaBlock ? open_after_rows<2>(st, ks, ct, len) : open_after_rows<1>(st, ks, ct, len);"),
    ("streamed short open: written from lane 0 whatever block 0 took", SHORT,
     "emit(st, ks, first, in, out, len);", "emit(st, ks, 0, in, out, len);"),
    ("whole-record short open: written from lane 0 whatever block 0 took", "kernels/avx2/aead_record.cpp",
     "masked_xor(ks, first, in, out, len, keep);", "masked_xor(ks, 0, in, out, len, keep);"),
    ("raw ChaCha20's single block as a row pair: the counter not advanced", "kernels/avx2/chacha20.cpp",
     "    avx2::wipe_upto(ks, n);  // keystream (of blocks still to come, where n < 8)\n    chacha_advance(st.ctr, n);",
     "    avx2::wipe_upto(ks, n);  // keystream (of blocks still to come, where n < 8)\n    chacha_advance(st.ctr, n > 1 ? n : 0);"),
    # The vector Poly1305 (x86/poly1305_vector.cpp): a seal's last batch of
    # MAC blocks, and Impl::poly1305_blocks from kVectorPolyMin blocks.
    ("vector Poly1305: the products take 5·r3 for 5·r4 times limb 2 (step and multiply_add)", VECTOR,
     '"vpmuludq 224(%[m]), %[x2], %[" tmp "]', '"vpmuludq 192(%[m]), %[x2], %[" tmp "]'),
    ("vector Poly1305: the lanes pay each other's powers (near and far swapped)", VECTOR,
     "multiply_add(d, a, odd ? m.near : m.far);", "multiply_add(d, a, odd ? m.far : m.near);"),
    ("vector Poly1305: r^5..r^8 from r^3 (the parked multiplier)", VECTOR,
     "    m.step = multiplier(permute<0xff>(low));\n", "    m.step = multiplier(permute<0xaa>(low));\n"),
    # Its one-accumulator form (Zen 4's 20-23 blocks, Emerald Rapids' 20-31,
    # there also a seal's trailing MAC; poly1305_avx2_test forces it on
    # every CPU).
    ("vector Poly1305, one accumulator: the last multiply by r^4 in every lane", VECTOR,
     "    multiply_add(d, a, m.near);\n    finish(acc, d);", "    multiply_add(d, a, m.step);\n    finish(acc, d);"),
    ("vector Poly1305, one accumulator: the last group left out", VECTOR,
     "for (size_t g = 1; g < groups; ++g) step(a, m.step, in + g * kGroup);",
     "for (size_t g = 1; g + 1 < groups; ++g) step(a, m.step, in + g * kGroup);"),
    # The partial last block kept in the context for the next call
    # (x86/keep_block.hpp).
    ("the kept block's bytes 32..63 from its bytes 0..31", AEAD,
     "batch[8 + b % kBatchBlocks].raw());", "batch[b % kBatchBlocks].raw());"),
    # The register wipe, and the MULX loop that needs none.
    ("register wipe: ymm13 left as it was", ZERO,
     '"vpxor %%xmm12, %%xmm12, %%xmm12\\n\\tvpxor %%xmm13, %%xmm13, %%xmm13\\n\\t"',
     '"vpxor %%xmm12, %%xmm12, %%xmm12\\n\\t"'),
    ("MULX Poly1305: h left in xmm3", MULX,
     "    mulx::store(st, acc);\n}",
     '    mulx::store(st, acc);\n    __asm__ volatile("vmovq %0, %%xmm3" : : "r"(acc.h0) : "xmm3");\n}'),
    # The tag (shared by every set).
    ("Poly1305 tag: h >= p decided without the carry into g's top limb", POLY_FINAL,
     '            "adcq $0, %[h2]\\n\\t"                          // now g',
     '            "\\n\\t"                          // now g'),
    # Raw ChaCha20's last nine blocks in one statement (BatchRun::xor_nine).
    ("raw nine blocks: the ninth's counter words not added back", CHACHA,
     "frame_.lone_words[i] + ninth[i - 12]", "frame_.lone_words[i]"),
    ("raw nine blocks: the ninth from the eighth's counter", CHACHA,
     "chacha_advance(ninth, kBatchBlocks);", "chacha_advance(ninth, kBatchBlocks - 1);"),
    ("raw nine blocks: c8 and c9 home to each other's slot", ROUNDS,
     "STITCH_SSTORE(STITCH_SCP, 8) STITCH_SSTORE(STITCH_SCQ, 9)",
     "STITCH_SSTORE(STITCH_SCP, 9) STITCH_SSTORE(STITCH_SCQ, 8)"),
    ("raw nine blocks: the frame not wiped after", CHACHA_CPP,
     "            batches.xor_nine(st, in, out, last);\n            batches.wipe();  // the ninth block's words",
     "            batches.xor_nine(st, in, out, last);"),
    ("raw nine blocks: the ninth's keystream left in its buffer", CHACHA_CPP,
     "            wipe(last, sizeof(last));\n", ""),
    ("raw nine blocks: half the ninth block XORed", CHACHA_CPP,
     "xor_short(out + off, in + off, last, kChaChaBlock);", "xor_short(out + off, in + off, last, kChaChaBlock / 2);"),
    ("raw nine blocks, a partial ninth: the counter not past it", CHACHA_CPP,
     "            batches.wipe();  // the ninth block's words\n            chacha_advance(st.ctr, n);",
     "            batches.wipe();  // the ninth block's words\n            chacha_advance(st.ctr, kBatchBlocks);"),
    ("raw, eight whole blocks and a partial one without the nine-block statement: the batch's counter not advanced",
     CHACHA_CPP, "            chacha_advance(st.ctr, kBatchBlocks);\n            const uint8_t* none = nullptr;",
     "            const uint8_t* none = nullptr;"),
    # A raw update's last run with its partial block (chacha20_xor_last_avx2).
    ("last run: the kept block is the last whole block's", CHACHA_CPP,
     "x86::keep_block(kept, ks[0][whole].raw(), ks[0][8 + whole].raw());",
     "x86::keep_block(kept, ks[0][whole - (whole > 0)].raw(), ks[0][8 + whole - (whole > 0)].raw());"),
    ("last run: the kept block's halves swapped", CHACHA_CPP,
     "x86::keep_block(kept, ks[0][whole].raw(), ks[0][8 + whole].raw());",
     "x86::keep_block(kept, ks[0][8 + whole].raw(), ks[0][whole].raw());"),
    ("last run: the counter not past the partial block", CHACHA_CPP,
     "        avx2::wipe_upto(ks, n);\n        chacha_advance(st.ctr, n);\n    }\n    xor_short",
     "        avx2::wipe_upto(ks, n);\n        chacha_advance(st.ctr, whole);\n    }\n    xor_short"),
    ("last run: the partial block's bytes not XOR'd", CHACHA_CPP,
     "xor_short(out + whole * kChaChaBlock, in + whole * kChaChaBlock, kept, len % kChaChaBlock);",
     "xor_short(out + whole * kChaChaBlock, in + whole * kChaChaBlock, kept, len % kChaChaBlock / 2);"),
    ("last run: its keystream not wiped", CHACHA_CPP,
     "        avx2::wipe_upto(ks, n);\n        chacha_advance(st.ctr, n);", "        chacha_advance(st.ctr, n);"),
    # OpenSSH's short packets: both keys' blocks from one call
    # (Impl::chacha20_two_keys, avx2/two_keys.cpp; openssh.cpp; aead.cpp).
    ("two keys: the payload's blocks one counter on", TWO_KEYS,
     "plus_u64(a_off, b_off);", "plus_u64(a_off, b_off + 1);"),
    ("two keys: the length's block under K_2's key rows 4..7", TWO_KEYS,
     "two_halves(a.key + 4, b.key + 4)", "two_halves(b.key + 4, b.key + 4)"),
    ("two keys: the keystream buffer not wiped", TWO_KEYS,
     "    U32x8::wipe<6>(&ks[0][0]);\n", ""),
    ("two keys: the input rows not wiped", TWO_KEYS,
     "    U32x8::wipe<12>(frame.in);  // both keys' words\n", ""),
    ("short packet: a refused packet's length not masked", OPENSSH,
     "(enc_length ^ load_le32(ks)) & (0x01010101u * keep)", "(enc_length ^ load_le32(ks))"),
    ("short packet: a refused packet's payload not masked", OPENSSH,
     "payload, keep);", "payload, 0xff);"),
    ("short packet: the length sealed with block 0's keystream", OPENSSH,
     "short_keystream(st, seqnr, payload, ks);\n    store_le32(out, load_le32(in) ^ load_le32(ks));",
     "short_keystream(st, seqnr, payload, ks);\n    store_le32(out, load_le32(in) ^ load_le32(ks + 64));"),
    ("short packet: payloads past the lanes the call fills", OPENSSH,
     "kShortPayloadMax = 4 * kChaChaBlock;", "kShortPayloadMax = 5 * kChaChaBlock;"),
    ("short packet: the open's keystream buffer not wiped", OPENSSH,
     "    wipe(ks, sizeof(ks));\n    return keep != 0;", "    return keep != 0;"),
    ("text with keystream: a later text call not refused", AEAD_CPP,
     "    st.text_room = len;  // the whole text: a later aead_text call is refused\n", ""),
    ("text with keystream: an open's MAC skips the payload", AEAD_CPP,
     "        poly1305_update(*st.impl, st.mac, in, len);\n    }", "    }"),
]
target = "test_kernel_sets"
# The vector Poly1305's own suite too: it forces both forms on every CPU;
# and the AVX2 kernels' stack after they return (the wipes).
extras = ["kernels/poly1305_avx2_test", "wipe/avx2_stack_test"]
extra = " ".join(e.split("/")[1] for e in extras)


def check():
    # The seal's block 0 in lane 0 and in general registers beside its
    # first batch (STITCH_AVX2_KEY_BLOCK), whatever this CPU would choose.
    failed, caught = set(), False
    for key in ("lane", "gpr"):
        r = subprocess.run(f"STITCH_AVX2_KEY_BLOCK={key} {build}/tests/kernels/{target} "
                           "--gtest_filter='*/avx2*:*Avx2*'", shell=True, cwd=root, capture_output=True, text=True)
        caught |= r.returncode != 0
        # "[  FAILED  ] EverySet/KernelSuite.Name/avx2, where ...": the Name.
        failed |= {f"{l.split()[3].split('/')[1].split('.')[-1]} ({key})" for l in r.stdout.splitlines()
                   if l.startswith("[  FAILED  ]") and len(l.split()) > 3 and l.split()[3].count("/") >= 2}
        runs = [l.split()[3] for l in r.stdout.splitlines() if l.startswith("[ RUN      ]")]
        signal = -r.returncode if r.returncode < 0 else r.returncode - 128  # the shell's 128 + N
        if signal > 0 and runs:  # killed (a guard page's fault): the test it died in
            failed.add(f"{runs[-1].split('/')[1].split('.')[-1]} ({key}, signal {signal})")
    # The extras under both keys too: a lone block runs in general registers
    # (its asm statement's frame) only where STITCH_AVX2_KEY_BLOCK=gpr or
    # the CPU's rule says so.
    for e in extras:
        for key in ("lane", "gpr"):
            r = subprocess.run(f"STITCH_AVX2_KEY_BLOCK={key} {build}/tests/{e}", shell=True, cwd=root,
                               capture_output=True, text=True)
            caught |= r.returncode != 0
            failed |= {f"{e.split('/')[1]}: {l.split()[3].split('/')[1]} ({key})" for l in r.stdout.splitlines()
                       if l.startswith("[  FAILED  ]") and len(l.split()) > 3 and "/" in l.split()[3]}
    return (", ".join(sorted(failed)) or "a test") if caught else ""


runner.run(mutants, f"cmake --build {build} --target {target} {extra} -j2", check)
