// SHA-256, SHA-384 and SHA-512 (FIPS 180-4): the compression functions of
// each ISA, the table dispatch picks from once at load, and a streaming
// hasher over them. Pure C++, no OpenSSL, no allocation. The hashes never
// branch or index on message bytes, so they may carry keys (HMAC).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace stitch::kern {

struct CpuFeatures;  // kernels/dispatch.hpp

// Compresses nblocks whole blocks into the chaining state h (host-order
// words, FIPS 180-4's H0..H7).
using Sha256BlocksFn = void (*)(uint32_t h[8], const uint8_t* in, size_t nblocks) noexcept;
using Sha512BlocksFn = void (*)(uint64_t h[8], const uint8_t* in, size_t nblocks) noexcept;
// Compresses one block into each of two independent states: HMAC's key ⊕
// ipad and key ⊕ opad, which a kernel may run side by side.
using Sha256PairFn = void (*)(uint32_t h_a[8], const uint8_t* a, uint32_t h_b[8], const uint8_t* b) noexcept;
using Sha512PairFn = void (*)(uint64_t h_a[8], const uint8_t* a, uint64_t h_b[8], const uint8_t* b) noexcept;

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

// SHA-512's round constants (FIPS 180-4 §4.2.3), for every kernel; 32-byte
// aligned for two-word vector loads.
alignas(32) inline constexpr uint64_t kSha512K[80] = {
    0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
    0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
    0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
    0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
    0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
    0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
    0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
    0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
    0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
    0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
    0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
    0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
    0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
    0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
    0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
    0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
    0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
    0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
    0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
    0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
};

void sha256_blocks_portable(uint32_t h[8], const uint8_t* in, size_t nblocks) noexcept;
void sha512_blocks_portable(uint64_t h[8], const uint8_t* in, size_t nblocks) noexcept;
// The pair as two calls of the portable kernel.
void sha256_pair_portable(uint32_t h_a[8], const uint8_t* a, uint32_t h_b[8], const uint8_t* b) noexcept;
void sha512_pair_portable(uint64_t h_a[8], const uint8_t* a, uint64_t h_b[8], const uint8_t* b) noexcept;
// The x86 SHA extensions (SHA-NI) with SSSE3/SSE4.1 shuffles; only where
// cpu_features().sha (kernels/shani/sha256.cpp).
void sha256_blocks_shani(uint32_t h[8], const uint8_t* in, size_t nblocks) noexcept;
void sha256_pair_shani(uint32_t h_a[8], const uint8_t* a, uint32_t h_b[8], const uint8_t* b) noexcept;
// SHA-512 on AVX2 + BMI2 (kernels/sha512_avx2): RORX rounds, the schedule of
// two blocks at a time in ymm; only where cpu_features().avx2 and .bmi2.
void sha512_blocks_avx2(uint64_t h[8], const uint8_t* in, size_t nblocks) noexcept;
void sha512_pair_avx2(uint64_t h_a[8], const uint8_t* a, uint64_t h_b[8], const uint8_t* b) noexcept;

// One SHA-2 kernel set: a SHA-256 kernel and a SHA-512 kernel (SHA-384 is
// its truncation), each the best of what the CPU has. SHA-NI covers SHA-256
// alone on the CPUs stitch runs on; SHA-512 takes AVX2 + BMI2.
struct Sha2Impl {
    const char* name;  // "portable", "shani", "avx2", "shani+avx2": the provider's `sha2_kernel` param
    Sha256BlocksFn sha256_blocks;
    Sha512BlocksFn sha512_blocks;
    Sha256PairFn sha256_pair;
    Sha512PairFn sha512_pair;
};

const Sha2Impl& sha2_portable_impl() noexcept;
// The set for these features (SHA-NI for SHA-256 where `sha`, AVX2 for
// SHA-512 where `avx2` and `bmi2`, portable for the rest).
const Sha2Impl& sha2_impl_for(const CpuFeatures& f) noexcept;
// Every SHA-2 set these features run, portable first, each once.
struct Sha2Sets {
    const Sha2Impl* items[4];
    size_t count;
};
Sha2Sets sha2_sets_for(const CpuFeatures& f) noexcept;
// Every SHA-2 set this CPU can run (CPUID without the STITCH_CLEAR_CPUID
// mask, so tests run each whatever dispatch chose), portable first.
std::span<const Sha2Impl* const> sha2_runnable_impls() noexcept;
// The set dispatch chose for this process (CPUID with STITCH_CLEAR_CPUID's
// `sha`, `avx2` and `bmi2` words applied), decided on the first call and
// never again.
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
