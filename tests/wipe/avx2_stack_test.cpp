// After the AVX2 kernels return, the stack they used holds no key material
// (docs/kernels.md, "What the kernels leave on the stack"): not the key's
// words as the batch frame broadcasts them (a word eight times) nor as the
// row pairs load them (four words twice), not row c of the batch's last
// rounds, not keystream, and after an AEAD call not block 0 (the Poly1305
// key r ‖ s).
//
// How: clear the stack below, call the kernel from a noinline function,
// then copy the stack below (the kernel's dead frames) and search it. The
// copying functions are not instrumented by AddressSanitizer, which would
// flag reads of dead frames. What the search cannot see: the vector
// Poly1305's powers of r (base 2^26 limbs), and what the compiler keeps of
// its own. One of those it finds if asked: the pass's Poly1305 accumulator
// (h, then r0, r1, s1; avx2/aead_pass.hpp), which g++ 12 keeps in the pass
// object's stack slot. A wipe_object of it there held it in memory through
// the whole pass and cost a 1 KiB seal 526 -> 545 ns through EVP (Zen 4);
// plain stores were dropped as dead. Left: r is the record's one-time key,
// and the context (st.mac) holds it anyway until the record's tag is made.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/kernel_aead_calls.hpp"
#include "common/kernel_set_param.hpp"
#include "common/test_util.hpp"
#include "kernels/aead.hpp"
#include "kernels/avx2/set.hpp"
#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/portable/set.hpp"

namespace stitch::test {
namespace {

using kern::AeadState;
using kern::ChaChaState;
using kern::Direction;
using kern::Grid;
using kern::Impl;

// Deeper than any kernel's frames (the AVX2 ones use ~2 KiB).
constexpr size_t kWindow = 12288;

#define STITCH_NO_ASAN __attribute__((noinline, no_sanitize("address")))

// Zeroes the stack the kernel is about to use (so what an earlier
// reference computation left there cannot be mistaken for the kernel's):
// called from where the kernel's caller will be called, its array spans
// the same addresses.
STITCH_NO_ASAN void clear_window() {
    volatile uint8_t below[kWindow + 1024];
    for (size_t i = 0; i < sizeof(below); ++i) below[i] = 0;
}

// The kWindow bytes below this function's frame, read after the kernel has
// returned: its dead frames, less the few bytes this frame overwrote.
STITCH_NO_ASAN void copy_window(uint8_t* dst) {
    volatile uint8_t here = 0;
    const auto* from = reinterpret_cast<const volatile uint8_t*>(reinterpret_cast<uintptr_t>(&here) - kWindow);
    for (size_t i = 0; i < kWindow; ++i) dst[i] = from[i];
}

__attribute__((noinline)) void run_chacha(const Impl& impl, ChaChaState& st, const uint8_t* in, uint8_t* out,
                                          size_t n) {
    impl.chacha20_blocks(st, in, out, n);
    __asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline)) void run_stream(const Impl& impl, kern::ChaChaStream& s, const uint8_t* in, uint8_t* out,
                                          size_t len) {
    kern::chacha_stream_xor(impl, s, in, out, len);
    __asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline)) void run_aead(const Impl& impl, AeadState& st, Direction dir, const uint8_t* in,
                                        uint8_t* out, size_t len) {
    impl.aead_text(st, dir, in, out, len);
    __asm__ __volatile__("" ::: "memory");
}

// Byte patterns that must not be in the window, each with a name.
struct Pattern {
    std::string name;
    Bytes bytes;
};

Bytes words_le(const std::vector<uint32_t>& w) {
    Bytes b(4 * w.size());
    for (size_t i = 0; i < w.size(); ++i) kern::store_le32(b.data() + 4 * i, w[i]);
    return b;
}

// The key's words as the batch frame holds them (one word in all eight
// lanes) and as the row pairs load them (words 0..3 and 4..7, twice each).
void add_key_patterns(std::vector<Pattern>& p, const uint32_t key[8]) {
    for (int i = 0; i < 8; ++i) p.push_back({"key word " + std::to_string(i) + " broadcast", words_le(std::vector<uint32_t>(8, key[i]))});
    for (int h = 0; h < 2; ++h) {
        std::vector<uint32_t> row;
        for (int r = 0; r < 2; ++r)
            for (int i = 0; i < 4; ++i) row.push_back(key[4 * h + i]);
        p.push_back({"key row " + std::to_string(h), words_le(row)});
    }
}

