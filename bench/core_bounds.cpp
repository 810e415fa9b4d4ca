// stitch_core_bounds: what bounds the AVX2 set's eight-block batch on the
// core it runs on, measured rather than modelled. It times the instructions
// a ChaCha20 double round is made of (latency: one dependent chain;
// throughput: eight independent ones), derives the double round's two
// bounds from them, and times the batch itself beside them.
//
// Why it exists (issue 15): whether a second batch in flight, or work
// beside the batch in general-purpose registers, can pay depends on
// whether the batch is latency-bound or throughput-bound, and that is a
// property of the core. On Zen 5 vector operations take two cycles, so the
// batch's quarter-round chains leave the pipes half idle; on a core with
// one-cycle vector operations the same batch is throughput-bound and more
// batches in flight only add stack traffic (AVX2 has sixteen ymm registers
// for sixteen words). Run it on the CPU in question: docs/benchmarks.md,
// "What bounds the batch".
//
//   stitch_core_bounds [--quick]
//
// Exits 1 if a reading is impossible (a dependent chain under 0.8 cycles an
// operation, more than eight operations a cycle): the measurement, not the
// core, is broken then.
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

#include "kernels/avx2/kernels.hpp"
#include "kernels/cpu.hpp"
#include "kernels/isa.hpp"

