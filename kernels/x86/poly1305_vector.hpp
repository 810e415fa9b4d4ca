// Poly1305 over whole blocks with AVX2 (RFC 8439 §2.5.1), four blocks a step
// in base 2^26. Same contract and same Poly1305State as
// poly1305_blocks_portable: the state goes in and comes out in 64-bit limbs,
// equal to the portable result modulo 2^130 - 5 and partially reduced the way
// poly1305_final expects (h < 2^130 + small), though not always the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/x86/poly1305_mulx.hpp"
#include "kernels/isa.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern {

// Absorbs `nblocks` full 16-byte blocks (each with the 2^128 bit), the
// first nblocks % 4 through MULX, the rest four blocks a step. Needs AVX2
// and BMI2 (check cpu_features_raw()): the AVX2 set and the AVX-512 set
// without IFMA both call it. Takes h
// with h2 <= 7, as the MULX blocks do (every kernel leaves h2 <= 4), and
// leaves h2 <= 4. The vector set-up (r^2..r^8, the base changes, the lane
// sum: about 200 cycles on Zen 5, 155 on Zen 4) makes it worth it only from a run length
// each set measured (its Impl::poly1305_blocks chooses).
STITCH_TARGET_AVX2_BMI2 void poly1305_blocks_avx2_vector(Poly1305State& st, const uint8_t* in,
                                                         size_t nblocks) noexcept;

// The same with one accumulator and r..r^4 only (OpenSSL's shape): a lower
// fixed cost, each group a step's whole latency. Same contract.
STITCH_TARGET_AVX2_BMI2 void poly1305_blocks_avx2_vector_one(Poly1305State& st, const uint8_t* in,
                                                             size_t nblocks) noexcept;

}  // namespace stitch::kern
