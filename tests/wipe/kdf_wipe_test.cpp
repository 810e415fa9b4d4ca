// Freeing an HKDF or TLS13-KDF context wipes every secret it held: the whole
// context (its inline key, salt, info, label and data) and each input too
// long to live inline, before the memory goes back. As in wipe_hook_test, the
// provider's sources are linked in and registered as a built-in provider, so
// the test can set prov::wipe_observer and see each region at the hook.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/provider.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "provider/ciphers/cipher_common.hpp"

extern "C" int OSSL_provider_init(const OSSL_CORE_HANDLE*, const OSSL_DISPATCH*, const OSSL_DISPATCH**, void**);

namespace stitch::test {
namespace {

struct Report {
    std::string what;
    size_t len;
    bool zero;
};
std::array<Report, 32> g_reports;
size_t g_count = 0;

void observe(const void* p, size_t len, const char* what) noexcept {
    const auto* b = static_cast<const uint8_t*>(p);
    if (g_count < g_reports.size())
        g_reports[g_count++] = {what, len, std::all_of(b, b + len, [](uint8_t x) { return x == 0; })};
}

struct Linked {
    OSSL_LIB_CTX* ctx = nullptr;
    OSSL_PROVIDER* prov = nullptr;
    Linked() {
        OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, nullptr);
        ctx = OSSL_LIB_CTX_new();
        if (!ctx || !OSSL_PROVIDER_add_builtin(ctx, "stitch-linked", OSSL_provider_init) ||
            !(prov = OSSL_PROVIDER_load(ctx, "stitch-linked")))
            throw std::runtime_error("load the linked provider");
    }
    ~Linked() {
        OSSL_PROVIDER_unload(prov);
        OSSL_LIB_CTX_free(ctx);
    }
};

Linked& linked() {
    static Linked l;
    return l;
}

// Derives once with every input set (key and info or data longer than stitch
// keeps inline when `long_inputs`), then frees the context under the observer.
std::vector<Report> free_after_use(const char* kdf_name, bool long_inputs) {
    EVP_KDF* kdf = EVP_KDF_fetch(linked().ctx, kdf_name, "provider=stitch");
    EXPECT_NE(kdf, nullptr);
    EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    Rng rng(7);
    Bytes key = rng.bytes(long_inputs ? 100 : 32), salt = rng.bytes(20), info = rng.bytes(long_inputs ? 300 : 10),
          data = rng.bytes(long_inputs ? 200 : 32), label = {'k', 'e', 'y'}, prefix = {'t', 'l', 's', '1', '3', ' '};
    int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>("SHA2-256"), 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, key.data(), key.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt.data(), salt.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(), info.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PREFIX, prefix.data(), prefix.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_LABEL, label.data(), label.size()),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_DATA, data.data(), data.size()),
        OSSL_PARAM_construct_end(),
    };
    uint8_t out[32];
    EXPECT_EQ(EVP_KDF_derive(ctx, out, sizeof(out), params), 1);
    g_count = 0;
    prov::wipe_observer = observe;
    EVP_KDF_CTX_free(ctx);
    prov::wipe_observer = nullptr;
    return {g_reports.begin(), g_reports.begin() + g_count};
}

void expect_all_zero(const std::vector<Report>& reports, size_t heap_inputs) {
    size_t contexts = 0, heap = 0;
    for (const Report& r : reports) {
        EXPECT_TRUE(r.zero) << "\"" << r.what << "\" (" << r.len << " bytes) not all zero at the hook";
        contexts += r.what == prov::region::kContext;
        heap += r.what == "kdf input on the heap";
    }
    EXPECT_EQ(contexts, 1u) << "the context itself must be wiped once";
    EXPECT_EQ(heap, heap_inputs) << "every input kept on the heap must be wiped";
}

TEST(KdfWipe, HkdfFreeWipesContextAndHeapInputs) {
    expect_all_zero(free_after_use("HKDF", false), 0);
    expect_all_zero(free_after_use("HKDF", true), 2);  // the 100-byte key and the 300-byte info
}

TEST(KdfWipe, Tls13KdfFreeWipesContextAndHeapInputs) {
    expect_all_zero(free_after_use("TLS13-KDF", false), 0);
    expect_all_zero(free_after_use("TLS13-KDF", true), 2);  // the 100-byte key and the 200-byte data
}

}  // namespace
}  // namespace stitch::test
