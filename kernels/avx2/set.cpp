// The AVX2+BMI2 set as one Impl table per shape (avx2/shapes.hpp), and its
// rule: where it may run, and which shape.
#include "kernels/avx2/set.hpp"

#include <array>
#include <cstdlib>

#include "kernels/avx2/kernels.hpp"
#include "kernels/avx2/shapes.hpp"

namespace stitch::kern::avx2 {

namespace {

std::array<Impl, kShapeCount> make_impls() {
    std::array<Impl, kShapeCount> impls{};
    for (size_t i = 0; i < kShapeCount; ++i) {
        impls[i] = Impl{
            "avx2",
            chacha20_blocks_avx2[i],
            poly1305_blocks_avx2_shaped[i],
            aead_text_avx2[i],
            aead_open_record_avx2[i],
            kAllShapes[i]->label,
        };
    }
    return impls;
}

const std::array<Impl, kShapeCount>& table() {
    static const std::array<Impl, kShapeCount> all = make_impls();
    return all;
}

bool runnable() {
    const CpuFeatures f = cpu_features_raw();
    return f.avx2 && f.bmi2;
}

// STITCH_AVX2_SHAPE=<name> forces a shape, for tests and measurements; read
// once, with the rest of dispatch.
const Shape* forced_shape() {
    static const Shape* const forced = shape_named(std::getenv("STITCH_AVX2_SHAPE"));
    return forced;
}

}  // namespace

std::span<const Impl* const> impls() noexcept {
    static const std::array<const Impl*, kShapeCount> all = [] {
        std::array<const Impl*, kShapeCount> a{};
        for (size_t i = 0; i < kShapeCount; ++i) a[i] = &table()[i];
        return a;
    }();
    if (!runnable()) return {};
    return all;
}

const Impl* allowed(const CpuFeatures& f) noexcept {
    if (!f.avx2 || !f.bmi2 || !runnable()) return nullptr;
    const Shape* forced = forced_shape();
    return &table()[shape_index(forced ? *forced : shape_for(f.vendor, f.family, f.model))];
}

// Wherever it may run: as OpenSSL's default provider does, which takes its
// AVX2 ChaCha20 and Poly1305 code on every CPU that has AVX2. The shape is
// the measured part (the table in avx2/shapes.cpp).
const Impl* preferred(const CpuFeatures& f) noexcept { return allowed(f); }

bool allows(const CpuFeatures& f, const Impl&) noexcept { return allowed(f) != nullptr; }

}  // namespace stitch::kern::avx2
