// After AVX-512 code no register holds key material: zmm0–31 and the
// opmask registers k1–k7 are all zero when an AVX-512 kernel returns.
//
// As avx2_registers_test does for ymm0–15: each Impl entry of each
// AVX-512 variant is called from its own noinline wrapper that zeroes every
// zmm and opmask register, makes the call, and stores them all to memory
// straight after it returns. The variants are reached directly, whatever
// dispatch chose. A host whose CPU has AVX-512 but whose build offers no
// AVX-512 Impl fails by name; a host without AVX-512 has no zmm or opmask
// registers to leak into, and says so.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/seeded_rng.hpp"
#include "common/kernel_aead_calls.hpp"
#include "common/kernel_set_param.hpp"
#include "common/test_util.hpp"
#include "kernels/aead.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/poly1305.hpp"
#include "kernels/portable/set.hpp"
#include "kernels/avx512/set.hpp"

namespace stitch::test {
namespace {

using kern::AeadState;
using kern::Direction;
using kern::Grid;
using kern::Impl;

struct RegisterDump {
    alignas(64) uint8_t zmm[32][64];
    uint64_t k[8];
};

#define STITCH_AVX512_WRAPPER __attribute__((noinline, target("avx512f,avx512bw")))

#define ZERO_ALL()                                                                                               \
    __asm__ __volatile__(                                                                                        \
        "vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"                               \
        "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"                               \
        "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"                               \
        "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"                               \
        "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n\t"                               \
        "vpxord %%zmm26, %%zmm26, %%zmm26\n\tvpxord %%zmm27, %%zmm27, %%zmm27\n\t"                               \
        "vpxord %%zmm28, %%zmm28, %%zmm28\n\tvpxord %%zmm29, %%zmm29, %%zmm29\n\t"                               \
        "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31\n\t"                               \
        "kxorq %%k0, %%k0, %%k0\n\tkxorq %%k1, %%k1, %%k1\n\tkxorq %%k2, %%k2, %%k2\n\tkxorq %%k3, %%k3, %%k3\n\t" \
        "kxorq %%k4, %%k4, %%k4\n\tkxorq %%k5, %%k5, %%k5\n\tkxorq %%k6, %%k6, %%k6\n\tkxorq %%k7, %%k7, %%k7\n\t" \
        "vzeroall" ::                                                                                            \
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",  \
              "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", \
              "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "k0", "k1", "k2", \
              "k3", "k4", "k5", "k6", "k7", "memory")

#define STITCH_STORE_ZMM(n) "vmovdqu64 %%zmm" #n ", " #n "*64(%0)\n\t"
#define STITCH_STORE_K(n) "kmovq %%k" #n ", " #n "*8(%1)\n\t"
#define DUMP_ALL(dst)                                                                                           \
    __asm__ __volatile__(STITCH_STORE_ZMM(0) STITCH_STORE_ZMM(1) STITCH_STORE_ZMM(2) STITCH_STORE_ZMM(3)         \
                             STITCH_STORE_ZMM(4) STITCH_STORE_ZMM(5) STITCH_STORE_ZMM(6) STITCH_STORE_ZMM(7)     \
                                 STITCH_STORE_ZMM(8) STITCH_STORE_ZMM(9) STITCH_STORE_ZMM(10) STITCH_STORE_ZMM(11) \
                                     STITCH_STORE_ZMM(12) STITCH_STORE_ZMM(13) STITCH_STORE_ZMM(14)              \
                                         STITCH_STORE_ZMM(15) STITCH_STORE_ZMM(16) STITCH_STORE_ZMM(17)          \
                                             STITCH_STORE_ZMM(18) STITCH_STORE_ZMM(19) STITCH_STORE_ZMM(20)      \
                                                 STITCH_STORE_ZMM(21) STITCH_STORE_ZMM(22) STITCH_STORE_ZMM(23)  \
                                                     STITCH_STORE_ZMM(24) STITCH_STORE_ZMM(25)                   \
                                                         STITCH_STORE_ZMM(26) STITCH_STORE_ZMM(27)               \
                                                             STITCH_STORE_ZMM(28) STITCH_STORE_ZMM(29)           \
                                                                 STITCH_STORE_ZMM(30) STITCH_STORE_ZMM(31)       \
                                                                     STITCH_STORE_K(0) STITCH_STORE_K(1)         \
                                                                         STITCH_STORE_K(2) STITCH_STORE_K(3)     \
                                                                             STITCH_STORE_K(4) STITCH_STORE_K(5) \
                                                                                 STITCH_STORE_K(6)               \
                                                                                     STITCH_STORE_K(7)           \
                         :                                                                                      \
                         : "r"((dst).zmm), "r"((dst).k)                                                         \
                         : "memory")

STITCH_AVX512_WRAPPER void chacha20_blocks_then_dump(const Impl& impl, kern::ChaChaState& st, const uint8_t* in,
                                                     uint8_t* out, size_t nblocks, RegisterDump& dump) {
    ZERO_ALL();
    impl.chacha20_blocks(st, in, out, nblocks);
    DUMP_ALL(dump);
}

STITCH_AVX512_WRAPPER void poly1305_blocks_then_dump(const Impl& impl, kern::Poly1305State& st, const uint8_t* in,
                                                     size_t nblocks, RegisterDump& dump) {
    ZERO_ALL();
    impl.poly1305_blocks(st, in, nblocks);
    DUMP_ALL(dump);
}

STITCH_AVX512_WRAPPER void aead_text_then_dump(const Impl& impl, AeadState& st, Direction dir, const uint8_t* in,
                                               uint8_t* out, size_t len, RegisterDump& dump) {
    ZERO_ALL();
    impl.aead_text(st, dir, in, out, len);
    DUMP_ALL(dump);
}

STITCH_AVX512_WRAPPER bool aead_open_record_then_dump(const Impl& impl, AeadState& st, const uint8_t* in,
                                                      uint8_t* out, size_t len, const uint8_t tag[16],
                                                      RegisterDump& dump) {
    ZERO_ALL();
    const bool ok = impl.aead_open_record(st, in, out, len, tag);
    DUMP_ALL(dump);
    return ok;
}

// Names every register that is not all zero.
void expect_all_zero(const RegisterDump& d, const std::string& what) {
    std::string dirty;
    for (int r = 0; r < 32; ++r) {
        bool zero = true;
        for (uint8_t b : d.zmm[r]) zero &= b == 0;
        if (!zero) dirty += " zmm" + std::to_string(r) + "=" + to_hex(d.zmm[r], 64);
    }
    for (int r = 0; r < 8; ++r)
        if (d.k[r] != 0) dirty += " k" + std::to_string(r) + "=" + std::to_string(d.k[r]);
    EXPECT_TRUE(dirty.empty()) << what << " left in registers:" << dirty;
}

bool host_has_avx512() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
}

TEST(Avx512RegistersHost, HasTheAvx512SetWhereTheCpuDoes) {
    if (!host_has_avx512()) {
        std::printf("this host has no AVX-512: no zmm or opmask registers to check (the SIMDe build uses ymm)\n");
        return;
    }
    if (kern::avx512::impls().empty()) GTEST_FAIL() << "an AVX-512 host, but no AVX-512 Impl: the set is missing";
}

class Avx512Registers : public ::testing::TestWithParam<const Impl*> {
protected:
    const Impl& set() const { return *GetParam(); }
    Rng rng_{0x5eed512};
};

std::vector<const Impl*> avx512_sets() {
    const auto all = kern::avx512::impls();
    return {all.begin(), all.end()};
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Avx512Registers);  // hosts without AVX-512: see above
INSTANTIATE_TEST_SUITE_P(EveryVariant, Avx512Registers, ::testing::ValuesIn(avx512_sets()), impl_name);

// Every shape of chacha20_blocks: rows, ymm and zmm batches, several batches.
constexpr size_t kBlockCounts[] = {1, 3, 4, 5, 8, 9, 15, 16, 17, 40};

TEST_P(Avx512Registers, ChaCha20BlocksLeavesThemZero) {
    for (size_t n : kBlockCounts) {
        for (bool keystream_only : {false, true}) {
            const Bytes key = rng_.bytes(32), in = rng_.bytes(n * 64);
            kern::ChaChaState st{}, ref{};
            kern::chacha_load_key(st, key.data());
            st.ctr[0] = 0xfffffffb;  // across the carry too
            st.ctr[3] = 0x01020304;
            ref = st;
            Bytes out(n * 64), want(n * 64);
            RegisterDump dump;
            chacha20_blocks_then_dump(set(), st, keystream_only ? nullptr : in.data(), out.data(), n, dump);
            expect_all_zero(dump, "chacha20_blocks(" + std::to_string(n) + (keystream_only ? ", keystream)" : ")"));
            kern::portable_impl().chacha20_blocks(ref, keystream_only ? nullptr : in.data(), want.data(), n);
            EXPECT_EQ(to_hex(out), to_hex(want)) << n << " blocks";  // the call did the real work
        }
    }
}

TEST_P(Avx512Registers, Poly1305BlocksLeavesThemZero) {
    for (size_t n : {size_t(1), size_t(17), size_t(32), size_t(64), size_t(100)}) {
        const Bytes key = rng_.bytes(32), in = rng_.bytes(n * 16);
        kern::Poly1305State st{}, ref{};
        kern::poly1305_init(st, key.data());
        ref = st;
        RegisterDump dump;
        poly1305_blocks_then_dump(set(), st, in.data(), n, dump);
        expect_all_zero(dump, "poly1305_blocks(" + std::to_string(n) + ")");
        kern::portable_impl().poly1305_blocks(ref, in.data(), n);
        uint8_t t1[16], t2[16];
        kern::poly1305_final(kern::portable_impl(), st, t1);
        kern::poly1305_final(kern::portable_impl(), ref, t2);
        EXPECT_EQ(to_hex(t1, 16), to_hex(t2, 16)) << n;
    }
}

// The first call's shapes (row, ymm, zmm with a lane for the key, the key
// row beside a batch), the chunks, and the tails.
constexpr size_t kTextLens[] = {1, 64, 192, 300, 960, 1024, 1300, 2048 + 5, 17 * 1024 + 100};

TEST_P(Avx512Registers, AeadTextLeavesThemZero) {
    for (Grid grid : {Grid::rfc8439, Grid::openssh}) {
        for (Direction dir : {Direction::seal, Direction::open}) {
            for (size_t len : kTextLens) {
                const Bytes key = rng_.bytes(32), aad = rng_.bytes(grid == Grid::openssh ? 4 : 13),
                            in = rng_.bytes(len);
                AeadState st = announced_message(set(), grid, key, aad, len);
                AeadState ref = announced_message(kern::portable_impl(), grid, key, aad, len);
                Bytes out(len), want(len);
                RegisterDump dump;
                aead_text_then_dump(set(), st, dir, in.data(), out.data(), len, dump);
                expect_all_zero(dump, std::string("aead_text(") + (grid == Grid::rfc8439 ? "rfc8439" : "openssh") +
                                          (dir == Direction::seal ? ", seal, " : ", open, ") + std::to_string(len) +
                                          ")");
                kern::portable_impl().aead_text(ref, dir, in.data(), want.data(), len);
                EXPECT_EQ(to_hex(out), to_hex(want)) << len;
            }
        }
    }
}

TEST_P(Avx512Registers, AeadOpenRecordLeavesThemZeroAcceptedOrRefused) {
    for (size_t len : kTextLens) {
        for (bool forged : {false, true}) {
            const Bytes key = rng_.bytes(32), aad = rng_.bytes(13), plain = rng_.bytes(len);
            AeadState sealer;
            kern::aead_init(sealer, kern::portable_impl(), Grid::rfc8439);
            kern::aead_set_key(sealer, key.data());
            kern::aead_set_nonce(sealer, key.data());
            kern::aead_aad(sealer, aad.data(), aad.size());
            Bytes ct(len);
            uint8_t tag[16];
            ASSERT_TRUE(kern::aead_text(sealer, Direction::seal, plain.data(), ct.data(), len));
            kern::aead_final(sealer, tag);
            if (forged) tag[len % 16] ^= 0x20;

            AeadState st;
            kern::aead_init(st, set(), Grid::rfc8439);
            kern::aead_set_key(st, key.data());
            kern::aead_set_nonce(st, key.data());
            kern::aead_aad(st, aad.data(), aad.size());
            st.text_started = true;
            st.text_len = len;
            Bytes out(len, 0xa5);
            RegisterDump dump;
            const bool ok = aead_open_record_then_dump(set(), st, ct.data(), out.data(), len, tag, dump);
            expect_all_zero(
                dump, std::string("aead_open_record(") + std::to_string(len) + (forged ? ", forged)" : ", authentic)"));
            EXPECT_EQ(ok, !forged);
            EXPECT_EQ(to_hex(out), forged ? std::string(2 * len, '0') : to_hex(plain));
        }
    }
}

}  // namespace
}  // namespace stitch::test
