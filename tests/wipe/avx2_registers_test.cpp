// After AVX2 code the vector registers hold no key material (issue 5 item 7).
//
// Each entry of the AVX2 set's Impl is called from its own noinline AVX2 wrapper that
// zeroes ymm0–15 (VZEROALL), makes the call, and stores ymm0–15 to memory
// straight after it returns; every register must then be zero again. The
// wrappers are noinline and do nothing between the call and the dump, so no
// compiler-made vector code can sit in between (check with
// `objdump -d --no-show-raw-insn avx2_registers_test | grep -A12 'then_dump'`).
// All vector registers are caller-saved, so what a kernel leaves in them is
// there for whatever runs next. A scalar entry (Poly1305 with MULX) passes by
// not touching them. The AVX2 set is reached directly whatever dispatch chose,
// and a host or build without it fails by name: it is never skipped.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/kernel_aead_calls.hpp"
#include "common/kernel_set_param.hpp"
#include "common/test_util.hpp"
#include "kernels/aead.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/poly1305.hpp"
#include "kernels/portable/set.hpp"
#include "kernels/avx2/set.hpp"

namespace stitch::test {
namespace {

using kern::AeadState;
using kern::Direction;
using kern::Grid;
using kern::Impl;

struct YmmDump {
    alignas(32) uint8_t reg[16][32];
};

#define STITCH_AVX2_WRAPPER __attribute__((noinline, target("avx2")))

// Both as macros so they expand inside each wrapper, with nothing between
// them and the call.
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

STITCH_AVX2_WRAPPER void chacha20_blocks_then_dump(const Impl& impl, kern::ChaChaState& st, const uint8_t* in,
                                                   uint8_t* out, size_t nblocks, YmmDump& dump) {
    ZERO_YMM();
    impl.chacha20_blocks(st, in, out, nblocks);
    DUMP_YMM(dump);
}

STITCH_AVX2_WRAPPER void poly1305_blocks_then_dump(const Impl& impl, kern::Poly1305State& st, const uint8_t* in,
                                                   size_t nblocks, YmmDump& dump) {
    ZERO_YMM();
    impl.poly1305_blocks(st, in, nblocks);
    DUMP_YMM(dump);
}

STITCH_AVX2_WRAPPER void aead_text_then_dump(const Impl& impl, AeadState& st, Direction dir, const uint8_t* in,
                                             uint8_t* out, size_t len, YmmDump& dump) {
    ZERO_YMM();
    impl.aead_text(st, dir, in, out, len);
    DUMP_YMM(dump);
}

STITCH_AVX2_WRAPPER bool aead_open_record_then_dump(const Impl& impl, AeadState& st, const uint8_t* in, uint8_t* out,
                                                    size_t len, const uint8_t tag[16], YmmDump& dump) {
    ZERO_YMM();
    const bool ok = impl.aead_open_record(st, in, out, len, tag);
    DUMP_YMM(dump);
    return ok;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
constexpr bool kAsan = __has_feature(address_sanitizer);
#else
constexpr bool kAsan = false;
#endif

// Under AddressSanitizer a function's epilogue poisons its (fake) stack
// frame with shadow bytes through xmm0, after the kernel's own wipe; those
// bytes are ASan's markers (0xf1..0xf8), not key material.
bool clean(uint8_t b) { return b == 0 || (kAsan && b >= 0xf1 && b <= 0xf8); }

// Names every register that is not all zero.
void expect_all_zero(const YmmDump& d, const std::string& what) {
    std::string dirty;
    for (int r = 0; r < 16; ++r) {
        bool zero = true;
        for (uint8_t b : d.reg[r]) zero &= clean(b);
        if (!zero) dirty += " ymm" + std::to_string(r) + "=" + to_hex(d.reg[r], 32);
    }
    EXPECT_TRUE(dirty.empty()) << what << " left in vector registers:" << dirty;
}

// Asked of the CPU directly, not of dispatch, so a build that lost its AVX2
// set fails here instead of testing nothing.
TEST(Avx2RegistersHost, HasTheAvx2Set) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2"))
        GTEST_FAIL() << "this host lacks AVX2+BMI2: the vector registers after the AVX2 kernels cannot be checked";
    if (kern::avx2::impls().empty())
        GTEST_FAIL() << "no AVX2 Impl on an AVX2+BMI2 host: the AVX2 kernel set is missing";
}

// The AVX2 set's Impl, whatever dispatch chose.
class Avx2Registers : public ::testing::TestWithParam<const Impl*> {
protected:
    const Impl& avx2() const { return *GetParam(); }

