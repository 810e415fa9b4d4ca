// Picks the kernel set once per process from one CPU snapshot. CPUID and
// XGETBV are instructions, not system calls, so this is safe anywhere; the
// provider still calls it at load so nothing on the cipher path decides.
#include "kernels/dispatch.hpp"

#include <cpuid.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
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
    return f;
}

// STITCH_CLEAR_CPUID=avx2,bmi2,adx,sha,avx512,avx512ifma (or "all") hides features from dispatch, so
// tests can run every lower path on one machine.
CpuFeatures apply_mask(CpuFeatures f, const char* mask) noexcept {
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

const Impl kPortable = {
    "portable",
    chacha20_blocks_portable,
    poly1305_blocks_portable,
    aead_text_portable,
    aead_open_record_portable,
};

}  // namespace

const Impl& portable_impl() noexcept { return kPortable; }

std::span<const Impl* const> runnable_impls() noexcept {
    struct List {
        const Impl* items[16];
        size_t count = 0;
        void add(const Impl* impl) {
            for (size_t i = 0; i < count; ++i)
                if (items[i] == impl) return;
            if (count < std::size(items)) items[count++] = impl;
        }
    };
    static const List list = [] {
        List l;
        l.add(&kPortable);
        for (const Impl* impl : avx2_impls()) l.add(impl);
        for (const Impl* impl : avx512_impls()) l.add(impl);
        return l;
    }();
    return {list.items, list.count};
}

CpuFeatures cpu_features_raw() noexcept {
    static const CpuFeatures raw = probe();
    return raw;
}

CpuFeatures cpu_features() noexcept {
    static const CpuFeatures masked = apply_mask(cpu_features_raw(), std::getenv("STITCH_CLEAR_CPUID"));
    return masked;
}

// Families where the AVX-512 set has been measured faster than the AVX2 set
// beside the default provider (bench/stitch_bench, README "Benchmarks"):
//   AMD family 0x19 (Zen 4): measured on an EPYC, model 0x11.
// Everywhere else it runs only when asked for (STITCH_KERNEL), and never on
// Intel family 6 model 0x55 (Skylake-SP, Cascade Lake), whose clock drops
// under 512-bit multiply work (OpenSSL turns AVX-512 off there too).
bool avx512_measured_faster(const CpuFeatures& f) noexcept {
    return f.vendor == CpuVendor::amd && f.family == 0x19;
}

bool avx512_allowed(const CpuFeatures& f) noexcept {
    return f.avx512 && f.bmi2 && !(f.vendor == CpuVendor::intel && f.family == 6 && f.model == 0x55);
}

// The best AVX-512 table the (masked) features allow: IFMA's where it has it.
const Impl* avx512_for(const CpuFeatures& f) noexcept {
    if (!avx512_allowed(f)) return nullptr;
    for (const Impl* impl : avx512_impls())
        if (f.avx512ifma || std::string_view(impl->name) != "avx512-ifma") return impl;
    return nullptr;
}

const Impl& active_impl() noexcept {
    static const Impl* const chosen = [] {
        const CpuFeatures f = cpu_features();
        const Impl* avx2 = avx2_impl() && f.avx2 && f.bmi2 ? avx2_impl() : nullptr;
        const Impl* avx512 = avx512_for(f);
        // STITCH_KERNEL=avx512 (or avx2, portable) asks for a set by name;
        // one this CPU (after STITCH_CLEAR_CPUID) cannot run is ignored.
        if (const char* want = std::getenv("STITCH_KERNEL")) {
            const std::string_view w(want);
            if (w == "avx512" && avx512) return avx512;
            if (w == "avx2" && avx2) return avx2;
            if (w == "portable") return &kPortable;
        }
        if (avx512 && avx512_measured_faster(f)) return avx512;
        if (avx2) return avx2;
        return &kPortable;
    }();
    return *chosen;
}

}  // namespace stitch::kern
