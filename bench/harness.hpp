// The timing loop every section shares: subjects that run n messages, timed
// against each other in alternation, summarised by medians.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace stitch::bench {

// Runs `n` messages of one operation on one implementation. Returns false if
// any message failed (a refused open, a short output): the row is then
// reported as failed, never timed as if it had worked.
class Subject {
public:
    virtual ~Subject() = default;
    virtual bool run(uint64_t n) noexcept = 0;
};

// The message body stays inline in the loop, so the only per-message cost
// the harness adds is the loop itself.
template <class F>
class LoopSubject final : public Subject {
public:
    explicit LoopSubject(F f) : f_(std::move(f)) {}
    bool run(uint64_t n) noexcept override {
        bool ok = true;
        for (uint64_t i = 0; i < n; ++i) ok &= f_();
        return ok;
    }

private:
    F f_;
};

template <class F>
std::unique_ptr<Subject> make_subject(F f) {
    return std::make_unique<LoopSubject<F>>(std::move(f));
}

struct Settings {
    int reps = 15;           // samples per subject; the median is reported
    double sample_ms = 2.0;  // wall time one sample aims for
};

struct Result {
    bool ok = false;
    double median_ns = 0;  // per message
    double p25_ns = 0;
    double p75_ns = 0;
    double min_ns = 0;  // the fastest repetition: what other processes' load cannot inflate
};

struct Timing {
    std::vector<Result> results;  // one per subject
    double core_ghz = 0;          // median of one clock trial per repetition
};

// Times every subject `reps` times. Each repetition takes one sample of each
// subject, and the subject that goes first rotates, so clock drift and load
// from the other core fall on all of them alike. Each repetition also times
// the core clock (bench/clock.hpp), so cycles per byte use the clock the row ran at.
Timing alternate(std::span<Subject* const> subjects, const Settings& settings);

}  // namespace stitch::bench
