// The provider's answers to what a caller rarely does but may: params of the
// wrong type or width, a NULL data pointer, a param it does not know, an
// operation it does not offer, freectx(NULL), a TLS record whose buffers
// overlap, an empty EVP_Cipher call, a whole-record open through the kernel
// API after text. Each refusal names stitch's reason;
// each acceptance gives the exact value. Found by the branch coverage run
// (scripts/test-coverage.sh): these were the branches no test took.
#include <gtest/gtest.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstring>
#include <string>

#include "common/kernel_set_param.hpp"
#include "common/stitch_errors.hpp"
#include "common/test_util.hpp"
#include "dispatch_cipher.hpp"
#include "kernels/aead.hpp"

namespace stitch::test {
namespace {

using prov::Reason;

CipherCtxPtr stitch_ctx(const char* name, bool enc, bool with_key) {
    static const Bytes key(64, 7), iv(16, 9);
    CipherPtr c = providers().fetch(name, "stitch");
    CipherCtxPtr ctx = new_cipher_ctx();
    EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), c.get(), nullptr, with_key ? key.data() : nullptr,
                                with_key ? iv.data() : nullptr, enc),
              1);
    return ctx;
}

void expect_refused_set(EVP_CIPHER_CTX* ctx, OSSL_PARAM p, Reason why) {
    ERR_clear_error();
    OSSL_PARAM params[] = {p, OSSL_PARAM_END};
    EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx, params), 0) << p.key;
    expect_stitch_error(why);
}

void expect_refused_get(EVP_CIPHER_CTX* ctx, OSSL_PARAM p, Reason why) {
    ERR_clear_error();
    OSSL_PARAM params[] = {p, OSSL_PARAM_END};
    EXPECT_EQ(EVP_CIPHER_CTX_get_params(ctx, params), 0) << p.key;
    expect_stitch_error(why);
}

// ChaCha20-Poly1305's own params: the tag, the TLS AAD and fixed IV, the
// lengths, each given in a type or shape it must refuse.
TEST(ProviderCorners, AeadParamsOfTheWrongTypeAreRefused) {
    CipherCtxPtr ctx = stitch_ctx("ChaCha20-Poly1305", false, true);
    size_t n = 16;
    uint8_t bytes[16] = {};
    expect_refused_set(ctx.get(), OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_TAG, &n), prov::R_INVALID_PARAM);
    expect_refused_set(ctx.get(), OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, &n),
                       prov::R_INVALID_TLS_AAD);
    expect_refused_set(ctx.get(), OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, nullptr, 13),
                       prov::R_INVALID_TLS_AAD);
    expect_refused_set(ctx.get(), OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, &n),
                       prov::R_INVALID_IV_LENGTH);
    expect_refused_set(ctx.get(), OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, bytes, 11),
                       prov::R_INVALID_IV_LENGTH);
    expect_refused_set(ctx.get(), OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, nullptr, 12),
                       prov::R_INVALID_IV_LENGTH);
    expect_refused_set(ctx.get(), OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_IVLEN, bytes, 8),
                       prov::R_INVALID_PARAM);

    // Encrypt side: the tag read into a NULL buffer, lengths read as octets.
    CipherCtxPtr enc = stitch_ctx("ChaCha20-Poly1305", true, true);
    int outl = 0;
    ASSERT_EQ(EVP_EncryptFinal_ex(enc.get(), bytes, &outl), 1);
    expect_refused_get(enc.get(), OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 16),
                       prov::R_INVALID_PARAM);
    expect_refused_get(enc.get(), OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_TAG, &n), prov::R_INVALID_PARAM);
    for (const char* key : {OSSL_CIPHER_PARAM_IVLEN, OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_AEAD_TAGLEN,
                            OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD})
        expect_refused_get(enc.get(), OSSL_PARAM_construct_octet_string(key, bytes, sizeof bytes), prov::R_INVALID_PARAM);
}

