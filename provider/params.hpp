// OSSL_PARAM helpers for the per-record path: libssl sets and gets context
// params on every TLS record, so callbacks walk the array once, compare keys
// with a first-byte test and strcmp (no lookups per known key) and store the common native size_t
// directly, falling back to libcrypto's converters for other integer shapes.
#pragma once

#include <openssl/core.h>

#include <cstddef>
#include <cstring>

namespace stitch::prov::param {

// The first-byte test settles most mismatches without a libc call; this runs
// for every param of every TLS record.
inline bool is(const char* key, const char* name) noexcept {
    return key[0] == name[0] && std::strcmp(key, name) == 0;
}

bool set_size(OSSL_PARAM& p, size_t v) noexcept;
bool get_size(const OSSL_PARAM& p, size_t& v) noexcept;
bool set_int(OSSL_PARAM& p, int v) noexcept;
bool set_uint(OSSL_PARAM& p, unsigned v) noexcept;
bool set_utf8_ptr(OSSL_PARAM& p, const char* v) noexcept;

inline bool is_octets(const OSSL_PARAM& p) noexcept { return p.data_type == OSSL_PARAM_OCTET_STRING; }

}  // namespace stitch::prov::param
