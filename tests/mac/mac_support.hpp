// What the POLY1305 MAC tests share: owning handles, the stitch + default
// pair, one-shot and split MAC calls through EVP, a seeded Rng that prints its
// seed, and the check that a refusal raised stitch's own reason.
#pragma once

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "provider/reasons.hpp"

namespace stitch::test {

struct MacFree {
    void operator()(EVP_MAC* m) const { EVP_MAC_free(m); }
};
struct MacCtxFree {
    void operator()(EVP_MAC_CTX* c) const { EVP_MAC_CTX_free(c); }
};
using MacPtr = std::unique_ptr<EVP_MAC, MacFree>;
using MacCtxPtr = std::unique_ptr<EVP_MAC_CTX, MacCtxFree>;

inline constexpr size_t kPolyKeyLen = 32;
inline constexpr size_t kPolyTagLen = 16;

// One library context per binary. OpenSSL is initialised first so that its
// atexit cleanup runs after the pair has unloaded the providers.
inline ProviderPair& providers() {
    [[maybe_unused]] static const int openssl_first = OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, nullptr);
    static ProviderPair pair;
    return pair;
}

inline MacPtr fetch_poly1305(const char* provider) {
    const std::string q = std::string("provider=") + provider;
    MacPtr m(EVP_MAC_fetch(providers().libctx(), "POLY1305", q.c_str()));
    if (!m) throw std::runtime_error(std::string("fetch POLY1305 from ") + provider);
    return m;
}

inline MacCtxPtr new_mac_ctx(const MacPtr& mac) {
    MacCtxPtr c(EVP_MAC_CTX_new(mac.get()));
    if (!c) throw std::runtime_error("EVP_MAC_CTX_new");
    return c;
}

inline Rng seeded_rng(uint64_t own_seed) {
    uint64_t seed = own_seed;
    if (const char* env = std::getenv("STITCH_TEST_SEED")) seed = std::strtoull(env, nullptr, 0);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::printf("[ seed     ] %s.%s: STITCH_TEST_SEED=0x%016" PRIx64 "\n", info ? info->test_suite_name() : "?",
                info ? info->name() : "?", seed);
    return Rng(seed);
}

// Sizes of successive update calls covering n bytes: one call, single bytes,
// pieces around the 16-byte block, or any sizes.
inline std::vector<size_t> random_split(Rng& rng, size_t n) {
    std::vector<size_t> parts;
    const size_t style = rng.below(4);
    for (size_t left = n; left;) {
        size_t take = left;
        if (style == 1) take = 1;
        else if (style == 2) take = 1 + rng.below(33);
        else if (style == 3) take = 1 + rng.below(left);
        take = std::min(take, left);
        parts.push_back(take);
        left -= take;
    }
    return parts;
}

// The key param as EVP_MAC_CTX_set_params and EVP_MAC_init take it.
struct KeyParam {
    OSSL_PARAM p[2];
    explicit KeyParam(const Bytes& key) {
        p[0] = OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, const_cast<uint8_t*>(key.data()), key.size());
        p[1] = OSSL_PARAM_construct_end();
    }
};

// How a test hands the key to the context.
enum class KeyBy { init_arg, init_params, set_params };

inline int give_key(EVP_MAC_CTX* ctx, const Bytes& key, KeyBy by) {
    const KeyParam kp(key);
    switch (by) {
        case KeyBy::init_arg: return EVP_MAC_init(ctx, key.data(), key.size(), nullptr);
        case KeyBy::init_params: return EVP_MAC_init(ctx, nullptr, 0, kp.p);
        case KeyBy::set_params:
            if (EVP_MAC_CTX_set_params(ctx, kp.p) != 1) return 0;
            return EVP_MAC_init(ctx, nullptr, 0, nullptr);
    }
    return 0;
}

// Updates in the given sizes; false on the first refusal.
inline bool update_split(EVP_MAC_CTX* ctx, const uint8_t* msg, const std::vector<size_t>& parts) {
    size_t off = 0;
    for (size_t n : parts) {
        if (EVP_MAC_update(ctx, msg + off, n) != 1) return false;
        off += n;
    }
    return true;
}

// The tag as hex, or an error string the comparison will show.
inline std::string final_hex(EVP_MAC_CTX* ctx) {
    Bytes tag(kPolyTagLen);
    size_t outl = 0;
    if (EVP_MAC_final(ctx, tag.data(), &outl, tag.size()) != 1) return "(final refused)";
    if (outl != kPolyTagLen) return "(outl " + std::to_string(outl) + ")";
    return to_hex(tag);
}

// One-shot tag from the given provider's POLY1305: the reference for the
// split calls.
inline std::string one_shot_hex(const MacPtr& mac, const Bytes& key, const Bytes& msg) {
    MacCtxPtr ctx = new_mac_ctx(mac);
    if (EVP_MAC_init(ctx.get(), key.data(), key.size(), nullptr) != 1) return "(init refused)";
    if (EVP_MAC_update(ctx.get(), msg.data(), msg.size()) != 1) return "(update refused)";
    return final_hex(ctx.get());
}

inline const char* reason_text(prov::Reason r) {
    for (const auto& t : prov::kReasonTexts)
        if (t.reason == r) return t.text;
    return "(no such reason in reasons.hpp)";
}

// The last error on the queue is stitch's, with the wanted reason and its
// text; empties the queue.
inline void expect_stitch_error(prov::Reason want) {
    const unsigned long e = ERR_peek_last_error();
    char described[256] = "(no error on the queue)";
    if (e) ERR_error_string_n(e, described, sizeof described);
    const char* lib = e ? ERR_lib_error_string(e) : nullptr;
    EXPECT_STREQ(lib ? lib : "(none)", "stitch") << described;
    EXPECT_EQ(ERR_GET_REASON(e), int(want)) << described << "; want \"" << reason_text(want) << "\"";
    const char* text = e ? ERR_reason_error_string(e) : nullptr;
    EXPECT_STREQ(text ? text : "(none)", reason_text(want)) << described;
    ERR_clear_error();
}

}  // namespace stitch::test
