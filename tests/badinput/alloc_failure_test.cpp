// When stitch's own allocations fail (context new and dup, the provider's
// context at load), every entry point reports the failure to OpenSSL and
// nothing crashes; the next call, with memory back, works. OpenSSL's
// allocator hooks (CRYPTO_set_mem_functions, installed before anything is
// allocated) fail exactly the allocations whose call site is in stitch's
// provider/ sources: OPENSSL_zalloc passes its file name along.
#include <gtest/gtest.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "common/test_util.hpp"

namespace stitch::test {
namespace {

std::atomic<bool> g_fail{false};
std::atomic<int> g_seen{0}, g_failed{0};

bool from_stitch(const char* file) { return file && std::strstr(file, "provider/") != nullptr; }

void* test_malloc(size_t n, const char* file, int) {
    if (from_stitch(file)) {
        ++g_seen;
        if (g_fail) return ++g_failed, nullptr;
    }
    return std::malloc(n);
}
void* test_realloc(void* p, size_t n, const char* file, int) {
    if (from_stitch(file) && g_fail) return ++g_failed, nullptr;
    return std::realloc(p, n);
}
void test_free(void* p, const char*, int) { std::free(p); }

// Before main: OpenSSL takes new hooks only until its first allocation.
const bool g_hooked = CRYPTO_set_mem_functions(test_malloc, test_realloc, test_free) == 1;

// Fails stitch's allocations while it lives.
struct Failing {
    Failing() { g_fail = true; }
    ~Failing() { g_fail = false; }
};

const Bytes kKey(64, 5), kIv(16, 6);
constexpr const char* kCiphers[] = {"ChaCha20-Poly1305", "ChaCha20", "chacha20-poly1305@openssh.com"};

class AllocFailure : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(g_hooked) << "CRYPTO_set_mem_functions came too late: something allocated before main";
        // stitch's allocations must be recognisable, or nothing below is tested.
        CipherPtr c = providers().fetch("ChaCha20", "stitch");
        CipherCtxPtr ctx = new_cipher_ctx();
        const int before = g_seen;
        ASSERT_EQ(EVP_EncryptInit_ex(ctx.get(), c.get(), nullptr, kKey.data(), kIv.data()), 1);
        ASSERT_GT(g_seen, before) << "no allocation named provider/ as its call site (libcrypto without file names?)";
    }
};

TEST_F(AllocFailure, NewContextFailsCleanlyThenRecovers) {
    for (const char* name : kCiphers) {
        CipherPtr c = providers().fetch(name, "stitch");
        CipherCtxPtr ctx = new_cipher_ctx();
        {
            Failing f;
            const int failed = g_failed;
            EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), c.get(), nullptr, kKey.data(), kIv.data(), 1), 0) << name;
            EXPECT_GT(g_failed, failed) << name;
        }
        ERR_clear_error();
        EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), c.get(), nullptr, kKey.data(), kIv.data(), 1), 1) << name;
    }
    MacPtr mac = providers().fetch_mac("POLY1305", "stitch");
    {
        Failing f;
        EXPECT_EQ(EVP_MAC_CTX_new(mac.get()), nullptr);
    }
    MacCtxPtr ok(EVP_MAC_CTX_new(mac.get()));
    EXPECT_NE(ok, nullptr);
}

TEST_F(AllocFailure, CopyFailsCleanlyAndLeavesBothContexts) {
    for (const char* name : kCiphers) {
        CipherPtr c = providers().fetch(name, "stitch");
        CipherCtxPtr src = new_cipher_ctx(), dst = new_cipher_ctx();
        ASSERT_EQ(EVP_CipherInit_ex(src.get(), c.get(), nullptr, kKey.data(), kIv.data(), 1), 1);
        {
            Failing f;
            EXPECT_EQ(EVP_CIPHER_CTX_copy(dst.get(), src.get()), 0) << name;
        }
        ERR_clear_error();
        EXPECT_EQ(EVP_CIPHER_CTX_copy(dst.get(), src.get()), 1) << name;
    }
    MacPtr mac = providers().fetch_mac("POLY1305", "stitch");
    MacCtxPtr ctx = new_mac_ctx(mac);
    ASSERT_EQ(EVP_MAC_init(ctx.get(), kKey.data(), 32, nullptr), 1);
    {
        Failing f;
        EXPECT_EQ(EVP_MAC_CTX_dup(ctx.get()), nullptr);
    }
    MacCtxPtr copy(EVP_MAC_CTX_dup(ctx.get()));
    EXPECT_NE(copy, nullptr);
}

TEST_F(AllocFailure, ProviderLoadFailsCleanlyThenLoads) {
    OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
    ASSERT_NE(libctx, nullptr);
    ASSERT_EQ(OSSL_PROVIDER_set_default_search_path(libctx, module_dir()), 1);
    {
        Failing f;
        EXPECT_EQ(OSSL_PROVIDER_load(libctx, "stitch"), nullptr);
    }
    ERR_clear_error();
    OSSL_PROVIDER* p = OSSL_PROVIDER_load(libctx, "stitch");
    EXPECT_NE(p, nullptr);
    if (p) OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(libctx);
}

}  // namespace
}  // namespace stitch::test
