#include "bench/placement.hpp"

#include <cstdlib>

namespace stitch::bench {

namespace {

Placement g_placement;

bool parse_offset(const std::string& s, size_t& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    const unsigned long v = std::strtoul(s.c_str(), &end, 0);
    if (*end != '\0' || v >= 4096) return false;
    out = v;
    return true;
}

}  // namespace

const Placement& placement() { return g_placement; }

bool set_placement(const std::string& text) {
    Placement p;
    p.set = true;
    const size_t comma = text.find(',');
    p.in_place = comma == std::string::npos;
    if (!parse_offset(text.substr(0, comma), p.in)) return false;
    if (!p.in_place && !parse_offset(text.substr(comma + 1), p.out)) return false;
    g_placement = p;
    return true;
}

std::string placement_text() {
    const Placement& p = g_placement;
    if (!p.set) return "default";
    if (p.in_place) return "in place at +" + std::to_string(p.in);
    return "in +" + std::to_string(p.in) + ", out +" + std::to_string(p.out);
}

}  // namespace stitch::bench
