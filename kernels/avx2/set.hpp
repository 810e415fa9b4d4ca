// The AVX2+BMI2 set: ChaCha20 in ymm registers beside Poly1305 with MULX.
// One Impl for every AVX2 CPU (avx2/tuning.hpp says why).
#pragma once

#include <span>

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

// Whether raw ChaCha20 runs nine blocks a batch on this CPU (the ninth in
// general-purpose registers, avx2/batch_rounds.hpp) rather than eight: only
// where that was measured faster (avx2/tuning.hpp).
bool nine_block_batches(const CpuFeatures& f) noexcept;

}  // namespace stitch::kern::avx2
