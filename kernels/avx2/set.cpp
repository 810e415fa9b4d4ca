// The AVX2+BMI2 set as one Impl, and its rule: where it may run.
#include "kernels/avx2/set.hpp"

#include <cstdlib>
#include <cstring>

#include "kernels/avx2/kernels.hpp"
#include "kernels/avx2/tuning.hpp"

namespace stitch::kern::avx2 {

namespace {

constexpr Impl kImpl{
    "avx2", chacha20_blocks_avx2, poly1305_blocks_avx2, aead_text_avx2, aead_open_record_avx2,
};

bool runnable() {
    const CpuFeatures f = cpu_features_raw();
    return f.avx2 && f.bmi2;
}

}  // namespace

std::span<const Impl* const> impls() noexcept {
    static const Impl* const all[] = {&kImpl};
    if (!runnable()) return {};
    return all;
}

const Impl* allowed(const CpuFeatures& f) noexcept {
    if (!f.avx2 || !f.bmi2 || !runnable()) return nullptr;
    return &kImpl;
}

// Wherever it may run: as OpenSSL's default provider does, which takes its
// AVX2 ChaCha20 and Poly1305 code on every CPU that has AVX2.
const Impl* preferred(const CpuFeatures& f) noexcept { return allowed(f); }

bool allows(const CpuFeatures& f, const Impl&) noexcept { return allowed(f) != nullptr; }

bool key_beside_batch(const CpuFeatures& f) noexcept {
    return f.vendor == CpuVendor::amd && f.family == kKeyBesideBatchFamily;
}

bool key_beside_batch_here() noexcept {
    const char* env = std::getenv("STITCH_AVX2_KEY_BLOCK");
    if (env && std::strcmp(env, "lane") == 0) return false;
    if (env && std::strcmp(env, "gpr") == 0) return true;
    return key_beside_batch(cpu_features_raw());
}

}  // namespace stitch::kern::avx2
