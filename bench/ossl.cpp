#include "bench/ossl.hpp"

#include "bench/floor_provider.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include <cstdlib>
#include <stdexcept>

namespace stitch::bench {

std::string openssl_errors() {
    std::string all;
    unsigned long e;
    while ((e = ERR_get_error()) != 0) {
        char buf[256];
        ERR_error_string_n(e, buf, sizeof(buf));
        if (!all.empty()) all += "; ";
        all += buf;
    }
    return all;
}

namespace {

std::string utf8_param(OSSL_PROVIDER* prov, const char* key) {
    if (!prov) return "?";
    const char* value = nullptr;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr(key, const_cast<char**>(&value), 0), OSSL_PARAM_END};
    if (!OSSL_PROVIDER_get_params(prov, params) || !value) {
        ERR_clear_error();
        return "?";
    }
    return value;
}

}  // namespace

const char* prov_name(Prov p) {
    return p == Prov::stitch ? "stitch" : p == Prov::dflt ? "default" : "stitch-floor";
}

Providers::Providers() {
    // STITCH_MODULE_DIR from the environment wins, so an installed stitch.so
    // can be measured with the same binary.
    const char* env = std::getenv("STITCH_MODULE_DIR");
    module_dir_ = env ? env : STITCH_MODULE_DIR;
    libctx_ = OSSL_LIB_CTX_new();
    if (!libctx_ || !OSSL_PROVIDER_set_default_search_path(libctx_, module_dir_.c_str()))
        throw std::runtime_error("cannot create a library context");
    default_ = OSSL_PROVIDER_load(libctx_, "default");
    if (!default_) throw std::runtime_error("cannot load the default provider: " + openssl_errors());
    stitch_ = OSSL_PROVIDER_load(libctx_, "stitch");
    if (!stitch_) stitch_error_ = openssl_errors();
    floor_ = load_floor_provider(libctx_);
    if (!floor_) ERR_clear_error();
}

Providers::~Providers() {
    if (floor_) OSSL_PROVIDER_unload(floor_);
    if (stitch_) OSSL_PROVIDER_unload(stitch_);
    OSSL_PROVIDER_unload(default_);
    OSSL_LIB_CTX_free(libctx_);
}

std::string Providers::stitch_kernel() const { return utf8_param(stitch_, "kernel"); }
std::string Providers::stitch_version() const { return utf8_param(stitch_, OSSL_PROV_PARAM_VERSION); }

CipherPtr Providers::cipher(Prov p, const char* name) const {
    if (p == Prov::stitch && !stitch_) return nullptr;
    const std::string query = std::string("provider=") + prov_name(p);
    CipherPtr c(EVP_CIPHER_fetch(libctx_, name, query.c_str()));
    if (!c) ERR_clear_error();
    return c;
}

MacPtr Providers::mac(Prov p, const char* name) const {
    if (p == Prov::stitch && !stitch_) return nullptr;
    const std::string query = std::string("provider=") + prov_name(p);
    MacPtr m(EVP_MAC_fetch(libctx_, name, query.c_str()));
    if (!m) ERR_clear_error();
    return m;
}

KdfPtr Providers::kdf(Prov p, const char* name) const {
    if (p == Prov::stitch && !stitch_) return nullptr;
    const std::string query = std::string("provider=") + prov_name(p);
    KdfPtr k(EVP_KDF_fetch(libctx_, name, query.c_str()));
    if (!k) ERR_clear_error();
    return k;
}

std::string openssl_cpu_info() {
    const char* info = OpenSSL_version(OPENSSL_CPU_INFO);
    std::string s = info ? info : "?";
    const std::string prefix = "CPUINFO: ";
    if (s.rfind(prefix, 0) == 0) s.erase(0, prefix.size());
    return s;
}

}  // namespace stitch::bench
