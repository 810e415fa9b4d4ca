// The core clock, measured. Where the kernel lets this thread count its own
// core cycles (perf_event_open, PERF_COUNT_HW_CPU_CYCLES), cycles per
// nanosecond of thread CPU time; elsewhere (VMs without a PMU) a chain of
// dependent IMULs, three cycles each on every x86-64 core since Sandy Bridge
// and Zen, so IMULs per nanosecond times three is the core frequency. (A
// chain of adds is not: Golden Cove's renamer eliminates dependent
// add-immediates and read 9-17 GHz.) The TSC is timed beside it because it
// ticks at its own fixed rate, not at the core clock.
#pragma once

namespace stitch::bench {

// This thread's CPU time in ns. Samples are timed with it, not with the
// wall clock, so a time slice the scheduler gives another process on this
// 2-core machine does not land in a sample.
double thread_cpu_ns();

// "perf cycles" or "dependent imuls": what the readings below come from,
// decided at the first reading.
const char* clock_source();

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
