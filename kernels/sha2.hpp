// SHA-256, SHA-384 and SHA-512 (FIPS 180-4): the compression functions of
// each ISA, the table dispatch picks from once at load, and a streaming
// hasher over them. Pure C++, no OpenSSL, no allocation. The hashes never
// branch or index on message bytes, so they may carry keys (HMAC).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace stitch::kern {

// Compresses nblocks whole blocks into the chaining state h (host-order
// words, FIPS 180-4's H0..H7).
using Sha256BlocksFn = void (*)(uint32_t h[8], const uint8_t* in, size_t nblocks) noexcept;
using Sha512BlocksFn = void (*)(uint64_t h[8], const uint8_t* in, size_t nblocks) noexcept;

// SHA-256's round constants (FIPS 180-4 §4.2.2), for every kernel; 16-byte
// aligned for SHA-NI's four-word loads.
alignas(16) inline constexpr uint32_t kSha256K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

void sha256_blocks_portable(uint32_t h[8], const uint8_t* in, size_t nblocks) noexcept;
void sha512_blocks_portable(uint64_t h[8], const uint8_t* in, size_t nblocks) noexcept;
// The x86 SHA extensions (SHA-NI) with SSSE3/SSE4.1 shuffles; only where
// cpu_features().sha (kernels/shani/sha256.cpp).
void sha256_blocks_shani(uint32_t h[8], const uint8_t* in, size_t nblocks) noexcept;

// One SHA-2 kernel set. SHA-512 (and SHA-384, its truncation) has a
// portable kernel only: SHA-NI covers SHA-256 alone on the CPUs stitch runs on.
struct Sha2Impl {
    const char* name;  // "shani", "portable": the provider's `sha2_kernel` param
    Sha256BlocksFn sha256_blocks;
    Sha512BlocksFn sha512_blocks;
};

const Sha2Impl& sha2_portable_impl() noexcept;
// The SHA-NI set, or nullptr where this CPU lacks SHA-NI (read without the
// STITCH_CLEAR_CPUID mask, so tests can run it whatever dispatch chose).
const Sha2Impl* sha2_shani_impl() noexcept;
// Every SHA-2 set this CPU can run, portable first.
std::span<const Sha2Impl* const> sha2_runnable_impls() noexcept;
// The set dispatch chose for this process (CPUID with STITCH_CLEAR_CPUID's
// `sha` word applied), decided on the first call and never again.
const Sha2Impl& sha2_active_impl() noexcept;

// The algorithms, as one tag the HMAC and HKDF code switch on.
enum class Sha2 : uint8_t { sha256, sha384, sha512 };

inline constexpr size_t sha2_digest_len(Sha2 a) noexcept {
    return a == Sha2::sha256 ? 32 : a == Sha2::sha384 ? 48 : 64;
}
inline constexpr size_t sha2_block_len(Sha2 a) noexcept { return a == Sha2::sha256 ? 64 : 128; }
inline constexpr size_t kSha2MaxDigest = 64;
inline constexpr size_t kSha2MaxBlock = 128;

// A chaining state of either width: SHA-256 uses w32, SHA-384/512 w64.
struct Sha2State {
    union {
        uint32_t w32[8];
        uint64_t w64[8];
    };
};

// Hashes a message given in pieces. Starts from the IV or from a saved
// state (an HMAC pad block already absorbed: `absorbed` bytes counted).
class Sha2Hasher {
public:
    Sha2Hasher(const Sha2Impl& impl, Sha2 alg) noexcept;
    Sha2Hasher(const Sha2Impl& impl, Sha2 alg, const Sha2State& from, uint64_t absorbed) noexcept;
    ~Sha2Hasher();  // wipes: the state and buffer may hold key bytes
    Sha2Hasher(const Sha2Hasher&) = delete;
    Sha2Hasher& operator=(const Sha2Hasher&) = delete;

    void update(const uint8_t* in, size_t len) noexcept;
    // Writes sha2_digest_len(alg) bytes. The hasher is spent afterwards.
    void final(uint8_t* out) noexcept;
    // The chaining state after whole blocks only (no buffered bytes): HMAC's
    // precomputed pad states.
    const Sha2State& state() const noexcept { return st_; }

private:
    void compress(const uint8_t* in, size_t nblocks) noexcept;

    const Sha2Impl& impl_;
    Sha2 alg_;
    Sha2State st_;
    uint64_t total_;  // bytes absorbed (FIPS 180-4 caps SHA-256 at 2^64 bits; HKDF inputs are far below)
    size_t buffered_;
    alignas(16) uint8_t buf_[kSha2MaxBlock];
};

// The initial chaining state of each algorithm.
Sha2State sha2_iv(Sha2 alg) noexcept;

// One-shot digest.
void sha2_digest(const Sha2Impl& impl, Sha2 alg, const uint8_t* in, size_t len, uint8_t* out) noexcept;

}  // namespace stitch::kern