namespace {

using stitch::kern::ChaChaState;

// Eight operations an iteration for a latency; the loop's own counter is a
// separate chain the core runs beside them.
#define STITCH_REP8(s) s s s s s s s s
constexpr int kLatencyOps = 8;

#define STITCH_TIMED_LOOP(name, body, ...)                           \
    [[gnu::noinline]] STITCH_TARGET_AVX2_BMI2 void name(uint64_t n) { \
        for (uint64_t i = 0; i < n; ++i) __asm__ volatile(body ::: __VA_ARGS__); \
        __asm__ volatile("vzeroupper" ::: "memory");                \
    }

// Latency: each operation reads the register the one before wrote.
STITCH_TIMED_LOOP(lat_vpaddd, STITCH_REP8("vpaddd %%ymm0, %%ymm1, %%ymm1\n\t"), "xmm1")
STITCH_TIMED_LOOP(lat_vpxor, STITCH_REP8("vpxor %%ymm0, %%ymm1, %%ymm1\n\t"), "xmm1")
STITCH_TIMED_LOOP(lat_vpslld, STITCH_REP8("vpslld $7, %%ymm1, %%ymm1\n\t"), "xmm1")
STITCH_TIMED_LOOP(lat_vpshufb, STITCH_REP8("vpshufb %%ymm0, %%ymm1, %%ymm1\n\t"), "xmm1")
STITCH_TIMED_LOOP(lat_rol, STITCH_REP8("roll $7, %%eax\n\t"), "eax")

// Throughput: sixteen independent chains (every ymm register its own), so
// that a two-cycle latency still leaves eight operations ready a cycle.
#define STITCH_ALL_YMM                                                                                 \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", \
        "xmm12", "xmm13", "xmm14", "xmm15"
#define STITCH_ON_ALL_YMM(op)                                                                           \
    op("0") op("1") op("2") op("3") op("4") op("5") op("6") op("7") op("8") op("9") op("10") op("11") \
        op("12") op("13") op("14") op("15")
#define STITCH_VPADDD(r) "vpaddd %%ymm" r ", %%ymm" r ", %%ymm" r "\n\t"
#define STITCH_VPSLLD(r) "vpslld $7, %%ymm" r ", %%ymm" r "\n\t"
#define STITCH_VPSHUFB(r) "vpshufb %%ymm" r ", %%ymm" r ", %%ymm" r "\n\t"
// Shifts and byte shuffles together: on Zen 4 and 5 they share two pipes.
#define STITCH_SHIFT_SHUFFLE(r) "vpsrld $7, %%ymm" r ", %%ymm" r "\n\tvpshufb %%ymm" r ", %%ymm" r ", %%ymm" r "\n\t"
constexpr int kThroughputOps = 16;
STITCH_TIMED_LOOP(tput_vpaddd, STITCH_ON_ALL_YMM(STITCH_VPADDD), STITCH_ALL_YMM)
STITCH_TIMED_LOOP(tput_vpslld, STITCH_ON_ALL_YMM(STITCH_VPSLLD), STITCH_ALL_YMM)
STITCH_TIMED_LOOP(tput_vpshufb, STITCH_ON_ALL_YMM(STITCH_VPSHUFB), STITCH_ALL_YMM)
// 32 operations: each register a shift then a shuffle.
STITCH_TIMED_LOOP(tput_shift_shuffle, STITCH_ON_ALL_YMM(STITCH_SHIFT_SHUFFLE), STITCH_ALL_YMM)
// The double round's own mix, its 128 operations in its proportions (per
// eight: a byte shuffle, two shifts, two adds, two XORs, an OR), each
// reading a register written eight operations before: what the pipes take
// when nothing waits on a chain. On Zen 4 it reads 38 cycles where the
// single-kind readings above make 34: shifts, shuffles and the rest do not
// share the pipes as evenly as those imply.
#define STITCH_MIX8(w0, w1, w2, w3, w4, w5, w6, w7, r0, r1, r2, r3, r4, r5, r6, r7)    \
    "vpshufb %%ymm" r1 ", %%ymm" r0 ", %%ymm" w0 "\n\t"                                \
    "vpslld $12, %%ymm" r1 ", %%ymm" w1 "\n\t"                                         \
    "vpaddd %%ymm" r2 ", %%ymm" w2 ", %%ymm" w2 "\n\t"                                 \
    "vpxor %%ymm" r3 ", %%ymm" w3 ", %%ymm" w3 "\n\t"                                  \
    "vpsrld $20, %%ymm" r4 ", %%ymm" w4 "\n\t"                                         \
    "vpaddd %%ymm" r5 ", %%ymm" w5 ", %%ymm" w5 "\n\t"                                 \
    "vpor %%ymm" r6 ", %%ymm" w6 ", %%ymm" w6 "\n\t"                                   \
    "vpxor %%ymm" r7 ", %%ymm" w7 ", %%ymm" w7 "\n\t"
#define STITCH_MIX16                                                                     \
    STITCH_MIX8("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15") \
    STITCH_MIX8("8", "9", "10", "11", "12", "13", "14", "15", "0", "1", "2", "3", "4", "5", "6", "7")
STITCH_TIMED_LOOP(tput_round_mix, STITCH_MIX16 STITCH_MIX16 STITCH_MIX16 STITCH_MIX16 STITCH_MIX16 STITCH_MIX16
                  STITCH_MIX16 STITCH_MIX16, STITCH_ALL_YMM)
STITCH_TIMED_LOOP(tput_rol,
                  "roll $7, %%eax\n\troll $7, %%ebx\n\troll $7, %%ecx\n\troll $7, %%edx\n\t"
                  "roll $7, %%esi\n\troll $7, %%edi\n\troll $7, %%r8d\n\troll $7, %%r9d\n\t"
                  "roll $7, %%r10d\n\troll $7, %%r11d\n\troll $7, %%eax\n\troll $7, %%ebx\n\t"
                  "roll $7, %%ecx\n\troll $7, %%edx\n\troll $7, %%esi\n\troll $7, %%edi\n\t",
                  "eax", "ebx", "ecx", "edx", "esi", "edi", "r8", "r9", "r10", "r11")

// The reference: dependent 64-bit IMULs, three cycles each on every x86-64
// core since Sandy Bridge and Zen (bench/clock.hpp says why not adds).
[[gnu::noinline]] void imul_chain(uint64_t n) {
    uint64_t x = 1;
    for (uint64_t i = 0; i < n; ++i) __asm__ volatile(STITCH_REP8("imulq %1, %0\n\t") : "+r"(x) : "r"(uint64_t(3)));
}
constexpr double kCyclesPerImul = 3;
constexpr int kImulsPerIteration = 8;

// The IMUL chain's lowest TSC count so far in this run (Timer::cycles).
uint64_t best_ref = UINT64_MAX;

struct Timer {
    int trials;
    uint64_t iterations;  // of the loop timed
    static constexpr uint64_t kRefIterations = 20000;  // ~480,000 cycles of IMULs

