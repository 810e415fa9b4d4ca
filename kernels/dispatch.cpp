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

CpuFeatures probe() noexcept {
    CpuFeatures f;
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
    const bool osxsave = (c >> 27) & 1;
    const bool avx = (c >> 28) & 1;
    if (__get_cpuid_max(0, nullptr) < 7) return f;
    __cpuid_count(7, 0, a, b, c, d);
    const bool ymm_saved = osxsave && avx && (read_xcr0() & 0x6) == 0x6;  // SSE and AVX state
    f.avx2 = ymm_saved && ((b >> 5) & 1);
    f.bmi2 = (b >> 8) & 1;
    f.adx = (b >> 19) & 1;
    return f;
}

// STITCH_CLEAR_CPUID=avx2,bmi2,adx (or "all") hides features from dispatch, so
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

const Impl& active_impl() noexcept {
    static const Impl* const chosen = [] {
        const CpuFeatures f = cpu_features();
        const Impl* avx2 = avx2_impl();
        if (avx2 && f.avx2 && f.bmi2) return avx2;
        return &kPortable;
    }();
    return *chosen;
}

}  // namespace stitch::kern
