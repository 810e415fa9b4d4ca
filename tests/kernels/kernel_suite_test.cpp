// The kernel suite's instantiation over every kernel set, its shared length
// lists, and the guard that a set the host can run is in the list at all.
#include "kernel_suite.hpp"

#include <cctype>
#include <cstdio>
#include <set>
#include <span>
#include "kernels/avx2/set.hpp"

namespace stitch::test {

namespace {

void add_unique_sorted(std::vector<size_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

// "avx2/zen4" -> "avx2_zen4": GoogleTest names allow letters, digits and _.
std::string param_name(const ::testing::TestParamInfo<KernelSet>& info) {
    std::string name = kern::impl_label(*info.param.impl);
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

}  // namespace

std::vector<size_t> bulk_edges() {
    std::vector<size_t> v;
    for (size_t bulk : {8, 16, 24, 32, 48, 64})
        for (size_t k = 1; k <= 4; ++k) {
            const size_t e = k * bulk * 64;
            for (size_t n : {e - 65, e - 64, e - 1, e, e + 1, e + 64, e + 65}) v.push_back(n);
        }
    add_unique_sorted(v);
    return v;
}

std::vector<size_t> bulk_edge_blocks() {
    std::vector<size_t> v;
    for (size_t bulk : {8, 16, 24, 32, 48, 64})
        for (size_t k = 1; k <= 4; ++k)
            for (size_t n : {k * bulk - 1, k * bulk, k * bulk + 1}) v.push_back(n);
    add_unique_sorted(v);
    return v;
}

std::vector<size_t> sweep_lengths() {
    std::vector<size_t> v;
    for (size_t n = 0; n <= 1600; ++n) v.push_back(n);
    for (size_t edge = 1664; edge <= 4096 + 512; edge += 64)
        for (size_t n : {edge - 1, edge, edge + 1}) v.push_back(n);
    for (size_t n : bulk_edges()) v.push_back(n);
    for (size_t kib : {2, 4, 16, 64})
        for (size_t n : {kib * 1024 - 1, kib * 1024, kib * 1024 + 1}) v.push_back(n);
    add_unique_sorted(v);
    return v;
}

std::vector<size_t> edge_lengths() {
    std::vector<size_t> v;
    for (size_t n = 0; n <= 200; ++n) v.push_back(n);
    for (size_t edge = 256; edge <= 2048 + 512; edge += 64)
        for (size_t n : {edge - 17, edge - 1, edge, edge + 1, edge + 13}) v.push_back(n);
    for (size_t n : bulk_edges()) v.push_back(n);
    for (size_t n : {size_t(4096), size_t(16384 + 5), size_t(65536)}) v.push_back(n);
    add_unique_sorted(v);
    return v;
}

Residue reduce_mod_p(const uint64_t h_in[3]) {
    using u128 = unsigned __int128;
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
    // Now h < 2p: subtract p once if h >= p, that is if h + 5 reaches 2^130.
    u128 t = u128(h0) + 5;
    const uint64_t g0 = uint64_t(t);
    t = u128(h1) + uint64_t(t >> 64);
    const uint64_t g1 = uint64_t(t);
    const uint64_t g2 = h2 + uint64_t(t >> 64);
    if (g2 >> 2) return {g0, g1, g2 & 3};
    return {h0, h1, h2};
}

std::string describe_h(const uint64_t h[3]) {
    char buf[80];
    std::snprintf(buf, sizeof buf, "%016llx:%016llx:%016llx", (unsigned long long)h[2], (unsigned long long)h[1],
                  (unsigned long long)h[0]);
    return buf;
}

INSTANTIATE_TEST_SUITE_P(EverySet, KernelSuite, ::testing::ValuesIn(kernel_sets()), param_name);

// kernel_sets() is what the host can run; a set the host could run but the
// list lacks would go untested without a word. Each row: a set's name,
// whether this host (as the compiler's own CPU check sees it) runs it, and
// the set's own list of Impls (one per shape), every one of which must be in
// kernel_sets() too.
TEST(KernelSets, EverySetThisHostRunsIsTested) {
    __builtin_cpu_init();
    struct Expected {
        const char* set;
        bool host_runs;
        std::span<const kern::Impl* const> (*shapes)() noexcept;
    };
    const Expected expected[] = {
        {"portable", true, nullptr},
        {"avx2", __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2"), kern::avx2::impls},
    };
    std::set<std::string> present;
    std::set<const kern::Impl*> tested;
    for (const KernelSet& s : kernel_sets()) {
        present.insert(s.impl->name);
        tested.insert(s.impl);
    }
    for (const Expected& e : expected) {
        if (!e.host_runs) continue;
        EXPECT_TRUE(present.count(e.set)) << "this host runs the " << e.set
                                          << " kernels, but runnable_impls() has no such set: it is untested";
        if (!e.shapes) continue;
        for (const kern::Impl* impl : e.shapes()) {
            EXPECT_TRUE(tested.count(impl)) << kern::impl_label(*impl) << " is missing from kernel_sets()";
        }
    }
}

}  // namespace stitch::test
