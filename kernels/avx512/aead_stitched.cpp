// The stitched one pass over AEAD text for the AVX-512 set (RFC 8439 §2.8;
// OpenSSH's grid through the same code): ChaCha20 in zmm batches of sixteen
// blocks, with the Poly1305 of the ciphertext run beside the rounds
// (mac_streams.hpp), the class in aead_pass.hpp.
#include "kernels/avx512/aead_pass.hpp"
#include "kernels/avx512/kernels.hpp"

namespace stitch::kern::STITCH_AVX512_NS {

void stitched_text(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept {
    clean_upper();
    if (key_block_alone_first(st, len)) key_block_alone(st);
    Pass(st, dir, in, out, len).run();
    zero_registers();
}

}  // namespace stitch::kern::STITCH_AVX512_NS
