// The kernel suite: one value-parameterised GoogleTest suite whose parameter
// is a kernel set (tests/common/kernel_sets.hpp: every Impl this build has
// and this CPU can run, each shape of a set its own Impl), each compared with
// the portable set. Tests are written once, in kernel_*_test.cpp, and run on
// every set, including sets and shapes added later.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/kernel_sets.hpp"
#include "common/seeded_rng.hpp"
#include "common/test_util.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/portable/set.hpp"

namespace stitch::test {

// What GoogleTest prints for a parameter: its label, not its bytes.
inline void PrintTo(const KernelSet& set, std::ostream* os) { *os << set.label; }

class KernelSuite : public ::testing::TestWithParam<KernelSet> {
protected:
    const kern::Impl& impl() const { return *GetParam().impl; }
    static const kern::Impl& portable() { return kern::portable_impl(); }
};

// Every length 0..1600 (25 blocks: every shape and remainder of one batch
// and of a bulk of three), each side of every 64-byte edge up to 4 KiB +
// 512, both sides of every edge of a bulk of 8, 16, 24, 32, 48 or 64 blocks
// (one to four of them: batches of 8 or 16 blocks, several in flight), and
// 2/4/16/64 KiB with their neighbours.
std::vector<size_t> sweep_lengths();

// A sparser list for the costlier combinations (splits, grids, AAD): 0..200,
// a few lengths around each 64-byte edge up to 2 KiB + 512, the bulk edges,
// and three long ones.
std::vector<size_t> edge_lengths();

// Both sides (one byte, one block) of every multiple 1..4 of a bulk of 8, 16,
// 24, 32, 48 and 64 blocks, in bytes.
std::vector<size_t> bulk_edges();

// Block counts: both sides of every bulk edge above, in blocks.
std::vector<size_t> bulk_edge_blocks();

// A Poly1305 accumulator h0 + h1·2^64 + h2·2^128 reduced mod 2^130 − 5:
// kernel sets may leave different representatives of the same value (the
// vector code does), and any set must be able to carry on from another's.
struct Residue {
    uint64_t w0, w1, w2;
    bool operator==(const Residue&) const = default;
};
Residue reduce_mod_p(const uint64_t h[3]);
std::string describe_h(const uint64_t h[3]);

}  // namespace stitch::test
