// What stitch says about itself: provider params (name, version, buildinfo,
// status, and `kernel`, the path dispatch chose), the three ciphers it offers
// with provider=stitch, their algorithm params beside the default provider's,
// and the context params callers read on every record.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/provider.h>

#include <cstdlib>
#include <set>
#include <string>

#include "evp_support.hpp"
#include "kernels/dispatch.hpp"

namespace stitch::test {
namespace {

std::string utf8_param(const char* name) {
    char* value = nullptr;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_ptr(name, &value, 0), OSSL_PARAM_END};
    if (OSSL_PROVIDER_get_params(providers().stitch(), p) != 1 || !OSSL_PARAM_modified(p) || !value)
        return "(not answered)";
    return value;
}

TEST(ProviderParams, NameVersionBuildinfoStatus) {
    EXPECT_EQ(utf8_param(OSSL_PROV_PARAM_NAME), "stitch");
    EXPECT_EQ(utf8_param(OSSL_PROV_PARAM_VERSION), STITCH_PROJECT_VERSION);
    EXPECT_NE(utf8_param(OSSL_PROV_PARAM_BUILDINFO).find(STITCH_PROJECT_VERSION), std::string::npos);
    int status = -1;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_int(OSSL_PROV_PARAM_STATUS, &status), OSSL_PARAM_END};
    ASSERT_EQ(OSSL_PROVIDER_get_params(providers().stitch(), p), 1);
    EXPECT_EQ(status, 1);
    EXPECT_STREQ(OSSL_PROVIDER_get0_name(providers().stitch()), "stitch");
}

TEST(ProviderParams, GettableListsKernel) {
    const OSSL_PARAM* g = OSSL_PROVIDER_gettable_params(providers().stitch());
    ASSERT_NE(g, nullptr);
    for (const char* name :
         {OSSL_PROV_PARAM_NAME, OSSL_PROV_PARAM_VERSION, OSSL_PROV_PARAM_BUILDINFO, OSSL_PROV_PARAM_STATUS, "kernel"})
        EXPECT_NE(OSSL_PARAM_locate_const(g, name), nullptr) << name;
}

// The .portable registration runs with STITCH_CLEAR_CPUID=all: the provider
// must then report "portable". Otherwise it reports what the kernels' own
// dispatch, run in this process under the same environment, chose.
TEST(ProviderParams, KernelIsTheDispatchedPath) {
    const std::string kernel = utf8_param("kernel");
    const char* mask = std::getenv("STITCH_CLEAR_CPUID");
    if (mask && std::string(mask) == "all") {
        EXPECT_EQ(kernel, "portable");
    } else {
        EXPECT_EQ(kernel, stitch::kern::active_impl().name);
        EXPECT_TRUE(kernel == "portable" || kernel == "avx2" || kernel == "avx512" || kernel == "avx512-ifma")
            << kernel;
        // STITCH_CLEAR_CPUID=avx512 (scripts/test.sh's second run on AVX-512
        // machines) must take the AVX-512 set away.
        if (mask && std::string(mask).find("avx512") != std::string::npos && std::string(mask) != "avx512ifma") {
            EXPECT_EQ(kernel.rfind("avx512", 0), std::string::npos) << kernel;
        }
    }
    std::printf("[ kernel   ] %s (STITCH_CLEAR_CPUID=%s)\n", kernel.c_str(), mask ? mask : "");
}

TEST(ProviderParams, OffersTheThreeCiphersWithItsProperty) {
    std::set<std::string> names;
    EVP_CIPHER_do_all_provided(
        providers().libctx(),
        [](EVP_CIPHER* c, void* arg) {
            if (std::string(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c))) == "stitch")
                static_cast<std::set<std::string>*>(arg)->insert(EVP_CIPHER_get0_name(c));
        },
        &names);
    EXPECT_EQ(names, (std::set<std::string>{"ChaCha20", "ChaCha20-Poly1305", "chacha20-poly1305@openssh.com"}));
    for (const char* n :
         {"ChaCha20", "ChaCha20-Poly1305", "chacha20-poly1305@openssh.com", "chacha20", "CHACHA20-POLY1305"}) {
        EVP_CIPHER* c = EVP_CIPHER_fetch(providers().libctx(), n, "provider=stitch");
        EXPECT_NE(c, nullptr) << n << " with provider=stitch";
        EVP_CIPHER_free(c);
    }
}

