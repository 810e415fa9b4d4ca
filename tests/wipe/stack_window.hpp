// What the stack-search tests share (avx2_stack_test, avx512_stack_test):
// clearing the stack below a kernel's caller, calling the kernel from a
// noinline function, copying the dead frames it leaves below, and searching
// them for named byte patterns (key words, keystream, block 0). The copying
// functions are not instrumented by AddressSanitizer, which would flag reads
// of dead frames. Included by one test file each: everything here is local
// to it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/kernel_aead_calls.hpp"
#include "common/test_util.hpp"
#include "kernels/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/impl.hpp"
#include "kernels/openssh.hpp"
#include "kernels/portable/set.hpp"

namespace stitch::test {
namespace {

using kern::AeadState;
using kern::ChaChaState;
using kern::Direction;
using kern::Grid;
using kern::Impl;

// Deeper than any kernel's frames (the AVX2 ones use ~2 KiB, the AVX-512
// ones ~3).
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

__attribute__((noinline)) bool run_open_record(const Impl& impl, AeadState& st, const uint8_t* in, uint8_t* out,
                                               size_t len, const uint8_t tag[16]) {
    const bool ok = impl.aead_open_record(st, in, out, len, tag);
    __asm__ __volatile__("" ::: "memory");
    return ok;
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

// Patterns a set adds for raw ChaCha20 of n blocks whose output (keystream)
// is ks: the words the AVX2 batch's frame held, for one.
// st: the state before the call (its counter at the call's first block).
using ExtraPatterns = std::function<void(std::vector<Pattern>&, const Bytes& ks, size_t n, const ChaChaState& st)>;

// Keystream blocks past a call's last that the patterns count: the lanes a
// batch cut short computes and does not use (up to 15 of a zmm batch) hold
// keystream of blocks still to come, which must not stay behind either.
constexpr size_t kBlocksToCome = 16;

// Raw ChaCha20 of each block count, XOR with zeros (so the output is the
// keystream) and keystream only: no key words or keystream left behind.
inline void expect_chacha20_leaves_nothing(const Impl& impl, Rng& rng, std::initializer_list<size_t> counts,
                                           const ExtraPatterns& extra = {}) {
    for (size_t n : counts) {
        for (bool keystream_only : {false, true}) {
            SCOPED_TRACE(std::to_string(n) + (keystream_only ? " blocks, keystream only" : " blocks"));
            const Bytes key = rng.bytes(32), zeros(n * 64, 0);
            ChaChaState st{};
            kern::chacha_load_key(st, key.data());
            st.ctr[0] = uint32_t(rng.next());
            st.ctr[2] = 0x0a0b0c0d;
            const ChaChaState before = st;  // what extra derives the input words from
            ChaChaState ref = st;
            Bytes want((n + kBlocksToCome) * 64);
            kern::portable_impl().chacha20_blocks(ref, nullptr, want.data(), n + kBlocksToCome);

            Bytes out(n * 64), window(kWindow);
            clear_window();
            run_chacha(impl, st, keystream_only ? nullptr : zeros.data(), out.data(), n);
            copy_window(window.data());
            ASSERT_EQ(to_hex(out), to_hex(Bytes(want.begin(), want.begin() + n * 64)));  // the call did the real work

            std::vector<Pattern> patterns;
            add_key_patterns(patterns, st.key);
            add_keystream_patterns(patterns, out, "keystream");
            add_keystream_patterns(patterns, Bytes(want.begin() + n * 64, want.end()), "keystream to come");
            if (extra) extra(patterns, out, n, before);
            EXPECT_EQ("", found_in(window, patterns));
        }
    }
}

// Raw ChaCha20 through the stream with a partial last block, whose run's
// keystream goes through a buffer on the stack (chacha_stream_xor): none of
// it may stay there, nor of the partial block (the stream's own, s.ks,
// outside the window) or the blocks to come.
inline void expect_stream_leaves_nothing(const Impl& impl, Rng& rng, std::initializer_list<size_t> lens) {
    for (size_t len : lens) {
        SCOPED_TRACE(std::to_string(len) + " bytes");
        const Bytes key = rng.bytes(32), zeros(len, 0);
        kern::ChaChaStream s{};
        kern::chacha_load_key(s.st, key.data());
        s.st.ctr[0] = uint32_t(rng.next());
        s.st.ctr[2] = 0x0a0b0c0d;
        kern::chacha_stream_reset(s);
        ChaChaState ref = s.st;
        Bytes want(((len + 63) / 64 + kBlocksToCome) * 64);
        kern::portable_impl().chacha20_blocks(ref, nullptr, want.data(), want.size() / 64);

        Bytes out(len), window(kWindow);
        clear_window();
        run_stream(impl, s, zeros.data(), out.data(), len);
        copy_window(window.data());
        ASSERT_EQ(to_hex(out), to_hex(Bytes(want.begin(), want.begin() + len)));

        std::vector<Pattern> patterns;
        add_key_patterns(patterns, s.st.key);
        add_keystream_patterns(patterns, want, "keystream");
        EXPECT_EQ("", found_in(window, patterns));
    }
}

// A message's keystream from block 0 (the Poly1305 key) through its text's
// last block and kBlocksToCome more, by the portable block function.
inline Bytes aead_keystream(ChaChaState st, size_t len) {
    const size_t blocks = 1 + (len + 63) / 64 + kBlocksToCome;
    Bytes ks(blocks * 64);
    kern::portable_impl().chacha20_blocks(st, nullptr, ks.data(), blocks);
    return ks;
}

// The key, the keystream from block 1 on (the text's, a partial last
// block's whole: the context keeps it for the next call, st.ks, and nothing
// else may; and the blocks to come) and block 0 (the Poly1305 key) of a
// message whose keystream from block 0 is ks (aead_keystream).
inline std::vector<Pattern> aead_patterns(const uint32_t key[8], const Bytes& ks) {
    std::vector<Pattern> patterns;
    add_key_patterns(patterns, key);
    add_keystream_patterns(patterns, Bytes(ks.begin() + 64, ks.end()), "text keystream");
    patterns.push_back({"Poly1305 key (block 0, bytes 0..31)", Bytes(ks.begin(), ks.begin() + 32)});
    return patterns;
}

// Seals and opens of each length, both MAC grids, in one aead_text call. An
// open decrypts zeros, so its output (the plaintext, secret) is the
// keystream and a copy of either is found. A seal encrypts random bytes:
// its MAC reads the ciphertext it wrote, which is public and may pass
// through the stack (a seal of zeros would make that copy look like
// keystream).
// extra, where given, adds what a kernel set's own frames hold, from the
// keystream ks (from block 0) and the message's state before the call.
inline void expect_aead_leaves_nothing(const Impl& impl, Rng& rng, std::initializer_list<size_t> lens,
                                       const ExtraPatterns& extra = {}) {
    for (Grid grid : {Grid::rfc8439, Grid::openssh}) {
        for (Direction dir : {Direction::seal, Direction::open}) {
            for (size_t len : lens) {
                SCOPED_TRACE(std::string(grid == Grid::rfc8439 ? "rfc8439 " : "openssh ") +
                             (dir == Direction::seal ? "seal " : "open ") + std::to_string(len));
                const Bytes key = rng.bytes(32), aad = rng.bytes(grid == Grid::openssh ? 4 : 13),
                            in = dir == Direction::seal ? rng.bytes(len) : Bytes(len, 0);
                AeadState st = announced_message(impl, grid, key, aad, len);

                const Bytes ks = aead_keystream(st.chacha, len);

                Bytes out(len), window(kWindow);
                clear_window();
                run_aead(impl, st, dir, in.data(), out.data(), len);
                copy_window(window.data());
                Bytes want(len);
                for (size_t i = 0; i < len; ++i) want[i] = uint8_t(in[i] ^ ks[64 + i]);
                ASSERT_EQ(to_hex(out), to_hex(want));
                std::vector<Pattern> patterns = aead_patterns(st.chacha.key, ks);
                if (extra) extra(patterns, ks, len, st.chacha);
                EXPECT_EQ("", found_in(window, patterns));
            }
        }
    }
}

// A whole record opened in one call (aead_open_record, libssl's TLS opens),
// authentic and forged. The ciphertext is zeros, so the plaintext it opens
// to is the keystream (sealed first by the portable set for its tag). A
// refused record's output is zeros, and the keystream made for it must not
// stay behind either.
inline void expect_open_record_leaves_nothing(const Impl& impl, Rng& rng, std::initializer_list<size_t> lens) {
    for (size_t len : lens) {
        for (bool forged : {false, true}) {
            SCOPED_TRACE(std::to_string(len) + (forged ? " bytes, forged" : " bytes, authentic"));
            const Bytes key = rng.bytes(32), nonce = rng.bytes(12), aad = rng.bytes(13), zeros(len, 0);
            AeadState sealer;
            kern::aead_init(sealer, kern::portable_impl(), Grid::rfc8439);
            kern::aead_set_key(sealer, key.data());
            kern::aead_set_nonce(sealer, nonce.data());
            const Bytes ks = aead_keystream(sealer.chacha, len);
            const Bytes plain(ks.begin() + 64, ks.begin() + 64 + len);  // seals to zeros
            kern::aead_aad(sealer, aad.data(), aad.size());
            Bytes ct(len);
            uint8_t tag[16];
            ASSERT_TRUE(kern::aead_text(sealer, Direction::seal, plain.data(), ct.data(), len));
            kern::aead_final(sealer, tag);
            ASSERT_EQ(to_hex(ct), to_hex(zeros));
            if (forged) tag[len % 16] ^= 0x20;

            AeadState st;
            kern::aead_init(st, impl, Grid::rfc8439);
            kern::aead_set_key(st, key.data());
            kern::aead_set_nonce(st, nonce.data());
            kern::aead_aad(st, aad.data(), aad.size());
            st.text_started = true;
            st.text_len = len;
            Bytes out(len, 0xa5), window(kWindow);
            clear_window();
            const bool ok = run_open_record(impl, st, ct.data(), out.data(), len, tag);
            copy_window(window.data());
            ASSERT_EQ(ok, !forged);
            ASSERT_EQ(to_hex(out), forged ? to_hex(zeros) : to_hex(plain));
            EXPECT_EQ("", found_in(window, aead_patterns(st.chacha.key, ks)));
        }
    }
}

__attribute__((noinline)) void run_openssh_seal(kern::OpensshState& st, uint64_t seqnr, const uint8_t* in,
                                                uint8_t* out, size_t len, uint8_t tag[16]) {
    kern::openssh_seal(st, seqnr, in, out, len, tag);
    __asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline)) bool run_openssh_open(kern::OpensshState& st, uint64_t seqnr, const uint8_t* in,
                                                uint8_t* out, size_t len, const uint8_t tag[16]) {
    const bool ok = kern::openssh_open(st, seqnr, in, out, len, tag);
    __asm__ __volatile__("" ::: "memory");
    return ok;
}

// OpenSSH packets (openssh.cpp) of each payload length, sealed, opened and
// opened forged: neither key's words, nor the length's keystream block
// (K_1), nor block 0 or the payload's keystream (K_2) left behind. The
// opened packet is the keystream itself (its ciphertext is zeros, sealed
// by the portable set), and a forged one opens to zeros.
inline void expect_openssh_leaves_nothing(const Impl& impl, Rng& rng, std::initializer_list<size_t> payloads) {
    for (size_t payload : payloads) {
        const size_t len = kern::kOpensshLengthLen + payload;
        const Bytes key = rng.bytes(kern::kOpensshKeyLen);
        const uint64_t seqnr = rng.next();
        kern::OpensshState ref, st;
        kern::openssh_init(ref, kern::portable_impl());
        kern::openssh_set_key(ref, key.data());
        kern::openssh_init(st, impl);
        kern::openssh_set_key(st, key.data());

        // The keystream: the length's block, then block 0.. under K_2.
        ChaChaState length_st = ref.header;
        kern::store_words4(length_st.ctr, 0, 0, __builtin_bswap32(uint32_t(seqnr >> 32)),
                           __builtin_bswap32(uint32_t(seqnr)));
        Bytes length_ks(64);
        kern::portable_impl().chacha20_blocks(length_st, nullptr, length_ks.data(), 1);
        kern::aead_set_seqnr(ref.main, seqnr);
        const Bytes ks = aead_keystream(ref.main.chacha, payload);
        std::vector<Pattern> patterns = aead_patterns(ref.main.chacha.key, ks);
        add_key_patterns(patterns, ref.header.key);
        add_keystream_patterns(patterns, length_ks, "length keystream");

        Bytes plain(len);  // seals to zeros
        for (size_t i = 0; i < 4; ++i) plain[i] = length_ks[i];
        for (size_t i = 0; i < payload; ++i) plain[4 + i] = ks[64 + i];
        Bytes zeros(len, 0), ct(len), tag(16);
        kern::openssh_seal(ref, seqnr, plain.data(), ct.data(), len, tag.data());
        ASSERT_EQ(to_hex(ct), to_hex(zeros));

        for (int run = 0; run < 3; ++run) {
            SCOPED_TRACE(std::to_string(payload) + (run == 0 ? " bytes, seal" : run == 1 ? " bytes, open" : " bytes, forged"));
            const Bytes in = run == 0 ? rng.bytes(len) : zeros;
            Bytes out(len, 0xa5), got_tag(16), window(kWindow), bad_tag = tag;
            bad_tag[payload % 16] ^= 0x04;
            clear_window();
            if (run == 0) {
                run_openssh_seal(st, seqnr, in.data(), out.data(), len, got_tag.data());
            } else {
                const bool ok =
                    run_openssh_open(st, seqnr, in.data(), out.data(), len, run == 1 ? tag.data() : bad_tag.data());
                ASSERT_EQ(ok, run == 1);
            }
            copy_window(window.data());
            if (run == 1) {
                ASSERT_EQ(to_hex(out), to_hex(plain));
            } else if (run == 2) {
                ASSERT_EQ(to_hex(out), to_hex(zeros));
            }
            EXPECT_EQ("", found_in(window, patterns));
        }
        kern::openssh_wipe(ref);
        kern::openssh_wipe(st);
    }
}

}  // namespace
}  // namespace stitch::test
