// One variant of the AVX-512 kernel set as an Impl table (isa.hpp):
//   avx512-ifma  long Poly1305 runs (the POLY1305 MAC, a seal's trailing
//                batch) on IFMA, and part of each batch's MAC beside the
//                rounds on IFMA too (mac_streams.hpp)
//   avx512       the same pass for CPUs without IFMA: the MAC beside the
//                rounds in scalar MULX, long runs on the AVX2 vector code
#include "kernels/avx512/kernels.hpp"
#include "kernels/impl.hpp"

namespace stitch::kern::STITCH_AVX512_NS {

namespace {

#if defined(STITCH_AVX512_EMULATED)
#define STITCH_AVX512_EMULATION " (SIMDe)"
#else
#define STITCH_AVX512_EMULATION ""
#endif

const Impl kImpl = {
    STITCH_AVX512_IFMA ? "avx512-ifma" : "avx512",
    chacha20_blocks,
    poly1305_blocks,
    stitched_text,
    open_record,
    STITCH_AVX512_IFMA ? "avx512-ifma" STITCH_AVX512_EMULATION : "avx512" STITCH_AVX512_EMULATION,
    32,  // two batches: one pair, or one cut short (chacha20.cpp), where the CPU table runs pairs
    chacha20_xor_last,
    0,
    chacha20_two_keys,
};

}  // namespace

const Impl& impl() noexcept { return kImpl; }

}  // namespace stitch::kern::STITCH_AVX512_NS
