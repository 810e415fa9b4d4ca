// What the POLY1305 MAC tests share: one-shot and split MAC calls through
// EVP on the binary's stitch + default pair.
#pragma once

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/evp_handles.hpp"
#include "common/seeded_rng.hpp"
#include "common/stitch_errors.hpp"
#include "common/test_util.hpp"

namespace stitch::test {

inline constexpr size_t kPolyKeyLen = 32;
inline constexpr size_t kPolyTagLen = 16;

inline MacPtr fetch_poly1305(const char* provider) { return providers().fetch_mac("POLY1305", provider); }

// Sizes of successive update calls covering n bytes: one call, single bytes,
// pieces around the 16-byte block, or any sizes.
inline std::vector<size_t> random_mac_split(Rng& rng, size_t n) {
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

}  // namespace stitch::test
