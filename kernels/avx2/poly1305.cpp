// Poly1305 over whole blocks for the AVX2 set (Impl::poly1305_blocks of
// each shape): MULX (BMI2) for runs shorter than the shape's
// vector_poly_min, the four-lane vector code (x86/poly1305_vector.hpp) from
// there. Buffering, padding and the final reduction stay in
// portable/poly1305.cpp, shared by every kernel set.
#include <immintrin.h>

#include "kernels/avx2/kernels.hpp"
#include "kernels/simd/u32x8.hpp"
#include "kernels/x86/poly1305_mulx.hpp"
#include "kernels/x86/poly1305_vector.hpp"

namespace stitch::kern {

void poly1305_blocks_mulx(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept {
    simd::U32x8::clean_upper();  // see clean_upper
    mulx::PolyAcc acc = mulx::load(st);
    mulx::blocks(acc, in, nblocks);
    mulx::store(st, acc);
    // The compiler moves h through xmm registers on load and store; h is a
    // polynomial in r, so it must not outlive the call (tests/wipe).
    simd::U32x8::zero_registers();
}

namespace {

// Impl::poly1305_blocks of a shape.
template <const avx2::Shape& S>
STITCH_TARGET_AVX2_BMI2 void poly1305_blocks(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept {
    if (nblocks < S.vector_poly_min)
        poly1305_blocks_mulx(st, in, nblocks);  // clears the vector registers itself
    else
        poly1305_blocks_avx2_vector(st, in, nblocks);
}

}  // namespace

const PerShape<Poly1305BlocksFn> poly1305_blocks_avx2_shaped =
    avx2::for_each_shape<Poly1305BlocksFn>([]<const avx2::Shape& S>() { return &poly1305_blocks<S>; });

}  // namespace stitch::kern
