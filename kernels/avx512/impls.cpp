// The AVX-512 Impls this CPU can run: both variants where CPUID and XGETBV
// say it has AVX512F, VL, BW and DQ (and IFMA for avx512-ifma), BMI2, and
// the OS saves the opmask and zmm state. Raw features, no STITCH_CLEAR_CPUID
// mask, so tests reach these kernels whatever dispatch chose.
#include "kernels/avx512/variants.hpp"
#include "kernels/dispatch.hpp"

namespace stitch::kern {

std::span<const Impl* const> avx512_impls() noexcept {
    static const Impl* const both[] = {&avx512_ifma::impl(), &avx512::impl()};
    const CpuFeatures f = cpu_features_raw();
    if (!f.avx512 || !f.bmi2) return {};
    if (!f.avx512ifma) return std::span<const Impl* const>(both + 1, 1);
    return both;
}

}  // namespace stitch::kern
