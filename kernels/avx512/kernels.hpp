// Entry points of one variant of the AVX-512 kernel set (kernels/avx512/,
// one .cpp per kernel, built once per variant: isa.hpp). impl.cpp gathers
// them into the variant's Impl; nothing else should call them without
// checking cpu_features_raw() first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"
#include "kernels/avx512/isa.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern {
struct Impl;
}

namespace stitch::kern::STITCH_AVX512_NS {

// Contract of chacha20_blocks_portable.
STITCH_TARGET_AVX512 void chacha20_blocks(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept;

// Contract of poly1305_blocks_portable: MULX for short runs; long ones on
// eight IFMA lanes (avx512-ifma) or the AVX2 set's four-lane code (avx512).
STITCH_TARGET_AVX512 void poly1305_blocks(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept;

// Below this many blocks poly1305_blocks runs MULX: the vector set-up (the
// powers of r, the lane sum) costs more than it saves. Measured on Zen 4
// (scratch benchmark of chained calls): IFMA breaks even near 24 blocks.
#if STITCH_AVX512_IFMA
inline constexpr size_t kVectorPolyMinBlocks = 32;
#else
inline constexpr size_t kVectorPolyMinBlocks = 20;
#endif

// Contract of aead_text_portable: the stitched one pass.
STITCH_TARGET_AVX512 void stitched_text(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out,
                                    size_t len) noexcept;

// Contract of aead_open_record_portable.
STITCH_TARGET_AVX512 bool open_record(AeadState& st, const uint8_t* in, uint8_t* out, size_t len,
                                           const uint8_t tag[16]) noexcept;

// The variant's Impl table ("avx512-ifma" or "avx512").
const Impl& impl() noexcept;

}  // namespace stitch::kern::STITCH_AVX512_NS
