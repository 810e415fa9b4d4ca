// The kernel sets a kernel test runs every vector through: every Impl this
// build has and this CPU can run (runnable_impls(): portable first, then each
// vector set and shape), whatever dispatch chose for this process.
#pragma once

#include <string>
#include <vector>

#include "kernels/dispatch.hpp"

namespace stitch::test {

struct KernelSet {
    std::string label;  // for SCOPED_TRACE and test names
    const kern::Impl* impl;
};

inline std::vector<KernelSet> kernel_sets() {
    std::vector<KernelSet> sets;
    for (const kern::Impl* impl : kern::runnable_impls()) {
        std::string label = impl->name;
        if (impl == &kern::active_impl()) label += " (active)";
        sets.push_back({label, impl});
    }
    return sets;
}

}  // namespace stitch::test
