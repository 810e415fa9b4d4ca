// conf/stitch.cnf routes the KDF fetches of programs that name no provider to
// stitch: libssl's EVP_KDF_fetch(libctx, "TLS13-KDF", NULL) and any HKDF
// caller, EVP_PKEY's HKDF bridge included. CTest runs this with
// OPENSSL_CONF=conf/stitch.cnf; the bytes must still be the default
// provider's. A fetched digest (SHA-1) makes stitch build its child library
// context inside the default one, which must also come down cleanly at exit.
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/provider.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kdf/kdf_support.hpp"

namespace stitch::test {
namespace {

KdfPtr implicit(const char* name) { return KdfPtr(EVP_KDF_fetch(nullptr, name, nullptr)); }
KdfPtr explicit_default(const char* name) { return KdfPtr(EVP_KDF_fetch(nullptr, name, "provider=default")); }

std::string provider_of(const KdfPtr& k) {
    const OSSL_PROVIDER* p = k ? EVP_KDF_get0_provider(k.get()) : nullptr;
    return p ? OSSL_PROVIDER_get0_name(p) : "(none)";
}

TEST(KdfConf, RunsUnderTheProjectConfig) {
    const char* conf = std::getenv("OPENSSL_CONF");
    ASSERT_NE(conf, nullptr) << "CTest sets OPENSSL_CONF=conf/stitch.cnf";
    EXPECT_NE(std::string(conf).find("stitch.cnf"), std::string::npos) << conf;
}

TEST(KdfConf, FetchWithoutPropertiesIsStitchAndDerivesDefaultsBytes) {
    for (const char* name : {"TLS13-KDF", "HKDF"}) {
        for (const char* digest : {"SHA2-256", "SHA2-384", "SHA1"}) {
            SCOPED_TRACE(std::string(name) + " " + digest);
            const KdfPtr s = implicit(name), d = explicit_default(name);
            ASSERT_TRUE(s && d);
            EXPECT_EQ(provider_of(s), "stitch");
            EXPECT_EQ(provider_of(d), "default");
            KdfParamSet p;
            p.mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
            p.digest = digest;
            p.key = Bytes(48, 0x5c);
            p.prefix = Bytes{'t', 'l', 's', '1', '3', ' '};
            p.label = Bytes{'i', 'v'};
            p.infos = {Bytes{1, 2, 3}};
            const DeriveResult a = run_kdf(s, {p}, 12), b = run_kdf(d, {p}, 12);
            EXPECT_EQ(a.rc, 1);
            EXPECT_EQ(a, b);
        }
    }
}

// EVP_PKEY_derive on an HKDF context goes through EVP_KDF underneath.
TEST(KdfConf, PkeyHkdfBridge) {
    auto derive = [](const char* propq) {
        EVP_PKEY_CTX* pctx = EVP_PKEY_CTX_new_from_name(nullptr, "HKDF", propq);
        Bytes out(40);
        size_t len = out.size();
        const unsigned char salt[] = "salt", key[] = "input key material", info[] = "info";
        const bool ok = pctx && EVP_PKEY_derive_init(pctx) == 1 && EVP_PKEY_CTX_set_hkdf_md(pctx, EVP_sha256()) == 1 &&
                        EVP_PKEY_CTX_set1_hkdf_salt(pctx, salt, 4) == 1 &&
                        EVP_PKEY_CTX_set1_hkdf_key(pctx, key, sizeof(key) - 1) == 1 &&
                        EVP_PKEY_CTX_add1_hkdf_info(pctx, info, 2) == 1 &&
                        EVP_PKEY_CTX_add1_hkdf_info(pctx, info + 2, 2) == 1 &&
                        EVP_PKEY_derive(pctx, out.data(), &len) == 1 && len == out.size();
        EVP_PKEY_CTX_free(pctx);
        return ok ? out : Bytes{};
    };
    const Bytes s = derive(nullptr), d = derive("provider=default");
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(to_hex(s), to_hex(d));
}

}  // namespace
}  // namespace stitch::test
