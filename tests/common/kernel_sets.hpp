// The kernel sets a kernel test runs every vector through: the portable
// reference, whatever dispatch chose for this process, and the AVX2 set
// whenever this build and CPU have it (even if dispatch was masked down).
#pragma once

#include <string>
#include <vector>

#include "kernels/dispatch.hpp"

namespace stitch::test {

struct KernelSet {
    std::string label;  // for SCOPED_TRACE
    const kern::Impl* impl;
};

inline std::vector<KernelSet> kernel_sets() {
    std::vector<KernelSet> sets{{"portable_impl()", &kern::portable_impl()},
                                {std::string("active_impl() = ") + kern::active_impl().name, &kern::active_impl()}};
    if (const kern::Impl* avx2 = kern::avx2_impl(); avx2 && avx2 != &kern::active_impl())
        sets.push_back({"avx2_impl()", avx2});
    return sets;
}

}  // namespace stitch::test