    // Core cycles per iteration of loop (a call, for a kernel): the lowest
    // TSC count over the trials against the lowest of the IMUL chain's (a
    // neighbour's load and an interrupt only ever add time), in the chain's
    // cycles.
    // The reference is the lowest over the whole run, not this reading's
    // alone: a busy SMT sibling on a shared host (inferred) slowed every
    // trial of one reading's IMUL chain, and vpaddd read 0.81 cycles, on the
    // 0xA7 Xeon guest in CI's sanitizer run (December 2026). A slow reference
    // only ever deflates a reading; the lowest of the run deflates none.
    template <class F>
    double cycles(F&& loop) const {
        uint64_t best = UINT64_MAX;
        loop(iterations);  // warm: the first call pays for cold caches and page faults
        for (int t = 0; t < trials; ++t) {
            const uint64_t t0 = __rdtsc();
            imul_chain(kRefIterations);
            const uint64_t t1 = __rdtsc();
            loop(iterations);
            const uint64_t t2 = __rdtsc();
            best_ref = std::min<uint64_t>(best_ref, t1 - t0);
            best = std::min<uint64_t>(best, t2 - t1);
        }
        const double ref_cycles = double(kRefIterations) * kImulsPerIteration * kCyclesPerImul;
        return double(best) / double(best_ref) * ref_cycles / double(iterations);
    }
    double per_op(void (*loop)(uint64_t), int ops) const { return cycles(loop) / ops; }
};

int failures = 0;

// An impossible reading is measured again, five times at most and 20 ms
// apart, before it counts: a neighbour slowing every trial of the IMUL
// reference (on a shared host, beside another test) deflates every reading
// of that measurement, and the smoke test runs beside the rest of the suite.
constexpr int kAttempts = 6;

double remeasure(const Timer& t, void (*loop)(uint64_t), int ops) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return t.per_op(loop, ops);
}

double latency(const Timer& t, const char* name, void (*loop)(uint64_t)) {
    double c = t.per_op(loop, kLatencyOps);
    for (int a = 1; a < kAttempts && c < 0.8; ++a) c = remeasure(t, loop, kLatencyOps);
    std::printf("  %-22s %5.2f cycles\n", name, c);
    if (c < 0.8) {
        std::printf("    ^ impossible for a dependent chain: the measurement is broken\n");
        ++failures;
    }
    return c;
}

double throughput(const Timer& t, const char* name, void (*loop)(uint64_t), int ops = kThroughputOps) {
    double per_cycle = 1 / t.per_op(loop, ops);
    for (int a = 1; a < kAttempts && per_cycle > 8; ++a) per_cycle = 1 / remeasure(t, loop, ops);
    std::printf("  %-22s %5.2f a cycle\n", name, per_cycle);
    if (per_cycle > 8) {
        std::printf("    ^ impossible on any x86-64 core: the measurement is broken\n");
        ++failures;
    }
    return per_cycle;
}

