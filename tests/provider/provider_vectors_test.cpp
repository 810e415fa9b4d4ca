// The RFC 8439 and Wycheproof vectors through EVP: every Wycheproof vector
// (seal, open, forged tags, nonce sizes the kernel API cannot express) and
// the RFC's AEAD and raw ChaCha20 vectors, in the call shapes of pyca, libssl
// TLS 1.3 and EVP_Cipher callers. Each test runs on stitch and, to show the
// harness itself is right, on OpenSSL's default provider, except the
// EVP_Cipher shape: 3.0.19's EVP_Cipher(ctx, NULL, NULL, 0) neither computes
// nor checks the tag (docs/openssl-3.0-semantics.md#unsafe-evp-cipher-final), and stitch implements the fix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/evp_aead_calls.hpp"
#include "common/rfc8439_vectors.hpp"
#include "common/wycheproof_vectors.hpp"

namespace stitch::test {
namespace {

constexpr EvpShape kShapes[] = {EvpShape::update_out_of_place, EvpShape::tls13_in_place, EvpShape::cipher_entry};

const WycheproofFile& wycheproof() {
    static const WycheproofFile file = load_wycheproof_chacha20_poly1305();
    return file;
}

const Rfc8439File& rfc8439() {
    static const Rfc8439File file = load_rfc8439_vectors();
    return file;
}

class ProviderVectors : public ::testing::TestWithParam<const char*> {
protected:
    // The shapes this provider is held to (see the file comment).
    std::vector<EvpShape> shapes() const {
        if (is_stitch()) return {std::begin(kShapes), std::end(kShapes)};
        return {EvpShape::update_out_of_place, EvpShape::tls13_in_place};
    }

    const char* provider() const { return GetParam(); }
    bool is_stitch() const { return std::strcmp(GetParam(), "stitch") == 0; }
    // Throws (a failure) when stitch.so cannot be loaded.
    CipherPtr fetch(const char* name) const { return providers().fetch(name, provider()); }

    void TearDown() override { ERR_clear_error(); }
};

TEST_P(ProviderVectors, WycheproofEveryVectorIsRun) {
    const WycheproofFile* file = nullptr;
    ASSERT_NO_THROW(file = &wycheproof()) << wycheproof_chacha20_poly1305_path();
    size_t valid = 0, modified_tag = 0, bad_nonce = 0;
    for (const auto& v : file->tests) {
        if (v.valid)
            ++valid;
        else if (v.has_flag("ModifiedTag"))
            ++modified_tag;
        else if (v.has_flag("InvalidNonceSize"))
            ++bad_nonce;
    }
    // The three tests below cover exactly these three classes.
    EXPECT_EQ(valid + modified_tag + bad_nonce, file->declared);
    EXPECT_EQ(file->tests.size(), file->declared);
}

TEST_P(ProviderVectors, WycheproofValidVectorsSealAndOpen) {
    CipherPtr cipher = fetch("ChaCha20-Poly1305");
    size_t checked = 0;
    for (EvpShape shape : shapes()) {
        SCOPED_TRACE(shape_name(shape));
        EvpAead sealer(cipher.get()), opener(cipher.get());
        for (const auto& v : wycheproof().tests) {
            if (!v.valid) continue;
            SCOPED_TRACE(v.label());
            const EvpResult s = sealer.run(shape, true, v.key, v.iv, v.aad, v.msg, {});
            ASSERT_TRUE(s.ok) << "seal refused";
            ASSERT_EQ(to_hex(s.out), to_hex(v.ct));
            ASSERT_EQ(to_hex(s.tag), to_hex(v.tag));
            const EvpResult o = opener.run(shape, false, v.key, v.iv, v.aad, v.ct, v.tag);
            ASSERT_TRUE(o.ok) << "open refused";
            ASSERT_EQ(to_hex(o.out), to_hex(v.msg));
            ++checked;
        }
    }
    EXPECT_GT(checked, 0u);
}

TEST_P(ProviderVectors, WycheproofModifiedTagsRefused) {
    CipherPtr cipher = fetch("ChaCha20-Poly1305");
    size_t checked = 0;
    for (EvpShape shape : shapes()) {
        SCOPED_TRACE(shape_name(shape));
        EvpAead opener(cipher.get());
        for (const auto& v : wycheproof().tests) {
            if (v.valid || !v.has_flag("ModifiedTag")) continue;
            SCOPED_TRACE(v.label());
            EXPECT_FALSE(opener.run(shape, false, v.key, v.iv, v.aad, v.ct, v.tag).ok) << "forged tag accepted";
            ERR_clear_error();
            ++checked;
        }
    }
    EXPECT_GT(checked, 0u);
}

// The error queue holds stitch's (or OpenSSL's) "invalid iv length".
bool iv_length_error_queued() {
    bool found = false;
    while (unsigned long e = ERR_get_error()) {
        const char* why = ERR_reason_error_string(e);
        if (why && std::strstr(why, "invalid iv length")) found = true;
    }
    return found;
}

TEST_P(ProviderVectors, WycheproofInvalidNonceSizesRefused) {
    CipherPtr cipher = fetch("ChaCha20-Poly1305");
    size_t checked = 0;
    for (const auto& v : wycheproof().tests) {
        if (!v.has_flag("InvalidNonceSize")) continue;
        SCOPED_TRACE(v.label());
        ASSERT_FALSE(v.valid);
        ASSERT_NE(v.iv.size(), 12u);
        // Init reads as many IV bytes as the context's IV length says: give it room.
        Bytes iv = v.iv;
        iv.resize(32, 0);
        for (int enc : {1, 0}) {
            SCOPED_TRACE(enc ? "encrypt" : "decrypt");
            // The legacy control libcrypto maps to the `ivlen` param.
            CipherCtxPtr ctx = new_cipher_ctx();
            ASSERT_TRUE(EVP_CipherInit_ex2(ctx.get(), cipher.get(), nullptr, nullptr, enc, nullptr));
            ERR_clear_error();
            EXPECT_LE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, int(v.iv.size()), nullptr), 0);
            EXPECT_TRUE(iv_length_error_queued());
            EXPECT_EQ(EVP_CIPHER_CTX_get_iv_length(ctx.get()), 12);

            // The `ivlen` param passed with the key and IV at init.
            CipherCtxPtr ctx2 = new_cipher_ctx();
            size_t ivlen = v.iv.size();
            const OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen),
                                         OSSL_PARAM_construct_end()};
            EXPECT_FALSE(EVP_CipherInit_ex2(ctx2.get(), cipher.get(), v.key.data(), iv.data(), enc, params));
            EXPECT_TRUE(iv_length_error_queued());
        }
        ++checked;
    }
    EXPECT_GT(checked, 0u);
}

