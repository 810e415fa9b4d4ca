// conf/stitch.cnf routes a POLY1305 fetch that names no provider to stitch,
// the way libssh asks for it: EVP_MAC_fetch(NULL, "poly1305", NULL). CTest
// runs this with OPENSSL_CONF=conf/stitch.cnf and OPENSSL_MODULES=<the
// build's provider directory>; the tag must still be RFC 8439's.
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/rfc8439_vectors.hpp"

namespace stitch::test {
namespace {

std::string provider_of(const MacPtr& mac) {
    const OSSL_PROVIDER* p = mac ? EVP_MAC_get0_provider(mac.get()) : nullptr;
    return p ? OSSL_PROVIDER_get0_name(p) : "(none)";
}

TEST(Poly1305Conf, RunsUnderTheProjectConfig) {
    const char* conf = std::getenv("OPENSSL_CONF");
    ASSERT_NE(conf, nullptr) << "CTest sets OPENSSL_CONF=conf/stitch.cnf";
    EXPECT_NE(std::string(conf).find("stitch.cnf"), std::string::npos) << conf;
}

TEST(Poly1305Conf, FetchWithoutPropertiesIsStitch) {
    const Rfc8439File file = load_rfc8439_vectors();
    const auto vectors = file.of_kind("poly1305");
    ASSERT_FALSE(vectors.empty());
    const MacPtr mac(EVP_MAC_fetch(nullptr, "poly1305", nullptr));
    ASSERT_NE(mac, nullptr);
    EXPECT_EQ(provider_of(mac), "stitch");
    for (const Rfc8439Vector* v : vectors) {
        const Bytes key = v->bytes("key"), msg = v->bytes("msg");
        const MacCtxPtr ctx = new_mac_ctx(mac);
        Bytes tag(16);
        size_t outl = 0;
        ASSERT_EQ(EVP_MAC_init(ctx.get(), key.data(), key.size(), nullptr), 1);
        ASSERT_EQ(EVP_MAC_update(ctx.get(), msg.data(), msg.size()), 1);
        ASSERT_EQ(EVP_MAC_final(ctx.get(), tag.data(), &outl, tag.size()), 1);
        EXPECT_EQ(to_hex(tag), v->text("tag")) << v->title;
    }
}

// A caller that asks for the default provider by name still gets it.
TEST(Poly1305Conf, ExplicitDefaultStillDefault) {
    const MacPtr mac(EVP_MAC_fetch(nullptr, "POLY1305", "provider=default"));
    ASSERT_NE(mac, nullptr);
    EXPECT_EQ(provider_of(mac), "default");
}

}  // namespace
}  // namespace stitch::test
