// The AVX2 set's cut-offs. One design serves every AVX2 CPU: its speed comes
// from where the batch's rounds keep their words (avx2/batch_rounds.hpp),
// not from per-CPU tuning, and no CPU has been measured at least 3% faster
// with other values (docs/kernels.md, "The AVX2 set").
#pragma once

#include <cstddef>

#include "kernels/aead.hpp"

namespace stitch::kern::avx2 {

// Poly1305 runs of at least this many blocks take the four-lane vector code
// (x86/poly1305_vector.hpp), shorter ones MULX: the break-even measured on
// Zen 5 (20) and Zen 4 (26), November and December 2026.
inline constexpr size_t kVectorPolyMin = 20;

// Opens of at most this many bytes with the MAC not keyed yet take the short
// path (avx2/aead_short.hpp): the key block and the MAC beside one run of
// row-layout rounds.
inline constexpr size_t kShortOpenMax = kShortMax;

}  // namespace stitch::kern::avx2
