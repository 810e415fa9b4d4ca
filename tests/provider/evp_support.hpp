// What the provider tests share: the same algorithm from stitch and from
// default, and random ways to cut a message into update calls.
#pragma once

#include <openssl/evp.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "common/evp_handles.hpp"
#include "common/seeded_rng.hpp"
#include "common/test_util.hpp"

namespace stitch::test {

// The same algorithm from stitch (under test) and from default (the reference).
struct CipherPair {
    CipherPtr stitch, reference;
};
inline CipherPair fetch_both(const char* name) {
    return {providers().fetch(name, "stitch"), providers().fetch(name, "default")};
}

// Cuts n bytes into the sizes of successive update calls: one call, single
// bytes, small pieces, pieces near the 64-byte block and 16-byte MAC block
// edges, or any sizes. Every style reaches a 1-byte call somewhere.
inline std::vector<size_t> random_split(Rng& rng, size_t n) {
    std::vector<size_t> parts;
    const size_t style = rng.below(5);
    size_t left = n;
    while (left) {
        size_t take;
        switch (style) {
            case 0: take = left; break;
            case 1: take = 1; break;
            case 2: take = 1 + rng.below(17); break;
            case 3: {
                static constexpr size_t edges[] = {1,   15,  16,  17,  63,  64,  65,  127, 128, 129,
                                                   191, 192, 193, 255, 256, 257, 511, 512, 513};
                take = edges[rng.below(std::size(edges))];
                break;
            }
            default: take = 1 + rng.below(left); break;
        }
        take = std::min(take, left);
        parts.push_back(take);
        left -= take;
    }
    return parts;
}

}  // namespace stitch::test
