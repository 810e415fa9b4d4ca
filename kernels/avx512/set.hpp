// The AVX-512 set: ChaCha20 on sixteen blocks in zmm registers, Poly1305 on
// IFMA or beside the rounds in MULX, in two variants built from the same
// sources (kernels/isa_avx512.hpp): avx512-ifma and avx512 (without IFMA).
#pragma once

#include <cstddef>
#include <span>

#include "kernels/cpu.hpp"
#include "kernels/impl.hpp"

namespace stitch::kern::avx512 {

// Both variants ("avx512-ifma" first) where CPUID and XGETBV say the CPU has
// AVX512F, VL, BW and DQ (and IFMA for avx512-ifma), BMI2, and the OS saves
// the opmask and zmm state; raw features, no STITCH_CLEAR_CPUID mask, so
// tests reach these kernels whatever dispatch chose. Empty elsewhere.
std::span<const Impl* const> impls() noexcept;

// The rule (avx512/set.cpp's CPU table). allowed: the variant the masked
// features allow (IFMA's where they have IFMA), or nullptr where the set
// must not run at all, asked for or not (Skylake-SP). preferred: the same,
// wherever allowed: measured rows say so, unmeasured CPUs follow OpenSSL's
// default provider, which runs AVX-512 wherever this set may. Both decide
// from the features alone, so tests can ask about any CPU.
const Impl* allowed(const CpuFeatures& masked) noexcept;
const Impl* preferred(const CpuFeatures& masked) noexcept;

// Whether the masked features let this CPU run `impl` (one of impls()):
// the set allowed, and IFMA for the IFMA variant.
bool allows(const CpuFeatures& masked, const Impl& impl) noexcept;

// From how many blocks the IFMA Poly1305 takes two sets of eight zmm lanes
// on this CPU: a measured row's value, else Zen 4's 192.
size_t ifma_zmm_min_blocks(const CpuFeatures& f) noexcept;

// Whether raw ChaCha20 runs two sixteen-block batches in flight on this CPU
// (a measured row's choice; one elsewhere).
bool chacha_two_batches(const CpuFeatures& f) noexcept;

// Whether raw ChaCha20's single block runs in general-purpose registers on
// this CPU (a measured row's choice: Zen 5) or, everywhere else, as a ymm
// row pair, the vector width OpenSSL's default provider runs one block in.
bool lone_block_in_gpr(const CpuFeatures& f) noexcept;

// Whether five to twelve blocks of keystream run as two or three zmm row
// sets rather than a word-per-register batch on this CPU (a measured row's
// choice: Emerald Rapids; the batch elsewhere).
bool row_sets(const CpuFeatures& f) noexcept;

// Whether each IFMA Poly1305 step takes its limbs' products in the order
// the previous step's carry round finishes them (limb 1, 2, then 0) on this
// CPU (a measured row's choice: Zen 5) or in limb order (0, 1, 2), as
// elsewhere, where the carry order was not measured or measured mixed (an
// order from limb 1 on Zen 4).
bool ifma_carry_order(const CpuFeatures& f) noexcept;

// Why: the table row that decided (with its measurement), or the default rule.
const char* evidence(const CpuFeatures& f) noexcept;

}  // namespace stitch::kern::avx512
