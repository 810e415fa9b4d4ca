// Each kernel set's rule (its set.hpp: allowed() and preferred()) on CPUs
// described by hand, whatever CPU runs the test, and dispatch's lookup by
// label. The AVX-512 rows need a CPU that runs the AVX-512 set (the rule
// returns one of its Impls); they are skipped elsewhere.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kernels/avx2/set.hpp"
#include "kernels/avx512/set.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/portable/set.hpp"

namespace stitch::test {
namespace {

using kern::CpuFeatures;
using kern::CpuVendor;

CpuFeatures cpu(CpuVendor vendor, uint32_t family, uint32_t model, bool ifma = true) {
    CpuFeatures f;
    f.avx2 = f.bmi2 = f.adx = true;
    f.avx512 = true;
    f.avx512ifma = ifma;
    f.vendor = vendor;
    f.family = family;
    f.model = model;
    return f;
}

std::string label(const kern::Impl* impl) { return impl ? kern::impl_label(*impl) : "(none)"; }

TEST(SetRules, Avx512OnlyWhereMeasuredFasterAndNeverOnSkylakeSp) {
    if (kern::avx512::impls().empty()) GTEST_SKIP() << "this CPU does not run the AVX-512 set";
    const bool host_ifma = kern::avx512::impls().size() == 2;
    const std::string best = host_ifma ? "avx512-ifma" : "avx512";
    // Zen 4 (AMD family 0x19): measured faster than the AVX2 set, chosen.
    EXPECT_EQ(label(kern::avx512::preferred(cpu(CpuVendor::amd, 0x19, 0x11))), best);
    EXPECT_EQ(label(kern::avx512::preferred(cpu(CpuVendor::amd, 0x19, 0x11, false))), "avx512");
    // Intel since Ice Lake, AMD Zen 5: allowed when asked for, not chosen.
    for (const CpuFeatures& f : {cpu(CpuVendor::intel, 6, 0xcf), cpu(CpuVendor::intel, 6, 0x8f),
                                 cpu(CpuVendor::amd, 0x1a, 0x02)}) {
        EXPECT_EQ(label(kern::avx512::allowed(f)), best);
        EXPECT_EQ(kern::avx512::preferred(f), nullptr);
    }
    // Intel family 6 model 0x55 (Skylake-SP, Cascade Lake): never.
    EXPECT_EQ(kern::avx512::allowed(cpu(CpuVendor::intel, 6, 0x55)), nullptr);
    EXPECT_EQ(kern::avx512::preferred(cpu(CpuVendor::intel, 6, 0x55)), nullptr);
    // The mask: without AVX-512 (or BMI2) the set is out.
    CpuFeatures masked = cpu(CpuVendor::amd, 0x19, 0x11);
    masked = kern::apply_cpu_mask(masked, "avx512");
    EXPECT_EQ(kern::avx512::allowed(masked), nullptr);
    masked = kern::apply_cpu_mask(cpu(CpuVendor::amd, 0x19, 0x11), "bmi2");
    EXPECT_EQ(kern::avx512::allowed(masked), nullptr);
}

TEST(SetRules, Avx2WhereverItRunsInTheTablesShape) {
    if (kern::avx2::impls().empty()) GTEST_SKIP() << "this CPU does not run the AVX2 set";
    if (std::getenv("STITCH_AVX2_SHAPE")) GTEST_SKIP() << "STITCH_AVX2_SHAPE overrides the table";
    EXPECT_EQ(label(kern::avx2::preferred(cpu(CpuVendor::amd, 0x19, 0x11))), "avx2/zen4");
    EXPECT_EQ(label(kern::avx2::preferred(cpu(CpuVendor::amd, 0x1a, 0x02))), "avx2/zen5");
    EXPECT_EQ(label(kern::avx2::preferred(cpu(CpuVendor::intel, 6, 0xcf))), "avx2/safe");
    EXPECT_EQ(kern::avx2::preferred(kern::apply_cpu_mask(cpu(CpuVendor::intel, 6, 0xcf), "avx2")), nullptr);
    EXPECT_EQ(kern::avx2::preferred(kern::apply_cpu_mask(cpu(CpuVendor::intel, 6, 0xcf), "bmi2")), nullptr);
}

TEST(SetRules, PortableEverywhere) {
    const CpuFeatures none = kern::apply_cpu_mask(cpu(CpuVendor::other, 0, 0), "all");
    EXPECT_EQ(kern::portable::preferred(none), &kern::portable_impl());
    EXPECT_EQ(kern::portable::allowed(none), &kern::portable_impl());
}

TEST(SetRules, FindImplByLabelThenByName) {
    EXPECT_EQ(kern::find_impl("portable"), &kern::portable_impl());
    EXPECT_EQ(kern::find_impl("no-such-set"), nullptr);
    EXPECT_EQ(kern::find_impl(nullptr), nullptr);
    for (const kern::Impl* impl : kern::runnable_impls()) EXPECT_EQ(kern::find_impl(kern::impl_label(*impl)), impl);
    if (!kern::avx2::impls().empty()) {
        EXPECT_EQ(kern::find_impl("avx2"), kern::avx2::impls()[0]);
    }
}

}  // namespace
}  // namespace stitch::test
