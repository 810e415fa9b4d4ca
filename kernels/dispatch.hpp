// The kernel set chosen once, when the library loads: one table of function
// pointers, taken from a single CPU snapshot (CPUID + XGETBV), lowered by the
// STITCH_CLEAR_CPUID environment mask for tests. Nothing here runs per record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "kernels/aead.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern {

struct Impl {
    const char* name;  // "portable", "avx2": reported by the provider's `kernel` param

    // ChaCha20 over whole blocks; see chacha20_blocks_portable for the contract.
    void (*chacha20_blocks)(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept;

    // Poly1305 over whole 16-byte blocks.
    void (*poly1305_blocks)(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept;

    // The one pass over AEAD text; see aead_text_portable for the contract.
    void (*aead_text)(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept;

    // Whole-record open: verifies before it decrypts where the record is short.
    // See aead_open_record_portable.
    bool (*aead_open_record)(AeadState& st, const uint8_t* in, uint8_t* out, size_t len,
                             const uint8_t tag[16]) noexcept;

    // Set and shape, "avx2/zen4", where a set has one Impl per tuning
    // (avx2/shapes.hpp); null where name says it all. See impl_label().
    const char* label = nullptr;
};

// What tests and benchmarks call an Impl: its label, else its name.
inline const char* impl_label(const Impl& impl) noexcept { return impl.label ? impl.label : impl.name; }

enum class CpuVendor : uint8_t { other, intel, amd };

// CPU features as seen by dispatch (after the environment mask), and the
// CPU's identity, which the mask leaves alone: kernel sets with tunings per
// microarchitecture (avx2/shapes.cpp) look them up by it.
struct CpuFeatures {
    bool avx2 = false;  // CPUID.7.EBX[5] and the OS saves ymm state (XCR0 bits 1, 2)
    bool bmi2 = false;  // CPUID.7.EBX[8]
    bool adx = false;   // CPUID.7.EBX[19]
    bool sha = false;   // CPUID.7.EBX[29] with SSSE3 and SSE4.1 (CPUID.1.ECX[9], [19]): kernels/shani
    // AVX512F, DQ, BW and VL (CPUID.7.EBX[16, 17, 30, 31]) and the OS saves
    // the opmask and zmm state (XCR0 bits 5, 6, 7): kernels/avx512
    bool avx512 = false;
    bool avx512ifma = false;  // CPUID.7.EBX[21], with avx512
    CpuVendor vendor = CpuVendor::other;  // CPUID.0 "GenuineIntel" / "AuthenticAMD"
    uint32_t family = 0;  // CPUID.1.EAX: base family, plus the extended family where base is 0xF
    uint32_t model = 0;   // CPUID.1.EAX: model, with the extended model on family 6 and from 0xF up
};

const Impl& portable_impl() noexcept;

// The AVX2+BMI2 kernels in the shape chosen for this CPU (by vendor, family
// and model, or STITCH_AVX2_SHAPE; avx2/shapes.cpp), or nullptr where this
// build or this CPU lacks them.
const Impl* avx2_impl() noexcept;

// Every AVX2 Impl this build has (one per shape), empty where the CPU lacks
// AVX2+BMI2.
std::span<const Impl* const> avx2_impls() noexcept;

// The AVX-512 Impls this build has and this CPU can run ("avx512-ifma",
// "avx512"), empty where it has none (kernels/avx512/impl.cpp).
std::span<const Impl* const> avx512_impls() noexcept;

// Every kernel set (and shape) this build has and this CPU can run, by
// CPUID and XGETBV without the STITCH_CLEAR_CPUID mask, portable first, each
// once. Tests and benchmarks run every entry, whatever dispatch chose.
std::span<const Impl* const> runnable_impls() noexcept;

// The Impl named `name` ("avx512-ifma", "avx512", "avx2", "portable", or a
// label such as "avx2/zen4") if this process may run it (CPUID after the
// STITCH_CLEAR_CPUID mask), else nullptr. The provider's `kernel` setting in
// openssl.cnf and STITCH_KERNEL both go through it.
const Impl* find_impl(std::string_view name) noexcept;

// Whether `name` names a kernel set or a shape this build has, whatever the
// CPU: tells an unknown word from a set this CPU cannot run.
bool is_kernel_name(std::string_view name) noexcept;

// The set dispatch chose for this process: decided on the first call (the
// provider makes that call in OSSL_provider_init) and never again.
const Impl& active_impl() noexcept;

// The set dispatch picks for a CPU with features `f`, STITCH_KERNEL aside:
// the AVX-512 set where kernels/avx512/rule.cpp says so, else the AVX2 set
// (its shape for this CPU), else portable. Pure, so tests can ask it about
// CPUs this machine is not; active_impl() asks it once about this one.
const Impl& dispatch_choice(const CpuFeatures& f) noexcept;

// What the CPU reports, before (raw) and after (masked) STITCH_CLEAR_CPUID.
CpuFeatures cpu_features_raw() noexcept;
CpuFeatures cpu_features() noexcept;

}  // namespace stitch::kern
