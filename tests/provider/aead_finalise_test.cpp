// How a ChaCha20-Poly1305 message ends where stitch is deliberately stricter
// than OpenSSL 3.0.19 (docs/openssl-3.0-semantics.md#unsafe-evp-cipher-final,
// #unsafe-empty-cipher-aad), checked against the RFC 8439 §2.8.2 vector:
// - EVP_Cipher(ctx, NULL, NULL, 0) finalises: on decrypt it returns 0 for the
//   right tag and -1 for a wrong or missing one; on encrypt the tag is ready.
//   From 3.0.22 the default provider does the same, except that it accepts a
//   message with no tag set (openssl#28137): compared there;
// - zero-length calls of any kind, anywhere, leave the tag unchanged.
#include <gtest/gtest.h>

#include "aead_driver.hpp"
#include "common/openssl_release.hpp"
#include "common/rfc8439_vectors.hpp"

namespace stitch::test {
namespace {

struct AeadVector {
    Bytes key, nonce, aad, pt, ct, tag;
};

AeadVector section_2_8_2() {
    const Rfc8439File file = load_rfc8439_vectors();
    for (const Rfc8439Vector* v : file.of_kind("aead"))
        if (v->section == "2.8.2")
            return {v->bytes("key"),       v->bytes("nonce"),      v->bytes("aad"),
                    v->bytes("plaintext"), v->bytes("ciphertext"), v->bytes("tag")};
    throw std::runtime_error("no RFC 8439 §2.8.2 vector");
}

// Decrypts through EVP_Cipher only, the message cut as asked, and returns what
// the finalising EVP_Cipher(ctx, NULL, NULL, 0) returned.
int evp_cipher_open(const AeadVector& v, const Bytes& ct, const Bytes* tag, bool with_aad, bool with_data,
                    const char* provider = "stitch") {
    CipherPtr c(providers().fetch("ChaCha20-Poly1305", provider));
    CipherCtxPtr ctx = new_cipher_ctx();
    EXPECT_EQ(EVP_DecryptInit_ex(ctx.get(), c.get(), nullptr, v.key.data(), v.nonce.data()), 1);
    if (tag) {
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, const_cast<uint8_t*>(tag->data())), 1);
    }
    if (with_aad) {
        EXPECT_EQ(EVP_Cipher(ctx.get(), nullptr, v.aad.data(), unsigned(v.aad.size())), int(v.aad.size()));
    }
    Bytes pt(ct.size());
    if (with_data) {
        EXPECT_EQ(EVP_Cipher(ctx.get(), pt.data(), ct.data(), unsigned(ct.size())), int(ct.size()));
    }
    return EVP_Cipher(ctx.get(), nullptr, nullptr, 0);
}

// Tags for the §2.8.2 key and nonce over the parts a case leaves out, from
// the default provider.
Bytes reference_tag(const AeadVector& v, bool with_aad, bool with_data) {
    CipherPtr c(providers().fetch("ChaCha20-Poly1305", "default"));
    AeadMessage m{v.key, v.nonce, with_aad ? v.aad : Bytes{}, with_data ? v.pt : Bytes{}};
    return seal(c.get(), m, one_shot_plan(m)).tag;
}

TEST(AeadFinalise, EvpCipherNullNullZeroChecksTheTagOnDecrypt) {
    const AeadVector v = section_2_8_2();
    for (bool with_aad : {true, false})
        for (bool with_data : {true, false}) {
            SCOPED_TRACE(std::string("aad ") + (with_aad ? "yes" : "no") + ", data " + (with_data ? "yes" : "no"));
            const Bytes good = reference_tag(v, with_aad, with_data);
            if (with_aad && with_data) {
                ASSERT_EQ(to_hex(good), to_hex(v.tag));
            }
            EXPECT_EQ(evp_cipher_open(v, v.ct, &good, with_aad, with_data), 0) << "right tag";
            for (size_t bit : {0, 63, 127}) {
                Bytes bad = good;
                bad[bit / 8] ^= uint8_t(1 << (bit % 8));
                EXPECT_EQ(evp_cipher_open(v, v.ct, &bad, with_aad, with_data), -1) << "wrong tag, bit " << bit;
            }
            EXPECT_EQ(evp_cipher_open(v, v.ct, nullptr, with_aad, with_data), -1) << "no tag";
            ERR_clear_error();
        }
}

