// What the CPU can run, from one CPUID + XGETBV snapshot per process, and
// the same lowered by the STITCH_CLEAR_CPUID environment mask (for tests:
// every lower path on one machine). CPUID and XGETBV are instructions, not
// system calls, so this is safe anywhere; nothing on the cipher path asks.
#pragma once

#include <cstdint>

namespace stitch::kern {

enum class CpuVendor : uint8_t { other, intel, amd };

// CPU features (after the environment mask, for cpu_features()), and the
// CPU's identity, which the mask leaves alone: the sets' rules (each set's
// preferred()) look them up by it.
struct CpuFeatures {
    bool avx2 = false;  // CPUID.7.EBX[5] and the OS saves ymm state (XCR0 bits 1, 2)
    bool bmi2 = false;  // CPUID.7.EBX[8]
    bool adx = false;   // CPUID.7.EBX[19]
    bool sha = false;   // CPUID.7.EBX[29] with SSSE3 and SSE4.1 (CPUID.1.ECX[9], [19]): kernels/shani
    // AVX512F, DQ, BW and VL (CPUID.7.EBX[16, 17, 30, 31]) and the OS saves
    // the opmask and zmm state (XCR0 bits 5, 6, 7): kernels/avx512
    bool avx512 = false;
    bool avx512ifma = false;  // CPUID.7.EBX[21], with avx512
    CpuVendor vendor = CpuVendor::other;  // CPUID.0 "GenuineIntel" / "AuthenticAMD"
    uint32_t family = 0;  // CPUID.1.EAX: base family, plus the extended family where base is 0xF
    uint32_t model = 0;   // CPUID.1.EAX: model, with the extended model on family 6 and from 0xF up
    // CPUID.7.EDX[24] (AMX-TILE): identity only, no kernel uses it. A KVM
    // guest measured in December 2026 reports Rocket Lake's model (6/0xA7)
    // with AMX, which no Rocket Lake has; the bit tells the two apart.
    bool amx_tile = false;
};

// What the CPU reports (raw: what may run without faulting), and the same
// after STITCH_CLEAR_CPUID (masked: what dispatch may choose). Each is read
// once per process.
CpuFeatures cpu_features_raw() noexcept;
CpuFeatures cpu_features() noexcept;

// STITCH_CLEAR_CPUID's grammar, for tests: `mask` is
// "avx2,bmi2,adx,sha,avx512,avx512ifma" (any of them) or "all"; null leaves f alone.
CpuFeatures apply_cpu_mask(CpuFeatures f, const char* mask) noexcept;

}  // namespace stitch::kern
