// Stores a keystream block into the context (st.ks: the block a call used
// only part of, kept for the next call's first bytes). Written in C++, the
// stores made g++ 12 store the block a second time, into a stack slot of
// its own that stayed after the kernel returned and that no wipe in the
// source can name (avx2_stack_test, avx512_stack_test). In asm the compiler
// sees only the stores it must make; the halves come in registers. Its code
// is the loads and stores the C++ made, less the copy, yet the AVX2 set's
// 1000-byte seal measured 3-4% slower with it on Zen 4 (with the block
// passed by address too): not explained (docs/benchmarks.md).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/isa.hpp"

namespace stitch::kern::x86 {

// dst[0..32) = lo, dst[32..64) = hi.
STITCH_INLINE_AVX2_BMI2 void keep_block(uint8_t* dst, __m256i lo, __m256i hi) {
    __asm__ __volatile__(
        "vmovdqu %[lo], (%[dst])\n\t"
        "vmovdqu %[hi], 32(%[dst])"
        : "=m"(*reinterpret_cast<uint8_t(*)[64]>(dst))
        : [dst] "r"(dst), [lo] "x"(lo), [hi] "x"(hi));
}

}  // namespace stitch::kern::x86
