// KDF calls through EVP, in the shapes TLS 1.3 and other callers use. Each
// operation is set up once, then derives once per call; `output()` after the
// first call is what the benchmark compares between providers.
#pragma once

#include <openssl/kdf.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "bench/ossl.hpp"

namespace stitch::bench {

// libssl 3.0's tls13_hkdf_expand() (ssl/tls13_enc.c), call for call:
// EVP_KDF_fetch("TLS13-KDF", propq), EVP_KDF_CTX_new, EVP_KDF_free, one
// EVP_KDF_derive with mode EXPAND_ONLY, the digest's name, the secret,
// "tls13 ", the label and the transcript hash, EVP_KDF_CTX_free.
class Tls13ExpandLabel {
public:
    Tls13ExpandLabel(OSSL_LIB_CTX* libctx, Prov prov, const char* digest, size_t hash_len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {out_, hash_len_}; }

private:
    OSSL_LIB_CTX* libctx_;
    std::string propq_;
    const char* digest_;
    size_t hash_len_;
    uint8_t secret_[64], hash_[64], out_[64];
};

// libssl 3.0's tls13_generate_secret(): the same call shape with mode
// EXTRACT_ONLY, the previous secret as salt and the label "derived", so the
// KDF runs Derive-Secret and then HKDF-Extract (the handshake secret step).
class Tls13Extract {
public:
    Tls13Extract(OSSL_LIB_CTX* libctx, Prov prov, const char* digest, size_t hash_len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {out_, hash_len_}; }

private:
    OSSL_LIB_CTX* libctx_;
    std::string propq_;
    const char* digest_;
    size_t hash_len_;
    uint8_t prev_[64], ikm_[64], out_[64];
};

// HKDF in libssl's call shape (as Tls13ExpandLabel): a fetch, a new
// context, one derive with mode, the digest's name, a key and info (and a
// salt unless EXPAND_ONLY) in its params, a free. out_len: the output.
class HkdfLibsslShape {
public:
    HkdfLibsslShape(OSSL_LIB_CTX* libctx, Prov prov, int mode, const char* digest, size_t out_len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {out_, out_len_}; }

private:
    OSSL_LIB_CTX* libctx_;
    std::string propq_;
    int mode_;
    const char* digest_;
    size_t out_len_;
    uint8_t key_[48], salt_[48], info_[48], out_[64];
};

// What libcrypto costs around every such derive, whoever provides the KDF:
// the fetch, EVP_KDF_CTX_new (with the provider's newctx) and the frees, no
// derive. The floor under the libssl-shape rows.
class KdfFetchNewFree {
public:
    KdfFetchNewFree(OSSL_LIB_CTX* libctx, Prov prov, const char* name);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {}; }

private:
    OSSL_LIB_CTX* libctx_;
    std::string propq_;
    const char* name_;
};

// HKDF on one kept context, every param (mode, digest name, key, salt or
// info) passed to each EVP_KDF_derive, as EVP_PKEY's HKDF bridge and most
// direct EVP_KDF callers do. mode is EVP_KDF_HKDF_MODE_*; the output is
// out_len bytes (extract: the digest's size).
class HkdfWithParams {
public:
    HkdfWithParams(const EVP_KDF* hkdf, int mode, const char* digest, size_t out_len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {out_, out_len_}; }

private:
    KdfCtxPtr ctx_;
    int mode_;
    const char* digest_;
    size_t out_len_;
    uint8_t key_[32], salt_[32], info_[20], out_[255];
};

}  // namespace stitch::bench
