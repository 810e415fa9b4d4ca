// Entry points of the AVX2+BMI2 kernel set, one per shape (avx2/shapes.hpp),
// in AllShapes order: each kernel .cpp instantiates its template for every
// shape and exports the addresses here; avx2/set.cpp gathers them into one
// Impl per shape. Nothing else should call them without checking
// cpu_features_raw() first, as the instructions fault on older CPUs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"
#include "kernels/avx2/shapes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/isa.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern {

template <class Fn>
using PerShape = std::array<Fn, avx2::kShapeCount>;

// Contract of chacha20_blocks_portable.
using ChaChaBlocksFn = void (*)(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept;
extern const PerShape<ChaChaBlocksFn> chacha20_blocks_avx2;

// Contract of poly1305_blocks_portable: MULX below the shape's
// vector_poly_min, the 4-way vector code from there.
using Poly1305BlocksFn = void (*)(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept;
extern const PerShape<Poly1305BlocksFn> poly1305_blocks_avx2_shaped;

// Contract of aead_text_portable: the one pass.
using AeadTextFn = void (*)(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept;
extern const PerShape<AeadTextFn> aead_text_avx2;

// Contract of aead_open_record_portable.
using AeadOpenRecordFn = bool (*)(AeadState& st, const uint8_t* in, uint8_t* out, size_t len,
                                  const uint8_t tag[16]) noexcept;
extern const PerShape<AeadOpenRecordFn> aead_open_record_avx2;

// Poly1305 over whole blocks with MULX (BMI2) alone; leaves the state bit
// for bit as the portable code would.
STITCH_TARGET_AVX2_BMI2 void poly1305_blocks_mulx(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept;

}  // namespace stitch::kern
