// Refusals of stitch's POLY1305: each names stitch's reason, writes nothing,
// and leaves a context that a good init brings back. Where EVP itself checks
// first (the output size in EVP_MAC_final), the provider's own check is
// reached by calling its dispatch table directly.
#include <openssl/core_dispatch.h>
#include <openssl/provider.h>

#include <cstring>

#include "mac_support.hpp"

namespace stitch::test {
namespace {

using prov::Reason;

const Bytes kFill(32, 0xee);  // what an output buffer holds before a refused call

// A refused final leaves the buffer as it was and reports no length.
void expect_final_refused(EVP_MAC_CTX* ctx, Reason why) {
    Bytes out = kFill;
    size_t outl = 99;
    EXPECT_EQ(EVP_MAC_final(ctx, out.data(), &outl, out.size()), 0);
    expect_stitch_error(why);
    EXPECT_EQ(outl, 0u);
    EXPECT_EQ(to_hex(out), to_hex(kFill)) << "a refused final wrote output";
}

// After any refusal a new key makes the context right again.
void expect_recovers(EVP_MAC_CTX* ctx, Rng& rng) {
    const Bytes key = rng.bytes(kPolyKeyLen), msg = rng.bytes(45);
    ASSERT_EQ(EVP_MAC_init(ctx, key.data(), key.size(), nullptr), 1);
    ASSERT_EQ(EVP_MAC_update(ctx, msg.data(), msg.size()), 1);
    EXPECT_EQ(final_hex(ctx), one_shot_hex(fetch_poly1305("default"), key, msg));
}

class Poly1305BadInput : public ::testing::Test {
protected:
    void SetUp() override { ERR_clear_error(); }
    // A good init with `key`, then `msg` in one update (none when empty).
    bool start(const Bytes& key, const Bytes& msg = {}) {
        return EVP_MAC_init(ctx_.get(), key.data(), key.size(), nullptr) == 1 &&
               (msg.empty() || EVP_MAC_update(ctx_.get(), msg.data(), msg.size()) == 1);
    }
    MacPtr mac_ = fetch_poly1305("stitch");
    MacCtxPtr ctx_ = new_mac_ctx(mac_);
};

TEST_F(Poly1305BadInput, WrongKeyLengthAtInit) {
    Rng rng = seeded_rng(0xbad'1305);
    const Bytes long_key = rng.bytes(64);
    for (size_t len : {0, 1, 16, 31, 33, 64}) {
        EXPECT_EQ(EVP_MAC_init(ctx_.get(), long_key.data(), len, nullptr), 0) << "key length " << len;
        expect_stitch_error(prov::R_INVALID_KEY_LENGTH);
        expect_final_refused(ctx_.get(), prov::R_KEY_NOT_SET);
        expect_recovers(ctx_.get(), rng);
    }
}

TEST_F(Poly1305BadInput, WrongKeyLengthDropsTheOldKey) {
    Rng rng = seeded_rng(0xbad'0001);
    const Bytes good = rng.bytes(32), bad = rng.bytes(31), msg = rng.bytes(20);
    ASSERT_TRUE(start(good));
    EXPECT_EQ(EVP_MAC_init(ctx_.get(), bad.data(), bad.size(), nullptr), 0);
    expect_stitch_error(prov::R_INVALID_KEY_LENGTH);
    EXPECT_EQ(EVP_MAC_update(ctx_.get(), msg.data(), msg.size()), 0) << "MACed under a key the caller replaced";
    expect_stitch_error(prov::R_KEY_NOT_SET);
    expect_recovers(ctx_.get(), rng);
}

TEST_F(Poly1305BadInput, WrongKeyParam) {
    Rng rng = seeded_rng(0xbad'0002);
    for (size_t len : {0, 16, 31, 33}) {
        const Bytes key = rng.bytes(len);
        const KeyParam kp(key);
        EXPECT_EQ(EVP_MAC_CTX_set_params(ctx_.get(), kp.p), 0) << "set_params, key length " << len;
        expect_stitch_error(prov::R_INVALID_KEY_LENGTH);
        EXPECT_EQ(EVP_MAC_init(ctx_.get(), nullptr, 0, kp.p), 0) << "init params, key length " << len;
        expect_stitch_error(prov::R_INVALID_KEY_LENGTH);
        expect_final_refused(ctx_.get(), prov::R_KEY_NOT_SET);
    }
    // The right length in the wrong type.
    char text[33] = "0123456789abcdef0123456789abcdef";
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_KEY, text, 32), OSSL_PARAM_construct_end()};
    EXPECT_EQ(EVP_MAC_CTX_set_params(ctx_.get(), p), 0);
    expect_stitch_error(prov::R_INVALID_PARAM);
    expect_final_refused(ctx_.get(), prov::R_KEY_NOT_SET);
    expect_recovers(ctx_.get(), rng);
}

TEST_F(Poly1305BadInput, NoKey) {
    Rng rng = seeded_rng(0xbad'0003);
    const Bytes msg = rng.bytes(10);
    EXPECT_EQ(EVP_MAC_init(ctx_.get(), nullptr, 0, nullptr), 1) << "a key may still come as a param";
    EXPECT_EQ(EVP_MAC_update(ctx_.get(), msg.data(), msg.size()), 0);
    expect_stitch_error(prov::R_KEY_NOT_SET);
    EXPECT_EQ(EVP_MAC_update(ctx_.get(), msg.data(), 0), 0) << "even an empty update needs a key";
    expect_stitch_error(prov::R_KEY_NOT_SET);
    expect_final_refused(ctx_.get(), prov::R_KEY_NOT_SET);
    expect_recovers(ctx_.get(), rng);
}

// A one-time key tags one message: after final it is gone; after data, an
// init without a new key is refused (OpenSSL 3.0 returns 0 there too, and
// crashes on the calls after final).
TEST_F(Poly1305BadInput, SpentKey) {
    Rng rng = seeded_rng(0xbad'0004);
    const Bytes key = rng.bytes(32), msg = rng.bytes(40);
    ASSERT_TRUE(start(key, msg));
    EXPECT_EQ(EVP_MAC_init(ctx_.get(), nullptr, 0, nullptr), 0);
    expect_stitch_error(prov::R_KEY_ALREADY_USED);
    ASSERT_NE(final_hex(ctx_.get()), "(final refused)") << "the refused init must not drop the message";

    EXPECT_EQ(EVP_MAC_update(ctx_.get(), msg.data(), msg.size()), 0) << "update after final";
    expect_stitch_error(prov::R_KEY_NOT_SET);
    expect_final_refused(ctx_.get(), prov::R_KEY_NOT_SET);
    EXPECT_EQ(EVP_MAC_init(ctx_.get(), nullptr, 0, nullptr), 0) << "init without a key after final";
    expect_stitch_error(prov::R_KEY_ALREADY_USED);
    expect_recovers(ctx_.get(), rng);

    // The same refusal from the default provider, without crashing it.
    MacCtxPtr ref = new_mac_ctx(fetch_poly1305("default"));
    ASSERT_EQ(EVP_MAC_init(ref.get(), key.data(), key.size(), nullptr), 1);
    ASSERT_EQ(EVP_MAC_update(ref.get(), msg.data(), msg.size()), 1);
    EXPECT_EQ(EVP_MAC_init(ref.get(), nullptr, 0, nullptr), 0);
    ERR_clear_error();
}

TEST_F(Poly1305BadInput, NullDataWithLength) {
    Rng rng = seeded_rng(0xbad'0005);
    ASSERT_TRUE(start(rng.bytes(32)));
    EXPECT_EQ(EVP_MAC_update(ctx_.get(), nullptr, 5), 0);
    expect_stitch_error(prov::R_NULL_BUFFER);
    expect_recovers(ctx_.get(), rng);
}

// EVP_MAC_final checks the size itself (EVP_R_BUFFER_TOO_SMALL) before the
// provider runs; the message survives and finishes with a big enough buffer.
TEST_F(Poly1305BadInput, SmallOutputThroughEvp) {
    Rng rng = seeded_rng(0xbad'0006);
    const Bytes key = rng.bytes(32), msg = rng.bytes(33);
    ASSERT_TRUE(start(key, msg));
    Bytes out = kFill;
    size_t outl = 99;
    EXPECT_EQ(EVP_MAC_final(ctx_.get(), out.data(), &outl, 15), 0);
    const unsigned long e = ERR_get_error();
    EXPECT_EQ(ERR_GET_LIB(e), ERR_LIB_EVP);
    EXPECT_EQ(ERR_GET_REASON(e), EVP_R_BUFFER_TOO_SMALL);
    EXPECT_EQ(to_hex(out), to_hex(kFill));
    EXPECT_EQ(final_hex(ctx_.get()), one_shot_hex(fetch_poly1305("default"), key, msg));
}

// stitch's final itself, from its dispatch table: every output size below 16
// is refused with stitch's reason, writes nothing and keeps the message.
TEST_F(Poly1305BadInput, SmallOutputAtTheProvider) {
    OSSL_PROVIDER* prov = providers().stitch();
    int no_cache = 0;
    const OSSL_ALGORITHM* algs = OSSL_PROVIDER_query_operation(prov, OSSL_OP_MAC, &no_cache);
    ASSERT_NE(algs, nullptr);
    const OSSL_DISPATCH* fns = nullptr;
    for (; algs->algorithm_names; ++algs)
        if (std::strcmp(algs->algorithm_names, "POLY1305") == 0) fns = algs->implementation;
    ASSERT_NE(fns, nullptr) << "stitch offers no POLY1305";
    OSSL_FUNC_mac_newctx_fn* newctx = nullptr;
    OSSL_FUNC_mac_freectx_fn* freectx = nullptr;
    OSSL_FUNC_mac_init_fn* init = nullptr;
    OSSL_FUNC_mac_update_fn* update = nullptr;
    OSSL_FUNC_mac_final_fn* final = nullptr;
    for (; fns->function_id; ++fns) {
        switch (fns->function_id) {
            case OSSL_FUNC_MAC_NEWCTX: newctx = OSSL_FUNC_mac_newctx(fns); break;
            case OSSL_FUNC_MAC_FREECTX: freectx = OSSL_FUNC_mac_freectx(fns); break;
            case OSSL_FUNC_MAC_INIT: init = OSSL_FUNC_mac_init(fns); break;
            case OSSL_FUNC_MAC_UPDATE: update = OSSL_FUNC_mac_update(fns); break;
            case OSSL_FUNC_MAC_FINAL: final = OSSL_FUNC_mac_final(fns); break;
        }
    }
    ASSERT_TRUE(newctx && freectx && init && update && final);

    Rng rng = seeded_rng(0xbad'0007);
    const Bytes key = rng.bytes(32), msg = rng.bytes(21);
    void* c = newctx(OSSL_PROVIDER_get0_provider_ctx(prov));
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(init(c, key.data(), key.size(), nullptr), 1);
    ASSERT_EQ(update(c, msg.data(), msg.size()), 1);
    for (size_t size = 0; size < kPolyTagLen; ++size) {
        Bytes out = kFill;
        size_t outl = 99;
        EXPECT_EQ(final(c, out.data(), &outl, size), 0) << "output size " << size;
        expect_stitch_error(prov::R_OUTPUT_BUFFER_TOO_SMALL);
        EXPECT_EQ(outl, 0u);
        EXPECT_EQ(to_hex(out), to_hex(kFill)) << "output size " << size;
    }
    Bytes tag(kPolyTagLen);
    size_t outl = 0;
    ASSERT_EQ(final(c, tag.data(), &outl, tag.size()), 1);
    EXPECT_EQ(outl, kPolyTagLen);
    EXPECT_EQ(to_hex(tag), one_shot_hex(fetch_poly1305("default"), key, msg));
    freectx(c);
}

}  // namespace
}  // namespace stitch::test
