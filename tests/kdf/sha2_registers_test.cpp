// After the SHA-2 kernels the vector registers hold nothing of the message
// (HMAC's key pads pass through them): the AVX2 + BMI2 SHA-512 kernel and
// the SHA-NI SHA-256 kernel, single blocks, block runs and pairs. As in
// tests/wipe/avx2_registers_test.cpp, each call sits in a noinline AVX2
// wrapper that zeroes ymm0-15, makes the call and stores ymm0-15 straight
// after it returns; every register must then be zero. Both kernels are
// reached directly whatever dispatch chose; a host without them fails by name.
#include <cpuid.h>
#include <gtest/gtest.h>

#include <string>

#include "common/test_util.hpp"
#include "kernels/sha2.hpp"

namespace stitch::test {
namespace {

struct YmmDump {
    alignas(32) uint8_t reg[16][32];
};

#define STITCH_SHA2_WRAPPER __attribute__((noinline, target("avx2")))
#define ZERO_YMM()                                                                                             \
    __asm__ __volatile__("vzeroall" ::                                                                         \
                             : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
                               "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory")
#define DUMP_YMM(dst)                                                                          \
    __asm__ __volatile__(                                                                      \
        "vmovdqu %%ymm0, 0(%0)\n\tvmovdqu %%ymm1, 32(%0)\n\tvmovdqu %%ymm2, 64(%0)\n\t"        \
        "vmovdqu %%ymm3, 96(%0)\n\tvmovdqu %%ymm4, 128(%0)\n\tvmovdqu %%ymm5, 160(%0)\n\t"     \
        "vmovdqu %%ymm6, 192(%0)\n\tvmovdqu %%ymm7, 224(%0)\n\tvmovdqu %%ymm8, 256(%0)\n\t"    \
        "vmovdqu %%ymm9, 288(%0)\n\tvmovdqu %%ymm10, 320(%0)\n\tvmovdqu %%ymm11, 352(%0)\n\t"  \
        "vmovdqu %%ymm12, 384(%0)\n\tvmovdqu %%ymm13, 416(%0)\n\tvmovdqu %%ymm14, 448(%0)\n\t" \
        "vmovdqu %%ymm15, 480(%0)"                                                             \
        :                                                                                      \
        : "r"((dst).reg)                                                                       \
        : "memory")

STITCH_SHA2_WRAPPER void sha512_blocks_then_dump(uint64_t h[8], const uint8_t* in, size_t n, YmmDump& d) {
    ZERO_YMM();
    kern::sha512_blocks_avx2(h, in, n);
    DUMP_YMM(d);
}
STITCH_SHA2_WRAPPER void sha512_pair_then_dump(uint64_t a[8], uint64_t b[8], const uint8_t* in, YmmDump& d) {
    ZERO_YMM();
    kern::sha512_pair_avx2(a, in, b, in + 128);
    DUMP_YMM(d);
}
STITCH_SHA2_WRAPPER void sha256_blocks_then_dump(uint32_t h[8], const uint8_t* in, size_t n, YmmDump& d) {
    ZERO_YMM();
    kern::sha256_blocks_shani(h, in, n);
    DUMP_YMM(d);
}
STITCH_SHA2_WRAPPER void sha256_pair_then_dump(uint32_t a[8], uint32_t b[8], const uint8_t* in, YmmDump& d) {
    ZERO_YMM();
    kern::sha256_pair_shani(a, in, b, in + 64);
    DUMP_YMM(d);
}

// Names every register that is not all zero (ASan's frame markers aside,
// as in avx2_registers_test).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
constexpr bool kAsan = __has_feature(address_sanitizer);
#else
constexpr bool kAsan = false;
#endif
void expect_all_zero(const YmmDump& d, const std::string& what) {
    std::string dirty;
    for (int r = 0; r < 16; ++r) {
        bool zero = true;
        for (uint8_t b : d.reg[r]) zero &= b == 0 || (kAsan && b >= 0xf1 && b <= 0xf8);
        if (!zero) dirty += " ymm" + std::to_string(r) + "=" + to_hex(d.reg[r], 32);
    }
    EXPECT_TRUE(dirty.empty()) << what << " left in vector registers:" << dirty;
}

TEST(Sha2Registers, Sha512Avx2LeavesThemZero) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2"))
        GTEST_FAIL() << "this host lacks AVX2+BMI2: the AVX2 SHA-512 kernel cannot be checked";
    Rng rng(0x5a12e6);
    const Bytes in = rng.bytes(5 * 128);
    for (size_t n : {1u, 2u, 3u, 5u}) {
        uint64_t h[8] = {1, 2, 3, 4, 5, 6, 7, 8}, ref[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        YmmDump d;
        sha512_blocks_then_dump(h, in.data(), n, d);
        expect_all_zero(d, "sha512_blocks_avx2(" + std::to_string(n) + ")");
        kern::sha512_blocks_portable(ref, in.data(), n);
        EXPECT_EQ(to_hex(reinterpret_cast<uint8_t*>(h), 64), to_hex(reinterpret_cast<uint8_t*>(ref), 64));
    }
    uint64_t a[8] = {}, b[8] = {};
    YmmDump d;
    sha512_pair_then_dump(a, b, in.data(), d);
    expect_all_zero(d, "sha512_pair_avx2");
}

bool cpu_has_sha_ni() {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 9) & 1) || !((c >> 19) & 1) || __get_cpuid_max(0, nullptr) < 7)
        return false;
    __cpuid_count(7, 0, a, b, c, d);
    return (b >> 29) & 1;
}

TEST(Sha2Registers, Sha256ShaniLeavesThemZero) {
    if (!cpu_has_sha_ni()) GTEST_FAIL() << "this host lacks SHA-NI: its kernel cannot be checked";
    Rng rng(0x5a1256);
    const Bytes in = rng.bytes(5 * 64);
    for (size_t n : {1u, 2u, 5u}) {
        uint32_t h[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        YmmDump d;
        sha256_blocks_then_dump(h, in.data(), n, d);
        expect_all_zero(d, "sha256_blocks_shani(" + std::to_string(n) + ")");
    }
    uint32_t a[8] = {}, b[8] = {};
    YmmDump d;
    sha256_pair_then_dump(a, b, in.data(), d);
    expect_all_zero(d, "sha256_pair_shani");
}

}  // namespace
}  // namespace stitch::test
