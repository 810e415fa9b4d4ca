// Poly1305 over whole blocks with MULX (BMI2): the Impl::poly1305_blocks of
// the AVX2 kernel set. Buffering, padding and the final reduction stay in
// portable/poly1305.cpp, shared by every kernel set.
#include <immintrin.h>

#include "kernels/avx2/kernels.hpp"
#include "kernels/avx2/poly1305_mulx.hpp"
#include "kernels/simd/u32x8.hpp"

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

}  // namespace stitch::kern
