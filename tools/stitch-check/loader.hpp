// Loading stitch the way a system would: from OpenSSL's modules directory
// (or OPENSSL_MODULES, or --provider-path), into a library context of its
// own, optionally with the `kernel` setting an openssl.cnf section would give
// it. Each load is one provider context, so one process can hold several
// kernel sets side by side and time them against the default provider.
#pragma once

#include <openssl/evp.h>
#include <openssl/provider.h>

#include <string>

namespace stitch::check {

class Loaded {
public:
    // Loads the default provider and stitch. `kernel` empty: stitch chooses
    // (its CPU table); else the value of `kernel =` in stitch's section.
    Loaded(const std::string& provider_path, const std::string& kernel);
    ~Loaded();
    Loaded(const Loaded&) = delete;
    Loaded& operator=(const Loaded&) = delete;

    bool ok() const { return stitch_ != nullptr; }
    const std::string& error() const { return error_; }
    std::string param(const char* key) const;  // a utf8 provider param of stitch, or "?"
    OSSL_LIB_CTX* libctx() const { return libctx_; }

    // Fetched by "provider=stitch" / "provider=default" in this context.
    EVP_CIPHER* cipher(bool stitch, const char* name) const;
    EVP_MAC* mac(bool stitch, const char* name) const;

private:
    OSSL_LIB_CTX* libctx_ = nullptr;
    OSSL_PROVIDER* stitch_ = nullptr;
    OSSL_PROVIDER* default_ = nullptr;
    std::string error_;
};

// The kernel set names `kernel =` accepts, best first; "auto" is not among them.
inline constexpr const char* kKernelSets[] = {"avx512-ifma", "avx512", "avx2", "portable"};

// What this process's OpenSSL configuration (OPENSSL_CONF, else the system
// openssl.cnf) does with stitch: one paragraph for --status. Returns true when
// stitch is active there.
bool describe_system(const std::string& provider_path, std::string& out);

}  // namespace stitch::check
