// What every provider test shares: owning handles for EVP objects, the one
// stitch + default pair a test binary uses, a seeded Rng that says its seed,
// and random ways to cut a message into update calls.
#pragma once

#include <gtest/gtest.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "common/test_util.hpp"

namespace stitch::test {

struct CipherFree {
    void operator()(EVP_CIPHER* c) const { EVP_CIPHER_free(c); }
};
struct CtxFree {
    void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using CipherPtr = std::unique_ptr<EVP_CIPHER, CipherFree>;
using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

inline CtxPtr new_ctx() {
    CtxPtr c(EVP_CIPHER_CTX_new());
    if (!c) throw std::runtime_error("EVP_CIPHER_CTX_new");
    return c;
}

// One library context per test binary, with stitch and default loaded.
// OpenSSL is initialised first (a non-zero option: 0 returns early without
// registering anything) so that its atexit cleanup runs after the
// pair's destructor has unloaded the providers, not before.
inline ProviderPair& providers() {
    [[maybe_unused]] static const int openssl_first = OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, nullptr);
    static ProviderPair pair;
    return pair;
}

// The same algorithm from stitch (under test) and from default (the reference).
struct CipherPair {
    CipherPtr stitch, reference;
};
inline CipherPair fetch_both(const char* name) {
    return {CipherPtr(providers().fetch(name, "stitch")), CipherPtr(providers().fetch(name, "default"))};
}

// A reproducible Rng: STITCH_TEST_SEED overrides the test's own seed, and the
// seed in use is printed so that any failure can be replayed.
inline Rng seeded_rng(uint64_t own_seed) {
    uint64_t seed = own_seed;
    if (const char* env = std::getenv("STITCH_TEST_SEED")) seed = std::strtoull(env, nullptr, 0);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::printf("[ seed     ] %s.%s: STITCH_TEST_SEED=0x%016" PRIx64 "\n", info ? info->test_suite_name() : "?",
                info ? info->name() : "?", seed);
    return Rng(seed);
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

inline Bytes concat(const Bytes& a, const Bytes& b) {
    Bytes r(a);
    r.insert(r.end(), b.begin(), b.end());
    return r;
}

inline bool all_zero(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i]) return false;
    return true;
}

}  // namespace stitch::test
