// Poly1305 over whole blocks for the AVX2 set (Impl::poly1305_blocks): MULX
// for runs shorter than avx2::kVectorPolyMin blocks, the four-lane vector
// code (x86/poly1305_vector.hpp) from there; its one-accumulator form for
// 20-23 blocks on Zen 4, 20-31 on Emerald Rapids and 20-63 on Ice Lake-SP
// (avx2/tuning.hpp).
// Buffering, padding and the final reduction stay in portable/poly1305.cpp,
// shared by every kernel set.
#include <immintrin.h>

#include "kernels/avx2/kernels.hpp"
#include "kernels/avx2/set.hpp"
#include "kernels/avx2/tuning.hpp"
#include "kernels/x86/poly1305_mulx.hpp"
#include "kernels/x86/poly1305_vector.hpp"

namespace stitch::kern {

// General-purpose registers only: in_gpr keeps the compilers from moving h
// and the key through xmm registers (g++ 12 paired them there), so there is
// no vector state to clean on entry or to wipe on exit. The VZEROALL this
// used to end with took 7 of a 16-byte POLY1305's 48 cycles on Zen 4.
// tests/wipe/avx2_registers_test checks that the vector registers stay
// untouched.
static STITCH_INLINE_AVX2_BMI2 void mulx_blocks(Poly1305State& st, const uint8_t* in, size_t nblocks) {
    mulx::PolyAcc acc = mulx::load(st);
    mulx::blocks(acc, in, nblocks);
    mulx::store(st, acc);
}

// The entry the AVX-512 set takes for short runs; the AVX2 set's dispatch
// below inlines the same loop, as clang 14 did on its own and g++ 12 did not
// (a tail jump more per short POLY1305).
void poly1305_blocks_mulx(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept {
    mulx_blocks(st, in, nblocks);
}

void poly1305_blocks_avx2(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept {
    if (nblocks >= avx2::kOneAccumulatorMin && nblocks < avx2::kPoly1305OneAccumulatorEnd)
        poly1305_blocks_avx2_vector_one(st, in, nblocks);
    else if (nblocks < avx2::kVectorPolyMin)
        mulx_blocks(st, in, nblocks);
    else
        poly1305_blocks_avx2_vector(st, in, nblocks);
}

}  // namespace stitch::kern
