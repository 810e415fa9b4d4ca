// What the KDF tests share: HKDF and TLS13-KDF fetched from stitch and from
// OpenSSL's default provider in one library context, params described as
// data (so one description runs against both), and a derive that reports
// what it returned and what it wrote.
#pragma once

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/test_util.hpp"

namespace stitch::test {

struct KdfFree {
    void operator()(EVP_KDF* k) const { EVP_KDF_free(k); }
};
struct KdfCtxFree {
    void operator()(EVP_KDF_CTX* c) const { EVP_KDF_CTX_free(c); }
};
using KdfPtr = std::unique_ptr<EVP_KDF, KdfFree>;
using KdfCtxPtr = std::unique_ptr<EVP_KDF_CTX, KdfCtxFree>;

inline KdfPtr fetch_kdf(const char* name, const char* provider) {
    const std::string q = std::string("provider=") + provider;
    KdfPtr k(EVP_KDF_fetch(providers().libctx(), name, q.c_str()));
    if (!k) throw std::runtime_error(std::string("fetch ") + name + " from " + provider);
    return k;
}

inline KdfCtxPtr new_kdf_ctx(const KdfPtr& kdf) {
    KdfCtxPtr c(EVP_KDF_CTX_new(kdf.get()));
    if (!c) throw std::runtime_error("EVP_KDF_CTX_new");
    return c;
}

// One KDF algorithm from both providers.
struct KdfPair {
    KdfPtr stitch, dflt;
    explicit KdfPair(const char* name) : stitch(fetch_kdf(name, "stitch")), dflt(fetch_kdf(name, "default")) {}
};

// One set_ctx_params (or derive) call's params, as data. Unset optionals
// are left out; `infos` may hold several `info` params.
struct KdfParamSet {
    std::optional<std::string> digest, properties, mode_str;
    std::optional<int> mode;
    std::optional<Bytes> key, salt, prefix, label, data;
    std::vector<Bytes> infos;
    bool null_key = false;                // a `key` param with NULL data (3.0 refuses and drops the key)
    std::optional<size_t> null_salt_len;  // a `salt` param with NULL data and this length
};

// The OSSL_PARAM array of a KdfParamSet, pointing into the set (keep it alive).
class ParamArray {
public:
    explicit ParamArray(KdfParamSet& s) {
        auto octets = [&](const char* k, Bytes& b) {
            params_.push_back(OSSL_PARAM_construct_octet_string(k, b.empty() ? empty_ : b.data(), b.size()));
        };
        if (s.properties)
            params_.push_back(OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_PROPERTIES, s.properties->data(), 0));
        if (s.digest) params_.push_back(OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, s.digest->data(), 0));
        if (s.mode) params_.push_back(OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &*s.mode));
        if (s.mode_str) params_.push_back(OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE, s.mode_str->data(), 0));
        if (s.null_key) params_.push_back(OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, nullptr, 0));
        if (s.key) octets(OSSL_KDF_PARAM_KEY, *s.key);
        if (s.salt) octets(OSSL_KDF_PARAM_SALT, *s.salt);
        if (s.null_salt_len)
            params_.push_back(OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, nullptr, *s.null_salt_len));
        for (Bytes& i : s.infos) octets(OSSL_KDF_PARAM_INFO, i);
        if (s.prefix) octets(OSSL_KDF_PARAM_PREFIX, *s.prefix);
        if (s.label) octets(OSSL_KDF_PARAM_LABEL, *s.label);
        if (s.data) octets(OSSL_KDF_PARAM_DATA, *s.data);
        params_.push_back(OSSL_PARAM_construct_end());
    }
    OSSL_PARAM* get() { return params_.data(); }

private:
    std::vector<OSSL_PARAM> params_;
    uint8_t empty_[1] = {0};  // an empty octet string with non-NULL data, as callers pass them
};

struct DeriveResult {
    int rc = 0;
    Bytes out;
    bool operator==(const DeriveResult& o) const { return rc == o.rc && (rc <= 0 || out == o.out); }
};

inline std::ostream& operator<<(std::ostream& os, const DeriveResult& r) {
    return os << "rc " << r.rc << " out " << to_hex(r.out);
}

// Sets each of `sets` with EVP_KDF_CTX_set_params (the last one instead goes
// to EVP_KDF_derive when last_in_derive), then derives out_len bytes into a
// canary-filled buffer. On refusal the buffer must still be all canary
// (checked here), and the queue is cleared.
inline DeriveResult run_kdf(EVP_KDF_CTX* ctx, std::vector<KdfParamSet> sets, size_t out_len, bool last_in_derive = true,
                            std::vector<int>* set_rcs = nullptr) {
    DeriveResult r;
    constexpr uint8_t kCanary = 0xa5;
    Bytes buf(out_len + 16, kCanary);
    for (size_t i = 0; i < sets.size(); ++i) {
        if (last_in_derive && i + 1 == sets.size()) break;
        ParamArray p(sets[i]);
        const int rc = EVP_KDF_CTX_set_params(ctx, p.get());
        if (set_rcs) set_rcs->push_back(rc);
    }
    if (last_in_derive && !sets.empty()) {
        ParamArray p(sets.back());
        r.rc = EVP_KDF_derive(ctx, buf.data(), out_len, p.get());
    } else {
        r.rc = EVP_KDF_derive(ctx, buf.data(), out_len, nullptr);
    }
    if (r.rc > 0) {
        r.out.assign(buf.begin(), buf.begin() + out_len);
    } else {
        EXPECT_EQ(to_hex(buf), to_hex(Bytes(buf.size(), kCanary))) << "a refused derive wrote to its output";
    }
    for (size_t i = out_len; i < buf.size(); ++i)
        EXPECT_EQ(buf[i], kCanary) << "derive wrote past its " << out_len << "-byte output";
    ERR_clear_error();
    return r;
}

inline DeriveResult run_kdf(const KdfPtr& kdf, std::vector<KdfParamSet> sets, size_t out_len,
                            bool last_in_derive = true) {
    KdfCtxPtr ctx = new_kdf_ctx(kdf);
    return run_kdf(ctx.get(), std::move(sets), out_len, last_in_derive);
}

inline int mode_number(const char* name) {
    const std::string n = name;
    if (n == "EXTRACT_ONLY") return EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
    if (n == "EXPAND_ONLY") return EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    return EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;
}

}  // namespace stitch::test
