// Entry points of the AVX2+BMI2 kernel set; avx2/set.cpp gathers them into
// its Impl. Nothing else should call them without checking
// cpu_features_raw() first, as the instructions fault on older CPUs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/isa.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern {

// Contract of chacha20_blocks_portable.
STITCH_TARGET_AVX2_BMI2 void chacha20_blocks_avx2(ChaChaState& st, const uint8_t* in, uint8_t* out,
                                                  size_t nblocks) noexcept;

// Contract of Impl::chacha20_xor_last.
STITCH_TARGET_AVX2_BMI2 void chacha20_xor_last_avx2(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len,
                                                    uint8_t kept[kChaChaBlock]) noexcept;

// Contract of Impl::chacha20_two_keys: the six blocks at most as one to
// three row pairs.
STITCH_TARGET_AVX2_BMI2 void chacha20_two_keys_avx2(const ChaChaState& first, const ChaChaState& rest, size_t n,
                                                    uint8_t* out) noexcept;

// Contract of poly1305_blocks_portable: MULX below avx2::kVectorPolyMin
// blocks, the four-lane vector code from there.
STITCH_TARGET_AVX2_BMI2 void poly1305_blocks_avx2(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept;

// Contract of aead_text_portable: the one pass.
STITCH_TARGET_AVX2_BMI2 void aead_text_avx2(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out,
                                            size_t len) noexcept;

// Contract of aead_open_record_portable.
STITCH_TARGET_AVX2_BMI2 bool aead_open_record_avx2(AeadState& st, const uint8_t* in, uint8_t* out, size_t len,
                                                   const uint8_t tag[16]) noexcept;

// Poly1305 over whole blocks with MULX (BMI2) alone; leaves the state bit
// for bit as the portable code would.
STITCH_TARGET_AVX2_BMI2 void poly1305_blocks_mulx(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept;

}  // namespace stitch::kern
