// Per-function ISA switches. The kernels library is built with the baseline
// flags only; each AVX2 function turns the extensions on for itself, so no
// AVX2 code can reach a symbol the portable path also calls (the COMDAT
// pitfall of per-file -mavx2), and dispatch alone decides what runs.
#pragma once

// The AVX2 kernel set: ChaCha20 in ymm registers beside Poly1305 with MULX.
// Every function of the set carries this one target string, so any of them
// may be inlined into any other.
#define STITCH_TARGET_AVX2_BMI2 __attribute__((target("avx2,bmi,bmi2")))

// Helpers shared by the AVX2 translation units: always inlined into a caller
// with the same target, so no out-of-line copy (and no shared symbol) exists.
#define STITCH_INLINE_AVX2_BMI2 __attribute__((always_inline, target("avx2,bmi,bmi2"))) inline

// The SHA-256 kernel on the x86 SHA extensions (kernels/shani): SHA-NI plus
// the SSSE3 byte shuffle and SSE4.1 blend its state layout needs.
#define STITCH_TARGET_SHANI __attribute__((target("sha,ssse3,sse4.1")))