    Rng rng_{0x5eed0a7c};
};

std::vector<const Impl*> avx2_impls() {
    const auto all = kern::avx2::impls();
    return {all.begin(), all.end()};
}

INSTANTIATE_TEST_SUITE_P(Avx2Set, Avx2Registers, ::testing::ValuesIn(avx2_impls()), impl_name);

constexpr size_t kBlockCounts[] = {1, 2, 7, 8, 9, 15, 16, 17, 40};

TEST_P(Avx2Registers, ChaCha20BlocksLeavesThemZero) {
    for (size_t n : kBlockCounts) {
        for (bool keystream_only : {false, true}) {
            const Bytes key = rng_.bytes(32), in = rng_.bytes(n * 64);
            kern::ChaChaState st{}, ref{};
            kern::chacha_load_key(st, key.data());
            st.ctr[0] = 0xfffffffb;  // across the carry too
            st.ctr[3] = 0x01020304;
            ref = st;
            Bytes out(n * 64), want(n * 64);
            YmmDump dump;
            chacha20_blocks_then_dump(avx2(), st, keystream_only ? nullptr : in.data(), out.data(), n, dump);
            expect_all_zero(dump, "chacha20_blocks(" + std::to_string(n) + (keystream_only ? ", keystream)" : ")"));
            kern::portable_impl().chacha20_blocks(ref, keystream_only ? nullptr : in.data(), want.data(), n);
            EXPECT_EQ(to_hex(out), to_hex(want)) << n << " blocks";  // the call did the real work
        }
    }
}

TEST_P(Avx2Registers, Poly1305BlocksLeavesThemZero) {
    for (size_t n : {size_t(1), size_t(4), size_t(17), size_t(64)}) {
        const Bytes key = rng_.bytes(32), in = rng_.bytes(n * 16);
        kern::Poly1305State st{}, ref{};
        kern::poly1305_init(st, key.data());
        ref = st;
        YmmDump dump;
        poly1305_blocks_then_dump(avx2(), st, in.data(), n, dump);
        expect_all_zero(dump, "poly1305_blocks(" + std::to_string(n) + ")");
        kern::portable_impl().poly1305_blocks(ref, in.data(), n);
        EXPECT_EQ(to_hex(reinterpret_cast<const uint8_t*>(st.h), sizeof(st.h)),
                  to_hex(reinterpret_cast<const uint8_t*>(ref.h), sizeof(ref.h)));
    }
}


constexpr size_t kTextLens[] = {1, 63, 64, 100, 192, 193, 512, 1000, 4096 + 13};

TEST_P(Avx2Registers, AeadTextLeavesThemZero) {
    for (Grid grid : {Grid::rfc8439, Grid::openssh}) {
        for (Direction dir : {Direction::seal, Direction::open}) {
            for (size_t len : kTextLens) {
                const Bytes key = rng_.bytes(32), aad = rng_.bytes(grid == Grid::openssh ? 4 : 13),
                            in = rng_.bytes(len);
                AeadState st = announced_message(avx2(), grid, key, aad, len);
                AeadState ref = announced_message(kern::portable_impl(), grid, key, aad, len);
                Bytes out(len), want(len);
                YmmDump dump;
                aead_text_then_dump(avx2(), st, dir, in.data(), out.data(), len, dump);
                expect_all_zero(dump, std::string("aead_text(") + (grid == Grid::rfc8439 ? "rfc8439" : "openssh") +
                                          (dir == Direction::seal ? ", seal, " : ", open, ") + std::to_string(len) +
                                          ")");
                kern::portable_impl().aead_text(ref, dir, in.data(), want.data(), len);
                EXPECT_EQ(to_hex(out), to_hex(want)) << len;
            }
        }
    }
}

// The MAC already keyed by earlier text: the path every call after a message's first takes.
TEST_P(Avx2Registers, AeadTextMidMessageLeavesThemZero) {
    for (size_t len : kTextLens) {
        const Bytes key = rng_.bytes(32), aad = rng_.bytes(5), in = rng_.bytes(128 + len);
        AeadState st;
        kern::aead_init(st, avx2(), Grid::rfc8439);
        kern::aead_set_key(st, key.data());
        kern::aead_set_nonce(st, key.data());
        kern::aead_aad(st, aad.data(), aad.size());
        Bytes out(128 + len);
        ASSERT_TRUE(
            kern::aead_text(st, Direction::seal, in.data(), out.data(), 128));  // whole blocks: nothing buffered
        st.text_len += len;
        YmmDump dump;
        aead_text_then_dump(avx2(), st, Direction::seal, in.data() + 128, out.data() + 128, len, dump);
        expect_all_zero(dump, "aead_text(mid-message, " + std::to_string(len) + ")");
    }
}

TEST_P(Avx2Registers, AeadOpenRecordLeavesThemZeroAcceptedOrRefused) {
    for (size_t len : kTextLens) {
        for (bool forged : {false, true}) {
            const Bytes key = rng_.bytes(32), aad = rng_.bytes(13), plain = rng_.bytes(len);
            // Sealed with the portable kernels through the full message API.
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
            kern::aead_init(st, avx2(), Grid::rfc8439);
            kern::aead_set_key(st, key.data());
            kern::aead_set_nonce(st, key.data());
            kern::aead_aad(st, aad.data(), aad.size());
            st.text_started = true;
            st.text_len = len;
            Bytes out(len, 0xa5);
            YmmDump dump;
            const bool ok = aead_open_record_then_dump(avx2(), st, ct.data(), out.data(), len, tag, dump);
            expect_all_zero(
                dump, std::string("aead_open_record(") + std::to_string(len) + (forged ? ", forged)" : ", authentic)"));
            EXPECT_EQ(ok, !forged);
            EXPECT_EQ(to_hex(out), forged ? std::string(2 * len, '0') : to_hex(plain));
        }
    }
}

}  // namespace
}  // namespace stitch::test
