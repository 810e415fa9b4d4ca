// The AVX2+BMI2 kernel set as one Impl table, offered only where the CPU has
// AVX2 and BMI2 and the OS saves ymm state (cpu_features_raw: CPUID and
// XGETBV, no STITCH_CLEAR_CPUID mask, so tests can reach these kernels
// directly even when dispatch is forced down to portable).
#include "kernels/avx2/kernels.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/avx2/poly1305_vector.hpp"

namespace stitch::kern {

namespace {

const Impl kAvx2 = {
    "avx2",
    chacha20_blocks_avx2,
    poly1305_blocks_avx2,  // MULX below kPoly1305Avx2MinBlocks, 4-way vector above
    aead_text_avx2,
    aead_open_record_avx2,
};

}  // namespace

const Impl* avx2_impl() noexcept {
    const CpuFeatures f = cpu_features_raw();
    return f.avx2 && f.bmi2 ? &kAvx2 : nullptr;
}

std::span<const Impl* const> avx2_impls() noexcept {
    static const Impl* const all[] = {&kAvx2};
    if (!avx2_impl()) return {};
    return all;
}

}  // namespace stitch::kern