struct CipherInfo {
    size_t keylen = 0, ivlen = 0, blocksize = 0;
    unsigned mode = 99;
    int aead = -1, custom_iv = -1;
    bool ok = false;
};

CipherInfo info(const EVP_CIPHER* c) {
    CipherInfo i;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &i.keylen),
                      OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &i.ivlen),
                      OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, &i.blocksize),
                      OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_MODE, &i.mode),
                      OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_AEAD, &i.aead),
                      OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_CUSTOM_IV, &i.custom_iv),
                      OSSL_PARAM_END};
    i.ok = EVP_CIPHER_get_params(const_cast<EVP_CIPHER*>(c), p) == 1;
    return i;
}

// libssl keys its AEAD handling off these (docs/openssl-3.0-semantics.md#names): they must be
// what the default provider answers.
TEST(ProviderParams, AlgorithmParamsMatchDefault) {
    for (const char* name : {"ChaCha20-Poly1305", "ChaCha20"}) {
        SCOPED_TRACE(name);
        const CipherPair cp = fetch_both(name);
        const CipherInfo s = info(cp.stitch.get()), d = info(cp.reference.get());
        ASSERT_TRUE(s.ok && d.ok);
        EXPECT_EQ(s.keylen, d.keylen);
        EXPECT_EQ(s.ivlen, d.ivlen);
        EXPECT_EQ(s.blocksize, d.blocksize);
        EXPECT_EQ(s.mode, d.mode);
        EXPECT_EQ(s.aead, d.aead);
        EXPECT_EQ(s.custom_iv, d.custom_iv);
        EXPECT_EQ(EVP_CIPHER_get_flags(cp.stitch.get()), EVP_CIPHER_get_flags(cp.reference.get()));
        EXPECT_EQ(EVP_CIPHER_get_nid(cp.stitch.get()), EVP_CIPHER_get_nid(cp.reference.get()));
    }
    CipherPtr ssh(providers().fetch("chacha20-poly1305@openssh.com", "stitch"));
    const CipherInfo s = info(ssh.get());
    ASSERT_TRUE(s.ok);
    EXPECT_EQ(s.keylen, 64u);
    EXPECT_EQ(s.ivlen, 8u);
    EXPECT_EQ(s.blocksize, 1u);
}

TEST(ProviderParams, AeadContextParams) {
    CipherPtr c(providers().fetch("ChaCha20-Poly1305", "stitch"));
    for (int enc : {1, 0}) {
        CipherCtxPtr ctx = new_cipher_ctx();
        const Bytes key(32, 7), iv(12, 9);
        ASSERT_EQ(EVP_CipherInit_ex(ctx.get(), c.get(), nullptr, key.data(), iv.data(), enc), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_get_key_length(ctx.get()), 32);
        EXPECT_EQ(EVP_CIPHER_CTX_get_iv_length(ctx.get()), 12);
        EXPECT_EQ(EVP_CIPHER_CTX_get_tag_length(ctx.get()), 16) << "taglen reads 16 before any tag is set";
        // Params libssl sends that this cipher has no use for are accepted and ignored.
        int version = 0x0304;
        size_t mac_size = 0;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
                          OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &mac_size), OSSL_PARAM_END};
        EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx.get(), p), 1);
        const OSSL_PARAM* gettable = EVP_CIPHER_CTX_gettable_params(ctx.get());
        const OSSL_PARAM* settable = EVP_CIPHER_CTX_settable_params(ctx.get());
        for (const char* n : {OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_IVLEN, OSSL_CIPHER_PARAM_AEAD_TAGLEN,
                              OSSL_CIPHER_PARAM_AEAD_TAG, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD})
            EXPECT_NE(OSSL_PARAM_locate_const(gettable, n), nullptr) << "gettable " << n;
        for (const char* n : {OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_IVLEN, OSSL_CIPHER_PARAM_AEAD_TAG,
                              OSSL_CIPHER_PARAM_AEAD_TLS1_AAD})
            EXPECT_NE(OSSL_PARAM_locate_const(settable, n), nullptr) << "settable " << n;
    }
}

}  // namespace
}  // namespace stitch::test
