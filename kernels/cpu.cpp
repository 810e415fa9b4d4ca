// The CPU snapshot: CPUID leaves 0, 1 and 7 and XCR0, read once.
#include "kernels/cpu.hpp"

#include <cpuid.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

namespace stitch::kern {

namespace {

uint64_t read_xcr0() noexcept {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t(hi) << 32) | lo;
}

// Vendor, family and model as Intel's and AMD's manuals define the display
// values (CPUID leaves 0 and 1).
void identify(CpuFeatures& f) noexcept {
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return;
    char vendor[12];
    std::memcpy(vendor, &b, 4);
    std::memcpy(vendor + 4, &d, 4);
    std::memcpy(vendor + 8, &c, 4);
    const std::string_view v(vendor, sizeof(vendor));
    f.vendor = v == "GenuineIntel" ? CpuVendor::intel : v == "AuthenticAMD" ? CpuVendor::amd : CpuVendor::other;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    const uint32_t base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
    f.family = base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family;
    f.model = base_family == 0x6 || base_family == 0xf ? (((a >> 16) & 0xf) << 4) | base_model : base_model;
}

CpuFeatures probe() noexcept {
    CpuFeatures f;
    identify(f);
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
    const bool osxsave = (c >> 27) & 1;
    const bool avx = (c >> 28) & 1;
    const bool ssse3_sse41 = ((c >> 9) & 1) && ((c >> 19) & 1);
    if (__get_cpuid_max(0, nullptr) < 7) return f;
    __cpuid_count(7, 0, a, b, c, d);
    const bool ymm_saved = osxsave && avx && (read_xcr0() & 0x6) == 0x6;  // SSE and AVX state
    f.avx2 = ymm_saved && ((b >> 5) & 1);
    f.bmi2 = (b >> 8) & 1;
    f.adx = (b >> 19) & 1;
    f.sha = ssse3_sse41 && ((b >> 29) & 1);
    const bool zmm_saved = ymm_saved && (read_xcr0() & 0xe0) == 0xe0;  // opmask, zmm0-15 upper, zmm16-31
    f.avx512 = zmm_saved && ((b >> 16) & 1) && ((b >> 17) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1);
    f.avx512ifma = f.avx512 && ((b >> 21) & 1);
    f.amx_tile = (d >> 24) & 1;
    return f;
}

}  // namespace

CpuFeatures apply_cpu_mask(CpuFeatures f, const char* mask) noexcept {
    if (!mask) return f;
    std::string_view rest(mask);
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string_view word = rest.substr(0, comma);
        if (word == "all" || word == "avx2") f.avx2 = false;
        if (word == "all" || word == "bmi2") f.bmi2 = false;
        if (word == "all" || word == "adx") f.adx = false;
        if (word == "all" || word == "sha") f.sha = false;
        if (word == "all" || word == "avx512") f.avx512 = f.avx512ifma = false;
        if (word == "all" || word == "avx512ifma") f.avx512ifma = false;
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    return f;
}

CpuFeatures cpu_features_raw() noexcept {
    static const CpuFeatures raw = probe();
    return raw;
}

CpuFeatures cpu_features() noexcept {
    static const CpuFeatures masked = apply_cpu_mask(cpu_features_raw(), std::getenv("STITCH_CLEAR_CPUID"));
    return masked;
}

}  // namespace stitch::kern
