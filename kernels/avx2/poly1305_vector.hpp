// Poly1305 over whole blocks with AVX2 (RFC 8439 §2.5.1), four blocks a step
// in base 2^26. Same contract and same Poly1305State as
// poly1305_blocks_portable: the state goes in and comes out in 64-bit limbs,
// equal to the portable result modulo 2^130 - 5 and partially reduced the way
// poly1305_final expects (h < 2^130 + small), though not always the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/isa.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern {

// Below this many blocks the vector set-up (r^2..r^8, the base changes, the
// lane sum: about 200 cycles) costs more than it saves, so the scalar MULX
// code runs instead. Measured on Zen 5 with calls chained through the state:
// 20 blocks cost the same both ways (~300 cycles), 16 are 12% slower on the
// vector path, 24 are 9% faster.
inline constexpr size_t kPoly1305Avx2MinBlocks = 20;

// Absorbs `nblocks` full 16-byte blocks (each with the 2^128 bit). Needs
// AVX2 and BMI2 (check cpu_features_raw() or take it from avx2_impl()).
// Takes h with h2 <= 7, as the MULX blocks do (every kernel leaves h2 <= 4),
// and leaves h2 <= 4.
STITCH_TARGET_AVX2_BMI2 void poly1305_blocks_avx2(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept;

// The vector path whatever the size (the first nblocks % 4 blocks go
// through MULX first). For tests and measurements only: callers use
// poly1305_blocks_avx2.
STITCH_TARGET_AVX2_BMI2 void poly1305_blocks_avx2_vector(Poly1305State& st, const uint8_t* in,
                                                         size_t nblocks) noexcept;

}  // namespace stitch::kern
