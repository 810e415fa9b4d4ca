// The kernel sets a kernel test runs every vector through: every Impl this
// build has and this CPU can run (runnable_impls(): portable first, then each
// vector set and shape), whatever dispatch chose for this process, and, in a
// test linked with tests/emulated, the AVX-512 set built on SIMDe.
#pragma once

#include <string>
#include <vector>

#include "kernels/dispatch.hpp"
#if defined(STITCH_TEST_AVX512_EMULATED)
#include "tests/emulated/emulated_impls.hpp"
#endif

namespace stitch::test {

struct KernelSet {
    std::string label;  // for SCOPED_TRACE and test names
    const kern::Impl* impl;
};

inline std::vector<KernelSet> kernel_sets() {
    std::vector<KernelSet> sets;
    for (const kern::Impl* impl : kern::runnable_impls()) {
        std::string label = kern::impl_label(*impl);
        if (impl == &kern::active_impl()) label += " (active)";
        sets.push_back({label, impl});
    }
#if defined(STITCH_TEST_AVX512_EMULATED)
    // The AVX-512 set on SIMDe: runs on any AVX2 machine, natively built or
    // not (impl_label says "(SIMDe)").
    for (const kern::Impl* impl : avx512_emulated_impls()) sets.push_back({kern::impl_label(*impl), impl});
#endif
    return sets;
}

}  // namespace stitch::test
