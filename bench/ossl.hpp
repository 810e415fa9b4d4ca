// OpenSSL handles for the benchmark: one library context with stitch and the
// default provider loaded side by side, fetches by "provider=<name>", and
// owning pointers so every section cleans up after itself.
#pragma once

#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/provider.h>

#include <memory>
#include <string>

namespace stitch::bench {

struct CipherFree {
    void operator()(EVP_CIPHER* c) const { EVP_CIPHER_free(c); }
};
struct CipherCtxFree {
    void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
struct MacFree {
    void operator()(EVP_MAC* m) const { EVP_MAC_free(m); }
};
struct MacCtxFree {
    void operator()(EVP_MAC_CTX* m) const { EVP_MAC_CTX_free(m); }
};
using CipherPtr = std::unique_ptr<EVP_CIPHER, CipherFree>;
using CipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;
using MacPtr = std::unique_ptr<EVP_MAC, MacFree>;
using MacCtxPtr = std::unique_ptr<EVP_MAC_CTX, MacCtxFree>;
struct KdfFree {
    void operator()(EVP_KDF* k) const { EVP_KDF_free(k); }
};
struct KdfCtxFree {
    void operator()(EVP_KDF_CTX* c) const { EVP_KDF_CTX_free(c); }
};
using KdfPtr = std::unique_ptr<EVP_KDF, KdfFree>;
using KdfCtxPtr = std::unique_ptr<EVP_KDF_CTX, KdfCtxFree>;

// The two providers measured against each other, and the no-op one that
// gives the EVP floor (bench/floor_provider.hpp).
enum class Prov { stitch, dflt, floor };
const char* prov_name(Prov p);  // "stitch" / "default" / "stitch-floor"

class Providers {
public:
    // Loads both. stitch may fail to load (not built yet, wrong path): the
    // benchmark then reports the default provider alone and says why.
    Providers();
    ~Providers();
    Providers(const Providers&) = delete;
    Providers& operator=(const Providers&) = delete;

    bool has_stitch() const { return stitch_ != nullptr; }
    const std::string& stitch_error() const { return stitch_error_; }
    const std::string& module_dir() const { return module_dir_; }
    std::string stitch_kernel() const;   // the provider's `kernel` param, or "?"
    std::string stitch_version() const;  // its `version` param, or "?"

    // nullptr when the provider does not offer `name` (or is not loaded).
    CipherPtr cipher(Prov p, const char* name) const;
    MacPtr mac(Prov p, const char* name) const;
    KdfPtr kdf(Prov p, const char* name) const;
    // For operations that fetch on every call, as libssl's key schedule does.
    OSSL_LIB_CTX* libctx() const { return libctx_; }

private:
    OSSL_LIB_CTX* libctx_ = nullptr;
    OSSL_PROVIDER* stitch_ = nullptr;
    OSSL_PROVIDER* default_ = nullptr;
    OSSL_PROVIDER* floor_ = nullptr;
    std::string module_dir_;
    std::string stitch_error_;
};

// Takes every queued OpenSSL error as one line ("" when none).
std::string openssl_errors();

// OpenSSL's CPU capability vector as libcrypto read it at startup
// (OPENSSL_ia32cap applied), e.g. "OPENSSL_ia32cap=0x...:0x...".
std::string openssl_cpu_info();

}  // namespace stitch::bench