// The same opens on the default provider, where its release finalises
// (openssl#32258, CVE-2026-75803; 3.0 backport #32417): the same answers,
// except with no tag set, where 3.0 compares no bytes and accepts.
TEST(AeadFinalise, EvpCipherNullNullZeroAnswersAsTheDefaultProviderWhereItFinalises) {
    const Release rel = installed_release();
    if (!rel.at_least(change::evp_cipher_finalises))
        GTEST_SKIP() << "OpenSSL " << rel.name() << ": EVP_Cipher(ctx, NULL, NULL, 0) does nothing there (openssl#32258)";
    const AeadVector v = section_2_8_2();
    for (bool with_aad : {true, false})
        for (bool with_data : {true, false}) {
            SCOPED_TRACE(std::string("aad ") + (with_aad ? "yes" : "no") + ", data " + (with_data ? "yes" : "no"));
            const Bytes good = reference_tag(v, with_aad, with_data);
            Bytes bad = good;
            bad[7] ^= 0x20;
            for (const Bytes* tag : {static_cast<const Bytes*>(&good), static_cast<const Bytes*>(&bad)})
                EXPECT_EQ(evp_cipher_open(v, v.ct, tag, with_aad, with_data, "default"),
                          evp_cipher_open(v, v.ct, tag, with_aad, with_data, "stitch"))
                    << (tag == &good ? "right tag" : "wrong tag");
            EXPECT_EQ(evp_cipher_open(v, v.ct, nullptr, with_aad, with_data, "default"), 0)
                << "3.0 accepts a message with no tag set: if this changed, the divergence in "
                   "docs/openssl-3.0-semantics.md#unsafe-no-tag has narrowed";
            ERR_clear_error();
        }
}

TEST(AeadFinalise, EvpCipherNullNullZeroMakesTheTagOnEncrypt) {
    const AeadVector v = section_2_8_2();
    CipherPtr c(providers().fetch("ChaCha20-Poly1305", "stitch"));
    CipherCtxPtr ctx = new_cipher_ctx();
    Bytes ct(v.pt.size()), tag(16);
    ASSERT_EQ(EVP_EncryptInit_ex(ctx.get(), c.get(), nullptr, v.key.data(), v.nonce.data()), 1);
    ASSERT_EQ(EVP_Cipher(ctx.get(), nullptr, v.aad.data(), unsigned(v.aad.size())), int(v.aad.size()));
    ASSERT_EQ(EVP_Cipher(ctx.get(), ct.data(), v.pt.data(), unsigned(v.pt.size())), int(v.pt.size()));
    ASSERT_EQ(EVP_Cipher(ctx.get(), nullptr, nullptr, 0), 0);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
    EXPECT_EQ(to_hex(ct), to_hex(v.ct));
    EXPECT_EQ(to_hex(tag), to_hex(v.tag));
}

// The AAD in three pieces, with every kind of empty call between and around
// them (AAD, data, EVP_Cipher with a buffer), still gives RFC 8439's bytes.
TEST(AeadFinalise, ZeroLengthCallsAnywhereChangeNothing) {
    const AeadVector v = section_2_8_2();
    CipherPtr c(providers().fetch("ChaCha20-Poly1305", "stitch"));
    for (int enc : {1, 0}) {
        CipherCtxPtr ctx = new_cipher_ctx();
        uint8_t scratch[1] = {0};
        int outl;
        auto empties = [&] {
            EXPECT_EQ(EVP_CipherUpdate(ctx.get(), nullptr, &outl, v.aad.data(), 0), 1);
            EXPECT_EQ(EVP_CipherUpdate(ctx.get(), scratch, &outl, v.aad.data(), 0), 1);
            EXPECT_EQ(EVP_CipherUpdate(ctx.get(), scratch, &outl, nullptr, 0), 1);
            EXPECT_EQ(EVP_Cipher(ctx.get(), scratch, v.aad.data(), 0), 0);
            EXPECT_EQ(EVP_Cipher(ctx.get(), nullptr, v.aad.data(), 0), 0);
        };
        const Bytes& in = enc ? v.pt : v.ct;
        Bytes out(in.size()), tag = v.tag;
        ASSERT_EQ(EVP_CipherInit_ex(ctx.get(), c.get(), nullptr, v.key.data(), v.nonce.data(), enc), 1);
        if (!enc) {
            ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data()), 1);
        }
        empties();
        ASSERT_EQ(EVP_CipherUpdate(ctx.get(), nullptr, &outl, v.aad.data(), 5), 1);
        empties();
        ASSERT_EQ(EVP_CipherUpdate(ctx.get(), nullptr, &outl, v.aad.data() + 5, 2), 1);
        empties();
        ASSERT_EQ(EVP_CipherUpdate(ctx.get(), nullptr, &outl, v.aad.data() + 7, int(v.aad.size() - 7)), 1);
        empties();
        ASSERT_EQ(EVP_CipherUpdate(ctx.get(), out.data(), &outl, in.data(), 50), 1);
        empties();
        ASSERT_EQ(EVP_CipherUpdate(ctx.get(), out.data() + 50, &outl, in.data() + 50, int(in.size() - 50)), 1);
        empties();
        ASSERT_EQ(EVP_CipherFinal_ex(ctx.get(), scratch, &outl), 1) << (enc ? "encrypt" : "decrypt");
        EXPECT_EQ(to_hex(out), to_hex(enc ? v.ct : v.pt));
        if (enc) {
            ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
            EXPECT_EQ(to_hex(tag), to_hex(v.tag));
        }
    }
}

}  // namespace
}  // namespace stitch::test
