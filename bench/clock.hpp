// The core clock, measured: a chain of dependent adds retires one add per
// core cycle, so adds per nanosecond is the core frequency. The TSC is timed
// beside it because it ticks at its own fixed rate, not at the core clock.
#pragma once

namespace stitch::bench {

// This thread's CPU time in ns. Samples are timed with it, not with the
// wall clock, so a time slice the scheduler gives another process on this
// 2-core machine does not land in a sample.
double thread_cpu_ns();

struct ClockReading {
    double core_ghz = 0;  // median over trials
    double core_ghz_min = 0;
    double core_ghz_max = 0;
    double tsc_ghz = 0;  // TSC ticks per nanosecond over the same trials
};

ClockReading measure_clock();

// One short trial (about half a millisecond): core GHz right now. The
// harness takes one per repetition, between the samples it measures.
double core_ghz_now();

}  // namespace stitch::bench
