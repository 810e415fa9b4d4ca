// Poly1305 over whole blocks for the AVX-512 set (Impl::poly1305_blocks):
// MULX for short runs; long ones on sixteen IFMA lanes (poly1305_ifma.hpp,
// the first nblocks % 16 blocks through MULX) or, without IFMA, on the AVX2
// set's four-lane code. The POLY1305 EVP_MAC and every trailing MAC of the
// AEAD pass go through here.
#include "kernels/avx2/poly1305_vector.hpp"
#include "kernels/avx512/chacha20.hpp"
#include "kernels/avx512/kernels.hpp"
#if STITCH_AVX512_IFMA
#include "kernels/avx512/poly1305_ifma.hpp"
#endif

namespace stitch::kern::STITCH_AVX512_NS {

void poly1305_blocks(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept {
    clean_upper();
    const size_t head = nblocks < kVectorPolyMinBlocks ? nblocks : STITCH_AVX512_IFMA ? nblocks % 16 : 0;
    if (head > 0) {
        mulx::PolyAcc acc = mulx::load(st);
        mulx::blocks(acc, in, head);
        mulx::store(st, acc);
        in += head * kPolyBlock;
        nblocks -= head;
    }
    if (nblocks > 0) {
#if STITCH_AVX512_IFMA
        ifma::absorb(st, ifma::powers(st), in, nblocks / 16);
#else
        poly1305_blocks_avx2_vector(st, in, nblocks);
#endif
    }
    // h passes through vector registers on the MULX path's load and store too.
    zero_registers();
}

}  // namespace stitch::kern::STITCH_AVX512_NS
