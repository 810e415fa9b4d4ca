#include "tools/stitch-check/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace stitch::check {

namespace {

std::string format(const char* fmt, double a) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), fmt, a);
    return buf;
}

double row_noise(const RowResult& row) {
    double n = row.dflt.noise;
    for (const Measured& m : row.sets) n = std::max(n, m.noise);
    return n;
}

std::string where(const RowResult& row) { return std::string(op_name(row.spec.op)) + " " + size_name(row.spec.bytes); }

}  // namespace

double ratio(const RowResult& row, size_t i) {
    const double s = row.sets[i].ns;
    return s > 0 ? row.dflt.ns / s : 0;
}

std::string size_name(size_t bytes) {
    if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
    return std::to_string(bytes) + " B";
}

SetVerdict judge(const std::vector<RowResult>& rows, size_t i, const std::string& kernel) {
    SetVerdict v;
    v.kernel = kernel;
    double log_sum = 0;
    size_t n = 0;
    for (const RowResult& row : rows) {
        if (!row.error.empty()) {
            v.measured = false;
            v.slower = true;
            v.slower_at.push_back(where(row) + " (not measured: " + row.error + ")");
            continue;
        }
        const double r = ratio(row, i);
        if (n == 0 || r < v.lowest) {
            v.lowest = r;
            v.lowest_at = where(row);
        }
        log_sum += std::log(r);
        ++n;
        // Not slower means not slower: a row below 1.00x counts whatever the
        // noise, and the line says how noisy it was so a rerun can tell.
        if (r < 1.0) {
            v.slower = true;
            v.slower_at.push_back(where(row) + " (" + format("%.2fx", r) + ", noise ±" +
                                  format("%.0f%%", 100 * row_noise(row)) + ")");
        }
    }
    v.geomean = n ? std::exp(log_sum / double(n)) : 0;
    return v;
}

size_t best_set(const std::vector<SetVerdict>& verdicts) {
    size_t best = 0;
    for (size_t i = 1; i < verdicts.size(); ++i) {
        const SetVerdict &b = verdicts[best], &v = verdicts[i];
        const bool better = b.slower != v.slower ? !v.slower : v.slower ? v.lowest > b.lowest : v.geomean > b.geomean;
        if (better) best = i;
    }
    return best;
}

std::string table(const std::vector<RowResult>& rows, const std::vector<std::string>& kernels) {
    std::string out;
    char buf[256];
    std::snprintf(buf, sizeof(buf), "%-14s %7s %11s", "op", "size", "default ns");
    out += buf;
    for (const std::string& k : kernels) {
        std::snprintf(buf, sizeof(buf), " %13s %7s", (k + " ns").c_str(), "ratio");
        out += buf;
    }
    out += "   noise\n";
    for (const RowResult& row : rows) {
        std::snprintf(buf, sizeof(buf), "%-14s %7s", op_name(row.spec.op), size_name(row.spec.bytes).c_str());
        out += buf;
        if (!row.error.empty()) {
            out += "   not measured: " + row.error + "\n";
            continue;
        }
        std::snprintf(buf, sizeof(buf), " %11.1f", row.dflt.ns);
        out += buf;
        for (size_t i = 0; i < row.sets.size(); ++i) {
            std::snprintf(buf, sizeof(buf), " %13.1f %6.2fx", row.sets[i].ns, ratio(row, i));
            out += buf;
        }
        std::snprintf(buf, sizeof(buf), "   ±%.0f%%\n", 100 * row_noise(row));
        out += buf;
    }
    return out;
}

std::string verdict_line(const SetVerdict& v) {
    if (!v.slower) return "faster at every size measured (lowest " + format("%.2fx", v.lowest) + ", " + v.lowest_at + ")";
    std::string out = "slower at ";
    for (size_t i = 0; i < v.slower_at.size(); ++i) out += (i ? ", " : "") + v.slower_at[i];
    return out;
}

std::string run_noise(const std::vector<RowResult>& rows) {
    std::vector<double> n;
    for (const RowResult& row : rows)
        if (row.error.empty()) n.push_back(row_noise(row));
    if (n.empty()) return "unknown";
    std::sort(n.begin(), n.end());
    return "±" + format("%.0f%%", 100 * n[n.size() / 2]) + " (worst row ±" + format("%.0f%%", 100 * n.back()) + ")";
}

}  // namespace stitch::check
