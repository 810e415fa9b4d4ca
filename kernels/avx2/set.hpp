// The AVX2+BMI2 set: ChaCha20 in ymm registers beside Poly1305 with MULX.
// One Impl for every AVX2 CPU (avx2/tuning.hpp says why).
#pragma once

#include <span>

#include "kernels/avx2/tuning.hpp"
#include "kernels/cpu.hpp"
#include "kernels/impl.hpp"

namespace stitch::kern::avx2 {

// The set's Impl where the CPU has AVX2 and BMI2 and the OS saves ymm state
// (cpu_features_raw: no STITCH_CLEAR_CPUID mask, so tests reach it whatever
// dispatch chose); empty elsewhere.
std::span<const Impl* const> impls() noexcept;

// The rule (avx2/set.cpp): the Impl wherever the masked features have AVX2
// and BMI2, asked for or not; nullptr elsewhere.
const Impl* allowed(const CpuFeatures& masked) noexcept;
const Impl* preferred(const CpuFeatures& masked) noexcept;

// Whether the masked features let this CPU run `impl` (the one of impls()).
bool allows(const CpuFeatures& masked, const Impl& impl) noexcept;

// Where block 0 and lone blocks run (avx2/tuning.hpp), each only where
// that was measured faster:
//   key_beside_batch   which seals' first batch runs block 0 in
//                      general-purpose registers beside eight text blocks:
//                      every seal of a batch or more (Zen 4, Zen 5), those
//                      where that saves a batch (Emerald Rapids, the 0xA7
//                      guest, Ice Lake-SP), none
//   lone_block_in_gpr  a block with no batch beside it runs in
//                      general-purpose registers, not as a row pair (Zen 5)
//   short_record_key_in_gpr  a 65-192 byte record's block 0 (an open's,
//                      and a first-call seal's) runs in general-purpose
//                      registers beside the text's rows, not in their lane
//                      0 (every CPU but Emerald Rapids, the 0xA7 guest and
//                      Ice Lake-SP)
// The _here() forms are this CPU's answers, or what
// STITCH_AVX2_KEY_BLOCK=lane|gpr says for all three (gpr: block 0 beside
// every seal's batch), or =beside (the same, lone blocks in lanes): tests
// and measurements run any of them anywhere; read once, at load
// (kKeyBesideBatch, kLoneBlockInGpr, kShortRecordKeyInGpr).
KeyBeside key_beside_batch(const CpuFeatures& f) noexcept;
KeyBeside key_beside_batch_here() noexcept;
bool lone_block_in_gpr(const CpuFeatures& f) noexcept;
bool lone_block_in_gpr_here() noexcept;
bool short_record_key_in_gpr(const CpuFeatures& f) noexcept;
bool short_record_key_in_gpr_here() noexcept;

// Poly1305 runs of kOneAccumulatorMin blocks up to this (exclusive) take one
// vector accumulator (avx2/tuning.hpp): 24 on Zen 4, 32 on Emerald Rapids
// and the 0xA7 guest, 64 on Ice Lake-SP, and elsewhere 0, no run.
size_t poly1305_one_accumulator_end(const CpuFeatures& f) noexcept;

inline const KeyBeside kKeyBesideBatch = key_beside_batch_here();
inline const size_t kPoly1305OneAccumulatorEnd = poly1305_one_accumulator_end(cpu_features_raw());
inline const bool kLoneBlockInGpr = lone_block_in_gpr_here();
inline const bool kShortRecordKeyInGpr = short_record_key_in_gpr_here();
// Raw ChaCha20's last nine blocks (eight whole ones and a ninth, whole or
// partial) in one nine-block statement, the ninth in general-purpose
// registers beside the batch, rather than a batch and then a row pair:
// where the seal's rule takes that statement (Zen 4, Zen 5, Emerald
// Rapids, the 0xA7 guest, Ice Lake-SP). Measured on Emerald Rapids, and on
// Zen 5 against a batch and then the lone block in general registers: raw
// ChaCha20 of 513-576 B in 0.69-0.76 of the time, 1025-1088 B 0.80-0.86
// (kernel, AVX-512 hidden, December 2026; docs/benchmarks.md); on Ice
// Lake-SP through EVP (December 2026, five processes each way) 520 B
// 1.12x the default -> 1.31x, 576 B 1.28 -> 1.47x, 1088 B 1.16 -> 1.28x.
// Zen 4 is not measured.
inline const bool kRawNineBlocks = kKeyBesideBatch != KeyBeside::never;

}  // namespace stitch::kern::avx2
