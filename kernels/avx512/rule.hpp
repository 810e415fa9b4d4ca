// The rule that decides whether dispatch runs the AVX-512 set on a CPU
// (kernels/avx512/rule.cpp holds the table and its evidence).
#pragma once

#include "kernels/dispatch.hpp"

namespace stitch::kern::avx512_rule {

// The AVX-512 Impl dispatch should run on a CPU with these (masked)
// features, or nullptr where the set must not be chosen. Decided from the
// features alone, so tests can ask it about CPUs this machine is not.
const Impl* preferred(const CpuFeatures& f) noexcept;

// From how many blocks the IFMA Poly1305 takes two sets of eight zmm lanes
// on this CPU (a measured row's value, else Zen 4's 192).
size_t ifma_zmm_min_blocks(const CpuFeatures& f) noexcept;

// Why: the table row that decided (with its measurement), or the default rule.
const char* evidence(const CpuFeatures& f) noexcept;

}  // namespace stitch::kern::avx512_rule
