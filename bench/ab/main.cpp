// scripts/bench-ab.sh's driver: two trees' kernels (ops.cpp built twice) in
// one process, called in turn, so both see the same moments of a shared
// machine. Prints per op and size each side's lowest and median TSC ticks a
// call (ten calls a sample) and b / a.
//   ab_bench IMPL SAMPLES SIZE...
#include <x86intrin.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define AB_DECLARE(side)                                  \
    extern "C" bool side##_init(const char*);            \
    extern "C" void side##_seal(size_t);                 \
    extern "C" void side##_open(size_t);                 \
    extern "C" void side##_chacha20(size_t);             \
    extern "C" void side##_ssh_seal(size_t);
AB_DECLARE(a)
AB_DECLARE(b)

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: ab_bench IMPL SAMPLES SIZE...\n");
        return 2;
    }
    if (!a_init(argv[1]) || !b_init(argv[1])) {
        std::fprintf(stderr, "ab_bench: kernel set %s not runnable here\n", argv[1]);
        return 2;
    }
    const int samples = std::atoi(argv[2]);
    using Op = void (*)(size_t);
    struct Row {
        const char* name;
        Op op[2];
    } const rows[] = {{"seal", {a_seal, b_seal}},
                      {"open", {a_open, b_open}},
                      {"chacha20", {a_chacha20, b_chacha20}},
                      {"ssh-seal", {a_ssh_seal, b_ssh_seal}}};
    std::printf("%-9s %6s  %9s %9s  %9s %9s  %7s %7s   (TSC ticks a call)\n", "op", "bytes", "a low", "a med",
                "b low", "b med", "b/a low", "b/a med");
    for (const Row& row : rows)
        for (int i = 3; i < argc; ++i) {
            const size_t len = std::strtoul(argv[i], nullptr, 10);
            std::vector<unsigned long long> t[2];
            for (int s = 0; s < samples; ++s)
                for (int side = 0; side < 2; ++side) {
                    const unsigned long long start = __rdtsc();
                    for (int j = 0; j < 10; ++j) row.op[side](len);
                    t[side].push_back(__rdtsc() - start);
                }
            double low[2], med[2];
            for (int side = 0; side < 2; ++side) {
                std::sort(t[side].begin(), t[side].end());
                low[side] = t[side].front() / 10.0;
                med[side] = t[side][t[side].size() / 2] / 10.0;
            }
            std::printf("%-9s %6zu  %9.1f %9.1f  %9.1f %9.1f  %7.3f %7.3f\n", row.name, len, low[0], med[0], low[1],
                        med[1], low[1] / low[0], med[1] / med[0]);
        }
}
