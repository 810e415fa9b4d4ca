#include "bench/report.hpp"

#include <algorithm>
#include <cstring>

namespace stitch::bench {

namespace {

std::string ns_text(const Result& r, bool mismatch) {
    if (!r.ok) return "-";
    char buf[32];
    std::snprintf(buf, sizeof(buf), r.median_ns < 1000 ? "%.1f%s" : "%.0f%s", r.median_ns, mismatch ? "!" : "");
    return buf;
}

std::string gbps_text(const Result& r, size_t bytes) {
    if (!r.ok || bytes == 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f", double(bytes) / r.median_ns);  // bytes per ns = GB/s
    return buf;
}

std::string cpb_text(const Result& r, size_t bytes, double ghz) {
    if (!r.ok || bytes == 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f", r.median_ns * ghz / double(bytes));
    return buf;
}

}  // namespace

void print_table(const Table& t, std::FILE* out) {
    std::fprintf(out, "\n%s\n", t.title.c_str());
    for (const auto& n : t.notes) std::fprintf(out, "  %s\n", n.c_str());
    const bool pair = t.columns.size() == 2;
    const bool wide = t.columns.size() > 2;  // ns and c/B only, or the lines get too long to read

    std::fprintf(out, "%-9s %6s", "op", "bytes");
    for (const auto& c : t.columns) std::fprintf(out, " %12s", (c + " ns").c_str());
    if (pair) std::fprintf(out, " %8s", "speedup");
    if (!wide)
        for (const auto& c : t.columns) std::fprintf(out, " %12s", (c + " GB/s").c_str());
    for (const auto& c : t.columns) std::fprintf(out, " %12s", (c + " c/B").c_str());
    std::fprintf(out, " %6s %5s\n", "noise", "GHz");

    std::string last_op;
    for (const auto& row : t.rows) {
        if (!last_op.empty() && row.op != last_op) std::fprintf(out, "\n");
        last_op = row.op;
        std::fprintf(out, "%-9s %6zu", row.op.c_str(), row.bytes);
        for (size_t i = 0; i < t.columns.size(); ++i)
            std::fprintf(out, " %12s", ns_text(row.results[i], row.mismatch[i]).c_str());
        if (pair) {
            const Result& a = row.results[0];
            const Result& b = row.results[1];
            if (a.ok && b.ok) {
                std::fprintf(out, " %7.2fx", b.median_ns / a.median_ns);
            } else {
                std::fprintf(out, " %8s", "-");
            }
        }
        if (!wide)
            for (const auto& r : row.results) std::fprintf(out, " %12s", gbps_text(r, row.bytes).c_str());
        for (const auto& r : row.results) std::fprintf(out, " %12s", cpb_text(r, row.bytes, row.core_ghz).c_str());
        // Half the interquartile range, relative to the median: how far the
        // repetitions of the noisiest column strayed.
        double noise = 0;
        for (const auto& r : row.results)
            if (r.ok) noise = std::max(noise, (r.p75_ns - r.p25_ns) / (2 * r.median_ns));
        std::fprintf(out, "   ±%2.0f%% %5.2f\n", noise * 100, row.core_ghz);
        for (const auto& n : row.notes) std::fprintf(out, "          ^ %s\n", n.c_str());
    }
    std::fflush(out);
}

void write_results(const Table& t, std::FILE* out) {
    for (const auto& row : t.rows)
        for (size_t i = 0; i < t.columns.size(); ++i)
            if (row.results[i].ok)
                std::fprintf(out, "%s\t%s\t%zu\t%s\t%.3f\t%.4f\t%.3f\n", t.id.c_str(), row.op.c_str(), row.bytes,
                             t.columns[i].c_str(), row.results[i].median_ns, row.core_ghz, row.results[i].min_ns);
    std::fflush(out);
}

std::vector<ResultLine> read_results(std::FILE* in) {
    std::vector<ResultLine> lines;
    char id[64], op[64], column[64];
    size_t bytes;
    double ns, ghz, min_ns;
    while (std::fscanf(in, "%63s %63s %zu %63s %lf %lf %lf", id, op, &bytes, column, &ns, &ghz, &min_ns) == 7)
        lines.push_back({id, op, column, bytes, ns, ghz, min_ns});
    return lines;
}

}  // namespace stitch::bench

namespace stitch::bench {

void print_contention(const std::vector<Table>& quiet, const std::vector<Table>& contended, std::FILE* out) {
    std::fprintf(out, "\nQuiet and contended, one process (speedup = default ns / stitch ns; slowdown = contended ns /"
                      " quiet ns)\n");
    std::fprintf(out, "%-12s %-10s %7s %9s %11s %10s %10s\n", "table", "op", "bytes", "quiet", "contended",
                 "stitch x", "default x");
    for (const Table& q : quiet) {
        if (q.columns.size() != 2) continue;
        const Table* c = nullptr;
        for (const Table& t : contended)
            if (t.id == q.id) c = &t;
        if (!c) continue;
        for (size_t i = 0; i < q.rows.size() && i < c->rows.size(); ++i) {
            const Row& a = q.rows[i];
            const Row& b = c->rows[i];
            if (a.results.size() != 2 || b.results.size() != 2) continue;
            if (!a.results[0].ok || !a.results[1].ok || !b.results[0].ok || !b.results[1].ok) continue;
            const double sq = a.results[1].median_ns / a.results[0].median_ns;
            const double sc = b.results[1].median_ns / b.results[0].median_ns;
            std::fprintf(out, "%-12s %-10s %7zu %8.2fx %10.2fx %9.2fx %9.2fx%s\n", q.id.c_str(), a.op.c_str(),
                         a.bytes, sq, sc, b.results[0].median_ns / a.results[0].median_ns,
                         b.results[1].median_ns / a.results[1].median_ns, sc < 1.0 ? "  <-- slower" : "");
        }
    }
}

}  // namespace stitch::bench
