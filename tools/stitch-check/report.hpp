// The verdict stitch-check prints and exits with, from the measured rows.
#pragma once

#include <string>
#include <vector>

#include "tools/stitch-check/rows.hpp"

namespace stitch::check {

struct SetVerdict {
    std::string kernel;           // the set as the provider reports it
    bool measured = true;         // false: some row could not be measured
    bool slower = false;          // any row below 1.00x
    std::vector<std::string> slower_at;  // "TLS 1.3 open 64 KiB (0.97x, noise ±4%)"
    double lowest = 0;            // the lowest ratio, and where
    std::string lowest_at;
    double geomean = 0;           // over every row
};

// default ns / stitch ns for set `i` of a row.
double ratio(const RowResult& row, size_t i);

SetVerdict judge(const std::vector<RowResult>& rows, size_t i, const std::string& kernel);

// The best of several sets' verdicts (an index into them): a set not slower
// anywhere before any that is, then the highest geometric mean; among sets
// all slower somewhere, the one whose worst row is best.
size_t best_set(const std::vector<SetVerdict>& verdicts);

// "64 B", "1 KiB", "64 KiB".
std::string size_name(size_t bytes);

// The table: one line per row, the default's time, then each set's time and
// ratio, and the row's noise.
std::string table(const std::vector<RowResult>& rows, const std::vector<std::string>& kernels);

// "faster at every size measured (lowest 1.03x, raw ChaCha20 64 KiB)" or
// "slower at TLS 1.3 open 64 KiB (0.97x), ...".
std::string verdict_line(const SetVerdict& v);

// The median and the largest row noise of a run, as "±3% (worst ±9%)".
std::string run_noise(const std::vector<RowResult>& rows);

}  // namespace stitch::check
