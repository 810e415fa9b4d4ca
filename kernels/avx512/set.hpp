// The AVX-512 set: ChaCha20 on sixteen blocks in zmm registers, Poly1305 on
// IFMA or beside the rounds in MULX, in two variants built from the same
// sources (kernels/isa_avx512.hpp): avx512-ifma and avx512 (without IFMA).
#pragma once

#include <span>

#include "kernels/cpu.hpp"
#include "kernels/impl.hpp"

namespace stitch::kern::avx512 {

// Both variants ("avx512-ifma" first) where CPUID and XGETBV say the CPU has
// AVX512F, VL, BW and DQ (and IFMA for avx512-ifma), BMI2, and the OS saves
// the opmask and zmm state; raw features, no STITCH_CLEAR_CPUID mask, so
// tests reach these kernels whatever dispatch chose. Empty elsewhere.
std::span<const Impl* const> impls() noexcept;

// The rule (avx512/set.cpp). allowed: the variant the masked features allow
// (IFMA's where they have IFMA), or nullptr where the set must not run at
// all, asked for or not. preferred: the same on the CPUs where the set was
// measured faster than the AVX2 set; nullptr elsewhere.
const Impl* allowed(const CpuFeatures& masked) noexcept;
const Impl* preferred(const CpuFeatures& masked) noexcept;

}  // namespace stitch::kern::avx512
