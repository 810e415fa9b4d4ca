// Helpers every test shares: hex and byte checks, a seeded PRNG, and a
// library context with stitch and the default provider loaded side by side.
#pragma once

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/evp_handles.hpp"

namespace stitch::test {

using Bytes = std::vector<uint8_t>;

inline Bytes from_hex(std::string_view hex) {
    if (hex.size() % 2) throw std::invalid_argument("odd hex length");
    auto nib = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        throw std::invalid_argument("bad hex digit");
    };
    Bytes out(hex.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(nib(hex[2 * i]) << 4 | nib(hex[2 * i + 1]));
    return out;
}

inline std::string to_hex(const uint8_t* p, size_t n) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) {
        s += d[p[i] >> 4];
        s += d[p[i] & 15];
    }
    return s;
}
inline std::string to_hex(const Bytes& b) { return to_hex(b.data(), b.size()); }

inline Bytes concat(const Bytes& a, const Bytes& b) {
    Bytes r(a);
    r.insert(r.end(), b.begin(), b.end());
    return r;
}

inline bool all_zero(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i]) return false;
    return true;
}
inline bool all_zero(const Bytes& b) { return all_zero(b.data(), b.size()); }

// splitmix64: reproducible inputs, the seed printed by the test on failure.
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed) {}
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    size_t below(size_t n) { return n ? size_t(next() % n) : 0; }
    Bytes bytes(size_t n) {
        Bytes b(n);
        for (auto& x : b) x = uint8_t(next());
        return b;
    }
};

// Directory holding stitch.so; CMake passes the build directory.
inline const char* module_dir() {
    if (const char* env = std::getenv("STITCH_MODULE_DIR")) return env;
#ifdef STITCH_MODULE_DIR
    return STITCH_MODULE_DIR;
#else
    return ".";
#endif
}

// A private library context with `stitch` and `default` loaded, so one test
// fetches the same algorithm from both with "provider=stitch" / "provider=default".
class ProviderPair {
public:
    ProviderPair() {
        // OpenSSL first, with a non-zero option (0 returns early, registering
        // nothing): its atexit cleanup is then registered before a static
        // pair's destructor, so it runs after the pair has unloaded the
        // providers, not before.
        OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, nullptr);
        ctx_ = OSSL_LIB_CTX_new();
        if (!ctx_ || !OSSL_PROVIDER_set_default_search_path(ctx_, module_dir()))
            throw std::runtime_error("library context");
        stitch_ = OSSL_PROVIDER_load(ctx_, "stitch");
        default_ = OSSL_PROVIDER_load(ctx_, "default");
        if (!stitch_ || !default_) {
            ERR_print_errors_fp(stderr);
            throw std::runtime_error(std::string("cannot load stitch from ") + module_dir());
        }
    }
    ~ProviderPair() {
        OSSL_PROVIDER_unload(stitch_);
        OSSL_PROVIDER_unload(default_);
        OSSL_LIB_CTX_free(ctx_);
    }
    ProviderPair(const ProviderPair&) = delete;
    ProviderPair& operator=(const ProviderPair&) = delete;

    OSSL_LIB_CTX* libctx() const { return ctx_; }
    OSSL_PROVIDER* stitch() const { return stitch_; }

    CipherPtr fetch(const char* name, const char* provider) const {
        const std::string q = std::string("provider=") + provider;
        CipherPtr c(EVP_CIPHER_fetch(ctx_, name, q.c_str()));
        if (!c) throw std::runtime_error(std::string("fetch ") + name + " from " + provider);
        return c;
    }

    MacPtr fetch_mac(const char* name, const char* provider) const {
        const std::string q = std::string("provider=") + provider;
        MacPtr m(EVP_MAC_fetch(ctx_, name, q.c_str()));
        if (!m) throw std::runtime_error(std::string("fetch ") + name + " from " + provider);
        return m;
    }

private:
    OSSL_LIB_CTX* ctx_ = nullptr;
    OSSL_PROVIDER* stitch_ = nullptr;
    OSSL_PROVIDER* default_ = nullptr;
};

// The one pair a test binary shares.
inline ProviderPair& providers() {
    static ProviderPair pair;
    return pair;
}

}  // namespace stitch::test
