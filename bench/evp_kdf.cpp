#include "bench/evp_kdf.hpp"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <stdexcept>

#include "bench/buffer.hpp"

namespace stitch::bench {

namespace {

constexpr char kPrefix[] = "tls13 ";
constexpr char kLabel[] = "c hs traffic";  // one of the handshake's labels, 12 bytes
constexpr char kDerived[] = "derived";

OSSL_PARAM octets(const char* key, const void* p, size_t n) {
    return OSSL_PARAM_construct_octet_string(key, const_cast<void*>(p), n);
}

}  // namespace

Tls13ExpandLabel::Tls13ExpandLabel(OSSL_LIB_CTX* libctx, Prov prov, const char* digest, size_t hash_len)
    : libctx_(libctx), propq_(std::string("provider=") + prov_name(prov)), digest_(digest), hash_len_(hash_len) {
    fill(secret_, sizeof(secret_), 0x5ec4e7);
    fill(hash_, sizeof(hash_), 0x4a54);
    KdfPtr probe(EVP_KDF_fetch(libctx_, "TLS13-KDF", propq_.c_str()));
    if (!probe) throw std::runtime_error("TLS13-KDF not offered");
}

bool Tls13ExpandLabel::operator()() noexcept {
    EVP_KDF* kdf = EVP_KDF_fetch(libctx_, "TLS13-KDF", propq_.c_str());
    EVP_KDF_CTX* kctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (!kctx) return false;
    int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest_), 0),
        octets(OSSL_KDF_PARAM_KEY, secret_, hash_len_),
        octets(OSSL_KDF_PARAM_PREFIX, kPrefix, sizeof(kPrefix) - 1),
        octets(OSSL_KDF_PARAM_LABEL, kLabel, sizeof(kLabel) - 1),
        octets(OSSL_KDF_PARAM_DATA, hash_, hash_len_),
        OSSL_PARAM_construct_end(),
    };
    const bool ok = EVP_KDF_derive(kctx, out_, hash_len_, params) > 0;
    EVP_KDF_CTX_free(kctx);
    return ok;
}

Tls13Extract::Tls13Extract(OSSL_LIB_CTX* libctx, Prov prov, const char* digest, size_t hash_len)
    : libctx_(libctx), propq_(std::string("provider=") + prov_name(prov)), digest_(digest), hash_len_(hash_len) {
    fill(prev_, sizeof(prev_), 0xea71);
    fill(ikm_, sizeof(ikm_), 0xd4e);
    KdfPtr probe(EVP_KDF_fetch(libctx_, "TLS13-KDF", propq_.c_str()));
    if (!probe) throw std::runtime_error("TLS13-KDF not offered");
}

bool Tls13Extract::operator()() noexcept {
    EVP_KDF* kdf = EVP_KDF_fetch(libctx_, "TLS13-KDF", propq_.c_str());
    EVP_KDF_CTX* kctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (!kctx) return false;
    int mode = EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest_), 0),
        octets(OSSL_KDF_PARAM_KEY, ikm_, hash_len_),
        octets(OSSL_KDF_PARAM_SALT, prev_, hash_len_),
        octets(OSSL_KDF_PARAM_PREFIX, kPrefix, sizeof(kPrefix) - 1),
        octets(OSSL_KDF_PARAM_LABEL, kDerived, sizeof(kDerived) - 1),
        OSSL_PARAM_construct_end(),
    };
    const bool ok = EVP_KDF_derive(kctx, out_, hash_len_, params) > 0;
    EVP_KDF_CTX_free(kctx);
    return ok;
}

HkdfLibsslShape::HkdfLibsslShape(OSSL_LIB_CTX* libctx, Prov prov, int mode, const char* digest, size_t out_len)
    : libctx_(libctx), propq_(std::string("provider=") + prov_name(prov)), mode_(mode), digest_(digest),
      out_len_(out_len) {
    if (out_len > sizeof(out_)) throw std::runtime_error("HKDF output too long for the benchmark");
    fill(key_, sizeof(key_), 0x1c3);
    fill(salt_, sizeof(salt_), 0x5a17);
    fill(info_, sizeof(info_), 0x1f0);
    KdfPtr probe(EVP_KDF_fetch(libctx_, "HKDF", propq_.c_str()));
    if (!probe) throw std::runtime_error("HKDF not offered");
}

bool HkdfLibsslShape::operator()() noexcept {
    EVP_KDF* kdf = EVP_KDF_fetch(libctx_, "HKDF", propq_.c_str());
    EVP_KDF_CTX* kctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (!kctx) return false;
    const size_t hash_len = std::string(digest_).find("384") != std::string::npos ? 48 : 32;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode_),
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest_), 0),
        octets(OSSL_KDF_PARAM_KEY, key_, hash_len),
        octets(OSSL_KDF_PARAM_INFO, info_, hash_len),
        mode_ == EVP_KDF_HKDF_MODE_EXPAND_ONLY ? OSSL_PARAM_construct_end()
                                               : octets(OSSL_KDF_PARAM_SALT, salt_, hash_len),
        OSSL_PARAM_construct_end(),
    };
    const bool ok = EVP_KDF_derive(kctx, out_, out_len_, params) > 0;
    EVP_KDF_CTX_free(kctx);
    return ok;
}

KdfFetchNewFree::KdfFetchNewFree(OSSL_LIB_CTX* libctx, Prov prov, const char* name)
    : libctx_(libctx), propq_(std::string("provider=") + prov_name(prov)), name_(name) {
    KdfPtr probe(EVP_KDF_fetch(libctx_, name_, propq_.c_str()));
    if (!probe) throw std::runtime_error(std::string(name) + " not offered");
}

bool KdfFetchNewFree::operator()() noexcept {
    EVP_KDF* kdf = EVP_KDF_fetch(libctx_, name_, propq_.c_str());
    EVP_KDF_CTX* kctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    EVP_KDF_CTX_free(kctx);
    return kctx != nullptr;
}

HkdfWithParams::HkdfWithParams(const EVP_KDF* hkdf, int mode, const char* digest, size_t out_len)
    : mode_(mode), digest_(digest), out_len_(out_len) {
    if (!hkdf) throw std::runtime_error("HKDF not offered");
    if (out_len > sizeof(out_)) throw std::runtime_error("HKDF output too long for the benchmark");
    ctx_.reset(EVP_KDF_CTX_new(const_cast<EVP_KDF*>(hkdf)));
    if (!ctx_) throw std::runtime_error("EVP_KDF_CTX_new");
    fill(key_, sizeof(key_), 0x1c3);
    fill(salt_, sizeof(salt_), 0x5a17);
    fill(info_, sizeof(info_), 0x1f0);
}

bool HkdfWithParams::operator()() noexcept {
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode_),
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest_), 0),
        octets(OSSL_KDF_PARAM_KEY, key_, sizeof(key_)),
        mode_ == EVP_KDF_HKDF_MODE_EXPAND_ONLY ? octets(OSSL_KDF_PARAM_INFO, info_, sizeof(info_))
                                               : octets(OSSL_KDF_PARAM_SALT, salt_, sizeof(salt_)),
        OSSL_PARAM_construct_end(),
    };
    return EVP_KDF_derive(ctx_.get(), out_, out_len_, params) > 0;
}

}  // namespace stitch::bench
