// The AVX-512 kernel set built against SIMDe (tests/emulated): both
// variants, runnable on any machine with AVX2 and BMI2.
#pragma once

#include <span>

#include "kernels/dispatch.hpp"

namespace stitch::test {

std::span<const kern::Impl* const> avx512_emulated_impls() noexcept;

}  // namespace stitch::test
