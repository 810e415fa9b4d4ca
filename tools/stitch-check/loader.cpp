#include "tools/stitch-check/loader.hpp"

#include <openssl/bio.h>
#include <openssl/conf.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include <cstdlib>
#include <memory>

namespace stitch::check {

namespace {

std::string take_errors() {
    std::string all;
    unsigned long e;
    const char* data = nullptr;
    int flags = 0;
    while ((e = ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags)) != 0) {
        char buf[256];
        ERR_error_string_n(e, buf, sizeof(buf));
        if (!all.empty()) all += "; ";
        all += buf;
        if (data && *data && (flags & ERR_TXT_STRING)) all += std::string(" (") + data + ")";
    }
    return all;
}

std::string utf8_param(OSSL_PROVIDER* prov, const char* key) {
    const char* value = nullptr;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr(key, const_cast<char**>(&value), 0), OSSL_PARAM_END};
    if (!prov || !OSSL_PROVIDER_get_params(prov, params) || !value) {
        ERR_clear_error();
        return "?";
    }
    return value;
}

// The section an administrator writes, given to this context from memory:
// the provider reads `kernel` through the core's get_params as it would from
// /etc/ssl/openssl.cnf. Without `activate` the section only records the
// settings; the OSSL_PROVIDER_load that follows starts stitch with them, and
// a refusal then stays on the error queue (a refusal during the config
// load itself is dropped by OpenSSL's loader, which carries on without it).
bool configure_kernel(OSSL_LIB_CTX* libctx, const std::string& kernel) {
    // The `providers` config module must be registered before a CONF can run
    // it; loading a config file does this once, a CONF from memory does not.
    static const bool modules = (OPENSSL_load_builtin_modules(), true);
    (void)modules;
    const std::string text =
        "openssl_conf = init\n[init]\nproviders = provs\n[provs]\nstitch = stitch_sect\n"
        "[stitch_sect]\nkernel = " + kernel + "\n";
    std::unique_ptr<CONF, decltype(&NCONF_free)> conf(NCONF_new_ex(libctx, nullptr), NCONF_free);
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(text.data(), int(text.size())), BIO_free);
    if (!conf || !bio || NCONF_load_bio(conf.get(), bio.get(), nullptr) <= 0) return false;
    return CONF_modules_load(conf.get(), nullptr, 0) > 0;
}

}  // namespace

Loaded::Loaded(const std::string& provider_path, const std::string& kernel) {
    libctx_ = OSSL_LIB_CTX_new();
    if (!libctx_) {
        error_ = "cannot create a library context";
        return;
    }
    if (!provider_path.empty()) OSSL_PROVIDER_set_default_search_path(libctx_, provider_path.c_str());
    default_ = OSSL_PROVIDER_load(libctx_, "default");
    if (!default_) {
        error_ = "cannot load OpenSSL's default provider: " + take_errors();
        return;
    }
    if (!kernel.empty() && !configure_kernel(libctx_, kernel)) {
        error_ = "cannot configure `kernel = " + kernel + "`: " + take_errors();
        return;
    }
    stitch_ = OSSL_PROVIDER_load(libctx_, "stitch");
    if (!stitch_) error_ = "stitch did not start: " + take_errors();
}

Loaded::~Loaded() {
    if (stitch_) OSSL_PROVIDER_unload(stitch_);
    if (default_) OSSL_PROVIDER_unload(default_);
    OSSL_LIB_CTX_free(libctx_);
}

std::string Loaded::param(const char* key) const { return utf8_param(stitch_, key); }

EVP_CIPHER* Loaded::cipher(bool stitch, const char* name) const {
    EVP_CIPHER* c = EVP_CIPHER_fetch(libctx_, name, stitch ? "provider=stitch" : "provider=default");
    if (!c) ERR_clear_error();
    return c;
}

EVP_MAC* Loaded::mac(bool stitch, const char* name) const {
    EVP_MAC* m = EVP_MAC_fetch(libctx_, name, stitch ? "provider=stitch" : "provider=default");
    if (!m) ERR_clear_error();
    return m;
}

namespace {

// `kernel = ...` in stitch's section of the configuration file, found the way
// OpenSSL's loader walks it: openssl_conf -> providers -> stitch -> kernel.
// Empty where the file sets none (or has no stitch section).
std::string configured_kernel(const std::string& file) {
    std::unique_ptr<CONF, decltype(&NCONF_free)> conf(NCONF_new_ex(nullptr, nullptr), NCONF_free);
    if (!conf || NCONF_load(conf.get(), file.c_str(), nullptr) <= 0) {
        ERR_clear_error();
        return "";
    }
    auto get = [&](const char* section, const char* key) -> std::string {
        const char* v = NCONF_get_string(conf.get(), section, key);
        return v ? v : "";
    };
    std::string kernel;
    if (const std::string init = get(nullptr, "openssl_conf"); !init.empty())
        if (const std::string provs = get(init.c_str(), "providers"); !provs.empty())
            if (const std::string sect = get(provs.c_str(), "stitch"); !sect.empty()) kernel = get(sect.c_str(), "kernel");
    ERR_clear_error();  // NCONF_get_string queues an error for every missing key
    return kernel;
}

}  // namespace

bool describe_system(const std::string& provider_path, std::string& out) {
    // The default library context loads the configuration a program on this
    // machine would: OPENSSL_CONF, else OpenSSL's openssl.cnf.
    OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, nullptr);
    const char* env = std::getenv("OPENSSL_CONF");
    const std::string file = env ? env : std::string(OPENSSL_info(OPENSSL_INFO_CONFIG_DIR)) + "/openssl.cnf";
    const std::string kernel = configured_kernel(file);
    const std::string setting = kernel.empty() ? "no `kernel` setting" : "`kernel = " + kernel + "`";
    if (!OSSL_PROVIDER_available(nullptr, "stitch")) {
        out = "stitch is not active in " + file + " (" + setting + ").";
        if (!kernel.empty()) {
            // Start it here with that setting, where its refusal can be read.
            const Loaded trial(provider_path, kernel);
            out += trial.ok() ? "" : "\nWith that setting " + trial.error();
        }
        return false;
    }
    OSSL_PROVIDER* prov = OSSL_PROVIDER_load(nullptr, "stitch");
    out = "stitch " + utf8_param(prov, OSSL_PROV_PARAM_VERSION) + " is active in " + file + " (" + setting +
          "): kernel " + utf8_param(prov, "kernel") + ", SHA-2 kernel " + utf8_param(prov, "sha2_kernel") + ".";
    if (prov) OSSL_PROVIDER_unload(prov);
    return true;
}

}  // namespace stitch::check
