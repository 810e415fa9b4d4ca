// Poly1305 beside the AVX-512 rounds in scalar MULX (RFC 8439 §2.5.1), for
// the short pieces of a message (aead_pass.hpp says why only those).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/x86/poly1305_mulx.hpp"
#include "kernels/isa_avx512.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern::STITCH_AVX512_NS {

// Blocks absorbed beside one keystream call, one a step from the first
// (kBesideSteps = 80 steps; more blocks than steps take two a step at the
// end). Holds its own copy of the accumulator so the compiler keeps it in
// registers through the rounds.
struct OneStream {
    mulx::PolyAcc acc;
    const uint8_t* p;
    size_t n;
    size_t done = 0;

    STITCH_INLINE_AVX512 void operator()(int step, int steps) {
        const size_t left_steps = size_t(steps - step);
        const size_t target = n - done >= left_steps ? n - (left_steps - 1) : done + 1;
        for (; done < target && done < n; ++done) mulx::block(acc, p + done * kPolyBlock);
    }
    STITCH_INLINE_AVX512 mulx::PolyAcc result() const { return acc; }
};

}  // namespace stitch::kern::STITCH_AVX512_NS
