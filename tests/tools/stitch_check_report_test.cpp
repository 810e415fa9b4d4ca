// stitch-check's verdict rules, on rows with made-up times: a row below
// 1.00x is slower whatever its noise, the verdict line names every such row,
// a row that could not be measured fails the check, and the best of several
// sets is the one not slower anywhere with the highest geometric mean.
#include <gtest/gtest.h>

#include "tools/stitch-check/report.hpp"

namespace stitch::check {
namespace {

RowResult row(Op op, size_t bytes, double dflt_ns, std::vector<double> sets_ns, double noise = 0.02) {
    RowResult r;
    r.spec = {op, bytes};
    r.dflt = {dflt_ns, noise};
    for (double ns : sets_ns) r.sets.push_back({ns, noise});
    return r;
}

TEST(StitchCheckVerdict, FasterEverywhere) {
    const std::vector<RowResult> rows = {row(Op::tls13_seal, 64, 800, {400}), row(Op::chacha20, 65536, 15000, {14800})};
    const SetVerdict v = judge(rows, 0, "avx512-ifma");
    EXPECT_FALSE(v.slower);
    EXPECT_NEAR(v.lowest, 15000.0 / 14800, 1e-9);
    EXPECT_EQ(v.lowest_at, "raw ChaCha20 64 KiB");
    EXPECT_EQ(verdict_line(v), "faster at every size measured (lowest 1.01x, raw ChaCha20 64 KiB)");
}

TEST(StitchCheckVerdict, OneRowJustBelowIsSlowerWhateverTheNoise) {
    const std::vector<RowResult> rows = {row(Op::tls13_seal, 64, 800, {400}),
                                         row(Op::tls13_open, 65536, 20000, {20100}, 0.30)};
    const SetVerdict v = judge(rows, 0, "avx2");
    EXPECT_TRUE(v.slower);
    ASSERT_EQ(v.slower_at.size(), 1u);
    EXPECT_EQ(verdict_line(v), "slower at TLS 1.3 open 64 KiB (1.00x, noise ±30%)");
}

TEST(StitchCheckVerdict, EqualTimeIsNotSlower) {
    const SetVerdict v = judge({row(Op::ssh_open, 1024, 900, {900})}, 0, "avx2");
    EXPECT_FALSE(v.slower);
}

TEST(StitchCheckVerdict, UnmeasuredRowFailsTheCheck) {
    std::vector<RowResult> rows = {row(Op::tls13_seal, 64, 800, {400})};
    RowResult broken = row(Op::ssh_seal, 1024, 0, {0});
    broken.error = "stitch's output differs from the default provider's";
    rows.push_back(broken);
    const SetVerdict v = judge(rows, 0, "avx2");
    EXPECT_TRUE(v.slower);
    EXPECT_FALSE(v.measured);
    EXPECT_EQ(verdict_line(v), "slower at OpenSSH seal 1 KiB (not measured: stitch's output differs from the default provider's)");
}

TEST(StitchCheckVerdict, BestSetIsNotSlowerAnywhereThenHighestMean) {
    // Set 0 fastest on average but slower in one row; set 1 never slower;
    // set 2 never slower with a higher mean; set 3 slow everywhere.
    const std::vector<RowResult> rows = {
        row(Op::tls13_seal, 64, 1000, {200, 700, 600, 2000}),
        row(Op::tls13_seal, 65536, 1000, {1100, 900, 800, 3000}),
    };
    std::vector<SetVerdict> v;
    for (size_t i = 0; i < 4; ++i) v.push_back(judge(rows, i, "set" + std::to_string(i)));
    EXPECT_TRUE(v[0].slower);
    EXPECT_FALSE(v[1].slower);
    EXPECT_FALSE(v[2].slower);
    EXPECT_EQ(best_set(v), 2u);
    // Among sets all slower somewhere: the one whose worst row is best.
    const std::vector<SetVerdict> all_slow = {v[3], v[0]};
    EXPECT_EQ(best_set(all_slow), 1u);
}

TEST(StitchCheckReport, SizesAndNoise) {
    EXPECT_EQ(size_name(64), "64 B");
    EXPECT_EQ(size_name(1024), "1 KiB");
    EXPECT_EQ(size_name(65536), "64 KiB");
    EXPECT_EQ(size_name(1300), "1300 B");
    const std::vector<RowResult> rows = {row(Op::chacha20, 1024, 1, {1}, 0.03), row(Op::chacha20, 65536, 1, {1}, 0.09),
                                         row(Op::ssh_open, 1024, 1, {1}, 0.05)};
    EXPECT_EQ(run_noise(rows), "±5% (worst row ±9%)");
}

}  // namespace
}  // namespace stitch::check
