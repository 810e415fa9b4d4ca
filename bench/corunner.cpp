#include "bench/corunner.hpp"

#include <immintrin.h>
#include <sched.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace stitch::bench {

namespace {

// One pass over the buffer: AVX2 where the CPU has it, plain words
// otherwise (the loop is what matters, not its arithmetic).
__attribute__((target("avx2"))) uint64_t churn_avx2(std::vector<uint64_t>& buf, uint64_t chain) {
    __m256i acc = _mm256_set1_epi32(int(chain));
    for (size_t i = 0; i + 4 <= buf.size(); i += 4) {
        auto* p = reinterpret_cast<__m256i*>(&buf[i]);
        const __m256i v = _mm256_loadu_si256(p);
        acc = _mm256_add_epi32(acc, v);
        _mm256_storeu_si256(p, _mm256_xor_si256(v, acc));
        chain = chain * 0x9e3779b97f4a7c15ull + 1;
    }
    return chain ^ uint64_t(_mm256_extract_epi64(acc, 0));
}

uint64_t churn_plain(std::vector<uint64_t>& buf, uint64_t chain) {
    for (uint64_t& w : buf) {
        w ^= chain;
        chain = chain * 0x9e3779b97f4a7c15ull + w;
    }
    return chain;
}

}  // namespace

bool CoRunner::start(int cpu) {
    if (running_) return true;
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof(mine), &mine) != 0) return false;
    const int self = sched_getcpu();
    if (cpu < 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &mine) && c != self) {
                cpu = c;
                break;
            }
    }
    if (cpu < 0) return false;
    // The measuring thread stays where it is, off the co-runner's CPU.
    if (self >= 0) {
        cpu_set_t here;
        CPU_ZERO(&here);
        CPU_SET(self, &here);
        sched_setaffinity(0, sizeof(here), &here);
    }
    cpu_ = cpu;
    running_ = true;
    thread_ = std::thread([this, cpu] {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof(set), &set);
        std::vector<uint64_t> buf(4 * 1024 * 1024 / sizeof(uint64_t));
        const bool avx2 = __builtin_cpu_supports("avx2");
        uint64_t chain = 1;
        while (running_.load(std::memory_order_relaxed)) chain = avx2 ? churn_avx2(buf, chain) : churn_plain(buf, chain);
        __asm__ volatile("" : : "r"(chain));
    });
    return true;
}

void CoRunner::stop() {
    if (!running_) return;
    running_ = false;
    if (thread_.joinable()) thread_.join();
}

}  // namespace stitch::bench
