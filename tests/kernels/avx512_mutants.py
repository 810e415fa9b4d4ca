#!/usr/bin/python3
"""Mutants of the AVX-512 set's ChaCha20 shapes, of its IFMA Poly1305's
powers of r, and of what its kernels leave on the stack (docs/kernels.md,
"What the AVX-512 set leaves on the stack"): plants each in turn in the
source, rebuilds in BUILD_DIR, runs avx512_stack_test and the kernel suite
on the AVX-512 set with raw ChaCha20 in one batch at a time, in two in the
intrinsic batches, and in two in their asm statement (pair_run.hpp), and
restores the file. Every mutant must be caught. Needs a CPU with
AVX-512 (the stack search reads the native set's frames). Not part of
CTest (each one is a rebuild, ~40 s).

  tests/kernels/avx512_mutants.py [BUILD_DIR] [INDEX...]     (default: build; all)
"""
import os
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import mutants as runner  # noqa: E402  (tests/mutants.py)

build = runner.build_dir()
HPP = "kernels/avx512/chacha20.hpp"
CPP = "kernels/avx512/chacha20.cpp"
PASS = "kernels/avx512/aead_pass.hpp"
IFMA = "kernels/avx512/poly1305_ifma.hpp"
RUN = "kernels/avx512/batch_run.hpp"
PAIR = "kernels/avx512/pair_run.hpp"
TWO_KEYS = "kernels/avx512/two_keys.cpp"
mutants = [
    # The wipes of vector width.
    ("wipe_vectors leaves the first vector", HPP,
     "for (size_t i = 0; i < K; ++i) V::zero()", "for (size_t i = 1; i < K; ++i) V::zero()"),
    ("wipe_blocks leaves the first block", HPP,
     "for (size_t i = 0; i < n; ++i) {\n        U32x16::zero()", "for (size_t i = 1; i < n; ++i) {\n        U32x16::zero()"),
    # The key's words read again after the rounds, not kept.
    ("add_input: the key's words not passed through the asm", HPP,
     '    __asm__("" : "+r"(key));\n', "\n"),
    # The blocks of a batch, each index a constant.
    ("emit_blocks writes one block too many", CPP,
     "if (b < n) to.block(ks, b, in + b", "if (b <= n) to.block(ks, b, in + b"),
    ("emit_blocks, keystream only, one block short", CPP,
     "if (b < n) to.block(ks, b, nullptr", "if (b + 1 < n) to.block(ks, b, nullptr"),
    # Wiping an array the compiler would keep in registers puts it in memory:
    # done for a batch cut short only, it left whole batches' keystream there.
    ("a batch's keystream wiped only when the batch is cut short", CPP,
     "    emit_blocks<N>(ks, n, in, out, to);\n", "    emit_blocks<N>(ks, n, in, out, to);\n    if (n != N) wipe_vectors(ks);\n"),
    ("a row run's keystream wiped only when under four blocks", CPP,
     "    emit_blocks<4>(r, n, in, out, to);\n", "    emit_blocks<4>(r, n, in, out, to);\n    if (n != 4) wipe_vectors(r);\n"),
    # Two batches side by side, in a frame that is scrubbed.
    ("pairs of batches: the frame not scrubbed", CPP,
     "        scrub_below(pairs(st, in, out, nblocks / 32, to));", "        pairs(st, in, out, nblocks / 32, to);"),
    ("scrub_below covers half the frame", CPP,
     "const size_t blocks = (depth + 64 + kChaChaBlock - 1) / kChaChaBlock;",
     "const size_t blocks = (depth / 2 + kChaChaBlock - 1) / kChaChaBlock;"),
    ("two batches: the second from the first's counter", HPP,
     "    add_input(st, first + uint32_t(N), y);", "    add_input(st, first, y);"),
    ("two batches: the second's output over the first's last block", CPP,
     "out + 16 * kChaChaBlock, to);", "out + 15 * kChaChaBlock, to);"),
    # The AEAD's keystream buffers and the block kept for the next call.
    ("AEAD first batch's keystream not wiped", PASS,
     "        emit(st_, ks, 0, in_, out_, first);\n        wipe_vectors(ks);", "        emit(st_, ks, 0, in_, out_, first);"),
    ("AEAD tail batch's keystream not wiped", PASS,
     "        wipe_vectors(ks);  // emit's loop", "        // emit's loop"),
    ("AEAD chunk's last bytes: the buffer wiped one block short", PASS,
     "wipe_blocks(ks, blocks);", "wipe_blocks(ks, blocks - 1);"),
    ("AEAD chunk's last bytes: the kept block's bytes 32..63 from its bytes 0..31", PASS,
     "U32x8::load_le(last + 32).raw());", "U32x8::load_le(last).raw());"),
    # The IFMA Poly1305's powers of r, built in lanes.
    ("IFMA Poly1305: r^3 put in r^2's lane", IFMA,
     "put_lane<2>(h, acc);", "put_lane<1>(h, acc);"),
    ("IFMA Poly1305: the powers' middle limb shifted by 21, not 20", IFMA,
     "shl64<20>(h.l1)), mask44)", "shl64<21>(h.l1)), mask44)"),
    ("IFMA Poly1305: the last step's powers in the wrong lane order", IFMA,
     "permute<0x27>(f.v)", "permute<0x2d>(f.v)"),
    # The rounds' lines, each chain's three ops in turn (chacha20.hpp's line).
    ("rounds: the second line with b and d swapped", HPP,
     "line<12>(c, d, b); after(1);", "line<12>(c, b, d); after(1);"),
    ("rounds: a line of the fourth chain skipped", HPP,
     "for (int i = 0; i < 4; ++i) line<R>(a.v[i], b.v[i], d.v[i]);",
     "for (int i = 0; i < 3; ++i) line<R>(a.v[i], b.v[i], d.v[i]);"),
    ("rounds: the rotation by 8 made by 7", HPP,
     "a += b; d ^= a; d = simd::rotl<R>(d);", "a += b; d ^= a; d = simd::rotl<(R == 8 ? 7 : R)>(d);"),
    # The multiplies by 5·2^k kept as shifts (times5_shl).
    ("IFMA Poly1305: times5_shl's high shift one short", IFMA,
     "V high = shl64<K + 2>(x);", "V high = shl64<K + 1>(x);"),
    ("IFMA Poly1305: limb 2's high part folded at 2^139", IFMA,
     "d0 = add64(d0, times5_shl<10>(e2));", "d0 = add64(d0, times5_shl<9>(e2));"),
    ("IFMA Poly1305: the carry from 2^130 times 4, not 5", IFMA,
     "d0 = add64(d0, times5_shl<0>(c));", "d0 = add64(d0, shl64<2>(c));"),
    # A raw update's last run with its partial block (chacha20_xor_last).
    ("last run of 9-16 blocks: the kept block is the one before", CPP,
     "if (kept) x86::keep_block(kept, _mm512_castsi512_si256(ks[n - 1].raw()),\n                                  _mm512_extracti64x4_epi64(ks[n - 1].raw(), 1));",
     "if (kept) x86::keep_block(kept, _mm512_castsi512_si256(ks[n - 2].raw()),\n                                  _mm512_extracti64x4_epi64(ks[n - 2].raw(), 1));"),
    ("last run of 1-2 blocks: the kept block's halves swapped", CPP,
     "if (kept) x86::keep_block(kept, ks[n - 1].raw(), ks[8 + n - 1].raw());\n        wipe_vectors(r);",
     "if (kept) x86::keep_block(kept, ks[8 + n - 1].raw(), ks[n - 1].raw());\n        wipe_vectors(r);"),
    ("last run: the counter not past the partial block", CPP,
     "    }\n    chacha_advance(st.ctr, n);\n}", "    }\n    chacha_advance(st.ctr, n - 1);\n}"),
    ("last run of 1-2 blocks: its keystream not wiped", CPP,
     "        wipe_vectors(r);\n        wipe_rows2(ks);\n    }\n    chacha_advance(st.ctr, n);",
     "        wipe_vectors(r);\n    }\n    chacha_advance(st.ctr, n);"),
    ("last run, a lone block in general registers: the partial bytes one short", CPP,
     "        xor_short(out, in, kept, len);", "        xor_short(out, in, kept, len - 1);"),
    # Five to twelve blocks as two or three zmm row sets (keystream_row_sets).
    ("row sets: each set's counter k past the first, not 4k", HPP,
     "load_rows(st, in + 4 * k, uint32_t(4 * k));", "load_rows(st, in + 4 * k, uint32_t(k));"),
    ("row sets: lane 0 of a set from the first's counter", HPP,
     "_mm512_setr_epi32(f, 0, 0, 0, f + 1,", "_mm512_setr_epi32(0, 0, 0, 0, f + 1,"),
    ("row sets: the last set's rotations skipped", HPP,
     "for (size_t k = 0; k < K; ++k) d[k] = simd::rotl<R>(d[k]);",
     "for (size_t k = 0; k + 1 < K; ++k) d[k] = simd::rotl<R>(d[k]);"),
    ("row sets: a and c to the diagonals the wrong way round", HPP,
     "a[k] = a[k].template rotate_words<3>(), c[k] = c[k].template rotate_words<1>();",
     "a[k] = a[k].template rotate_words<1>(), c[k] = c[k].template rotate_words<3>();"),
    ("row sets: row c's input from row b", HPP,
     "r[4 * k + 2] = c[k] + in[4 * k + 2]", "r[4 * k + 2] = c[k] + in[4 * k + 1]"),
    ("row sets: only the first set's rows made blocks", HPP,
     "        rows_to_blocks(r + 4 * k);", "        if (k == 0) rows_to_blocks(r + 4 * k);"),
    ("row sets: thirteen blocks in three sets", CPP,
     "if (nblocks > 12 || (nblocks > 8 && !kRowSets))", "if (nblocks > 13 || (nblocks > 8 && !kRowSets))"),
    ("row sets: a whole run's last block not written", CPP,
     "emit_blocks<4 * K>(r, n, in, out, to);", "emit_blocks<4 * K - 1>(r, n, in, out, to);"),
    ("row sets, a raw update's last run: the kept block is the one before", CPP,
     "if (kept) x86::keep_block(kept, _mm512_castsi512_si256(r[n - 1].raw()),\n                              _mm512_extracti64x4_epi64(r[n - 1].raw(), 1));",
     "if (kept) x86::keep_block(kept, _mm512_castsi512_si256(r[n - 2].raw()),\n                              _mm512_extracti64x4_epi64(r[n - 2].raw(), 1));"),
    ("row sets, a raw update's last run: its keystream not wiped", CPP,
     "    to.last(r, in, out, len);\n    if (kept) x86::keep_block(kept, _mm512_castsi512_si256(r[n - 1].raw()),\n                              _mm512_extracti64x4_epi64(r[n - 1].raw(), 1));\n    wipe_vectors(r);",
     "    to.last(r, in, out, len);\n    if (kept) x86::keep_block(kept, _mm512_castsi512_si256(r[n - 1].raw()),\n                              _mm512_extracti64x4_epi64(r[n - 1].raw(), 1));"),
    ("row sets, a record's first call: twelve text blocks in three sets", PASS,
     "else if (n <= 11 && kRowSets)", "else if (n <= 12 && kRowSets)"),
    ("row sets, a record's first call: the keystream not wiped", PASS,
     "        keyed_from_lane(r, n);\n        wipe_vectors(r);\n    }\n\n    template <size_t N>",
     "        keyed_from_lane(r, n);\n    }\n\n    template <size_t N>"),
    # Whole batches in one asm statement (batch_run.hpp): the counter step,
    # its carry, the rounds, the feed-forward, the transpose, the output.
    ("batch run: no carry into word 13 when a lane's counter wraps", RUN,
     r'"vpsubd %%zmm20, %%zmm17, %%zmm17\n\t"', '""'),
    ("batch run: the carry taken at 16 as well (below-or-equal)", RUN,
     r'"vpcmpud $1, %[sixteens]', r'"vpcmpud $2, %[sixteens]'),
    ("batch run: lane 0's counter on by 17", RUN,
     "kSixteens[16] = {16, 16,", "kSixteens[16] = {17, 16,"),
    ("batch run: nine double rounds", RUN,
     r'"mov $10, %[r]\n\t"', r'"mov $9, %[r]\n\t"'),
    ("batch run: the diagonals' third chain from word 9, not 8", RUN,
     "STITCH_ZHALF(0, 5, 10, 15, 1, 6, 11, 12, 2, 7, 8, 13,", "STITCH_ZHALF(0, 5, 10, 15, 1, 6, 11, 12, 2, 7, 9, 13,"),
    ("batch run: the rotation by 12 made by 11", RUN,
     "STITCH_ZLINES(c0, d0, b0, c1, d1, b1, c2, d2, b2, c3, d3, b3, 12)",
     "STITCH_ZLINES(c0, d0, b0, c1, d1, b1, c2, d2, b2, c3, d3, b3, 11)"),
    ("batch run: word 15's feed-forward left out", RUN,
     r'"vpaddd %%zmm19, %%zmm15, %%zmm15\n\t"', '""'),
    ("batch run: sigma's word 3 not reloaded after the transpose", RUN,
     r'"vpbroadcastd 12(%[sigma]), %%zmm23\n\t"', '""'),
    ("batch run: words to lanes, the high quadwords' sources swapped", RUN,
     '"vpunpckhqdq " STITCH_Z(r2) ", " STITCH_Z(r0) ", " STITCH_Z(r3)',
     '"vpunpckhqdq " STITCH_Z(r0) ", " STITCH_Z(r2) ", " STITCH_Z(r3)'),
    ("batch run: lanes to blocks, block 4 + m from the wrong lanes", RUN,
     '"vshufi32x4 $0xdd, " STITCH_Z(t2) ", " STITCH_Z(t0) ", " STITCH_Z(b)',
     '"vshufi32x4 $0x77, " STITCH_Z(t2) ", " STITCH_Z(t0) ", " STITCH_Z(b)'),
    ("batch run: block 15 written over block 14", RUN,
     "OUT(15, 0x3c0)", "OUT(15, 0x380)"),
    ("batch run: the input pointer on by 960 bytes a batch", RUN,
     r'"add $1024, %[in]\n\t"', r'"add $960, %[in]\n\t"'),
    ("batch run: a refused open's blocks not masked", RUN,
     "#define STITCH_ZOUT_KEPT(b, off) STITCH_ZXOR(b, off) STITCH_ZKEEP(b) STITCH_ZSTORE(b, off)",
     "#define STITCH_ZOUT_KEPT(b, off) STITCH_ZXOR(b, off) STITCH_ZSTORE(b, off)"),
    ("batch run: the state's counter one batch short after the run", CPP,
     "    chacha_advance(st.ctr, 16 * batches);\n#endif", "    chacha_advance(st.ctr, 16 * batches - 16);\n#endif"),
    ("batch run: verified opens' whole batches unmasked", CPP,
     "whole_batches<true>(st, in, out, batches, to.keep);", "whole_batches<false>(st, in, out, batches, to.keep);"),
    # Two batches in flight in one asm statement (pair_run.hpp): B's
    # counter, the counter step in memory, the interleaved rounds, B's words
    # through memory during A's transpose, B's output, the wipe after.
    ("pair run: B's counter words from A's", CPP,
     "load_state(st, Keyed ? 17 : 16, x);", "load_state(st, Keyed ? 1 : 0, x);"),
    ("pair run: the counters on by 16 a pair, not 32", PAIR,
     "kThirtyTwos[16] = {32, 32, 32, 32, 32, 32, 32, 32,\n                                                         32, 32, 32, 32, 32, 32, 32, 32};",
     "kThirtyTwos[16] = {16, 16, 16, 16, 16, 16, 16, 16,\n                                                         16, 16, 16, 16, 16, 16, 16, 16};"),
    ("pair run: no carry into B's word 13", PAIR,
     "STITCH_ZCOUNTER_ON_32(320, 384, 30, 31)",
     r'STITCH_ZLOAD(320, 30) "vpaddd %[thirtytwos], %%zmm30, %%zmm30\n\t" STITCH_ZSPILL(30, 320)'),
    ("pair run: the carry taken at 32 as well (below-or-equal)", PAIR,
     r'"vpcmpud $1, %[thirtytwos], "', r'"vpcmpud $2, %[thirtytwos], "'),
    ("pair run: nine double rounds", PAIR,
     r'"mov $10, %[r]\n\t"', r'"mov $9, %[r]\n\t"'),
    ("pair run: B's diagonals' second chain from word 27, not 28", PAIR,
     "16, 21, 26, 31, 17, 22, 27, 28,", "16, 21, 26, 31, 17, 22, 27, 27,"),
    ("pair run: B's rotation by 7 made by 8", PAIR,
     "C0, D0, B0, C1, D1, B1, C2, D2, B2, C3, D3, B3, 7)", "C0, D0, B0, C1, D1, B1, C2, D2, B2, C3, D3, B3, 8)"),
    ("pair run: B's word 13 fed forward from A's", PAIR,
     "STITCH_ZADD_W(384, 29)", "STITCH_ZADD_W(64, 29)"),
    ("pair run: B's words 12 and 13 back from each other's slots", PAIR,
     "STITCH_ZLOAD(448, 28) STITCH_ZLOAD(512, 29)", "STITCH_ZLOAD(512, 28) STITCH_ZLOAD(448, 29)"),
    ("pair run: B's key word 7 fed forward onto word 10", PAIR,
     "STITCH_ZINPUT_0_11(STITCH_ZADD_B, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27)",
     "STITCH_ZINPUT_0_11(STITCH_ZADD_B, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 26)"),
    ("pair run: B's block 31 written over block 30", PAIR,
     "OUT(31, 0x7c0)", "OUT(31, 0x780)"),
    ("pair run: the output pointer on by 1984 bytes a pair", PAIR,
     r'"add $2048, %[out]\n\t"', r'"add $1984, %[out]\n\t"'),
    ("pair run: the keystream left in the words block", CPP,
     "    wipe(w.spill, sizeof(w.spill));\n", ""),
    ("pair run: the state's counter one batch short after the run", CPP,
     "    chacha_advance(st.ctr, 32 * pairs);", "    chacha_advance(st.ctr, 32 * pairs - 16);"),
    ("pair run: verified opens' whole pairs unmasked", CPP,
     "whole_pairs<true>(st, in, out, count, to.keep);", "whole_pairs<false>(st, in, out, count, to.keep);"),
    # A record's first chunk of an even number of batches with block 0 on
    # its own (two batches in flight).
    ("block 0 alone: the counter not moved past it", PASS,
     "    wipe_object(block0);\n    chacha_advance(st.chacha.ctr, 1);", "    wipe_object(block0);"),
    ("block 0 alone: the MAC keyed from block 1", PASS,
     "    x86::ScalarBlock block0(st.chacha);\n    block0.rounds();",
     "    chacha_advance(st.chacha.ctr, 1);\n    x86::ScalarBlock block0(st.chacha);\n    block0.rounds();"),
    ("block 0 alone: the accumulator not stored (the AAD lost)", PASS,
     "    mulx::store(st.mac, acc);\n", ""),
    ("block 0 alone: taken on a later call too", PASS,
     "return kTwoBatches && !st.mac_keyed && batches", "return kTwoBatches && batches"),
    # One pair cut short (17..32 blocks): A's blocks straight out, B's
    # keystream through a buffer; a seal's first call with block 0 in B's
    # free lane; the last run of a raw update two batches long.
    ("cut pair: B's keystream one block on in its buffer", PAIR,
     '#off "-0x400(%[ks])', '#off "-0x3c0(%[ks])'),
    ("cut pair: B's whole blocks XORed with the next block's keystream", CPP,
     "^ U32x16::load_le(ks + i)) & keep)", "^ U32x16::load_le(ks + i + kChaChaBlock)) & keep)"),
    ("cut pair: B's partial block XORed with the whole blocks' last keystream", CPP,
     "^ U32x16::load_le(ks + whole)) & keep)", "^ U32x16::load_le(ks + whole - kChaChaBlock)) & keep)"),
    ("cut pair: the buffer not wiped", CPP,
     "    wipe_blocks(ks, 16);\n    chacha_advance(st.ctr, first + blocks);", "    chacha_advance(st.ctr, first + blocks);"),
    ("cut pair: the buffer wiped one block short", CPP,
     "    wipe_blocks(ks, 16);\n    chacha_advance(st.ctr, first + blocks);",
     "    wipe_blocks(ks, 15);\n    chacha_advance(st.ctr, first + blocks);"),
    ("cut pair: the keystream left in the words block", CPP,
     "    wipe(w.spill, sizeof(w.spill));\n    const size_t left", "    const size_t left"),
    ("cut pair: the kept block the one before the last", CPP,
     "ks + (blocks - 17) * kChaChaBlock", "ks + (blocks - 18) * kChaChaBlock"),
    ("cut pair: the counter not past a partial last block", CPP,
     "chacha_advance(st.ctr, first + blocks);", "chacha_advance(st.ctr, first + len / kChaChaBlock);"),
    ("cut pair: a refused open's whole blocks from B unmasked", CPP,
     "^ U32x16::load_le(ks + i)) & keep)", "^ U32x16::load_le(ks + i)))"),
    ("cut pair: a refused open's partial block from B unmasked", CPP,
     "^ U32x16::load_le(ks + whole)) & keep)", "^ U32x16::load_le(ks + whole)))"),
    ("cut pair: a refused open's blocks from A unmasked", CPP,
     "cut_pair<true>(st, in, out, len, to.keep, nullptr);", "cut_pair<false>(st, in, out, len, to.keep, nullptr);"),
    ("cut pair: a raw update's last run keeps no block", CPP,
     "cut_pair<false>(st, in, out, len, U32x16::splat(0xffffffffu), kept);",
     "cut_pair<false>(st, in, out, len, U32x16::splat(0xffffffffu), nullptr);"),
    ("a raw update's last run of two batches: the rest from block 15", CPP,
     "            in += 16 * kChaChaBlock;\n            out += 16 * kChaChaBlock;\n            len -= 16",
     "            in += 15 * kChaChaBlock;\n            out += 16 * kChaChaBlock;\n            len -= 16"),
    ("keyed pair: block 0 in B's lane 14", CPP,
     "constexpr __mmask16 kLane15 = 0x8000;", "constexpr __mmask16 kLane15 = 0x4000;"),
    ("keyed pair: the text from block 0", CPP,
     "load_state(st, Keyed ? 1 : 0, x);", "load_state(st, 0, x);"),
    ("keyed pair: the key from B's lane 14", CPP,
     "load_le64(ks + 15 * kChaChaBlock + 8 * i)", "load_le64(ks + 14 * kChaChaBlock + 8 * i)"),
    ("keyed pair: the counter not moved past block 0", CPP,
     "constexpr uint32_t first = Keyed ? 1 : 0;", "constexpr uint32_t first = 0;"),
    ("keyed pair: a partial last block's place not kept", PASS,
     "        if (len_ % kChaChaBlock) st_.ks_pos = uint32_t(len_ % kChaChaBlock);\n", ""),
    ("keyed pair: the key words not wiped", PASS,
     "        x86::key_mac(st_, acc_, k);\n        wipe(k, sizeof(k));\n        if (len_", "        x86::key_mac(st_, acc_, k);\n        if (len_"),
    # A run's start and end in 64-bit limbs (start, finish).
    ("IFMA Poly1305: a run starts from h1 in place of h2", IFMA,
     "const Base44 h = to_base44(acc.h0, acc.h1, acc.h2);", "const Base44 h = to_base44(acc.h0, acc.h1, acc.h1);"),
    ("IFMA Poly1305: the end's h1 weighed at 2^43", IFMA,
     '"shlq $44, %[t0]\\n\\t"             // h1', '"shlq $43, %[t0]\\n\\t"             // h1'),
    ("IFMA Poly1305: the end's middle carry dropped", IFMA,
     '"adcq %[t1], %[h1]\\n\\t"', '"addq %[t1], %[h1]\\n\\t"'),
    ("IFMA Poly1305: the end's fold from 2^130 times 4", IFMA,
     '"leaq (%[t0],%[t0],4), %[t0]\\n\\t"', '"leaq (,%[t0],4), %[t0]\\n\\t"'),
    ("IFMA Poly1305: the end keeps bits 130 and up in h2", IFMA,
     '"andq $3, %[h2]\\n\\t"', '"andq $7, %[h2]\\n\\t"'),
    # multiply()'s two orders of the products (Order::carry: limb 1, 2, 0;
    # Order::limbs: 0, 1, 2), each run by the shapes that force it.
    ("IFMA Poly1305, carry order: limb 1's products into limb 0 by 20·r1, not 20·r2", IFMA,
     "    } else {\n        add_products(s, a.l1, m.t2, m.r0, m.r1);",
     "    } else {\n        add_products(s, a.l1, m.t1, m.r0, m.r1);"),
    ("IFMA Poly1305, carry order: limb 0's products into limb 2 by r1, not r2", IFMA,
     "add_products(s, a.l0, m.r0, m.r1, m.r2);\n    }", "add_products(s, a.l0, m.r0, m.r1, m.r1);\n    }"),
    ("IFMA Poly1305, limb order: limb 0's products into limb 0 by r1, not r0", IFMA,
     "    if constexpr (O == Order::limbs) {\n        add_products(s, a.l0, m.r0, m.r1, m.r2);",
     "    if constexpr (O == Order::limbs) {\n        add_products(s, a.l0, m.r1, m.r1, m.r2);"),
    ("IFMA Poly1305: add_products's high product into e1 by m0", IFMA,
     "    s.e1 = madd_hi(s.e1, x, m1);", "    s.e1 = madd_hi(s.e1, x, m0);"),
    # OpenSSH's two keys in zmm rows (Impl::chacha20_two_keys).
    ("two keys: the length's block into lane 2 (over K_2's third block)", TWO_KEYS,
     "reinterpret_cast<const __m128i*>(row)), 3));", "reinterpret_cast<const __m128i*>(row)), 2));"),
    ("two keys: the second row set from K_2's fifth block", TWO_KEYS,
     "load_rows(rest, in + 4, 3);", "load_rows(rest, in + 4, 4);"),
    ("two keys: the rows after the rounds not wiped", TWO_KEYS, "    wipe_vectors(r);\n", ""),
    ("two keys: the input rows not wiped", TWO_KEYS, "    wipe_vectors(in);\n", ""),
]
targets = "avx512_stack_test test_kernel_sets boundary_counter_test"
# One batch at a time with the lone block in general registers and five to
# twelve blocks as row sets, and two with the lone block as a row pair and
# five to twelve blocks as a batch: the CPU table's ways, whatever this CPU
# is (tests/CMakeLists.txt's stitch_add_avx512_shape_tests pairs them so,
# and the asm statement's whole batches with the first, the intrinsic
# batches with the second; the IFMA Poly1305's limb order with the first,
# the carry round's order with the other two).
shapes = [("1", "gpr", "on", "on", "limbs"), ("2", "rows", "off", "off", "carry"), ("2", "gpr", "off", "on", "carry")]
runs = [(exe, args) + shape
        for exe, args in [("wipe/avx512_stack_test", ""),
                          ("kernels/test_kernel_sets", "--gtest_filter=*avx512*"),
                          ("kernels/boundary_counter_test", "--gtest_filter=*avx512*")]
        for shape in shapes]


def check():
    failed = []
    for exe, args, batches, lone, row_sets, batch_run, order in runs:
        env = dict(os.environ, STITCH_AVX512_BATCHES=batches, STITCH_AVX512_LONE_BLOCK=lone,
                   STITCH_AVX512_ROW_SETS=row_sets, STITCH_AVX512_BATCH_RUN=batch_run,
                   STITCH_AVX512_IFMA_ORDER=order)
        r = subprocess.run(f"{build}/tests/{exe} {args}", shell=True, cwd=runner.root, env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            failed.append(f"{exe.split('/')[1]} ({batches} batch{'es' if batches == '2' else ''}, row sets {row_sets}, "
                          f"asm {batch_run}, IFMA {order} order)")
    return ", ".join(failed)


runner.run(mutants, f"cmake --build {build} --target {targets} -j2", check)