// Every 32-byte piece of a keystream (bytes 0..31 and 32..63 of each block).
void add_keystream_patterns(std::vector<Pattern>& p, const Bytes& ks, const std::string& what) {
    for (size_t off = 0; off + 32 <= ks.size(); off += 32)
        p.push_back({what + " bytes " + std::to_string(off) + "..+32", Bytes(ks.begin() + off, ks.begin() + off + 32)});
}

// Row c's words 10 and 11 after a batch's last rounds, lanes 0..6 (a batch
// of seven writes no eighth block to derive lane 7 from): keystream word
// minus input word (key words 6 and 7), from the batch's first block on.
void add_row_c_patterns(std::vector<Pattern>& p, const Bytes& ks, size_t first_block, const uint32_t key[8]) {
    for (int w : {10, 11}) {
        std::vector<uint32_t> lanes;
        for (size_t b = 0; b < 7; ++b)
            lanes.push_back(kern::load_le32(ks.data() + 64 * (first_block + b) + 4 * w) - key[w - 4]);
        p.push_back({"row c word " + std::to_string(w) + " of the batch at block " + std::to_string(first_block),
                     words_le(lanes)});
    }
}

std::string found_in(const Bytes& window, const std::vector<Pattern>& patterns) {
    std::string found;
    for (const Pattern& p : patterns) {
        const void* hit = memmem(window.data(), window.size(), p.bytes.data(), p.bytes.size());
        if (hit)
            found += "\n  " + p.name + " at window offset " +
                     std::to_string(static_cast<const uint8_t*>(hit) - window.data());
    }
    return found;
}

// The search is of the kernels' own frames as an optimised build lays them
// out. Built for the sanitizers (-O1 and instrumentation), the compiler
// keeps values in stack slots that -O2 keeps in registers (row pairs' input
// rows, XORed blocks), slots no wipe in the source can name; there the
// suite says so and checks nothing. The Release build of scripts/test.sh
// runs it, as do the g++ 12 and clang 14 -O2 builds.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kInstrumented = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kInstrumented = true;
#else
constexpr bool kInstrumented = false;
#endif
#else
constexpr bool kInstrumented = false;
#endif
#if defined(__OPTIMIZE__)
constexpr bool kOptimised = true;
#else
constexpr bool kOptimised = false;
#endif

class Avx2Stack : public ::testing::TestWithParam<const Impl*> {
protected:
    void SetUp() override {
        if (kInstrumented || !kOptimised)
            GTEST_SKIP() << "a sanitizer or -O0 build keeps its own copies on the stack; the -O2 builds check this";
    }
    const Impl& avx2() const { return *GetParam(); }
    Rng rng_{0x57ac4e};
};

std::vector<const Impl*> avx2_impls() {
    const auto all = kern::avx2::impls();
    return {all.begin(), all.end()};
}

INSTANTIATE_TEST_SUITE_P(Avx2Set, Avx2Stack, ::testing::ValuesIn(avx2_impls()), impl_name);

TEST(Avx2StackHost, HasTheAvx2Set) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2"))
        GTEST_FAIL() << "this host lacks AVX2+BMI2: the AVX2 kernels' stack cannot be checked";
    if (kern::avx2::impls().empty()) GTEST_FAIL() << "no AVX2 Impl on an AVX2+BMI2 host: the AVX2 kernel set is missing";
}

// Every shape raw ChaCha20 takes: row pairs (1..6 blocks), a batch of seven,
// whole batches, a batch and a remainder; XOR with zeros (so the output is
// the keystream) and keystream only.
TEST_P(Avx2Stack, ChaCha20LeavesNoKeyNorKeystream) {
    for (size_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 15, 16, 17, 24}) {
        for (bool keystream_only : {false, true}) {
            SCOPED_TRACE(std::to_string(n) + (keystream_only ? " blocks, keystream only" : " blocks"));
            const Bytes key = rng_.bytes(32), zeros(n * 64, 0);
            ChaChaState st{};
            kern::chacha_load_key(st, key.data());
            st.ctr[0] = uint32_t(rng_.next());
            st.ctr[2] = 0x0a0b0c0d;
            ChaChaState ref = st;
            Bytes want(n * 64);
            kern::portable_impl().chacha20_blocks(ref, nullptr, want.data(), n);

            Bytes out(n * 64), window(kWindow);
            clear_window();
            run_chacha(avx2(), st, keystream_only ? nullptr : zeros.data(), out.data(), n);
            copy_window(window.data());
            ASSERT_EQ(to_hex(out), to_hex(want));  // the call did the real work

            std::vector<Pattern> patterns;
            add_key_patterns(patterns, st.key);
            add_keystream_patterns(patterns, out, "keystream");
            // The frame's row c is the last batch's: a batch of seven at the
            // end, else the last whole batch (the rows of a shorter tail are
            // registers only).
            if (n % 8 == 7)
                add_row_c_patterns(patterns, out, 8 * (n / 8), st.key);
            else if (n >= 8)
                add_row_c_patterns(patterns, out, 8 * (n / 8 - 1), st.key);
            EXPECT_EQ("", found_in(window, patterns));
        }
    }
}

