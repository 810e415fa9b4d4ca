// Welch's t-test between two classes of timings, kept online (Welford), and
// the dudect way of looking at them: one test over every measurement plus one
// per cropping threshold, each dropping the slow tail above a percentile,
// because interrupts and cache misses only ever make a call slower.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace stitch::ct {

class Welch {
public:
    void add(int cls, double x) {
        Side& s = side_[cls];
        s.n += 1;
        const double d = x - s.mean;
        s.mean += d / s.n;
        s.m2 += d * (x - s.mean);
    }
    double count() const { return side_[0].n + side_[1].n; }
    double min_count() const { return std::min(side_[0].n, side_[1].n); }
    double t() const {
        const Side &a = side_[0], &b = side_[1];
        if (a.n < 2 || b.n < 2) return 0;
        const double se = std::sqrt(a.m2 / (a.n - 1) / a.n + b.m2 / (b.n - 1) / b.n);
        return se > 0 ? (a.mean - b.mean) / se : 0;
    }

private:
    struct Side {
        double n = 0, mean = 0, m2 = 0;
    };
    Side side_[2];
};

class CroppedWelch {
public:
    static constexpr int kCrops = 20;
    static constexpr double kMinPerClass = 10000;  // fewer samples: a test's t is not yet meaningful

    // Sets the thresholds from a first batch of timings (then discarded):
    // percentiles 1 − 0.5^(10(k+1)/kCrops), from about 0.29 up to 0.999.
    void calibrate(std::vector<uint64_t> sample) {
        std::sort(sample.begin(), sample.end());
        for (int k = 0; k < kCrops; ++k) {
            const double p = 1 - std::pow(0.5, 10.0 * (k + 1) / kCrops);
            crop_[k] = sample[size_t(p * double(sample.size() - 1))];
            percentile_[k] = p;
        }
    }

    void add(int cls, uint64_t cycles) {
        const double x = double(cycles);
        all_.add(cls, x);
        for (int k = 0; k < kCrops; ++k)
            if (cycles <= crop_[k]) cropped_[k].add(cls, x);
    }

    double count() const { return all_.count(); }

    // The largest |t| over the tests with enough samples; `percentile` says
    // which (1 for the uncropped test).
    double max_abs_t(double* percentile) const {
        double best = all_.min_count() >= kMinPerClass ? std::fabs(all_.t()) : 0;
        *percentile = 1;
        for (int k = 0; k < kCrops; ++k) {
            if (cropped_[k].min_count() < kMinPerClass) continue;
            const double t = std::fabs(cropped_[k].t());
            if (t > best) {
                best = t;
                *percentile = percentile_[k];
            }
        }
        return best;
    }

private:
    Welch all_;
    Welch cropped_[kCrops];
    uint64_t crop_[kCrops] = {};
    double percentile_[kCrops] = {};
};

}  // namespace stitch::ct
