// The AVX2 vector Poly1305 (kernels/x86/poly1305_vector.hpp) against the portable
// blocks. The two may leave different representatives of the same value mod
// p = 2^130 - 5, so states are compared reduced mod p, and every state the
// vector code leaves is checked to be in the range poly1305_final and the
// scalar blocks accept (h2 <= 4). Every entry is tested: the AVX2 set's
// Impl::poly1305_blocks (MULX below avx2::kVectorPolyMin, vector from
// there, one accumulator for 20-23 blocks on Zen 4), and both vector paths
// forced for every size (or short inputs would only ever reach the MULX
// code, and most CPUs never the one-accumulator form).
#include "kernels/x86/poly1305_vector.hpp"
#include "kernels/x86/poly1305_mulx.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "common/rfc8439_vectors.hpp"
#include "kernels/avx2/tuning.hpp"
#include "kernels/dispatch.hpp"
#include "common/test_util.hpp"
#include "kernels/poly1305.hpp"
#include "kernels/portable/set.hpp"
#include "kernels/avx2/set.hpp"

namespace stitch::test {
namespace {

using kern::Poly1305State;
using u128 = unsigned __int128;
using BlocksFn = void (*)(Poly1305State&, const uint8_t*, size_t) noexcept;

struct Entry {
    std::string name;  // for traces
    std::string id;    // the test name's suffix: "vector", "avx2_zen4"
    BlocksFn fn;
};

void PrintTo(const Entry& e, std::ostream* os) { *os << e.name; }

// The forced vector path, then the AVX2 set's dispatching entry: one
// instance of every test each.
std::vector<Entry> entries() {
    std::vector<Entry> v{{"poly1305_blocks_avx2_vector", "vector", &kern::poly1305_blocks_avx2_vector},
                         {"poly1305_blocks_avx2_vector_one", "vector_one", &kern::poly1305_blocks_avx2_vector_one}};
    for (const kern::Impl* impl : kern::avx2::impls()) {
        std::string id = kern::impl_label(*impl);
        for (char& c : id)
            if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
        v.push_back({std::string(kern::impl_label(*impl)) + " poly1305_blocks", id, impl->poly1305_blocks});
    }
    return v;
}

// Block counts on both sides of the vector code's take-over.
std::vector<size_t> takeover_counts() {
    constexpr size_t k = kern::avx2::kVectorPolyMin;
    return {k - 1, k, k + 1};
}

// h mod p as two 64-bit words and the two top bits, by plain test arithmetic.
struct Residue {
    uint64_t w0, w1, w2;
    bool operator==(const Residue&) const = default;
};

Residue reduce_mod_p(const uint64_t h_in[3]) {
    uint64_t h0 = h_in[0], h1 = h_in[1], h2 = h_in[2];
    for (int round = 0; round < 2; ++round) {  // 2^130 ≡ 5: fold h2's high bits twice
        const uint64_t c = (h2 >> 2) * 5;
        h2 &= 3;
        u128 t = u128(h0) + c;
        h0 = uint64_t(t);
        t = u128(h1) + uint64_t(t >> 64);
        h1 = uint64_t(t);
        h2 += uint64_t(t >> 64);
    }
    // Now h < 2^130 + 5·small < 2p: subtract p once if h >= p.
    u128 t = u128(h0) + 5;
    const uint64_t g0 = uint64_t(t);
    t = u128(h1) + uint64_t(t >> 64);
    const uint64_t g1 = uint64_t(t);
    const uint64_t g2 = h2 + uint64_t(t >> 64);
    if (g2 >> 2) return {g0, g1, g2 & 3};
    return {h0, h1, h2};
}

std::string describe(const uint64_t h[3]) {
    char buf[80];
    std::snprintf(buf, sizeof buf, "%016llx:%016llx:%016llx", (unsigned long long)h[2], (unsigned long long)h[1],
                  (unsigned long long)h[0]);
    return buf;
}

// Same value mod p as the portable result, and partially reduced as the
// scalar code leaves it, so the final reduction and further scalar blocks work.
void expect_equivalent(const Poly1305State& portable, const Poly1305State& vec) {
    EXPECT_EQ(reduce_mod_p(portable.h), reduce_mod_p(vec.h))
        << "portable " << describe(portable.h) << " vector " << describe(vec.h);
    EXPECT_LE(vec.h[2], 4u) << "vector state out of the partially reduced range: " << describe(vec.h);
    // The key half must come through untouched.
    EXPECT_EQ(0, std::memcmp(portable.r, vec.r, sizeof(vec.r)));
    EXPECT_EQ(portable.s1, vec.s1);
}

Bytes tag_of(Poly1305State st) {
    Bytes tag(16);
    kern::poly1305_final(kern::portable_impl(), st, tag.data());
    return tag;
}

// A key whose r has every bit clamping allows (the largest products).
Bytes max_r_key(Rng& rng) {
    Bytes key = rng.bytes(32);
    std::memset(key.data(), 0xff, 16);
    return key;
}

// These entries exist only where the CPU runs AVX2 and BMI2; a host without
// them is a failure by name, never a silent skip.
class Poly1305Avx2 : public ::testing::TestWithParam<Entry> {
protected:
    void SetUp() override {
        if (kern::avx2::impls().empty())
            GTEST_FAIL() << "this host lacks AVX2+BMI2 (or the OS does not save ymm state); "
                            "the AVX2 vector Poly1305 cannot be tested here";
    }
};

// Counts 0..300 (every lead of 0..3 blocks before whole vector steps, both
// sides of the break-even) plus two long ones, random keys and blocks.
TEST_P(Poly1305Avx2, FreshKeysEveryCountMatchesPortable) {
    const Entry& e = GetParam();
    Rng rng(0xa5a2);
    std::vector<size_t> counts;
    for (size_t n = 0; n <= 300; ++n) counts.push_back(n);
    counts.push_back(1024);
    counts.push_back(4096);
    for (size_t n : counts) {
        SCOPED_TRACE(testing::Message() << e.name << " nblocks=" << n);
        const Bytes key = n % 3 == 0 ? max_r_key(rng) : rng.bytes(32);
        const Bytes msg = rng.bytes(n * 16);
        Poly1305State a, b;
        kern::poly1305_init(a, key.data());
        b = a;
        kern::poly1305_blocks_portable(a, msg.data(), n);
        e.fn(b, msg.data(), n);
        expect_equivalent(a, b);
        EXPECT_EQ(to_hex(tag_of(a)), to_hex(tag_of(b)));
    }
}

// Started from states a message can leave mid-way: random values in the
// partially reduced range, and the values around p and 2^130 where a missed
// carry or fold shows, with all-0xff blocks (the largest m + 2^128) and
// zero blocks, and r at its clamped maximum.
TEST_P(Poly1305Avx2, IntermediateStatesMatchPortable) {
    const Entry& e = GetParam();
    const uint64_t ff = ~uint64_t(0), p0 = ff - 4;
    std::vector<std::array<uint64_t, 3>> starts = {
        {0, 0, 0},   {p0, ff, 3},     {p0 - 1, ff, 3}, {p0 + 1, ff, 3}, {ff, ff, 3},
        {ff, ff, 4}, {ff, ff, 7},     {0, 0, 4},       {4, 0, 4},       {p0, ff, 0},
        {1, 0, 0},   {0, 0, 1},       {ff, 0, 0},      {0, ff, 0},      {uint64_t(1) << 63, uint64_t(1) << 63, 2},
    };
    Rng rng(0x57a7e);
    for (int i = 0; i < 40; ++i) starts.push_back({rng.next(), rng.next(), rng.below(5)});

    const Bytes ones(16 * 300, 0xff), zeros(16 * 300, 0x00), random = rng.bytes(16 * 300);
    const Bytes max_key = max_r_key(rng), any_key = rng.bytes(32);
    std::vector<size_t> counts = {1, 4, 5, 7, 16, 17, 64, 299, 300};
    for (size_t n : takeover_counts()) counts.push_back(n);
    for (const Bytes* key : {&max_key, &any_key}) {
        for (const auto& h : starts) {
            for (const Bytes* msg : {&ones, &zeros, &random}) {
                for (size_t n : counts) {
                    SCOPED_TRACE(testing::Message() << e.name << " h=" << describe(h.data()) << " n=" << n
                                                    << (msg == &ones ? " 0xff" : msg == &zeros ? " 0x00" : "")
                                                    << (key == &max_key ? " max r" : ""));
                    Poly1305State a;
                    kern::poly1305_init(a, key->data());
                    std::memcpy(a.h, h.data(), sizeof(a.h));
                    Poly1305State b = a;
                    kern::poly1305_blocks_portable(a, msg->data(), n);
                    e.fn(b, msg->data(), n);
                    expect_equivalent(a, b);
                    EXPECT_EQ(to_hex(tag_of(a)), to_hex(tag_of(b)));
                }
            }
        }
    }
}

// One message absorbed by a chain of calls of random sizes, each starting
// from the state the previous call left, alternating with the portable
// blocks now and then: the state moves between kernels mid-message.
TEST_P(Poly1305Avx2, ChainedCallsOfRandomSizes) {
    const Entry& e = GetParam();
    Rng rng(0xc4a1);
    for (int trial = 0; trial < 60; ++trial) {
        SCOPED_TRACE(testing::Message() << e.name << " trial " << trial);
        const size_t total = 1 + rng.below(1500);
        const Bytes key = trial % 4 == 0 ? max_r_key(rng) : rng.bytes(32);
        const Bytes msg = trial % 5 == 0 ? Bytes(total * 16, 0xff) : rng.bytes(total * 16);
        Poly1305State ref, chained;
        kern::poly1305_init(ref, key.data());
        chained = ref;
        kern::poly1305_blocks_portable(ref, msg.data(), total);
        for (size_t off = 0; off < total;) {
            const size_t n = std::min(total - off, rng.below(rng.below(2) ? 24 : 400) + 1);
            if (rng.below(6) == 0)
                kern::poly1305_blocks_portable(chained, msg.data() + off * 16, n);
            else
                e.fn(chained, msg.data() + off * 16, n);
            off += n;
        }
        expect_equivalent(ref, chained);
        EXPECT_EQ(to_hex(tag_of(ref)), to_hex(tag_of(chained)));
    }
}

// Whole MACs through poly1305_update/final with the vector blocks in an Impl:
// RFC 8439 §2.5.2 and every A.3 vector, the message whole and byte by byte.
TEST_P(Poly1305Avx2, Rfc8439Vectors) {
    const Entry& e = GetParam();
    Rfc8439File file;
    try {
        file = load_rfc8439_vectors();
    } catch (const std::exception& ex) {
        GTEST_FAIL() << ex.what();
    }
    const auto vectors = file.of_kind("poly1305");
    ASSERT_EQ(vectors.size(), 12u) << "expected §2.5.2 and the eleven A.3 vectors";
    kern::Impl impl = kern::portable_impl();
    impl.poly1305_blocks = e.fn;
    for (const auto* v : vectors) {
        const Bytes key = v->bytes("key"), msg = v->bytes("msg"), want = v->bytes("tag");
        for (size_t step : {msg.size() + 1, size_t(1)}) {
            SCOPED_TRACE(testing::Message() << e.name << " " << v->title << " step " << step);
            Poly1305State st;
            kern::poly1305_init(st, key.data());
            for (size_t off = 0; off < msg.size(); off += step)
                kern::poly1305_update(impl, st, msg.data() + off, std::min(step, msg.size() - off));
            Bytes tag(16);
            kern::poly1305_final(impl, st, tag.data());
            EXPECT_EQ(to_hex(tag), to_hex(want));
        }
        EXPECT_TRUE(v->unused().empty()) << v->title << ": a field was not checked";
    }
}

// Long MACs through poly1305_update against the portable Impl, tag for tag,
// with update splits that leave partial blocks between calls.
TEST_P(Poly1305Avx2, LongMessagesThroughUpdate) {
    const Entry& e = GetParam();
    Rng rng(0x10c4);
    kern::Impl impl = kern::portable_impl();
    impl.poly1305_blocks = e.fn;
    for (size_t len : {size_t(255), size_t(256), size_t(257), size_t(1023), size_t(1024), size_t(16384 + 7),
                       size_t(65536)}) {
        SCOPED_TRACE(testing::Message() << "len " << len);
        const Bytes key = rng.bytes(32), msg = rng.bytes(len);
        Poly1305State a, b;
        kern::poly1305_init(a, key.data());
        b = a;
        kern::poly1305_update(kern::portable_impl(), a, msg.data(), msg.size());
        for (size_t off = 0; off < len;) {
            const size_t n = std::min(len - off, rng.below(3000) + 1);
            kern::poly1305_update(impl, b, msg.data() + off, n);
            off += n;
        }
        Bytes ta(16), tb(16);
        kern::poly1305_final(kern::portable_impl(), a, ta.data());
        kern::poly1305_final(impl, b, tb.data());
        EXPECT_EQ(to_hex(ta), to_hex(tb)) << e.name;
    }
}

// Zeroes all sixteen ymm registers, calls fn, then copies them out before
// anything else can touch them (nothing in this function needs a vector
// register): what is not zero then, fn left behind.
__attribute__((noinline, target("avx2"))) void call_then_read_ymm(BlocksFn fn, Poly1305State& st,
                                                                 const uint8_t* in, size_t n,
                                                                 uint8_t out[16 * 32]) {
    __asm__ volatile("vzeroall" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                     "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory");
    fn(st, in, n);
    __asm__ volatile(
        "vmovdqu %%ymm0, 0(%0)\n\tvmovdqu %%ymm1, 32(%0)\n\tvmovdqu %%ymm2, 64(%0)\n\tvmovdqu %%ymm3, 96(%0)\n\t"
        "vmovdqu %%ymm4, 128(%0)\n\tvmovdqu %%ymm5, 160(%0)\n\tvmovdqu %%ymm6, 192(%0)\n\tvmovdqu %%ymm7, 224(%0)\n\t"
        "vmovdqu %%ymm8, 256(%0)\n\tvmovdqu %%ymm9, 288(%0)\n\tvmovdqu %%ymm10, 320(%0)\n\t"
        "vmovdqu %%ymm11, 352(%0)\n\tvmovdqu %%ymm12, 384(%0)\n\tvmovdqu %%ymm13, 416(%0)\n\t"
        "vmovdqu %%ymm14, 448(%0)\n\tvmovdqu %%ymm15, 480(%0)"
        :
        : "r"(out)
        : "memory");
}

// No power of r, nor h, is left in a vector register when a call returns
// (both entries, from below the break-even up): the vector path ends in
// VZEROALL, and the MULX path touches no vector register.
TEST_P(Poly1305Avx2, LeavesVectorRegistersZero) {
    const Entry& e = GetParam();
    Rng rng(0x2e60);
    const Bytes key = max_r_key(rng), msg = rng.bytes(301 * 16);
    std::vector<size_t> counts = {64, 301};
    for (size_t n : takeover_counts()) counts.push_back(n);
    for (size_t n : counts) {
        SCOPED_TRACE(testing::Message() << e.name << " nblocks=" << n);
        Poly1305State st;
        kern::poly1305_init(st, key.data());
        uint8_t regs[16 * 32];
        std::memset(regs, 0xa5, sizeof(regs));
        call_then_read_ymm(e.fn, st, msg.data(), n, regs);
        for (int r = 0; r < 16; ++r) {
            const Bytes reg(regs + 32 * r, regs + 32 * r + 32);
            EXPECT_EQ(to_hex(reg), std::string(64, '0')) << "ymm" << r;
        }
    }
}

// The MULX run (mulx::blocks from kRunMinBlocks blocks: each fold multiplied
// in by the next block rather than added in) leaves block() by block()'s
// limbs exactly, and those are the portable code's: every count 0..200
// (past kRunMaxBlocks, where a run is split), random and all-ones blocks,
// random and largest r, accumulators from zero to the top of the partially
// reduced range (h2 up to 7).
STITCH_TARGET_AVX2_BMI2 void mulx_run(Poly1305State& st, const uint8_t* m, size_t n) {
    kern::mulx::PolyAcc acc = kern::mulx::load(st);
    kern::mulx::blocks(acc, m, n);
    kern::mulx::store(st, acc);
}

STITCH_TARGET_AVX2_BMI2 void mulx_block_by_block(Poly1305State& st, const uint8_t* m, size_t n) {
    kern::mulx::PolyAcc acc = kern::mulx::load(st);
    for (size_t i = 0; i < n; ++i) kern::mulx::block(acc, m + 16 * i);
    kern::mulx::store(st, acc);
}

TEST(Poly1305MulxRun, LimbsAreBlockByBlocksAndPortables) {
    if (kern::avx2::impls().empty()) GTEST_FAIL() << "this host lacks AVX2+BMI2: the MULX run cannot be tested here";
    static_assert(kern::mulx::kRunMinBlocks < kern::mulx::kRunMaxBlocks && 200 > 2 * kern::mulx::kRunMaxBlocks);
    Rng rng(0x3a11);
    const uint64_t p0 = 0xfffffffffffffffbull, p1 = ~0ull;
    const uint64_t starts[][3] = {{0, 0, 0}, {p0, p1, 3}, {p1, p1, 4}, {p1, p1, 7}, {0, 0, 7}};
    for (size_t n = 0; n <= 200; ++n) {
        for (int variant = 0; variant < 4; ++variant) {
            const bool ones = variant & 1, max_r = variant & 2;
            const Bytes key = max_r ? max_r_key(rng) : rng.bytes(32);
            const Bytes msg = ones ? Bytes(16 * n, 0xff) : rng.bytes(16 * n);
            const auto& h = starts[(n + variant) % std::size(starts)];
            Poly1305State want, by_block, got;
            kern::poly1305_init(want, key.data());
            std::memcpy(want.h, h, sizeof(want.h));
            by_block = got = want;
            kern::portable_impl().poly1305_blocks(want, msg.data(), n);
            mulx_block_by_block(by_block, msg.data(), n);
            mulx_run(got, msg.data(), n);
            SCOPED_TRACE(testing::Message() << "n=" << n << " ones=" << ones << " max r=" << max_r
                                            << " h=" << describe(h));
            EXPECT_EQ(describe(want.h), describe(by_block.h));
            EXPECT_EQ(describe(want.h), describe(got.h));
            if (HasFailure()) return;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryEntry, Poly1305Avx2, ::testing::ValuesIn(entries()),
                         [](const ::testing::TestParamInfo<Entry>& info) { return info.param.id; });

}  // namespace
}  // namespace stitch::test
