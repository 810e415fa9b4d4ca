// The AVX2 set's shape table (kernels/avx2/shapes.cpp): which shape each CPU
// gets, by vendor, family and model, whatever CPU runs the test; the
// STITCH_AVX2_SHAPE override; and one Impl per shape. (The shapes' kernels
// themselves run through the kernel suite, kernel_*_test.cpp.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kernels/avx2/shapes.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/avx2/set.hpp"

namespace stitch::test {
namespace {

namespace avx2 = kern::avx2;
using kern::CpuVendor;

std::string shape_of(CpuVendor vendor, uint32_t family, uint32_t model) {
    return avx2::shape_for(vendor, family, model).name;
}

TEST(ShapeTable, MeasuredFamiliesGetTheirShapes) {
    EXPECT_EQ(shape_of(CpuVendor::amd, 0x1a, 0x02), "zen5");
    EXPECT_EQ(shape_of(CpuVendor::amd, 0x1a, 0x44), "zen5");
    EXPECT_EQ(shape_of(CpuVendor::amd, 0x19, 0x11), "zen4");  // measured here
    EXPECT_EQ(shape_of(CpuVendor::amd, 0x19, 0x10), "zen4");
    EXPECT_EQ(shape_of(CpuVendor::amd, 0x19, 0x61), "zen4");
    EXPECT_EQ(shape_of(CpuVendor::amd, 0x19, 0x74), "zen4");
    EXPECT_EQ(shape_of(CpuVendor::amd, 0x19, 0xa0), "zen4");
}

// Families nobody measured keep the shape they had (AMD's Zen 1-3), or get
// the safe one (everything else, Intel's Golden Cove class included).
TEST(ShapeTable, UnmeasuredFamilies) {
    for (uint32_t model : {0x01u, 0x08u, 0x21u, 0x44u, 0x50u}) EXPECT_EQ(shape_of(CpuVendor::amd, 0x19, model), "zen5");
    EXPECT_EQ(shape_of(CpuVendor::amd, 0x17, 0x71), "zen5");
    for (uint32_t model : {0x97u, 0x9au, 0xb7u, 0xbau, 0xbfu, 0x8fu, 0xcfu, 0x55u, 0x8cu})
        EXPECT_EQ(shape_of(CpuVendor::intel, 6, model), "safe") << std::hex << model;
    EXPECT_EQ(shape_of(CpuVendor::amd, 0x19, 0x80), "safe");  // a family 0x19 model no entry covers
    EXPECT_EQ(shape_of(CpuVendor::amd, 0x1b, 0x00), "safe");
    EXPECT_EQ(shape_of(CpuVendor::other, 0x18, 0x00), "safe");  // Hygon
}

TEST(ShapeTable, ShapesByName) {
    EXPECT_EQ(avx2::shape_named("zen4"), &avx2::kZen4);
    EXPECT_EQ(avx2::shape_named("avx2/zen4"), &avx2::kZen4);
    EXPECT_EQ(avx2::shape_named("safe"), &avx2::kSafe);
    EXPECT_EQ(avx2::shape_named("zen9"), nullptr);
    EXPECT_EQ(avx2::shape_named(""), nullptr);
    EXPECT_EQ(avx2::shape_named(nullptr), nullptr);
}

// One Impl per shape, in table order, named after it; the set's rule
// (avx2::preferred) gives the one STITCH_AVX2_SHAPE names (CTest runs this
// again with it set), else the table's shape for this CPU.
TEST(ShapeTable, OneImplPerShapeAndTheChosenOne) {
    const auto impls = kern::avx2::impls();
    if (impls.empty()) GTEST_SKIP() << "no AVX2+BMI2 here: the table is checked above, the Impls cannot be";
    ASSERT_EQ(impls.size(), avx2::kShapeCount);
    for (size_t i = 0; i < impls.size(); ++i) {
        EXPECT_STREQ(impls[i]->name, "avx2");
        EXPECT_STREQ(kern::impl_label(*impls[i]), avx2::kAllShapes[i]->label);
    }
    const kern::CpuFeatures f = kern::cpu_features_raw();
    const avx2::Shape* forced = avx2::shape_named(std::getenv("STITCH_AVX2_SHAPE"));
    const avx2::Shape& want = forced ? *forced : avx2::shape_for(f.vendor, f.family, f.model);
    const kern::Impl* chosen = kern::avx2::preferred(f);
    ASSERT_NE(chosen, nullptr);
    EXPECT_STREQ(kern::impl_label(*chosen), want.label);
}

}  // namespace
}  // namespace stitch::test