// Lengths asked for in another integer width, or with no buffer (the size
// a caller should allocate): answered through OpenSSL's conversions.
TEST(ProviderCorners, LengthsInOtherWidthsAndWithoutABuffer) {
    for (const char* name : {"ChaCha20-Poly1305", "ChaCha20", "chacha20-poly1305@openssh.com"}) {
        CipherCtxPtr ctx = stitch_ctx(name, true, true);
        const unsigned want_iv = std::strcmp(name, "ChaCha20") == 0 ? 16 : std::strcmp(name, "ChaCha20-Poly1305") == 0 ? 12 : 8;
        uint32_t ivlen = 0;
        OSSL_PARAM p32[] = {OSSL_PARAM_construct_uint32(OSSL_CIPHER_PARAM_IVLEN, &ivlen), OSSL_PARAM_END};
        EXPECT_EQ(EVP_CIPHER_CTX_get_params(ctx.get(), p32), 1) << name;
        EXPECT_EQ(ivlen, want_iv) << name;
        OSSL_PARAM none[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr), OSSL_PARAM_END};
        EXPECT_EQ(EVP_CIPHER_CTX_get_params(ctx.get(), none), 1) << name;
        EXPECT_EQ(none[0].return_size, sizeof(size_t)) << name;
        // Set in another width: the right value is taken, a wrong one refused by name.
        uint32_t keylen = std::strcmp(name, "chacha20-poly1305@openssh.com") == 0 ? 64 : 32;
        OSSL_PARAM set32[] = {OSSL_PARAM_construct_uint32(OSSL_CIPHER_PARAM_KEYLEN, &keylen), OSSL_PARAM_END};
        EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx.get(), set32), 1) << name;
        keylen = 31;
        ERR_clear_error();
        EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx.get(), set32), 0) << name;
        expect_stitch_error(prov::R_INVALID_KEY_LENGTH);
    }
}

// Raw ChaCha20 and the OpenSSH cipher share the fixed-length params.
TEST(ProviderCorners, FixedLengthParamsOfTheWrongTypeAreRefused) {
    uint8_t bytes[8] = {};
    for (const char* name : {"ChaCha20", "chacha20-poly1305@openssh.com"}) {
        SCOPED_TRACE(name);
        CipherCtxPtr ctx = stitch_ctx(name, true, true);
        for (const char* key : {OSSL_CIPHER_PARAM_IVLEN, OSSL_CIPHER_PARAM_KEYLEN}) {
            expect_refused_get(ctx.get(), OSSL_PARAM_construct_octet_string(key, bytes, sizeof bytes), prov::R_INVALID_PARAM);
            expect_refused_set(ctx.get(), OSSL_PARAM_construct_octet_string(key, bytes, sizeof bytes), prov::R_INVALID_PARAM);
        }
        // A size with no bytes behind it cannot be read.
        expect_refused_set(ctx.get(), OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr), prov::R_INVALID_PARAM);
    }
}

// Keys a provider does not know are ignored, as OpenSSL's own providers
// ignore them (libssl sets tls-version and tls-mac-size on every cipher):
// accepted, and the param left as it was.
TEST(ProviderCorners, UnknownParamKeysAreIgnored) {
    int v = 7;
    const auto unknown = [&v] {
        v = 7;
        return OSSL_PARAM_construct_int("no-such-param", &v);
    };
    for (const char* name : {"ChaCha20-Poly1305", "ChaCha20", "chacha20-poly1305@openssh.com"}) {
        CipherCtxPtr ctx = stitch_ctx(name, true, true);
        OSSL_PARAM p[] = {unknown(), OSSL_PARAM_END};
        EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx.get(), p), 1) << name;
        EXPECT_EQ(EVP_CIPHER_CTX_get_params(ctx.get(), p), 1) << name;
        CipherPtr c = providers().fetch(name, "stitch");
        EXPECT_EQ(EVP_CIPHER_get_params(c.get(), p), 1) << name;
        EXPECT_EQ(v, 7) << name;
    }
    MacPtr mac = providers().fetch_mac("POLY1305", "stitch");
    MacCtxPtr m = new_mac_ctx(mac);
    OSSL_PARAM p[] = {unknown(), OSSL_PARAM_END};
    EXPECT_EQ(EVP_MAC_CTX_set_params(m.get(), p), 1);
    EXPECT_EQ(EVP_MAC_CTX_get_params(m.get(), p), 1);
    EXPECT_EQ(EVP_MAC_get_params(mac.get(), p), 1);
    EXPECT_EQ(OSSL_PROVIDER_get_params(providers().stitch(), p), 1);
    EXPECT_EQ(v, 7);
}

