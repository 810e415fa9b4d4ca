#include "bench/clock.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

namespace stitch::bench {

namespace {

constexpr int kImulsPerIteration = 1000;
constexpr int kCyclesPerImul = 3;  // IMUL r64, r64 latency: Intel since Sandy Bridge, AMD since Zen

// kImulsPerIteration dependent IMULs per iteration; the loop counter is a
// separate chain the core runs beside it, so each iteration costs
// kImulsPerIteration * 3 cycles. No core eliminates or fuses a multiply.
[[gnu::noinline]] uint64_t imul_chain(uint64_t iterations) {
    uint64_t x = 1;
    const uint64_t k = 3;  // any value: the latency does not depend on it
    for (uint64_t i = 0; i < iterations; ++i) {
        __asm__ volatile(".rept 1000\n\timulq %1, %0\n\t.endr" : "+r"(x) : "r"(k));
    }
    return x;
}

constexpr uint64_t kIterations = 700;  // 2.1M cycles: well under a millisecond, rarely preempted

// A counter of this thread's user-space core cycles, or -1 where the kernel
// offers none (no PMU in the VM, perf_event_paranoid).
int open_cycle_counter() {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof(attr));
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof(attr);
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    const long fd = syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1 /* any CPU */, -1, 0);
    return fd < 0 ? -1 : int(fd);
}

// Cycles so far; false if the counter was not counting all the time (it
// was multiplexed with other events), so the reading cannot be trusted.
bool read_cycles(int fd, uint64_t& cycles) {
    uint64_t v[3];  // value, time enabled, time running
    if (read(fd, v, sizeof(v)) != ssize_t(sizeof(v)) || v[1] != v[2]) return false;
    cycles = v[0];
    return true;
}

// The counter, once: -1 when the first trial found it missing or unusable.
int cycle_counter() {
    static const int fd = [] {
        const int f = open_cycle_counter();
        uint64_t a, b;
        if (f >= 0 && read_cycles(f, a) && (imul_chain(10), read_cycles(f, b)) && b > a) return f;
        if (f >= 0) close(f);
        return -1;
    }();
    return fd;
}

// Core cycles and thread CPU ns over one trial of the chain.
void trial(double& cycles, double& ns) {
    const int fd = cycle_counter();
    uint64_t c0 = 0, c1 = 0;
    const double t0 = thread_cpu_ns();
    const bool counted = fd >= 0 && read_cycles(fd, c0);
    imul_chain(kIterations);
    const bool counted_end = fd >= 0 && read_cycles(fd, c1);
    ns = thread_cpu_ns() - t0;
    cycles = counted && counted_end ? double(c1 - c0)
                                    : double(kIterations) * kImulsPerIteration * kCyclesPerImul;
}

}  // namespace

double thread_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

const char* clock_source() { return cycle_counter() >= 0 ? "perf cycles" : "dependent imuls"; }

double core_ghz_now() {
    double cycles, ns;
    trial(cycles, ns);
    return cycles / ns;
}

ClockReading measure_clock() {
    // The TSC is compared with the wall clock (it counts while this thread
    // waits too); the core clock with this thread's CPU time.
    using Clock = std::chrono::steady_clock;
    constexpr int kTrials = 15;
    imul_chain(kIterations);  // let the core leave any idle frequency
    std::vector<double> core, tsc;
    for (int t = 0; t < kTrials; ++t) {
        const auto w0 = Clock::now();
        const uint64_t c0 = __rdtsc();
        double cycles, ns;
        trial(cycles, ns);
        const uint64_t c1 = __rdtsc();
        const auto w1 = Clock::now();
        const double wall = double(std::chrono::duration_cast<std::chrono::nanoseconds>(w1 - w0).count());
        core.push_back(cycles / ns);
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
