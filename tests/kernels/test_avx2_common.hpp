// Shared by the AVX2 kernel tests: the fixture that reaches the AVX2 set
// directly (and fails by name where the host cannot run it), and the length
// lists every test sweeps.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "common/test_util.hpp"
#include "kernels/dispatch.hpp"

namespace stitch::test {

// avx2_impl() ignores STITCH_CLEAR_CPUID, so these tests exercise the AVX2
// kernels in the `.portable` CTest run as well. A host without AVX2+BMI2 is a
// failure, never a silent skip.
class Avx2Kernels : public ::testing::Test {
protected:
    void SetUp() override {
        avx2_ = kern::avx2_impl();
        if (!avx2_) GTEST_FAIL() << "this host lacks AVX2+BMI2 (or the OS does not save ymm state); "
                                    "the AVX2 kernels cannot be tested here";
    }
    const kern::Impl& avx2() const { return *avx2_; }
    static const kern::Impl& portable() { return kern::portable_impl(); }

private:
    const kern::Impl* avx2_ = nullptr;
};

// Every length 0..1600, each side of every 64- and 512-byte edge up to
// 4 KiB + 1, and 2/4/16/64 KiB with their neighbours.
inline std::vector<size_t> sweep_lengths() {
    std::vector<size_t> v;
    for (size_t n = 0; n <= 1600; ++n) v.push_back(n);
    for (size_t edge = 1664; edge <= 4096 + 512; edge += 64)
        for (size_t n : {edge - 1, edge, edge + 1}) v.push_back(n);
    for (size_t kib : {2, 4, 16, 64})
        for (size_t n : {kib * 1024 - 1, kib * 1024, kib * 1024 + 1}) v.push_back(n);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

// A sparser list for the costlier combinations (splits, grids, AAD).
inline std::vector<size_t> edge_lengths() {
    std::vector<size_t> v;
    for (size_t n = 0; n <= 200; ++n) v.push_back(n);
    for (size_t edge = 256; edge <= 2048 + 512; edge += 64)
        for (size_t n : {edge - 17, edge - 1, edge, edge + 1, edge + 13}) v.push_back(n);
    for (size_t n : {size_t(4096), size_t(16384 + 5), size_t(65536)}) v.push_back(n);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

}  // namespace stitch::test
