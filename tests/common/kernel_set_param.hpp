// Tests over kernel sets as value-parameterised GoogleTests: a suite whose
// fixture derives from OnEverySet runs once per entry of kernel_sets() (every
// Impl this CPU runs, and the AVX-512 set on SIMDe), and a failure names the
// set in the test's name, EverySet/<Suite>.<Test>/avx2_zen4.
//
//   class Rfc8439Kernels : public OnEverySet {};
//   TEST_P(Rfc8439Kernels, Poly1305) { ... impl() ... }
//   STITCH_INSTANTIATE_ON_EVERY_SET(Rfc8439Kernels);
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>

#include "common/kernel_sets.hpp"

namespace stitch::test {

// What GoogleTest prints for a parameter: its label, not its bytes.
inline void PrintTo(const KernelSet& set, std::ostream* os) { *os << set.label; }

// "avx512-ifma" -> "avx512_ifma", "avx512 (SIMDe)" -> "avx512__SIMDe_":
// GoogleTest names allow letters, digits and _.
inline std::string test_name_of(const kern::Impl& impl) {
    std::string name = kern::impl_label(impl);
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

inline std::string kernel_set_name(const ::testing::TestParamInfo<KernelSet>& info) {
    return test_name_of(*info.param.impl);
}

// The same for suites over one set's Impls (the wipe tests: the AVX2 set's
// entries, or the AVX-512 set's variants).
inline std::string impl_name(const ::testing::TestParamInfo<const kern::Impl*>& info) {
    return test_name_of(*info.param);
}

class OnEverySet : public ::testing::TestWithParam<KernelSet> {
protected:
    const kern::Impl& impl() const { return *GetParam().impl; }
    const std::string& label() const { return GetParam().label; }
};

}  // namespace stitch::test

#define STITCH_INSTANTIATE_ON_EVERY_SET(suite) \
    INSTANTIATE_TEST_SUITE_P(EverySet, suite, ::testing::ValuesIn(::stitch::test::kernel_sets()), \
                             ::stitch::test::kernel_set_name)
