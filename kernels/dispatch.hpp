// The kernel set chosen once, when the library loads: one table of function
// pointers, taken from a single CPU snapshot (CPUID + XGETBV), lowered by the
// STITCH_CLEAR_CPUID environment mask for tests. Nothing here runs per record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

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
};

// CPU features as seen by dispatch (after the environment mask).
struct CpuFeatures {
    bool avx2 = false;  // CPUID.7.EBX[5] and the OS saves ymm state (XCR0 bits 1, 2)
    bool bmi2 = false;  // CPUID.7.EBX[8]
    bool adx = false;   // CPUID.7.EBX[19]
};

const Impl& portable_impl() noexcept;

// The AVX2+BMI2 kernels, or nullptr where this build or this CPU lacks them.
// Tests call it to run those kernels directly whatever dispatch chose.
const Impl* avx2_impl() noexcept;

// Every AVX2 Impl this build has (one per shape), empty where the CPU lacks
// AVX2+BMI2.
std::span<const Impl* const> avx2_impls() noexcept;

// Every kernel set (and shape) this build has and this CPU can run, by
// CPUID and XGETBV without the STITCH_CLEAR_CPUID mask, portable first, each
// once. Tests and benchmarks run every entry, whatever dispatch chose.
std::span<const Impl* const> runnable_impls() noexcept;

// The set dispatch chose for this process: decided on the first call (the
// provider makes that call in OSSL_provider_init) and never again.
const Impl& active_impl() noexcept;

// What the CPU reports, before (raw) and after (masked) STITCH_CLEAR_CPUID.
CpuFeatures cpu_features_raw() noexcept;
CpuFeatures cpu_features() noexcept;

}  // namespace stitch::kern
