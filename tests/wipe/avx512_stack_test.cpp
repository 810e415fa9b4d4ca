// After the AVX-512 kernels return, the stack they used holds no key material
// (docs/kernels.md, "What the kernels leave on the stack"): not the key's
// words as a batch broadcasts them (one word in every lane) nor as the row
// layout loads them (four words in every 128-bit lane), not keystream, and
// after an AEAD call not block 0 (the Poly1305 key r ‖ s).
//
// The set's keystream passes through the stack wherever a call uses less than
// its batch: a batch of 9..15 blocks, the AEAD's tails and first batch, the
// chunk's last bytes (avx512/aead_pass.hpp's rounds). Each is wiped with
// stores of the vectors' own width (avx512/chacha20.hpp's wipe_vectors and
// wipe_blocks); this test is what fails when one of those wipes falls short.
//
// How: stack_window.hpp. Only the -O2 builds check (as avx2_stack_test). A
// host without AVX-512 runs no AVX-512 kernel natively and says so; the
// SIMDe build's frames are the emulation's, not the set's, and are not
// searched. CTest runs it twice more, with raw ChaCha20 in two batches at a
// time and its single block in general registers (Zen 5's choices), and the
// other way round, whatever this CPU's row says; the first with whole
// batches of text in the asm statement (avx512/batch_run.hpp, whose caller's
// frame this checks), the second in the intrinsic batches; and a third time
// as Zen 5 runs it, two batches a time in the asm statement
// (avx512/pair_run.hpp, whose words block in its caller's frame holds
// keystream until it is wiped).
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "common/kernel_set_param.hpp"
#include "common/test_util.hpp"
#include "kernels/avx512/set.hpp"
#include "kernels/bytes.hpp"
#include "wipe/stack_window.hpp"

namespace stitch::test {
namespace {

bool host_has_avx512() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
}

TEST(Avx512StackHost, HasTheAvx512SetWhereTheCpuDoes) {
    if (!host_has_avx512()) {
        std::printf("this host has no AVX-512: the AVX-512 kernels' own frames cannot be checked here\n");
        return;
    }
    if (kern::avx512::impls().empty()) GTEST_FAIL() << "an AVX-512 host, but no AVX-512 Impl: the set is missing";
}

class Avx512Stack : public ::testing::TestWithParam<const Impl*> {
protected:
    void SetUp() override {
        if (kInstrumented || !kOptimised)
            GTEST_SKIP() << "a sanitizer or -O0 build keeps its own copies on the stack; the -O2 builds check this";
    }
    const Impl& set() const { return *GetParam(); }
    Rng rng_{0x57ac512};
};

std::vector<const Impl*> avx512_sets() {
    const auto all = kern::avx512::impls();
    return {all.begin(), all.end()};
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Avx512Stack);  // hosts without AVX-512: see above
INSTANTIATE_TEST_SUITE_P(EveryVariant, Avx512Stack, ::testing::ValuesIn(avx512_sets()), impl_name);

// A batch's words after its rounds, before the input is added (what
// rounds2_parking parks for the second of two batches): words 0 and 4 of
// blocks first..first+7, keystream minus input (sigma[0], key word 0).
void add_round_state_patterns(std::vector<Pattern>& p, const Bytes& ks, size_t first, const uint32_t key[8]) {
    for (int w : {0, 4}) {
        std::vector<uint32_t> lanes;
        for (size_t b = 0; b < 8; ++b)
            lanes.push_back(kern::load_le32(ks.data() + 64 * (first + b) + 4 * w) - (w == 0 ? 0x61707865u : key[0]));
        p.push_back({"word " + std::to_string(w) + " after the rounds, the batch at block " + std::to_string(first),
                     words_le(lanes)});
    }
}

// A batch's keystream words, word by word as the batch holds them before
// its transpose (what pair_run.hpp parks of the second of two batches):
// words 12 and 15 of blocks first..first+7.
void add_keystream_word_patterns(std::vector<Pattern>& p, const Bytes& ks, size_t first) {
    for (int w : {12, 15}) {
        std::vector<uint32_t> lanes;
        for (size_t b = 0; b < 8; ++b) lanes.push_back(kern::load_le32(ks.data() + 64 * (first + b) + 4 * w));
        p.push_back({"keystream word " + std::to_string(w) + " by word, the batch at block " + std::to_string(first),
                     words_le(lanes)});
    }
}

// Every shape of chacha20_blocks: a lone block, row runs (2..4), ymm batches
// (5..8), a zmm batch cut short (9..15), whole batches one and two at a
// time, and a batch and a remainder; and every batch's state after its
// rounds.
TEST_P(Avx512Stack, ChaCha20LeavesNoKeyNorKeystream) {
    expect_chacha20_leaves_nothing(
        set(), rng_, {1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 15, 16, 17, 24, 31, 32, 33, 41, 48},
        [](std::vector<Pattern>& patterns, const Bytes& ks, size_t n, const ChaChaState& st) {
            for (size_t first = 0; first + 8 <= n; first += 16) {
                add_round_state_patterns(patterns, ks, first, st.key);
                add_keystream_word_patterns(patterns, ks, first);
            }
        });
}

TEST_P(Avx512Stack, ChaCha20StreamLeavesNoKeystream) {
    expect_stream_leaves_nothing(set(), rng_, {1, 40, 100, 500, 640, 1000, 1300, 2100});
}

// Every path's length: the first call's row, ymm and zmm shapes with block 0
// in a lane, the first batch with block 0 beside it, whole batches, a
// chunk's last bytes through the keystream buffer (17 KiB + 100), and past
// a 16 KiB chunk a tail of rows, of a ymm batch and of a zmm batch.
TEST_P(Avx512Stack, AeadLeavesNoKeyNorKeystream) {
    expect_aead_leaves_nothing(set(), rng_,
                               {1, 64, 100, 192, 300, 448, 512, 640, 960, 1000, 1024, 1300, 2048 + 5, 4096 + 13,
                                16 * 1024 + 100, 16 * 1024 + 500, 16 * 1024 + 900, 17 * 1024 + 100});
}

TEST_P(Avx512Stack, OpenRecordLeavesNoKeyNorKeystream) {
    expect_open_record_leaves_nothing(set(), rng_,
                                      {1, 64, 100, 192, 300, 512, 640, 1000, 1024, 1300, 2048 + 5, 4096 + 13,
                                       17 * 1024 + 100});
}

TEST_P(Avx512Stack, OpensshPacketLeavesNoKeyNorKeystream) {
    expect_openssh_leaves_nothing(set(), rng_, {16, 64, 100, 192, 256, 257, 1000});
}

}  // namespace
}  // namespace stitch::test
