// The AVX2 set's cut-offs. One design serves every AVX2 CPU: its speed comes
// from where the batch's rounds keep their words (avx2/batch_rounds.hpp),
// not from per-CPU tuning. Four choices differ by CPU, where a measurement
// showed it at least 3% faster: where block 0 runs in seals, in short opens
// and alone (Zen 4, Zen 5, Emerald Rapids, Ice Lake-SP), and the vector
// Poly1305's shape from 20 blocks (Zen 4 to 23, Emerald Rapids to 31, Ice
// Lake-SP to 63), below; the values
// here were measured where they say (docs/kernels.md, "The AVX2 set").
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"

namespace stitch::kern::avx2 {

// Poly1305 runs of at least this many blocks take the four-lane vector code
// (x86/poly1305_vector.hpp), shorter ones MULX: the break-even measured on
// Zen 5 (20) and Zen 4 (26), November and December 2026; on Zen 4 about
// 16 since the set-up stopped copying the key through memory (20 blocks
// 262 cycles against 304 for MULX, 16 blocks 232 against 238).
inline constexpr size_t kVectorPolyMin = 20;

// Where the CPU rule says so (avx2::poly1305_one_accumulator_end: Zen 4,
// Emerald Rapids), runs of kOneAccumulatorMin blocks up to that CPU's end
// take the vector code with one accumulator and r..r^4 only
// (poly1305_blocks_avx2_vector_one), a lower fixed cost than two
// accumulators' r..r^8, though each group then waits out a whole step.
// Measured on Zen 4 (EPYC model 0x11, December 2026, g++ 12), cycles a
// call: 20 blocks 245 against 262 for two accumulators, 24 blocks 275
// against 282 (under 3%, so two from there), 28 level; through EVP,
// POLY1305 320 B 0.98-0.99x -> 1.04-1.05x the default, 352 B 0.99-1.01x ->
// 1.03-1.05x. At 16 blocks it beat MULX in a call (214 against 238 cycles)
// but not through EVP (256-288 B 1.05-1.06x either way: the MULX chain
// overlaps the next message), so MULX keeps those.
// Measured on Emerald Rapids (Xeon, family 6 model 0xCF, December 2026,
// both forms in one process, one / two by the median): 20-23 blocks
// 0.92-0.96, 24-31 0.95-0.98 when the host was idle (25 and 27, three
// groups and a lead, 0.98-0.99) and 0.93-0.95 when it was busy, 32-40
// 0.97-1.00 idle (0.94-0.95 busy), 64 and up 0.98-1.08; through EVP without
// AVX-512, POLY1305 320-383 B 1.02-1.07x -> 1.10-1.15x the default, and
// with the end at 32 (nine alternating processes of each) 384 B
// 1.02-1.15x -> 1.14-1.18x, 448 B 1.06-1.13x -> 1.13-1.16x, 496 B
// 0.99-1.09x -> 1.09-1.13x. So its end is 32 there.
// Zen 5, whose vector adds take two cycles, would make each step's wait
// twice as long: not measured, so it keeps two accumulators, as do the
// cores not measured.
// Measured on Ice Lake-SP (Xeon, family 6 model 0x6A, December 2026,
// AVX-512 hidden from both sides, the end forced through a test build in
// turn over five to eight processes, medians of each process's speedup):
// with two accumulators POLY1305 of 320-640 B ran 0.96-1.03x the default;
// with the end at 32, 320-511 B 1.04-1.09x and 512-704 B still 0.97-1.00x;
// at 48, 512-704 B 1.05-1.07x; at 64, 768 B 1.02-1.05x -> 1.04-1.13x
// (TLS 1.3 seal of 768 B 1.19 -> 1.24x). Past 64 blocks the processes
// disagreed, so its end is 64 there.
inline constexpr size_t kOneAccumulatorMin = kVectorPolyMin;
inline constexpr size_t kOneAccumulatorEndZen4 = 24;
inline constexpr size_t kOneAccumulatorEndEmeraldRapids = 32;
inline constexpr size_t kOneAccumulatorEndIceLakeServer = 64;

// An open's first call (block 0 and text blocks whose ciphertext is then
// absorbed with no rounds beside it) takes the text's blocks mod 8 when
// they are at most this many, else block 0 alone, and the remainder goes
// last, in a batch with its MAC beside. Measured on Zen 5 (December 2026):
// a 960-byte open 530 -> 500 ns with block 0 alone, a 256-byte one 289 ->
// 305, a 576-byte one 400 -> 490.
inline constexpr size_t kOpenFirstMax = 4;

// Where block 0 (the Poly1305 key), or a block with no other blocks beside
// it, runs: in general-purpose registers, on the integer units the vector
// rounds leave idle, or in a lane of the vector rounds. Two rules, each
// measured where it names a CPU and the design elsewhere (avx2/set.cpp):
//
// A seal of at least a batch of text computes block 0 in general-purpose
// registers beside its first eight text blocks (one asm statement,
// avx2/batch_rounds.hpp's batch_nine), rather than in lane 0 beside seven,
// on AMD Zen 4 and Zen 5 and Intel Emerald Rapids: a 1 KiB seal then takes
// two batches instead of three. Measured (kernel, December 2026): Zen 5
// 1 KiB 592 -> 558 ns; Zen 4 (EPYC model 0x11, AVX-512 hidden; its client
// and Zen 4c models are the same core, not measured) 512 B 386-398 ->
// 328-331 ns, 1 KiB 553-559 -> 482-487, 1300 B 663-1027 -> 610-632, 4 KiB
// 1462-2164 -> 1384-1386. Intel Emerald Rapids (Xeon, family 6 model 0xCF,
// December 2026, AVX-512 hidden; ten alternating processes of each,
// medians): 512 B 917 -> 760 ns, 1 KiB 1389 -> 1267, 2-4 KiB 4%, 1300 B and
// 16 KiB level; through EVP (six of each) the TLS 1.3 seal of 512 B-16 KiB
// 0.96-1.06x -> 1.12-1.35x the default. Elsewhere
// not measured: llvm-mca has the ninth block cost 23-35% of a batch on Zen
// 2/3 and Intel cores, and the same core in Sapphire Rapids and Alder Lake
// keeps lane 0 until it is measured.
//
// On Emerald Rapids only where that saves a batch: where the text's
// blocks are a multiple of eight (512 B, 1 KiB, 16 KiB, ...). Elsewhere both
// ways take the same number of batch statements, and the ninth block's
// integer work (about 1200 instructions beside a batch's ~1400 vector
// ones) is free only while the core's other thread is idle. Measured
// (kernel, AVX-512 hidden, both ways in one process, December 2026),
// beside / lane: where it saves a batch, 0.77 (512 B), 0.83 (1 KiB), 0.87
// (1536 B), 0.89 (2 KiB), 0.94 (4 KiB), 0.98 (16 KiB), the same in the
// host's busy phases (inferred: a busy SMT sibling); where it does not,
// 0.98-1.01 idle and 1.02-1.09 busy (576-2112 B), and 1.02 at 960 B
// either way (docs/benchmarks.md). Zen 4 and Zen 5 were measured in idle
// phases only and keep it for every seal of eight text blocks or more.
// Ice Lake-SP (Xeon, family 6 model 0x6A, December 2026) takes Emerald
// Rapids' rule: through EVP (AVX-512 hidden from both sides, each way in
// turn over five processes, medians) beside every seal, TLS 1.3 seals of
// 512 B, 1 KiB, 2 KiB and 4 KiB went 1.08, 1.05, 1.04, 1.06x the default
// -> 1.24, 1.17, 1.12, 1.11x and TLS 1.2 seals of 512 B and 1 KiB 0.98x ->
// 1.17 and 1.11x, while 520, 576, 1088, 1100 and 1300 B went 3-9% slower
// (1.26 -> 1.17x at 520 B).
enum class KeyBeside : uint8_t {
    never,           // block 0 in lane 0 beside seven text blocks
    every_seal,      // every seal of at least eight text blocks (Zen 4, Zen 5)
    saving_a_batch,  // only where the text's blocks are a multiple of eight (Emerald Rapids, the 0xA7 guest, Ice Lake-SP)
};

// Whether a seal's first call of len bytes takes block 0 beside a batch:
// from eight text blocks on (449 bytes), the last one partial or not. A
// text of 449-511 bytes takes the batch's keystream into a buffer; lane 0
// would take a batch for block 0 and seven blocks, then another for the
// eighth. Measured on Emerald Rapids (kernel, AVX-512 hidden, December
// 2026): a 449-511 byte seal in two batches cost 1300-1370 TSC ticks by the
// median, a 512-byte one beside 1090 (docs/benchmarks.md). On Zen 5 (the
// kernel, AVX-512 hidden, December 2026) 449-511 byte seals beside took
// 0.74-0.78 of lane 0's time. Zen 4 was measured from 512 bytes only.
constexpr bool key_beside_takes(KeyBeside rule, size_t len) {
    const size_t blocks = len / kChaChaBlock + (len % kChaChaBlock != 0);
    if (blocks < 8 || rule == KeyBeside::never) return false;
    return rule == KeyBeside::every_seal || blocks % 8 == 0;
}

// AMD Zen 5; Zen 4 is three model ranges of family 0x19 (avx2/set.cpp's rows).
inline constexpr uint32_t kZen5Family = 0x1a;
inline constexpr uint32_t kEmeraldRapidsModel = 0xcf;  // Intel family 6
// Intel family 6: Rocket Lake's model, which a KVM guest measured in
// December 2026 reports with AMX (a Xeon; Granite Rapids by inference).
inline constexpr uint32_t kXeonGuestA7Model = 0xa7;
// Intel family 6: Ice Lake-SP (Xeon Scalable, 3rd generation), measured in
// December 2026 on a KVM guest of 2 vCPUs. Ice Lake-D (0x6C) and the client
// Ice Lake and Tiger Lake cores are not measured.
inline constexpr uint32_t kIceLakeServerModel = 0x6a;

// A block with nothing beside it (raw ChaCha20's single block, block 0 of a
// record with no text, block 0 and the text of a short open) runs in
// general-purpose registers on Zen 5 only, where every ymm operation takes
// two cycles: one block's ten double rounds ~300 cycles there against ~490
// for a row pair. Where they take one (Zen 4, measured: a row pair 332
// cycles against 426 in general registers, stitch_core_bounds; Emerald
// Rapids, measured: 329 against 325, and raw ChaCha20's 64 B kernel call
// 142 ns against 153 at best of ten processes; Zen 2/3, unmeasured) a row
// pair is the quicker or level, as OpenSSL's default provider runs one
// block in a vector register there (the Zen 5 row of avx2/set.cpp).

// An open of 65-192 bytes (two or three text blocks) with the MAC not keyed
// yet runs block 0 in general-purpose registers beside the text's one or
// two row pairs, and the MAC absorbs the ciphertext beside the rows' last
// double rounds (avx2/aead_short.hpp, key_beside_rows), on every CPU but
// Emerald Rapids. A seal's first call of 1-128 bytes takes block 0 beside
// its row pair wherever an open of as many blocks does (short_seal_takes),
// the AAD absorbed beside it and the ciphertext after the XOR: measured
// on Zen 5 (kernel, AVX-512 hidden, December 2026) 16-128 B 204-238 ->
// 152-180 ns against block 0 in lane 0 and the whole MAC after the
// rounds (129-192 B not, avx2/aead_short.hpp); Zen 4 and the unmeasured
// cores follow the open's rule, the same structure with less integer work
// beside the rows. Opens:
// measured on Zen 5 (64 B 778 -> 558 core cycles, 128 B 852 -> 570, 192 B
// 910 -> 716) and Zen 4 (128 B 200 -> 190 ns) against block 0 in the rows'
// lane 0 and the MAC after the rounds. On Emerald Rapids
// (Xeon, family 6 model 0xCF) block 0 takes lane 0 of two row pairs and
// the MAC follows the rounds (open_after_rows), as a 1-64 byte open does
// wherever lone blocks run in lanes: two double rounds of block 0 beside
// each row double round are integer work the core's other thread competes
// for. Measured there (kernel, AVX-512 hidden, both ways in one process,
// December 2026), lanes / beside: 65 B 0.96, 128 B 0.98, 129 B 0.89, 192 B
// 0.91 with the host idle, 0.60-0.86 in its busy phases (inferred: a busy
// SMT sibling); through EVP, opens of 129-192 B 1.74-1.92x -> 1.89-2.22x
// the default (docs/benchmarks.md).
// Ice Lake-SP (Xeon, family 6 model 0x6A, December 2026) takes Emerald
// Rapids' lanes: through EVP (AVX-512 hidden from both sides, each way in
// turn over five processes, medians) TLS 1.3 opens of 80-192 B went
// 1.50-1.71x the default beside -> 1.74-2.04x in lanes, first-call seals
// of 80 and 128 B 1.50 and 1.56x -> 1.94 and 1.74x, TLS 1.2 opens of
// 80-192 B 1.41-1.58x -> 1.63-1.84x; 64 B and 160-256 B seals level.
// Sapphire Rapids and Alder/Raptor Lake's P-cores, the same core as
// Emerald Rapids, were not measured and keep the design's default.

// Opens of at most this many bytes with the MAC not keyed yet take the short
// path (avx2/aead_short.hpp): the key block and the MAC beside one run of
// row-layout rounds.
inline constexpr size_t kShortOpenMax = kShortMax;

}  // namespace stitch::kern::avx2