// NULL param lists, which EVP filters out but a direct caller of the
// dispatch table may pass: nothing to do, success.
TEST(ProviderCorners, NullParamListsThroughTheDispatchTable) {
    const Bytes key(64, 1), iv(16, 2);
    for (const char* name : {"ChaCha20-Poly1305", "ChaCha20", "chacha20-poly1305@openssh.com"}) {
        DispatchCipher c(providers().stitch(), name);
        EXPECT_EQ(c.set_params(nullptr), 1) << name;
        EXPECT_EQ(c.get_params(nullptr), 1) << name;
    }
    int no_cache = 0;
    const OSSL_ALGORITHM* algs = OSSL_PROVIDER_query_operation(providers().stitch(), OSSL_OP_CIPHER, &no_cache);
    ASSERT_NE(algs, nullptr);
    for (const OSSL_ALGORITHM* a = algs; a->algorithm_names; ++a) {
        for (const OSSL_DISPATCH* d = a->implementation; d->function_id; ++d) {
            if (d->function_id == OSSL_FUNC_CIPHER_GET_PARAMS) {
                EXPECT_EQ(reinterpret_cast<OSSL_FUNC_cipher_get_params_fn*>(d->function)(nullptr), 1) << a->algorithm_names;
            }
        }
    }
    OSSL_PROVIDER_unquery_operation(providers().stitch(), OSSL_OP_CIPHER, algs);
    EXPECT_EQ(OSSL_PROVIDER_get_params(providers().stitch(), nullptr), 1);
}

// The MAC's dispatch table: NULL param lists, and a final with no output
// buffer (EVP_MAC_final answers the size itself and never asks stitch).
TEST(ProviderCorners, MacThroughItsDispatchTable) {
    int no_cache = 0;
    const OSSL_ALGORITHM* algs = OSSL_PROVIDER_query_operation(providers().stitch(), OSSL_OP_MAC, &no_cache);
    ASSERT_NE(algs, nullptr);
    OSSL_FUNC_mac_newctx_fn* newctx = nullptr;
    OSSL_FUNC_mac_freectx_fn* freectx = nullptr;
    OSSL_FUNC_mac_init_fn* init = nullptr;
    OSSL_FUNC_mac_final_fn* final = nullptr;
    OSSL_FUNC_mac_get_params_fn* get_params = nullptr;
    OSSL_FUNC_mac_get_ctx_params_fn* get_ctx_params = nullptr;
    OSSL_FUNC_mac_set_ctx_params_fn* set_ctx_params = nullptr;
    for (const OSSL_ALGORITHM* a = algs; a->algorithm_names; ++a) {
        if (std::strstr(a->algorithm_names, "POLY1305") == nullptr) continue;
        for (const OSSL_DISPATCH* d = a->implementation; d->function_id; ++d) {
            switch (d->function_id) {
                case OSSL_FUNC_MAC_NEWCTX: newctx = reinterpret_cast<OSSL_FUNC_mac_newctx_fn*>(d->function); break;
                case OSSL_FUNC_MAC_FREECTX: freectx = reinterpret_cast<OSSL_FUNC_mac_freectx_fn*>(d->function); break;
                case OSSL_FUNC_MAC_INIT: init = reinterpret_cast<OSSL_FUNC_mac_init_fn*>(d->function); break;
                case OSSL_FUNC_MAC_FINAL: final = reinterpret_cast<OSSL_FUNC_mac_final_fn*>(d->function); break;
                case OSSL_FUNC_MAC_GET_PARAMS: get_params = reinterpret_cast<OSSL_FUNC_mac_get_params_fn*>(d->function); break;
                case OSSL_FUNC_MAC_GET_CTX_PARAMS:
                    get_ctx_params = reinterpret_cast<OSSL_FUNC_mac_get_ctx_params_fn*>(d->function);
                    break;
                case OSSL_FUNC_MAC_SET_CTX_PARAMS:
                    set_ctx_params = reinterpret_cast<OSSL_FUNC_mac_set_ctx_params_fn*>(d->function);
                    break;
                default: break;
            }
        }
    }
    ASSERT_TRUE(newctx && freectx && init && final && get_params && get_ctx_params && set_ctx_params);
    void* ctx = newctx(OSSL_PROVIDER_get0_provider_ctx(providers().stitch()));
    ASSERT_NE(ctx, nullptr);
    EXPECT_EQ(get_params(nullptr), 1);
    EXPECT_EQ(get_ctx_params(ctx, nullptr), 1);
    EXPECT_EQ(set_ctx_params(ctx, nullptr), 1);
    const Bytes key(32, 3);
    ASSERT_EQ(init(ctx, key.data(), key.size(), nullptr), 1);
    size_t outl = 99;
    ERR_clear_error();
    EXPECT_EQ(final(ctx, nullptr, &outl, 16), 0);
    expect_stitch_error(prov::R_NULL_BUFFER);
    freectx(ctx);
    OSSL_PROVIDER_unquery_operation(providers().stitch(), OSSL_OP_MAC, algs);
}

