// The AVX2 set's cut-offs. One design serves every AVX2 CPU: its speed comes
// from where the batch's rounds keep their words (avx2/batch_rounds.hpp),
// not from per-CPU tuning. One choice differs by CPU, where a measurement
// showed it at least 3% faster (Zen 5: kKeyBesideBatchFamily); the
// values here were measured where they say (docs/kernels.md, "The AVX2 set").
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"

namespace stitch::kern::avx2 {

// Poly1305 runs of at least this many blocks take the four-lane vector code
// (x86/poly1305_vector.hpp), shorter ones MULX: the break-even measured on
// Zen 5 (20) and Zen 4 (26), November and December 2026.
inline constexpr size_t kVectorPolyMin = 20;

// An open's first call (block 0 and text blocks whose ciphertext is then
// absorbed with no rounds beside it) takes the text's blocks mod 8 when
// they are at most this many, else block 0 alone, and the remainder goes
// last, in a batch with its MAC beside. Measured on Zen 5 (December 2026):
// a 960-byte open 530 -> 500 ns with block 0 alone, a 256-byte one 289 ->
// 305, a 576-byte one 400 -> 490.
inline constexpr size_t kOpenFirstMax = 4;

// A seal of at least a batch of text computes block 0 (the Poly1305 key) in
// general-purpose registers beside its first eight text blocks (one asm
// statement, avx2/batch_rounds.hpp's batch_nine), rather than in lane 0
// beside seven, on AMD family 0x1A (Zen 5) only: a 1 KiB seal then takes
// two batches instead of three. Measured on Zen 5 (December 2026, kernel):
// 1 KiB 592 -> 558 ns; through EVP against the default, 512 B 1.27-1.33x ->
// 1.36-1.41x, 1300 B 1.21-1.31x -> 1.55-1.73x (docs/benchmarks.md).
// Elsewhere not measured: llvm-mca has the ninth block cost 23-35% of a
// batch on Zen 2/3 and Intel cores.
inline constexpr uint32_t kKeyBesideBatchFamily = 0x1a;

// Opens of at most this many bytes with the MAC not keyed yet take the short
// path (avx2/aead_short.hpp): the key block and the MAC beside one run of
// row-layout rounds.
inline constexpr size_t kShortOpenMax = kShortMax;

}  // namespace stitch::kern::avx2
