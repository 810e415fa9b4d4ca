// The names and params of stitch's POLY1305 against the default provider's:
// the name and property it is fetched by, `size` = 16 from the algorithm and
// the context, `key` settable as an octet string, and the ctx params the
// default provider lists are all offered by stitch too.
#include <openssl/provider.h>

#include <set>

#include "mac_support.hpp"

namespace stitch::test {
namespace {

std::set<std::string> keys_of(const OSSL_PARAM* p) {
    std::set<std::string> keys;
    for (; p && p->key; ++p) keys.insert(p->key);
    return keys;
}

const OSSL_PARAM* find(const OSSL_PARAM* p, const char* key) {
    for (; p && p->key; ++p)
        if (std::string(p->key) == key) return p;
    return nullptr;
}

TEST(Poly1305Params, FetchedFromStitchByNameInAnyCase) {
    for (const char* name : {"POLY1305", "poly1305", "Poly1305"}) {
        MacPtr m(EVP_MAC_fetch(providers().libctx(), name, "provider=stitch"));
        ASSERT_TRUE(m) << name;
        EXPECT_STREQ(OSSL_PROVIDER_get0_name(EVP_MAC_get0_provider(m.get())), "stitch") << name;
        EXPECT_TRUE(EVP_MAC_is_a(m.get(), "POLY1305"));
    }
}

TEST(Poly1305Params, SizeIs16FromAlgorithmAndContext) {
    const MacPtr mac = fetch_poly1305("stitch");
    size_t size = 0;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size), OSSL_PARAM_construct_end()};
    ASSERT_EQ(EVP_MAC_get_params(mac.get(), p), 1);
    EXPECT_EQ(size, 16u);

    MacCtxPtr ctx = new_mac_ctx(mac);
    EXPECT_EQ(EVP_MAC_CTX_get_mac_size(ctx.get()), 16u) << "before a key";
    size = 0;
    ASSERT_EQ(EVP_MAC_CTX_get_params(ctx.get(), p), 1);
    EXPECT_EQ(size, 16u);
    const Bytes key(32, 7);
    ASSERT_EQ(EVP_MAC_init(ctx.get(), key.data(), key.size(), nullptr), 1);
    EXPECT_EQ(EVP_MAC_CTX_get_mac_size(ctx.get()), 16u) << "after a key";

    // EVP_MAC_final with no output buffer reports the size.
    size_t outl = 0;
    ASSERT_EQ(EVP_MAC_final(ctx.get(), nullptr, &outl, 0), 1);
    EXPECT_EQ(outl, 16u);
}

TEST(Poly1305Params, TablesCoverTheDefaultProviders) {
    const MacPtr stitch = fetch_poly1305("stitch"), reference = fetch_poly1305("default");
    EXPECT_EQ(keys_of(EVP_MAC_gettable_params(stitch.get())), keys_of(EVP_MAC_gettable_params(reference.get())));
    EXPECT_EQ(keys_of(EVP_MAC_settable_ctx_params(stitch.get())), keys_of(EVP_MAC_settable_ctx_params(reference.get())));
    // The default provider has no gettable ctx params in 3.0; stitch offers `size` there too.
    for (const auto& k : keys_of(EVP_MAC_gettable_ctx_params(reference.get())))
        EXPECT_TRUE(keys_of(EVP_MAC_gettable_ctx_params(stitch.get())).count(k)) << k;
    EXPECT_EQ(keys_of(EVP_MAC_gettable_ctx_params(stitch.get())), std::set<std::string>{OSSL_MAC_PARAM_SIZE});

    const OSSL_PARAM* key = find(EVP_MAC_settable_ctx_params(stitch.get()), OSSL_MAC_PARAM_KEY);
    ASSERT_NE(key, nullptr);
    EXPECT_EQ(key->data_type, unsigned(OSSL_PARAM_OCTET_STRING));
    const OSSL_PARAM* size = find(EVP_MAC_gettable_params(stitch.get()), OSSL_MAC_PARAM_SIZE);
    ASSERT_NE(size, nullptr);
    EXPECT_EQ(size->data_type, unsigned(OSSL_PARAM_UNSIGNED_INTEGER));
}

// Params stitch does not know are ignored, as OpenSSL's providers do.
TEST(Poly1305Params, UnknownParamsAreIgnored) {
    const MacPtr mac = fetch_poly1305("stitch");
    MacCtxPtr ctx = new_mac_ctx(mac);
    int v = 1;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_int("no-such-param", &v), OSSL_PARAM_construct_end()};
    EXPECT_EQ(EVP_MAC_CTX_set_params(ctx.get(), p), 1);
    const Bytes key(32, 1);
    EXPECT_EQ(EVP_MAC_init(ctx.get(), key.data(), key.size(), p), 1);
}

}  // namespace
}  // namespace stitch::test
