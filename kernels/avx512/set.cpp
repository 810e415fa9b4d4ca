// The AVX-512 set's Impls and its rule.
#include "kernels/avx512/set.hpp"

#include "kernels/avx512/variants.hpp"

namespace stitch::kern::avx512 {

namespace {

// Intel family 6 model 0x55 (Skylake-SP, Cascade Lake): the core clock drops
// under 512-bit multiply work, and OpenSSL's default provider turns its
// AVX-512 code off there too. Never run there, even when asked for.
bool clock_drops(const CpuFeatures& f) noexcept {
    return f.vendor == CpuVendor::intel && f.family == 6 && f.model == 0x55;
}

// Families where the set was measured faster than the AVX2 set beside the
// default provider (bench/stitch_bench; docs/benchmarks.md):
//   AMD family 0x19 (Zen 4): measured on an EPYC, model 0x11.
// Everywhere else it runs only when asked for (STITCH_KERNEL=avx512).
bool measured_faster(const CpuFeatures& f) noexcept { return f.vendor == CpuVendor::amd && f.family == 0x19; }

}  // namespace

std::span<const Impl* const> impls() noexcept {
    static const Impl* const both[] = {&ifma::impl(), &base::impl()};
    const CpuFeatures f = cpu_features_raw();
    if (!f.avx512 || !f.bmi2) return {};
    if (!f.avx512ifma) return std::span<const Impl* const>(both + 1, 1);
    return both;
}

const Impl* allowed(const CpuFeatures& f) noexcept {
    if (!f.avx512 || !f.bmi2 || clock_drops(f)) return nullptr;
    for (const Impl* impl : impls())
        if (f.avx512ifma || impl != &ifma::impl()) return impl;
    return nullptr;
}

const Impl* preferred(const CpuFeatures& f) noexcept { return measured_faster(f) ? allowed(f) : nullptr; }

}  // namespace stitch::kern::avx512
