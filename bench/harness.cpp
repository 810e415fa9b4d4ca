#include "bench/harness.hpp"

#include "bench/clock.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>

namespace stitch::bench {

namespace {

double elapsed_ns(Subject& s, uint64_t n, bool& ok) {
    const double t0 = thread_cpu_ns();
    ok &= s.run(n);
    return thread_cpu_ns() - t0;
}

// Messages per sample so one sample takes about `target_ns`: grow until a
// run is long enough to time, then scale. The growing runs warm caches and
// branch predictors too.
uint64_t calibrate(Subject& s, double target_ns, bool& ok) {
    uint64_t n = 1;
    for (;;) {
        const double t = elapsed_ns(s, n, ok);
        if (!ok) return 1;
        if (t >= target_ns / 8 || n >= (uint64_t(1) << 40)) {
            const double per = std::max(t, 1.0) / double(n);
            return std::max<uint64_t>(1, uint64_t(std::llround(target_ns / per)));
        }
        n *= 4;
    }
}

double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double pos = q * double(v.size() - 1);
    const size_t lo = size_t(pos);
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

}  // namespace

Timing alternate(std::span<Subject* const> subjects, const Settings& settings) {
    const size_t k = subjects.size();
    const double target_ns = settings.sample_ms * 1e6;
    Timing timing;
    std::vector<Result>& out = timing.results;
    out.resize(k);
    std::vector<bool> ok(k, true);
    std::vector<uint64_t> n(k);
    for (size_t i = 0; i < k; ++i) {
        bool good = true;
        n[i] = calibrate(*subjects[i], target_ns, good);
        ok[i] = good;
    }

    std::vector<std::vector<double>> per_msg(k);
    std::vector<double> ghz;
    for (int r = 0; r < settings.reps; ++r) {
        ghz.push_back(core_ghz_now());
        for (size_t j = 0; j < k; ++j) {
            const size_t i = (j + size_t(r)) % k;
            if (!ok[i]) continue;
            bool good = true;
            const double t = elapsed_ns(*subjects[i], n[i], good);
            ok[i] = ok[i] && good;
            per_msg[i].push_back(t / double(n[i]));
        }
    }

    for (size_t i = 0; i < k; ++i) {
        if (!ok[i] || per_msg[i].empty()) continue;
        out[i].ok = true;
        out[i].median_ns = quantile(per_msg[i], 0.5);
        out[i].p25_ns = quantile(per_msg[i], 0.25);
        out[i].p75_ns = quantile(per_msg[i], 0.75);
        out[i].min_ns = quantile(per_msg[i], 0.0);
    }
    timing.core_ghz = quantile(ghz, 0.5);
    return timing;
}

}  // namespace stitch::bench
