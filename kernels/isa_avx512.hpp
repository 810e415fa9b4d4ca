// The AVX-512 kernel set's ISA switches and intrinsics, for its sources
// (kernels/avx512/) and the value types they use (kernels/simd/u32x16.hpp).
//
// The set's sources build once per variant (CMake sets STITCH_AVX512_IFMA):
//   1  avx512-ifma: Poly1305 also on IFMA (VPMADD52LUQ/HUQ), in namespace
//      avx512::ifma
//   0  avx512: the same kernels for CPUs without IFMA, in namespace
//      avx512::base
// Every function of a variant carries one target string, so any of them may
// inline into any other (a lambda or a helper with a narrower target could
// not take an IFMA helper), and the two variants share no symbol.
//
// For tests, the same sources build once more per variant against SIMDe
// (STITCH_AVX512_EMULATED), which runs the intrinsics in portable code on
// CPUs without AVX-512, in namespaces of their own (avx512::ifma_emulated,
// avx512::base_emulated).
#pragma once

#include "kernels/isa.hpp"

#if !defined(STITCH_AVX512_IFMA)
#error "kernels/isa_avx512.hpp: the AVX-512 sources build with STITCH_AVX512_IFMA=0 or 1 (kernels/CMakeLists.txt)"
#endif

#if defined(STITCH_AVX512_EMULATED)
// The emulated library is built with -mavx2 -mbmi2 (tests/emulated: every
// machine this project tests on has them), so SIMDe runs the 256-bit halves
// natively and aliases only the AVX-512 names, and the shared x86 headers
// (kernels/x86: MULX Poly1305, the scalar key block) include as they are.
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#include "kernels/simd/simde_shim.hpp"
#define STITCH_TARGET_AVX512 STITCH_TARGET_AVX2_BMI2
#define STITCH_INLINE_AVX512 STITCH_INLINE_AVX2_BMI2
#if STITCH_AVX512_IFMA
#define STITCH_AVX512_NS avx512::ifma_emulated
#else
#define STITCH_AVX512_NS avx512::base_emulated
#endif
#else
#include <immintrin.h>
// F for zmm and the opmask registers, VL for the same instructions on ymm
// (eight-block batches with 32 registers), BW for byte-masked loads and
// stores, DQ for 64-bit lane multiplies, and what the shared x86 helpers
// (kernels/x86) need, so they inline here too.
#if STITCH_AVX512_IFMA
#define STITCH_AVX512_FEATURES "avx512f,avx512vl,avx512bw,avx512dq,avx512ifma,avx2,bmi,bmi2"
#define STITCH_AVX512_NS avx512::ifma
#else
#define STITCH_AVX512_FEATURES "avx512f,avx512vl,avx512bw,avx512dq,avx2,bmi,bmi2"
#define STITCH_AVX512_NS avx512::base
#endif
#define STITCH_TARGET_AVX512 __attribute__((target(STITCH_AVX512_FEATURES)))
#define STITCH_INLINE_AVX512 __attribute__((always_inline, target(STITCH_AVX512_FEATURES))) inline
// GCC 12's own AVX-512 intrinsics (set1, broadcast, rol) start from
// _mm512_undefined_*, which -Wmaybe-uninitialized reports wherever they
// inline (and -Wuninitialized where they inline into a small entry point:
// chacha20_xor_keyed): a known false positive, silenced for the files of
// this set.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#endif