// The algorithm params (EVP_CIPHER_get_params, EVP_MAC_get_params) are
// answered from constants while the core builds the method, with no
// context to raise an error on: a wrong type is a plain 0.
TEST(ProviderCorners, AlgorithmParamsOfTheWrongTypeAreRefused) {
    uint8_t bytes[8] = {};
    for (const char* name : {"ChaCha20-Poly1305", "ChaCha20", "chacha20-poly1305@openssh.com"}) {
        CipherPtr c = providers().fetch(name, "stitch");
        for (const char* key : {OSSL_CIPHER_PARAM_MODE, OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_IVLEN,
                                OSSL_CIPHER_PARAM_BLOCK_SIZE, OSSL_CIPHER_PARAM_AEAD, OSSL_CIPHER_PARAM_CUSTOM_IV,
                                OSSL_CIPHER_PARAM_CTS, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK,
                                OSSL_CIPHER_PARAM_HAS_RAND_KEY}) {
            OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(key, bytes, sizeof bytes), OSSL_PARAM_END};
            EXPECT_EQ(EVP_CIPHER_get_params(c.get(), p), 0) << name << " " << key;
        }
    }
    MacPtr mac = providers().fetch_mac("POLY1305", "stitch");
    OSSL_PARAM size[] = {OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_SIZE, bytes, sizeof bytes), OSSL_PARAM_END};
    EXPECT_EQ(EVP_MAC_get_params(mac.get(), size), 0);
    // The provider's own params: `kernel` is a UTF-8 pointer, not an integer.
    int kernel = 0;
    OSSL_PARAM k[] = {OSSL_PARAM_construct_int("kernel", &kernel), OSSL_PARAM_END};
    EXPECT_EQ(OSSL_PROVIDER_get_params(providers().stitch(), k), 0);
}

TEST(ProviderCorners, MacParamsOfTheWrongTypeAreRefused) {
    MacPtr mac = providers().fetch_mac("POLY1305", "stitch");
    MacCtxPtr ctx = new_mac_ctx(mac);
    size_t n = 32;
    OSSL_PARAM as_size[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_KEY, &n), OSSL_PARAM_END};
    ERR_clear_error();
    EXPECT_EQ(EVP_MAC_CTX_set_params(ctx.get(), as_size), 0);
    expect_stitch_error(prov::R_INVALID_PARAM);
    // A 32-byte key param with no bytes behind it.
    OSSL_PARAM no_data[] = {OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, nullptr, 32), OSSL_PARAM_END};
    ERR_clear_error();
    EXPECT_EQ(EVP_MAC_CTX_set_params(ctx.get(), no_data), 0);
    expect_stitch_error(prov::R_NULL_BUFFER);
    uint8_t bytes[8];
    OSSL_PARAM size[] = {OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_SIZE, bytes, sizeof bytes), OSSL_PARAM_END};
    ERR_clear_error();
    EXPECT_EQ(EVP_MAC_CTX_get_params(ctx.get(), size), 0);
    expect_stitch_error(prov::R_INVALID_PARAM);
}

