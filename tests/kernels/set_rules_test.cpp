// Each kernel set's rule (its set.hpp: allowed() and preferred()) on CPUs
// described by hand, whatever CPU runs the test, and dispatch's lookup by
// label.
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

// The whole CPU table is tests/kernels/dispatch_rule_test.cpp; here the
// set's two entry points and the mask. The rule decides from the features
// alone, so this runs on any CPU.
TEST(SetRules, Avx512WhereOpenSslRunsAvx512AndNeverOnSkylakeSp) {
    for (const CpuFeatures& f : {cpu(CpuVendor::intel, 6, 0xcf), cpu(CpuVendor::intel, 6, 0x8f),
                                 cpu(CpuVendor::amd, 0x19, 0x11), cpu(CpuVendor::amd, 0x1a, 0x02)}) {
        EXPECT_EQ(label(kern::avx512::allowed(f)), "avx512-ifma");
        EXPECT_EQ(kern::avx512::preferred(f), kern::avx512::allowed(f));
    }
    EXPECT_EQ(label(kern::avx512::preferred(cpu(CpuVendor::amd, 0x19, 0x11, false))), "avx512");
    // Intel family 6 model 0x55 (Skylake-SP, Cascade Lake): never, not even asked for.
    EXPECT_EQ(kern::avx512::allowed(cpu(CpuVendor::intel, 6, 0x55)), nullptr);
    EXPECT_EQ(kern::avx512::preferred(cpu(CpuVendor::intel, 6, 0x55)), nullptr);
    // The mask: without AVX-512 (or BMI2) the set is out.
    EXPECT_EQ(kern::avx512::allowed(kern::apply_cpu_mask(cpu(CpuVendor::amd, 0x19, 0x11), "avx512")), nullptr);
    EXPECT_EQ(kern::avx512::allowed(kern::apply_cpu_mask(cpu(CpuVendor::amd, 0x19, 0x11), "bmi2")), nullptr);
    EXPECT_EQ(label(kern::avx512::allowed(kern::apply_cpu_mask(cpu(CpuVendor::intel, 6, 0xcf), "avx512ifma"))),
              "avx512");
}

TEST(SetRules, Avx2WhereverItRuns) {
    if (kern::avx2::impls().empty()) GTEST_SKIP() << "this CPU does not run the AVX2 set";
    // One Impl for every AVX2 CPU: no per-CPU variant (kernels/avx2/tuning.hpp).
    ASSERT_EQ(kern::avx2::impls().size(), 1u);
    EXPECT_EQ(label(kern::avx2::preferred(cpu(CpuVendor::amd, 0x17, 0x31))), "avx2");
    EXPECT_EQ(label(kern::avx2::preferred(cpu(CpuVendor::amd, 0x19, 0x11))), "avx2");
    EXPECT_EQ(label(kern::avx2::preferred(cpu(CpuVendor::amd, 0x1a, 0x02))), "avx2");
    EXPECT_EQ(label(kern::avx2::preferred(cpu(CpuVendor::intel, 6, 0xcf))), "avx2");
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
