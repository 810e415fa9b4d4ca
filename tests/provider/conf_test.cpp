// conf/stitch.cnf makes stitch the implementation behind programs that never
// name it. This program only uses the default library context and OpenSSL's
// own names; CTest runs it with OPENSSL_CONF=conf/stitch.cnf and
// OPENSSL_MODULES=<the build's provider directory>. It then checks which
// provider each fetch landed on, and that the answers are still RFC 8439's.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdlib>
#include <string>

#include "common/rfc8439_vectors.hpp"

namespace stitch::test {
namespace {

std::string provider_of(const EVP_CIPHER_CTX* ctx) {
    const EVP_CIPHER* c = EVP_CIPHER_CTX_get0_cipher(ctx);
    const OSSL_PROVIDER* p = c ? EVP_CIPHER_get0_provider(c) : nullptr;
    return p ? OSSL_PROVIDER_get0_name(p) : "(none)";
}

TEST(Conf, RunsUnderTheProjectConfig) {
    const char* conf = std::getenv("OPENSSL_CONF");
    ASSERT_NE(conf, nullptr) << "CTest sets OPENSSL_CONF=conf/stitch.cnf";
    EXPECT_NE(std::string(conf).find("stitch.cnf"), std::string::npos) << conf;
}

// The RFC 8439 §2.8.2 AEAD vector through EVP_chacha20_poly1305(): an
// implicit fetch from the default library context with no property query.
TEST(Conf, ImplicitChacha20Poly1305IsStitch) {
    const Rfc8439File file = load_rfc8439_vectors();
    const auto vectors = file.of_kind("aead");
    ASSERT_FALSE(vectors.empty());
    for (const Rfc8439Vector* v : vectors) {
        const Bytes key = v->bytes("key"), nonce = v->bytes("nonce"), aad = v->bytes("aad"), pt = v->bytes("plaintext");
        CipherCtxPtr ctx = new_cipher_ctx();
        Bytes ct(pt.size()), tag(16);
        int outl = 0;
        ASSERT_EQ(EVP_EncryptInit_ex(ctx.get(), EVP_chacha20_poly1305(), nullptr, key.data(), nonce.data()), 1);
        EXPECT_EQ(provider_of(ctx.get()), "stitch") << v->title;
        ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), nullptr, &outl, aad.data(), int(aad.size())), 1);
        ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), ct.data(), &outl, pt.data(), int(pt.size())), 1);
        ASSERT_EQ(EVP_EncryptFinal_ex(ctx.get(), ct.data() + outl, &outl), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
        EXPECT_EQ(to_hex(ct), v->text("ciphertext")) << v->title;
        EXPECT_EQ(to_hex(tag), v->text("tag")) << v->title;
    }
}

TEST(Conf, ExplicitFetchWithoutPropertiesIsStitch) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, "ChaCha20-Poly1305", nullptr);
    ASSERT_NE(c, nullptr);
    EXPECT_STREQ(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), "stitch");
    // And it opens the RFC vector, tag checked.
    const Rfc8439File file = load_rfc8439_vectors();
    const auto v = file.of_kind("aead").at(0);
    const Bytes key = v->bytes("key"), nonce = v->bytes("nonce"), aad = v->bytes("aad"), ct = v->bytes("ciphertext");
    Bytes tag = v->bytes("tag"), pt(ct.size());
    CipherCtxPtr ctx = new_cipher_ctx();
    int outl = 0;
    ASSERT_EQ(EVP_DecryptInit_ex(ctx.get(), c, nullptr, key.data(), nonce.data()), 1);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data()), 1);
    ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), nullptr, &outl, aad.data(), int(aad.size())), 1);
    ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), pt.data(), &outl, ct.data(), int(ct.size())), 1);
    EXPECT_EQ(EVP_DecryptFinal_ex(ctx.get(), pt.data() + outl, &outl), 1);
    EXPECT_EQ(to_hex(pt), v->text("plaintext"));
    EVP_CIPHER_free(c);
}

// pyca and OpenSSH reach raw ChaCha20 by name or through EVP_chacha20().
TEST(Conf, ChaCha20ByNameIsStitch) {
    const Rfc8439File file = load_rfc8439_vectors();
    const auto vectors = file.of_kind("chacha20_encrypt");
    ASSERT_FALSE(vectors.empty());
    for (const EVP_CIPHER* legacy : {EVP_get_cipherbyname("chacha20"), EVP_chacha20()}) {
        ASSERT_NE(legacy, nullptr);
        for (const Rfc8439Vector* v : vectors) {
            const Bytes nonce = v->bytes("nonce"), pt = v->bytes("plaintext");
            const uint32_t counter = v->u32_decimal("counter");
            Bytes iv = {uint8_t(counter), uint8_t(counter >> 8), uint8_t(counter >> 16), uint8_t(counter >> 24)};
            iv.insert(iv.end(), nonce.begin(), nonce.end());
            CipherCtxPtr ctx = new_cipher_ctx();
            Bytes ct(pt.size());
            int outl = 0;
            ASSERT_EQ(EVP_EncryptInit_ex(ctx.get(), legacy, nullptr, v->bytes("key").data(), iv.data()), 1);
            EXPECT_EQ(provider_of(ctx.get()), "stitch") << v->title;
            ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), ct.data(), &outl, pt.data(), int(pt.size())), 1);
            EXPECT_EQ(to_hex(ct), v->text("ciphertext")) << v->title;
        }
    }
}

// The default provider is still active for everything stitch does not offer.
TEST(Conf, DefaultProviderStillServesTheRest) {
    EVP_CIPHER* aes = EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr);
    ASSERT_NE(aes, nullptr) << "conf must activate the default provider too";
    EXPECT_STREQ(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(aes)), "default");
    EVP_CIPHER_free(aes);
}

}  // namespace
}  // namespace stitch::test
