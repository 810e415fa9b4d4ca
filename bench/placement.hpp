// Where the TLS 1.3 rows put their message buffers, so a run can show that
// the time does not depend on it: `stitch_bench --place=IN` puts every op in
// place at IN mod 4096, `--place=IN,OUT` out of place with the input at IN
// and the output at OUT mod 4096. Without it each op keeps its usual
// arrangement (seal and raw ChaCha20 in place, open out of place) on
// cache-line aligned buffers. Set once by main, before any section runs.
#pragma once

#include <cstddef>
#include <string>

namespace stitch::bench {

struct Placement {
    bool set = false;
    bool in_place = true;
    size_t in = 0;   // offset of the input (or the one buffer) mod 4096
    size_t out = 0;  // offset of the output mod 4096 (out of place)
};

const Placement& placement();

// Parses "IN" or "IN,OUT" (decimal or 0x hex, each below 4096); false on a
// bad value, leaving the placement unset.
bool set_placement(const std::string& text);

// "in place at +IN", "in +IN, out +OUT", or "default".
std::string placement_text();

}  // namespace stitch::bench