// Core cycles of one call of the AVX2 set's ChaCha20 over `blocks` blocks.
double kernel_cycles(const Timer& t, size_t blocks) {
    static ChaChaState st{};
    alignas(64) static uint8_t buf[8 * 64];
    return t.cycles([blocks](uint64_t n) {
               for (uint64_t i = 0; i < n; ++i) stitch::kern::chacha20_blocks_avx2(st, buf, buf, blocks);
           });
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const stitch::kern::CpuFeatures f = stitch::kern::cpu_features_raw();
    std::printf("stitch_core_bounds: CPU family 0x%x model 0x%x (%s)\n", f.family, f.model,
                f.vendor == stitch::kern::CpuVendor::amd     ? "AMD"
                : f.vendor == stitch::kern::CpuVendor::intel ? "Intel"
                                                             : "other vendor");
    if (!f.avx2 || !f.bmi2) {
        std::printf("no AVX2 and BMI2 here: the AVX2 set does not run on this CPU\n");
        return 0;
    }
    const Timer t{quick ? 7 : 31, 20000};
    std::printf("core cycles from the lowest of %d trials against a chain of dependent IMULs (3 cycles each)\n",
                t.trials);

    std::printf("latency, ymm and one general-purpose rotate:\n");
    const double l_add = latency(t, "vpaddd", lat_vpaddd);
    const double l_xor = latency(t, "vpxor (and vpor)", lat_vpxor);
    const double l_shift = latency(t, "vpslld", lat_vpslld);
    const double l_shuf = latency(t, "vpshufb", lat_vpshufb);
    latency(t, "rol r32", lat_rol);
    std::printf("throughput, operations a cycle:\n");
    const double t_add = throughput(t, "vpaddd", tput_vpaddd);
    const double t_shift = throughput(t, "vpslld", tput_vpslld);
    const double t_shuf = throughput(t, "vpshufb", tput_vpshufb);
    const double t_mix = throughput(t, "vpsrld+vpshufb", tput_shift_shuffle, 2 * kThroughputOps);
    throughput(t, "rol r32", tput_rol);

    // A quarter round on eight lanes: 4 adds, 4 XORs, 2 ORs, 2 VPSHUFB
    // rotations (16, 8), 2 shift pairs (12, 7): 16 operations, 14 in a row
    // (one shift of each pair runs beside the other). A double round: eight
    // quarter rounds, two deep.
    const double lat_bound = 2 * (4 * l_add + 6 * l_xor + 2 * l_shuf + 2 * l_shift);
    // 32 shifts and 16 shuffles: on their own pipes, or on shared ones
    // (the mixed reading is lower then).
    const double shift_shuf = std::max({32 / t_shift, 16 / t_shuf, 48 / t_mix});
    const double round_mix = t.cycles(tput_round_mix);
    const double tput_bound = std::max({128 / t_add, shift_shuf, round_mix});
    std::printf("the eight-block batch's double round (8 quarter rounds, 128 ymm operations):\n");
    std::printf("  latency bound     %6.1f cycles (two quarter rounds of 14 dependent operations)\n", lat_bound);
    std::printf("  throughput bound  %6.1f cycles (128 operations at %.2f a cycle: %.1f; 48 shifts and shuffles: "
                "%.1f; the round's own mix, independent: %.1f)\n",
                tput_bound, t_add, 128 / t_add, shift_shuf, round_mix);
    // Kernel calls are long: fewer a trial (~150,000 cycles, as the
    // instruction loops), so a trial still fits between a neighbour's bursts.
    const Timer k{t.trials, 200};
    const double batch = kernel_cycles(k, 8);
    std::printf("measured: a batch (chacha20_blocks_avx2, 8 blocks, 512 B) %.0f cycles = %.2f c/B; "
                "ten double rounds at the larger bound %.0f\n",
                batch, batch / 512, 10 * std::max(lat_bound, tput_bound));
    std::printf("          a lone block (general-purpose registers) %.0f cycles; a row pair (2 blocks) %.0f\n",
                kernel_cycles(k, 1), kernel_cycles(k, 2));
    if (lat_bound > 1.2 * tput_bound)
        std::printf("verdict: LATENCY-bound: the pipes idle %.0f%% of a double round; independent work beside the "
                    "batch (a second batch, general-purpose blocks) could take up to %.2fx, if it had registers\n",
                    100 * (1 - tput_bound / lat_bound), lat_bound / tput_bound);
    else
        std::printf("verdict: THROUGHPUT-bound (latency %.0f, throughput %.0f): one batch in flight fills the "
                    "pipes; a second only adds stack traffic\n",
                    lat_bound, tput_bound);
    return failures ? 1 : 0;
}
