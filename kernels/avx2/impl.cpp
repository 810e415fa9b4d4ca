// The AVX2+BMI2 kernel set as one Impl table per shape (avx2/shapes.hpp),
// offered only where the CPU has AVX2 and BMI2 and the OS saves ymm state
// (cpu_features_raw: CPUID and XGETBV, no STITCH_CLEAR_CPUID mask, so tests
// reach every shape directly even when dispatch is forced down to portable).
#include <array>

#include "kernels/avx2/kernels.hpp"
#include "kernels/avx2/shapes.hpp"
#include "kernels/dispatch.hpp"

namespace stitch::kern {

namespace {

using avx2::kShapeCount;

std::array<Impl, kShapeCount> make_impls() {
    std::array<Impl, kShapeCount> impls{};
    for (size_t i = 0; i < kShapeCount; ++i) {
        impls[i] = Impl{
            "avx2",
            chacha20_blocks_avx2[i],
            poly1305_blocks_avx2_shaped[i],
            aead_text_avx2[i],
            aead_open_record_avx2[i],
            avx2::kAllShapes[i]->label,
        };
    }
    return impls;
}

const std::array<Impl, kShapeCount>& impls() {
    static const std::array<Impl, kShapeCount> all = make_impls();
    return all;
}

bool runnable() {
    const CpuFeatures f = cpu_features_raw();
    return f.avx2 && f.bmi2;
}

}  // namespace

const Impl* avx2_impl() noexcept {
    // Read once: the shape is decided with the rest of dispatch, at load.
    static const Impl* const chosen = runnable() ? &impls()[avx2::chosen_shape_index()] : nullptr;
    return chosen;
}

std::span<const Impl* const> avx2_impls() noexcept {
    static const std::array<const Impl*, kShapeCount> all = [] {
        std::array<const Impl*, kShapeCount> a{};
        for (size_t i = 0; i < kShapeCount; ++i) a[i] = &impls()[i];
        return a;
    }();
    if (!runnable()) return {};
    return all;
}

}  // namespace stitch::kern
