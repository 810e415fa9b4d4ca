// After the AVX2 kernels return, the stack they used holds no key material
// (docs/kernels.md, "What the kernels leave on the stack"): not the key's
// words as the batch frame broadcasts them (a word eight times) nor as the
// row pairs load them (four words twice), not the words the batch's frame
// held after its last rounds, not keystream, and after an AEAD call (one
// aead_text call, or a whole record's open) not block 0 (the Poly1305 key
// r ‖ s).
//
// How: stack_window.hpp. What the search cannot see: the vector
// Poly1305's powers of r (base 2^26 limbs), and what the compiler keeps of
// its own. One of those it finds if asked: the pass's Poly1305 accumulator
// (h, then r0, r1, s1; avx2/aead_pass.hpp), which g++ 12 keeps in the pass
// object's stack slot. A wipe_object of it there held it in memory through
// the whole pass and cost a 1 KiB seal 526 -> 545 ns through EVP (Zen 4);
// plain stores were dropped as dead. Left: r is the record's one-time key,
// and the context (st.mac) holds it anyway until the record's tag is made.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/kernel_set_param.hpp"
#include "common/test_util.hpp"
#include "kernels/avx2/set.hpp"
#include "kernels/bytes.hpp"
#include "wipe/stack_window.hpp"

namespace stitch::test {
namespace {

// Words 14 and 15 after a batch's last rounds, which the frame holds while
// the batch's output is made (avx2/batch_rounds.hpp), lanes 0..6 (a batch of
// seven writes no eighth block to derive lane 7 from): keystream word minus
// input word (the counter's words 2 and 3, which the caller sets), from the
// batch's first block on.
void add_held_word_patterns(std::vector<Pattern>& p, const Bytes& ks, size_t first_block, const ChaChaState& st) {
    for (int w : {14, 15}) {
        std::vector<uint32_t> lanes;
        for (size_t b = 0; b < 7; ++b)
            lanes.push_back(kern::load_le32(ks.data() + 64 * (first_block + b) + 4 * w) - st.ctr[w - 12]);
        p.push_back({"word " + std::to_string(w) + " of the batch at block " + std::to_string(first_block) +
                         " after its rounds",
                     words_le(lanes)});
    }
}

// What a run with the first round's counter-free columns keeps in the
// frame (avx2/batch_rounds.hpp, batches_xor_counter_free: raw ChaCha20's
// runs of two batches or more, the AEAD's runs of three or more): the
// columns, three words of a row at a time as the frame holds them (for
// the counter words 1..3 of st, which a run of under 2^32 blocks from st
// keeps), and the last batch's words 8..15 after its rounds (keystream
// word minus input word, lanes 0..7) for the batch at block first_block of
// ks (the keystream from st.ctr on).
void add_counter_free_columns(std::vector<Pattern>& p, const ChaChaState& st) {
    uint32_t w[16] = {};
    for (int c = 1; c < 4; ++c) {
        uint32_t a = kern::kSigma[c], b = st.key[c], k = st.key[4 + c], d = st.ctr[c];
        kern::quarter_round(a, b, k, d);
        w[c] = a, w[4 + c] = b, w[8 + c] = k, w[12 + c] = d;
    }
    for (int r = 0; r < 4; ++r)
        p.push_back({"counter-free words of row " + std::to_string(r), words_le({w[4 * r + 1], w[4 * r + 2], w[4 * r + 3]})});
}

void add_kept_batch(std::vector<Pattern>& p, const Bytes& ks, size_t first_block, const ChaChaState& st) {
    for (int wd = 8; wd < 16; ++wd) {
        std::vector<uint32_t> lanes;
        for (size_t b = 0; b < 8; ++b) {
            const uint32_t c0 = st.ctr[0] + uint32_t(first_block + b);
            const uint32_t input = wd < 12    ? st.key[wd - 4]
                                   : wd == 12 ? c0
                                   : wd == 13 ? st.ctr[1] + (c0 < st.ctr[0])
                                              : st.ctr[wd - 12];
            lanes.push_back(kern::load_le32(ks.data() + 64 * (first_block + b) + 4 * wd) - input);
        }
        p.push_back({"word " + std::to_string(wd) + " of the batch at block " + std::to_string(first_block) +
                         " after its rounds",
                     words_le(lanes)});
    }
}

void add_counter_free_patterns(std::vector<Pattern>& p, const Bytes& ks, size_t first_block, const ChaChaState& st) {
    add_counter_free_columns(p, st);
    add_kept_batch(p, ks, first_block, st);
}

// What a lone block's asm statement keeps in its frame below the red zone
// (x86/scalar_asm_text.hpp), which it zeroes before it closes: a pair of
// row c at a time, swapped at two fixed points of each double round. At
// the end words 10 and 11 after the rounds are there, and words 8 and 9 as
// the last column round left them; and, as pairs, words 8, 9 after the
// rounds too (from the keystream: keystream word minus input word).
void add_lone_block_patterns(std::vector<Pattern>& p, const Bytes& ks, const ChaChaState& st) {
    for (int wd : {8, 10}) {
        const uint32_t first = kern::load_le32(ks.data() + 4 * wd) - st.key[wd - 4];
        const uint32_t second = kern::load_le32(ks.data() + 4 * (wd + 1)) - st.key[wd - 3];
        p.push_back({"words " + std::to_string(wd) + " and " + std::to_string(wd + 1) + " of a lone block after its rounds",
                     words_le({first, second})});
    }
    uint32_t x[16];
    for (int i = 0; i < 4; ++i) x[i] = kern::kSigma[i], x[12 + i] = st.ctr[i];
    for (int i = 0; i < 8; ++i) x[4 + i] = st.key[i];
    for (int round = 0; round < 10; ++round) {
        for (int c = 0; c < 4; ++c) kern::quarter_round(x[c], x[4 + c], x[8 + c], x[12 + c]);
        if (round == 9) break;  // the last diagonal round runs on words 8 and 9 in registers
        for (int c = 0; c < 4; ++c)
            kern::quarter_round(x[c], x[4 + (c + 1) % 4], x[8 + (c + 2) % 4], x[12 + (c + 3) % 4]);
    }
    p.push_back({"words 8 and 9 of a lone block after its last column round", words_le({x[8], x[9]})});
}

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

// Every shape raw ChaCha20 takes: row pairs (1..6 blocks; one block in
// general registers where the rule or STITCH_AVX2_KEY_BLOCK=gpr says so,
// its frame's row c pair searched for), a batch of seven, whole batches, a
// batch and a remainder. The words the frame held are the
// last batch's: a batch of seven at the end, else the last whole batch (the
// rows of a shorter tail are registers only).
TEST_P(Avx2Stack, ChaCha20LeavesNoKeyNorKeystream) {
    expect_chacha20_leaves_nothing(avx2(), rng_, {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 15, 16, 17, 24},
                                   [](std::vector<Pattern>& patterns, const Bytes& ks, size_t n, const ChaChaState& st) {
                                       if (n == 1) add_lone_block_patterns(patterns, ks, st);
                                       if (n % 8 == 7)
                                           add_held_word_patterns(patterns, ks, 8 * (n / 8), st);
                                       else if (n >= 8)
                                           add_held_word_patterns(patterns, ks, 8 * (n / 8 - 1), st);
                                       if (n % 8 == 0 && n >= 16)
                                           add_counter_free_patterns(patterns, ks, n - 8, st);
                                   });
}

TEST_P(Avx2Stack, ChaCha20StreamLeavesNoKeystream) {
    expect_stream_leaves_nothing(avx2(), rng_, {1, 40, 100, 500, 540, 576, 1000, 1300});
}

// Seals and opens of every path's length (short records, a first batch with
// block 0 beside it, its keystream through a buffer at 449-511 bytes, whole
// batches, tails), both MAC grids.
// Where the text has a run of batches in it (three or more), its last
// batch's words may start at any block, by the path's first call: every
// whole batch of the keystream is looked for.
TEST_P(Avx2Stack, AeadLeavesNoKeyNorKeystream) {
    expect_aead_leaves_nothing(avx2(), rng_, {1, 64, 100, 192, 320, 448, 480, 512, 1000, 1024, 1300, 4096 + 13},
                               [](std::vector<Pattern>& patterns, const Bytes& ks, size_t len, const ChaChaState& st) {
                                   if (len < 3 * 512) return;
                                   add_counter_free_columns(patterns, st);
                                   for (size_t first = 1; 64 * (first + 8) <= 64 + len; ++first)
                                       add_kept_batch(patterns, ks, first, st);
                               });
}

TEST_P(Avx2Stack, OpenRecordLeavesNoKeyNorKeystream) {
    expect_open_record_leaves_nothing(avx2(), rng_, {1, 64, 100, 192, 320, 448, 512, 1000, 1024, 1300, 4096 + 13});
}

// OpenSSH packets: up to 256 payload bytes the length's block and the
// payload's come out of one call (Impl::chacha20_two_keys) into a buffer
// of openssh.cpp; past that, the two calls of the general path.
TEST_P(Avx2Stack, OpensshPacketLeavesNoKeyNorKeystream) {
    expect_openssh_leaves_nothing(avx2(), rng_, {16, 60, 64, 100, 128, 129, 192, 250, 256, 257, 1000});
}

}  // namespace
}  // namespace stitch::test
