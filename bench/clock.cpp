#include "bench/clock.hpp"

#include <time.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace stitch::bench {

namespace {

constexpr int kAddsPerIteration = 1000;

// kAddsPerIteration dependent adds per iteration; the loop counter is a
// separate chain the core runs beside it, so each iteration costs
// kAddsPerIteration cycles (an add has one cycle of latency on every x86-64
// core this project targets, Zen 5 included).
[[gnu::noinline]] uint64_t add_chain(uint64_t iterations) {
    uint64_t x = 0;
    for (uint64_t i = 0; i < iterations; ++i) {
        __asm__ volatile(".rept 1000\n\taddq $1, %0\n\t.endr" : "+r"(x));
    }
    return x;
}

constexpr uint64_t kIterations = 2000;  // 2M cycles: well under a millisecond, rarely preempted

}  // namespace

double thread_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

double core_ghz_now() {
    const double t0 = thread_cpu_ns();
    add_chain(kIterations);
    return double(kIterations) * kAddsPerIteration / (thread_cpu_ns() - t0);
}

ClockReading measure_clock() {
    // The TSC is compared with the wall clock (it counts while this thread
    // waits too); the core clock with this thread's CPU time.
    using Clock = std::chrono::steady_clock;
    constexpr int kTrials = 15;
    add_chain(kIterations);  // let the core leave any idle frequency
    std::vector<double> core, tsc;
    for (int t = 0; t < kTrials; ++t) {
        const auto w0 = Clock::now();
        const uint64_t c0 = __rdtsc();
        const double t0 = thread_cpu_ns();
        add_chain(kIterations);
        const double t1 = thread_cpu_ns();
        const uint64_t c1 = __rdtsc();
        const auto w1 = Clock::now();
        const double wall = double(std::chrono::duration_cast<std::chrono::nanoseconds>(w1 - w0).count());
        core.push_back(double(kIterations) * kAddsPerIteration / (t1 - t0));
        tsc.push_back(double(c1 - c0) / wall);
    }
    std::sort(core.begin(), core.end());
    std::sort(tsc.begin(), tsc.end());
    ClockReading r;
    r.core_ghz = core[core.size() / 2];
    r.core_ghz_min = core.front();
    r.core_ghz_max = core.back();
    r.tsc_ghz = tsc[tsc.size() / 2];
    return r;
}

}  // namespace stitch::bench
