#include "fuzz_providers.hpp"

#include <openssl/core.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/provider.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "common/test_util.hpp"

namespace stitch::fuzz {

namespace {

[[noreturn]] void setup_failed(const char* what) {
    std::fprintf(stderr, "fuzz setup: %s\n", what);
    ERR_print_errors_fp(stderr);
    std::abort();
}

OSSL_PROVIDER* load_stitch(OSSL_LIB_CTX* libctx) {
#ifdef STITCH_FUZZ_BUILTIN
    if (!OSSL_PROVIDER_add_builtin(libctx, "stitch", OSSL_provider_init)) setup_failed("add_builtin stitch");
#else
    if (!OSSL_PROVIDER_set_default_search_path(libctx, test::module_dir())) setup_failed("module search path");
#endif
    return OSSL_PROVIDER_load(libctx, "stitch");
}

EVP_CIPHER* fetch(OSSL_LIB_CTX* libctx, const char* name, const char* query) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(libctx, name, query);
    if (!c) setup_failed(name);
    return c;
}

FuzzProviders load() {
    FuzzProviders p{};
    p.libctx = OSSL_LIB_CTX_new();
    if (!p.libctx) setup_failed("OSSL_LIB_CTX_new");
    if (!load_stitch(p.libctx)) setup_failed("load stitch");
    if (!OSSL_PROVIDER_load(p.libctx, "default")) setup_failed("load default");
    p.stitch_aead = fetch(p.libctx, "ChaCha20-Poly1305", "provider=stitch");
    p.default_aead = fetch(p.libctx, "ChaCha20-Poly1305", "provider=default");
    p.stitch_chacha = fetch(p.libctx, "ChaCha20", "provider=stitch");
    p.default_chacha = fetch(p.libctx, "ChaCha20", "provider=default");
    p.stitch_openssh = fetch(p.libctx, "chacha20-poly1305@openssh.com", "provider=stitch");
    p.default_poly1305 = EVP_MAC_fetch(p.libctx, "POLY1305", "provider=default");
    if (!p.default_poly1305) setup_failed("POLY1305 from default");
    // The divergences allowed depend on it (allowed_divergences.hpp).
    std::fprintf(stderr, "fuzz: the reference is the default provider of %s\n", OpenSSL_version(OPENSSL_VERSION));
    return p;
}

}  // namespace

// Never freed: the process ends when the fuzzer does, and a static pointer
// keeps LeakSanitizer from calling it a leak.
const FuzzProviders& fuzz_providers() {
    static const FuzzProviders p = load();
    return p;
}

void (*fuzz_count_hook)(const char* what) = nullptr;

void fuzz_count(const char* what) {
    if (fuzz_count_hook) fuzz_count_hook(what);
    static const bool on = std::getenv("STITCH_FUZZ_STATS") != nullptr;
    if (!on) return;
    static auto* counts = new std::map<std::string, unsigned long>;
    static const bool registered = std::atexit([] {
        for (const auto& [name, n] : *counts) std::fprintf(stderr, "%10lu  %s\n", n, name.c_str());
    }) == 0;
    (void)registered;
    ++(*counts)[what];
}

namespace {
const char* g_target = "<target>";
const uint8_t* g_input = nullptr;
size_t g_input_size = 0;

std::string base64(const uint8_t* p, size_t n) {
    static const char* d = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string s;
    for (size_t i = 0; i < n; i += 3) {
        const uint32_t v = uint32_t(p[i]) << 16 | (i + 1 < n ? uint32_t(p[i + 1]) << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        s += d[v >> 18 & 63];
        s += d[v >> 12 & 63];
        s += i + 1 < n ? d[v >> 6 & 63] : '=';
        s += i + 2 < n ? d[v & 63] : '=';
    }
    return s;
}
}  // namespace

void fuzz_set_input(const char* target, const uint8_t* data, size_t size) {
    g_target = target;
    g_input = data;
    g_input_size = size;
}

void fuzz_fail(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    std::fputs("FUZZ FINDING: ", stderr);
    std::vfprintf(stderr, fmt, args);
    std::fputc('\n', stderr);
    va_end(args);
    if (g_input) {
        std::fprintf(stderr, "FUZZ INPUT (%zu bytes, base64): %s\n", g_input_size, base64(g_input, g_input_size).c_str());
        std::fprintf(stderr, "  replay without libFuzzer: echo '%s' | base64 -d > finding && "
                             "build/tests/fuzz/%s_replay finding\n",
                     base64(g_input, g_input_size).c_str(), g_target);
    }
    std::abort();
}

}  // namespace stitch::fuzz
