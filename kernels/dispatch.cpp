// Picks the kernel set once per process from one CPU snapshot. CPUID and
// XGETBV are instructions, not system calls, so this is safe anywhere; the
// provider still calls it at load so nothing on the cipher path decides.
#include "kernels/dispatch.hpp"

#include "kernels/avx2/shapes.hpp"
#include "kernels/avx512/rule.hpp"

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

namespace {

// Whether the masked features let this process run `impl` at all.
bool features_allow(const CpuFeatures& f, const Impl& impl) noexcept {
    const std::string_view name(impl.name);
    if (name == "portable") return true;
    if (name == "avx2") return f.avx2 && f.bmi2;
    if (name == "avx512") return f.avx512 && f.bmi2;
    if (name == "avx512-ifma") return f.avx512ifma && f.bmi2;
    return false;
}

}  // namespace

const Impl* find_impl(std::string_view name) noexcept {
    const CpuFeatures f = cpu_features();
    // A set's name picks the Impl dispatch would pick within that set (the
    // AVX2 set's shape for this CPU); a label ("avx2/zen4") picks exactly.
    if (name == "avx2") return avx2_impl() && features_allow(f, *avx2_impl()) ? avx2_impl() : nullptr;
    for (const Impl* impl : runnable_impls())
        if ((name == impl->name || (impl->label && name == impl->label)) && features_allow(f, *impl)) return impl;
    return nullptr;
}

bool is_kernel_name(std::string_view name) noexcept {
    for (const char* set : {"portable", "avx2", "avx512", "avx512-ifma"})
        if (name == set) return true;
    for (const avx2::Shape* shape : avx2::kAllShapes)
        if (name == shape->label) return true;
    return false;
}

const Impl& active_impl() noexcept {
    static const Impl* const chosen = [] {
        // STITCH_KERNEL=avx512-ifma (or avx512, avx2, portable, a shape's
        // label) asks for a set by name; one this CPU (after
        // STITCH_CLEAR_CPUID) cannot run is ignored.
        if (const char* want = std::getenv("STITCH_KERNEL"))
            if (const Impl* impl = find_impl(want)) return impl;
        return &dispatch_choice(cpu_features());
    }();
    return *chosen;
}

const Impl& dispatch_choice(const CpuFeatures& f) noexcept {
    if (const Impl* avx512 = avx512_rule::preferred(f)) return *avx512;
    if (avx2_impl() && f.avx2 && f.bmi2) return *avx2_impl();
    return kPortable;
}

}  // namespace stitch::kern