TEST_P(ProviderVectors, Rfc8439AeadVectors) {
    CipherPtr cipher = fetch("ChaCha20-Poly1305");
    const auto list = rfc8439().of_kind("aead");
    ASSERT_FALSE(list.empty());
    for (EvpShape shape : shapes()) {
        SCOPED_TRACE(shape_name(shape));
        EvpAead sealer(cipher.get()), opener(cipher.get());
        for (const auto* v : list) {
            SCOPED_TRACE(v->title);
            const Bytes key = v->bytes("key"), nonce = v->bytes("nonce"), aad = v->bytes("aad");
            const Bytes pt = v->bytes("plaintext"), ct = v->bytes("ciphertext"), tag = v->bytes("tag");
            const EvpResult s = sealer.run(shape, true, key, nonce, aad, pt, {});
            ASSERT_TRUE(s.ok);
            EXPECT_EQ(to_hex(s.out), to_hex(ct));
            EXPECT_EQ(to_hex(s.tag), to_hex(tag));
            const EvpResult o = opener.run(shape, false, key, nonce, aad, ct, tag);
            ASSERT_TRUE(o.ok);
            EXPECT_EQ(to_hex(o.out), to_hex(pt));
            Bytes forged = tag;
            forged[15] ^= 1;
            EXPECT_FALSE(opener.run(shape, false, key, nonce, aad, ct, forged).ok);
            ERR_clear_error();
        }
    }
}

// Raw ChaCha20: the 16-byte IV is LE32 block counter ‖ 96-bit nonce.
Bytes raw_chacha20(EVP_CIPHER* cipher, const Bytes& key, const Bytes& nonce, uint32_t counter, const Bytes& in,
                   bool bytewise, bool cipher_entry) {
    Bytes iv(16);
    for (int i = 0; i < 4; ++i) iv[i] = uint8_t(counter >> (8 * i));
    std::memcpy(iv.data() + 4, nonce.data(), 12);
    CipherCtxPtr ctx = new_cipher_ctx();
    Bytes out(in.size(), 0xa5);
    if (!EVP_EncryptInit_ex2(ctx.get(), cipher, key.data(), iv.data(), nullptr)) return {};
    if (cipher_entry) {
        if (EVP_Cipher(ctx.get(), out.data(), in.data(), in.size()) != int(in.size())) return {};
        return out;
    }
    size_t step = bytewise ? 1 : in.size(), done = 0;
    while (done < in.size()) {
        int n = 0, len = int(std::min(step, in.size() - done));
        if (!EVP_EncryptUpdate(ctx.get(), out.data() + done, &n, in.data() + done, len) || n != len) return {};
        done += size_t(n);
    }
    int m = 0;
    if (!EVP_EncryptFinal_ex(ctx.get(), out.data() + done, &m) || m != 0) return {};
    return out;
}

TEST_P(ProviderVectors, Rfc8439ChaCha20Vectors) {
    CipherPtr cipher = fetch("ChaCha20");
    size_t checked = 0;
    for (const auto& v : rfc8439().vectors) {
        if (v.kind != "chacha20_encrypt" && v.kind != "chacha20_block") continue;
        SCOPED_TRACE(v.title);
        const Bytes key = v.bytes("key"), nonce = v.bytes("nonce");
        const uint32_t counter = v.u32_decimal("counter");
        const bool block = v.kind == "chacha20_block";
        const Bytes in = block ? Bytes(64, 0) : v.bytes("plaintext");  // a block is the keystream over zeros
        const Bytes want = v.bytes(block ? "block" : "ciphertext");
        for (bool bytewise : {false, true})
            EXPECT_EQ(to_hex(raw_chacha20(cipher.get(), key, nonce, counter, in, bytewise, false)), to_hex(want))
                << (bytewise ? "bytewise updates" : "one update");
        EXPECT_EQ(to_hex(raw_chacha20(cipher.get(), key, nonce, counter, in, false, true)), to_hex(want))
            << "EVP_Cipher";
        EXPECT_EQ(to_hex(raw_chacha20(cipher.get(), key, nonce, counter, want, false, false)), to_hex(in))
            << "decrypt";
        ++checked;
    }
    EXPECT_EQ(checked, 10u);  // §2.3.2, §2.4.2, A.1 #1–5, A.2 #1–3
}

INSTANTIATE_TEST_SUITE_P(Providers, ProviderVectors, ::testing::Values("stitch", "default"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace stitch::test
