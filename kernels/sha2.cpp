// The SHA-2 kernel sets, the choice between them (once, from the same CPU
// snapshot as the cipher kernels), and the streaming hasher over a set.
#include "kernels/sha2.hpp"

#include <cstring>

#include "kernels/bytes.hpp"
#include "kernels/cpu.hpp"

namespace stitch::kern {

namespace {

// Each CPU's set: SHA-NI for SHA-256 wherever CPUID has it (OpenSSL's default
// provider takes it there too); AVX2 + BMI2 for SHA-512 wherever CPUID has
// both (likewise: its sha512-x86_64 AVX2 path needs the same two). Measured
// against it in docs/tls13-kdf.md.
const Sha2Impl kPortable = {"portable", sha256_blocks_portable, sha512_blocks_portable, sha256_pair_portable,
                            sha512_pair_portable};
const Sha2Impl kShani = {"shani", sha256_blocks_shani, sha512_blocks_portable, sha256_pair_shani,
                         sha512_pair_portable};
const Sha2Impl kAvx2 = {"avx2", sha256_blocks_portable, sha512_blocks_avx2, sha256_pair_portable, sha512_pair_avx2};
const Sha2Impl kShaniAvx2 = {"shani+avx2", sha256_blocks_shani, sha512_blocks_avx2, sha256_pair_shani,
                             sha512_pair_avx2};

constexpr uint32_t kIv256[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
constexpr uint64_t kIv384[8] = {0xcbbb9d5dc1059ed8, 0x629a292a367cd507, 0x9159015a3070dd17, 0x152fecd8f70e5939,
                                0x67332667ffc00b31, 0x8eb44a8768581511, 0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4};
constexpr uint64_t kIv512[8] = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
                                0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};

}  // namespace

void sha256_pair_portable(uint32_t h_a[8], const uint8_t* a, uint32_t h_b[8], const uint8_t* b) noexcept {
    sha256_blocks_portable(h_a, a, 1);
    sha256_blocks_portable(h_b, b, 1);
}

void sha512_pair_portable(uint64_t h_a[8], const uint8_t* a, uint64_t h_b[8], const uint8_t* b) noexcept {
    sha512_blocks_portable(h_a, a, 1);
    sha512_blocks_portable(h_b, b, 1);
}

const Sha2Impl& sha2_portable_impl() noexcept { return kPortable; }

const Sha2Impl& sha2_impl_for(const CpuFeatures& f) noexcept {
    const bool avx2 = f.avx2 && f.bmi2;
    return f.sha ? (avx2 ? kShaniAvx2 : kShani) : (avx2 ? kAvx2 : kPortable);
}

Sha2Sets sha2_sets_for(const CpuFeatures& f) noexcept {
    const bool avx2 = f.avx2 && f.bmi2;
    Sha2Sets l{{&kPortable}, 1};
    if (f.sha) l.items[l.count++] = &kShani;
    if (avx2) l.items[l.count++] = &kAvx2;
    if (f.sha && avx2) l.items[l.count++] = &kShaniAvx2;
    return l;
}

std::span<const Sha2Impl* const> sha2_runnable_impls() noexcept {
    static const Sha2Sets sets = sha2_sets_for(cpu_features_raw());
    return {sets.items, sets.count};
}

const Sha2Impl& sha2_active_impl() noexcept {
    static const Sha2Impl* const chosen = &sha2_impl_for(cpu_features());
    return *chosen;
}

Sha2State sha2_iv(Sha2 alg) noexcept {
    Sha2State s;
    if (alg == Sha2::sha256)
        std::memcpy(s.w32, kIv256, sizeof(kIv256));
    else
        std::memcpy(s.w64, alg == Sha2::sha384 ? kIv384 : kIv512, sizeof(kIv512));
    return s;
}

Sha2Hasher::Sha2Hasher(const Sha2Impl& impl, Sha2 alg) noexcept
    : impl_(impl), alg_(alg), st_(sha2_iv(alg)), total_(0), buffered_(0) {}

Sha2Hasher::Sha2Hasher(const Sha2Impl& impl, Sha2 alg, const Sha2State& from, uint64_t absorbed) noexcept
    : impl_(impl), alg_(alg), st_(from), total_(absorbed), buffered_(0) {}

Sha2Hasher::~Sha2Hasher() {
    wipe(&st_, sizeof(st_));
    wipe(buf_, sizeof(buf_));
}

void Sha2Hasher::compress(const uint8_t* in, size_t nblocks) noexcept {
    if (alg_ == Sha2::sha256)
        impl_.sha256_blocks(st_.w32, in, nblocks);
    else
        impl_.sha512_blocks(st_.w64, in, nblocks);
}

void Sha2Hasher::update(const uint8_t* in, size_t len) noexcept {
    if (!len) return;
    const size_t block = sha2_block_len(alg_);
    total_ += len;
    if (buffered_) {
        const size_t take = len < block - buffered_ ? len : block - buffered_;
        std::memcpy(buf_ + buffered_, in, take);
        buffered_ += take;
        in += take;
        len -= take;
        if (buffered_ < block) return;
        compress(buf_, 1);
        buffered_ = 0;
    }
    if (len >= block) {
        compress(in, len / block);
        in += len - len % block;
        len %= block;
    }
    if (len) std::memcpy(buf_, in, len);
    buffered_ = len;
}

void Sha2Hasher::final(uint8_t* out) noexcept {
    const size_t block = sha2_block_len(alg_);
    const size_t len_field = alg_ == Sha2::sha256 ? 8 : 16;  // the message length in bits, big-endian
    const uint64_t bits = total_ * 8;
    buf_[buffered_++] = 0x80;
    if (buffered_ > block - len_field) {
        std::memset(buf_ + buffered_, 0, block - buffered_);
        compress(buf_, 1);
        buffered_ = 0;
    }
    std::memset(buf_ + buffered_, 0, block - buffered_);
    const uint64_t be_bits = __builtin_bswap64(bits);
    std::memcpy(buf_ + block - 8, &be_bits, 8);  // SHA-384/512's upper 64 length bits stay zero
    compress(buf_, 1);
    buffered_ = 0;

    const size_t n = sha2_digest_len(alg_);
    if (alg_ == Sha2::sha256) {
        for (size_t i = 0; i < n / 4; ++i) {
            const uint32_t be = __builtin_bswap32(st_.w32[i]);
            std::memcpy(out + 4 * i, &be, 4);
        }
    } else {
        for (size_t i = 0; i < n / 8; ++i) {
            const uint64_t be = __builtin_bswap64(st_.w64[i]);
            std::memcpy(out + 8 * i, &be, 8);
        }
    }
}

void sha2_digest(const Sha2Impl& impl, Sha2 alg, const uint8_t* in, size_t len, uint8_t* out) noexcept {
    Sha2Hasher h(impl, alg);
    h.update(in, len);
    h.final(out);
}

}  // namespace stitch::kern