// Raw ChaCha20 through the stream with a partial last block, whose run's
// keystream goes through a buffer on the stack (chacha_stream_xor): none of
// it may stay there. The partial block's keystream is the stream's own
// (s.ks, outside the window), so the patterns are the whole blocks' and the
// used bytes of the last.
TEST_P(Avx2Stack, ChaCha20StreamLeavesNoKeystream) {
    for (size_t len : {1, 40, 100, 500, 1000, 1300}) {
        SCOPED_TRACE(std::to_string(len) + " bytes");
        const Bytes key = rng_.bytes(32), zeros(len, 0);
        kern::ChaChaStream s{};
        kern::chacha_load_key(s.st, key.data());
        s.st.ctr[0] = uint32_t(rng_.next());
        s.st.ctr[2] = 0x0a0b0c0d;
        kern::chacha_stream_reset(s);
        ChaChaState ref = s.st;
        Bytes want((len + 63) / 64 * 64);
        kern::portable_impl().chacha20_blocks(ref, nullptr, want.data(), want.size() / 64);

        Bytes out(len), window(kWindow);
        clear_window();
        run_stream(avx2(), s, zeros.data(), out.data(), len);
        copy_window(window.data());
        ASSERT_EQ(to_hex(out), to_hex(Bytes(want.begin(), want.begin() + len)));

        std::vector<Pattern> patterns;
        add_key_patterns(patterns, s.st.key);
        add_keystream_patterns(patterns, Bytes(want.begin(), want.begin() + len / 32 * 32), "keystream");
        EXPECT_EQ("", found_in(window, patterns));
    }
}

// Seals and opens of every path's length (short records, a first batch with
// block 0 beside it, whole batches, tails), both MAC grids: the ChaCha20 key,
// the keystream of zeros sealed, and block 0 (the Poly1305 key).
TEST_P(Avx2Stack, AeadLeavesNoKeyNorKeystream) {
    for (Grid grid : {Grid::rfc8439, Grid::openssh}) {
        for (Direction dir : {Direction::seal, Direction::open}) {
            for (size_t len : {1, 64, 100, 192, 320, 448, 512, 1000, 1024, 1300, 4096 + 13}) {
                SCOPED_TRACE(std::string(grid == Grid::rfc8439 ? "rfc8439 " : "openssh ") +
                             (dir == Direction::seal ? "seal " : "open ") + std::to_string(len));
                const Bytes key = rng_.bytes(32), aad = rng_.bytes(grid == Grid::openssh ? 4 : 13), zeros(len, 0);
                AeadState st = announced_message(avx2(), grid, key, aad, len);

                // The keystream from block 0 on, by the portable block function.
                ChaChaState ks_state = st.chacha;
                const size_t blocks = 1 + (len + 63) / 64;
                Bytes ks(blocks * 64);
                kern::portable_impl().chacha20_blocks(ks_state, nullptr, ks.data(), blocks);

                Bytes out(len), window(kWindow);
                clear_window();
                run_aead(avx2(), st, dir, zeros.data(), out.data(), len);
                copy_window(window.data());
                ASSERT_EQ(to_hex(out), to_hex(Bytes(ks.begin() + 64, ks.begin() + 64 + len)));

                std::vector<Pattern> patterns;
                add_key_patterns(patterns, st.chacha.key);
                add_keystream_patterns(patterns, Bytes(ks.begin() + 64, ks.begin() + 64 * (len / 64 + 1)), "text keystream");
                patterns.push_back({"Poly1305 key (block 0, bytes 0..31)", Bytes(ks.begin(), ks.begin() + 32)});
                EXPECT_EQ("", found_in(window, patterns));
            }
        }
    }
}

}  // namespace
}  // namespace stitch::test
