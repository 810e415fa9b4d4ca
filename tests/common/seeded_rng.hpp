// A reproducible Rng for a GoogleTest test: STITCH_TEST_SEED overrides the
// test's own seed, and the seed in use is printed so that any failure can be
// replayed.
#pragma once

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "common/test_util.hpp"

namespace stitch::test {

inline Rng seeded_rng(uint64_t own_seed) {
    uint64_t seed = own_seed;
    if (const char* env = std::getenv("STITCH_TEST_SEED")) seed = std::strtoull(env, nullptr, 0);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::printf("[ seed     ] %s.%s: STITCH_TEST_SEED=0x%016" PRIx64 "\n", info ? info->test_suite_name() : "?",
                info ? info->name() : "?", seed);
    return Rng(seed);
}

}  // namespace stitch::test
