// Tables as the benchmark prints them, and the line format the parent
// process reads back from each run to print the closing summary.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/harness.hpp"

namespace stitch::bench {

struct Row {
    std::string op;
    size_t bytes = 0;             // message size: GB/s and c/B divide by it
    std::vector<Result> results;  // one per column; !ok = not measured
    std::vector<bool> mismatch;   // one per column: output differed from the reference
    std::vector<std::string> notes;
    double core_ghz = 0;  // core clock while the row ran, for cycles per byte
};

struct Table {
    std::string id;  // names the table in the results file
    std::string title;
    std::vector<std::string> notes;
    // One or two columns. With two, column 0 is measured against column 1
    // (the baseline): speedup = baseline ns / column 0 ns.
    std::vector<std::string> columns;
    std::vector<Row> rows;
    int failures = 0;  // mismatched outputs, failed calls: the run exits non-zero
};

void print_table(const Table& t, std::FILE* out);

// The same tables measured quiet and with a co-runner (bench/corunner.hpp):
// each two-column row's speedup both ways, and how much each side slowed.
void print_contention(const std::vector<Table>& quiet, const std::vector<Table>& contended, std::FILE* out);

// One line per measured cell: "id<TAB>op<TAB>bytes<TAB>column<TAB>ns<TAB>ghz<TAB>min_ns"
// (ns the median; scripts/bench-layout.sh reads min_ns too).
void write_results(const Table& t, std::FILE* out);

struct ResultLine {
    std::string id, op, column;
    size_t bytes = 0;
    double ns = 0, ghz = 0, min_ns = 0;
};
std::vector<ResultLine> read_results(std::FILE* in);

}  // namespace stitch::bench