// What OpenSSL never asks but a provider must survive: an operation stitch
// does not offer, and freectx(NULL) on every algorithm.
TEST(ProviderCorners, UnofferedOperationsAndFreeOfNull) {
    int no_cache = 1;
    EXPECT_EQ(OSSL_PROVIDER_query_operation(providers().stitch(), OSSL_OP_DIGEST, &no_cache), nullptr);
    EXPECT_EQ(no_cache, 0);
    int freed = 0;
    for (int op : {OSSL_OP_CIPHER, OSSL_OP_MAC}) {
        const OSSL_ALGORITHM* algs = OSSL_PROVIDER_query_operation(providers().stitch(), op, &no_cache);
        ASSERT_NE(algs, nullptr);
        for (const OSSL_ALGORITHM* a = algs; a->algorithm_names; ++a)
            for (const OSSL_DISPATCH* d = a->implementation; d->function_id; ++d)
                if ((op == OSSL_OP_CIPHER && d->function_id == OSSL_FUNC_CIPHER_FREECTX) ||
                    (op == OSSL_OP_MAC && d->function_id == OSSL_FUNC_MAC_FREECTX)) {
                    reinterpret_cast<void (*)(void*)>(d->function)(nullptr);
                    ++freed;
                }
        OSSL_PROVIDER_unquery_operation(providers().stitch(), op, algs);
    }
    EXPECT_GE(freed, 4);  // three ciphers and the MAC, whatever else is added
}

// A TLS 1.2 record whose output overlaps its input other than in place:
// refused before anything is written (EVP passes it on only through the
// dispatch table's own cipher call).
TEST(ProviderCorners, TlsRecordWithOverlappingBuffersIsRefused) {
    DispatchCipher c(providers().stitch(), "ChaCha20-Poly1305");
    const Bytes key(32, 1), iv(12, 2);
    ASSERT_EQ(c.init(1, key.data(), key.size(), iv.data(), iv.size()), 1);
    uint8_t header[13] = {0, 0, 0, 0, 0, 0, 0, 1, 0x17, 3, 3, 0, 20};
    OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, header, 13), OSSL_PARAM_END};
    ASSERT_EQ(c.set_params(p), 1);
    Bytes buf(64, 0x33);
    const Bytes before = buf;
    size_t outl = 99;
    ERR_clear_error();
    EXPECT_EQ(c.cipher(buf.data() + 3, &outl, 36, buf.data(), 36), 0);
    expect_stitch_error(prov::R_OVERLAPPING_BUFFERS);
    EXPECT_EQ(buf, before);
}

// EVP_Cipher with no bytes on the OpenSSH cipher: nothing happens, nothing
// is used up (the packet after it still seals).
TEST(ProviderCorners, EmptyOpensshCallIsANoOp) {
    CipherCtxPtr ctx = stitch_ctx("chacha20-poly1305@openssh.com", true, true);
    uint8_t buf[4 + 16] = {0, 0, 0, 0};
    EXPECT_EQ(EVP_Cipher(ctx.get(), buf, buf, 0), 0);
    EXPECT_EQ(EVP_Cipher(ctx.get(), buf, buf, sizeof buf), int(sizeof buf));
}

// The kernel API's whole-record open takes a message with no text yet (the
// provider's TLS path always starts one): after text it refuses and writes
// nothing, on every kernel set.
class KernelCorners : public OnEverySet {};

TEST_P(KernelCorners, WholeRecordOpenNeedsAMessageWithoutText) {
    const KernelSet& set = GetParam();
    const Bytes key(32, 4), nonce(12, 5), in(40, 6), tag(16, 0);
    kern::AeadState st;
    kern::aead_init(st, *set.impl, kern::Grid::rfc8439);
    kern::aead_set_key(st, key.data());
    kern::aead_set_nonce(st, nonce.data());
    Bytes out(in.size(), 0xee);
    ASSERT_TRUE(kern::aead_text(st, kern::Direction::open, in.data(), out.data(), 8));
    Bytes rest(in.size(), 0xee);
    EXPECT_FALSE(kern::aead_open_record(st, in.data(), rest.data(), in.size(), tag.data())) << set.label;
    EXPECT_EQ(rest, Bytes(in.size(), 0xee)) << set.label;
    kern::aead_wipe(st);
}

STITCH_INSTANTIATE_ON_EVERY_SET(KernelCorners);

}  // namespace
}  // namespace stitch::test
