#include "bench/summary.hpp"

#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "kernels/cpu.hpp"

namespace stitch::bench {

namespace {

using Key = std::pair<std::string, size_t>;  // op, bytes

struct Cell {
    double stitch_ns = 0, default_ns = 0, ghz = 0;
};

std::map<Key, Cell> tls13_cells(const std::vector<ResultLine>& lines) {
    std::map<Key, Cell> m;
    for (const auto& l : lines) {
        if (l.id != "tls13") continue;
        Cell& c = m[{l.op, l.bytes}];
        (l.column == "stitch" ? c.stitch_ns : c.default_ns) = l.ns;
        c.ghz = l.ghz;
    }
    return m;
}

std::string ns_text(double ns) {
    if (ns <= 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof(buf), ns < 1000 ? "%.1f" : "%.0f", ns);
    return buf;
}

void print_cell(const Cell* c, size_t bytes) {
    std::string speedup = "-", cpb = "-";
    if (c && c->stitch_ns > 0 && c->default_ns > 0) {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%.2fx", c->default_ns / c->stitch_ns);
        speedup = buf;
    }
    if (c && c->stitch_ns > 0 && bytes > 0) {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%.2f", c->stitch_ns * c->ghz / double(bytes));
        cpb = buf;
    }
    std::printf(" %9s %10s %7s %7s |", c ? ns_text(c->stitch_ns).c_str() : "-",
                c ? ns_text(c->default_ns).c_str() : "-", speedup.c_str(), cpb.c_str());
}

}  // namespace

void print_summary(const std::vector<ResultLine>& as_is, const std::vector<ResultLine>& masked) {
    const auto a = tls13_cells(as_is), b = tls13_cells(masked);
    std::printf("\n==== Summary: TLS 1.3 records through EVP, medians; speedup = default ns / stitch ns ====\n");
    std::printf("%-9s %6s | %-37s | %-37s\n", "", "", "as-is (AVX-512 where the CPU has it)",
                "both without AVX-512 (as on AVX2 CPUs)");
    std::printf("%-9s %6s |", "op", "bytes");
    for (int i = 0; i < 2; ++i) std::printf(" %9s %10s %7s %7s |", "stitch ns", "default ns", "speedup", "st c/B");
    std::printf("\n");
    bool first = true;
    for (const char* op : {"seal", "open", "chacha20"}) {
        bool any = false;
        for (const auto& [key, cell] : a) {
            if (key.first != op) continue;
            if (!any && !first) std::printf("\n");
            any = true;
            std::printf("%-9s %6zu |", op, key.second);
            print_cell(&cell, key.second);
            const auto it = b.find(key);
            print_cell(it == b.end() ? nullptr : &it->second, key.second);
            std::printf("\n");
        }
        first = first && !any;
    }

    // The mask must have reached libcrypto: its bulk code slows down without
    // AVX-512. A CPU without AVX-512 has nothing to mask, and both runs
    // measure the same code.
    if (!kern::cpu_features_raw().avx512) {
        std::printf("\nmask check: not applicable, this CPU has no AVX-512 (both runs measure the same code)\n");
        std::fflush(stdout);
        return;
    }
    for (const char* op : {"chacha20", "seal"}) {
        const Key k{op, 16384};
        const auto ia = a.find(k), ib = b.find(k);
        if (ia == a.end() || ib == b.end() || ia->second.default_ns <= 0 || ib->second.default_ns <= 0) continue;
        const double ratio = ib->second.default_ns / ia->second.default_ns;
        std::printf("\nmask check: default %s at 16384 B takes %.2fx as long without AVX-512%s\n", op, ratio,
                    ratio > 1.15 ? "" : "  <-- NOT SLOWER: did the OPENSSL_ia32cap mask take effect?");
        break;
    }
    std::fflush(stdout);
}

}  // namespace stitch::bench
