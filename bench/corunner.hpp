// A co-runner: a thread that keeps another CPU busy while a table is
// measured (stitch_bench --contended), the way a neighbour on a shared
// machine does. Its loop streams through a 4 MiB buffer with AVX2 adds and
// XORs (the caches and the memory path) beside a chain of multiplies (the
// integer units): on an SMT sibling it also competes for the core's
// front end and op cache. Stopped and joined by stop() or the destructor.
#pragma once

#include <atomic>
#include <thread>

namespace stitch::bench {

class CoRunner {
public:
    // Pins itself to `cpu` (the first allowed CPU other than the caller's if
    // cpu < 0). Returns false, with nothing started, where there is no
    // other CPU.
    bool start(int cpu = -1);
    void stop();
    int cpu() const { return cpu_; }
    ~CoRunner() { stop(); }

private:
    std::atomic<bool> running_{false};
    std::thread thread_;
    int cpu_ = -1;
};

}  // namespace stitch::bench
