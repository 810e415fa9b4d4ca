// ChaCha20-Poly1305 from stitch against the default provider in one process:
// random keys and nonces, every text length 0..4200 and a few large ones, AAD
// 0..64, random update splits, in place, copies mid-message, and the re-init
// sequences libssl, OpenSSH, libssh and pyca use (docs/openssl-3.0-semantics.md
// #init, #callers).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "aead_driver.hpp"

namespace stitch::test {
namespace {

// Seals m with stitch under `plan` and with default in one shot, and opens the
// result with stitch under a second plan. Returns false on any difference.
bool seal_open_matches(const CipherPair& cp, Rng& rng, const AeadMessage& m) {
    const AeadResult want = seal(cp.reference.get(), m, one_shot_plan(m));
    if (!want.ok) {
        ADD_FAILURE() << "default provider refused to seal";
        return false;
    }
    const AeadPlan seal_plan = random_plan(rng, m.aad.size(), m.text.size());
    const AeadResult got = seal(cp.stitch.get(), m, seal_plan);
    EXPECT_TRUE(got.ok) << seal_plan.describe();
    EXPECT_EQ(to_hex(got.text), to_hex(want.text))
        << "ciphertext, len " << m.text.size() << " " << seal_plan.describe();
    EXPECT_EQ(to_hex(got.tag), to_hex(want.tag)) << "tag, len " << m.text.size() << " " << seal_plan.describe();

    AeadMessage c = m;
    c.text = want.text;
    const AeadPlan open_plan = random_plan(rng, m.aad.size(), m.text.size());
    const AeadResult opened = open(cp.stitch.get(), c, want.tag, open_plan);
    EXPECT_TRUE(opened.ok) << "open refused a good message, len " << m.text.size() << " " << open_plan.describe();
    EXPECT_EQ(to_hex(opened.text), to_hex(m.text)) << "plaintext, len " << m.text.size() << " " << open_plan.describe();
    return !::testing::Test::HasFailure();
}

TEST(AeadDifferential, EveryLength0To4200) {
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    Rng rng = seeded_rng(0x5eed0001);
    for (size_t len = 0; len <= 4200; ++len) {
        const int trials = len <= 320 ? 4 : 2;
        for (int t = 0; t < trials; ++t)
            ASSERT_TRUE(seal_open_matches(cp, rng, random_message(rng, rng.below(65), len))) << "len " << len;
    }
}

TEST(AeadDifferential, EveryAadLength0To64) {
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    Rng rng = seeded_rng(0x5eed0002);
    for (size_t aad = 0; aad <= 64; ++aad)
        for (size_t len : {0, 1, 15, 16, 17, 63, 64, 65, 255, 1000})
            ASSERT_TRUE(seal_open_matches(cp, rng, random_message(rng, aad, len))) << "aad " << aad << " len " << len;
}

TEST(AeadDifferential, LargeMessages) {
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    Rng rng = seeded_rng(0x5eed0003);
    for (size_t len : {size_t(16384), size_t(65536), size_t(65536 + 63), size_t(1 << 20) + 13})
        for (int t = 0; t < 2; ++t)
            ASSERT_TRUE(seal_open_matches(cp, rng, random_message(rng, rng.below(65), len))) << "len " << len;
}

// What a sequence of EVP calls returned and wrote, one line per call, so the
// two providers' runs can be compared line by line.
struct Transcript {
    std::string log;
    void note(const char* what, int rc, const uint8_t* p = nullptr, size_t n = 0) {
        log += std::string(what) + " -> " + std::to_string(rc);
        if (p) log += " " + to_hex(p, n);
        log += "\n";
    }
};

// Runs `script` on stitch and on default and requires the same transcript.
void same_on_both(const char* name, const std::function<void(const EVP_CIPHER*, Transcript&)>& script) {
    const CipherPair cp = fetch_both(name);
    Transcript got, want;
    script(cp.stitch.get(), got);
    script(cp.reference.get(), want);
    EXPECT_EQ(got.log, want.log);
}

// A seal in TLS 1.3 shape on an initialised context: AAD, data, final, tag.
void seal_rest(EVP_CIPHER_CTX* ctx, Transcript& tr, const Bytes& aad, const Bytes& pt) {
    int outl = -1;
    Bytes out(pt.size() + 1), tag(16);
    tr.note("aad", EVP_EncryptUpdate(ctx, nullptr, &outl, aad.data(), int(aad.size())));
    tr.note("data", EVP_EncryptUpdate(ctx, out.data(), &outl, pt.data(), int(pt.size())), out.data(), size_t(outl));
    tr.note("final", EVP_EncryptFinal_ex(ctx, out.data(), &outl));
    tr.note("tag", EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), tag.data(), 16);
}

TEST(AeadDifferential, CipherOnlyThenKeyOnlyThenIvOnlyInit) {
    Rng rng = seeded_rng(0x5eed0004);
    const Bytes key = rng.bytes(32), iv = rng.bytes(12), aad = rng.bytes(5), pt = rng.bytes(300);
    same_on_both("ChaCha20-Poly1305", [&](const EVP_CIPHER* c, Transcript& tr) {
        CipherCtxPtr ctx = new_cipher_ctx();
        tr.note("init cipher", EVP_CipherInit_ex(ctx.get(), c, nullptr, nullptr, nullptr, 1));
        tr.note("ivlen 12", EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr));
        tr.note("init key", EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, key.data(), nullptr, -1));
        tr.note("init iv", EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, nullptr, iv.data(), -1));
        seal_rest(ctx.get(), tr, aad, pt);
    });
}

TEST(AeadDifferential, IvOnlyReinitMidMessageStartsAFreshMessage) {
    Rng rng = seeded_rng(0x5eed0005);
    const Bytes key = rng.bytes(32), iv1 = rng.bytes(12), iv2 = rng.bytes(12), aad = rng.bytes(13), pt = rng.bytes(777);
    same_on_both("ChaCha20-Poly1305", [&](const EVP_CIPHER* c, Transcript& tr) {
        CipherCtxPtr ctx = new_cipher_ctx();
        int outl;
        Bytes junk(7);
        tr.note("init", EVP_EncryptInit_ex(ctx.get(), c, nullptr, key.data(), iv1.data()));
        tr.note("aad", EVP_EncryptUpdate(ctx.get(), nullptr, &outl, aad.data(), 3));
        tr.note("7 bytes", EVP_EncryptUpdate(ctx.get(), junk.data(), &outl, pt.data(), 7), junk.data(), 7);
        tr.note("init iv2", EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, nullptr, iv2.data()));
        seal_rest(ctx.get(), tr, aad, pt);
    });
}

TEST(AeadDifferential, KeyOnlyReinitKeepsTheNonce) {
    Rng rng = seeded_rng(0x5eed0006);
    const Bytes key1 = rng.bytes(32), key2 = rng.bytes(32), iv = rng.bytes(12), aad = rng.bytes(20),
                pt = rng.bytes(130);
    same_on_both("ChaCha20-Poly1305", [&](const EVP_CIPHER* c, Transcript& tr) {
        CipherCtxPtr ctx = new_cipher_ctx();
        int outl;
        Bytes junk(65);
        tr.note("init", EVP_EncryptInit_ex(ctx.get(), c, nullptr, key1.data(), iv.data()));
        tr.note("65 bytes", EVP_EncryptUpdate(ctx.get(), junk.data(), &outl, pt.data(), 65), junk.data(), 65);
        tr.note("init key2", EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key2.data(), nullptr));
        seal_rest(ctx.get(), tr, aad, pt);
    });
}

// libssl TLS 1.3 and OpenSSH reuse one context: iv-only re-init per record.
TEST(AeadDifferential, ManyMessagesOnOneContext) {
    Rng rng = seeded_rng(0x5eed0007);
    const Bytes key = rng.bytes(32);
    std::vector<std::pair<Bytes, Bytes>> msgs;
    for (int i = 0; i < 200; ++i) msgs.emplace_back(rng.bytes(12), rng.bytes(rng.below(600)));
    same_on_both("ChaCha20-Poly1305", [&](const EVP_CIPHER* c, Transcript& tr) {
        CipherCtxPtr ctx = new_cipher_ctx();
        tr.note("init key", EVP_EncryptInit_ex(ctx.get(), c, nullptr, key.data(), nullptr));
        for (auto& [iv, pt] : msgs) {
            tr.note("init iv", EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, nullptr, iv.data()));
            seal_rest(ctx.get(), tr, Bytes(iv.begin(), iv.begin() + 5), pt);
        }
    });
}

// python3-cryptography 38 (docs/openssl-3.0-semantics.md#callers): tag and
// lengths set before the key.
TEST(AeadDifferential, PycaSequence) {
    Rng rng = seeded_rng(0x5eed0008);
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    for (int i = 0; i < 50; ++i) {
        const AeadMessage m = random_message(rng, rng.below(40), rng.below(2000));
        auto run = [&](const EVP_CIPHER* c, int enc, const Bytes& text, const Bytes& tag_in, Bytes& tag_out) {
            CipherCtxPtr ctx = new_cipher_ctx();
            int outl = -1, ok = 1;
            Bytes out(text.size() + 16);
            ok &= EVP_CipherInit_ex(ctx.get(), c, nullptr, nullptr, nullptr, enc);
            ok &= EVP_CIPHER_CTX_set_key_length(ctx.get(), 32);
            ok &= EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr);
            if (!enc)
                ok &= EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, const_cast<uint8_t*>(tag_in.data()));
            ok &= EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, m.key.data(), m.nonce.data(), enc);
            for (size_t at = 0; at < m.aad.size(); at += 7)  // one call per AAD item
                ok &= EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data() + at,
                                       int(std::min<size_t>(7, m.aad.size() - at)));
            ok &= EVP_CipherUpdate(ctx.get(), out.data(), &outl, text.data(), int(text.size()));
            EXPECT_EQ(outl, int(text.size()));
            int fin = EVP_CipherFinal_ex(ctx.get(), out.data() + outl, &outl);
            if (enc) {
                tag_out.assign(16, 0);
                ok &= EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag_out.data());
            }
            out.resize(text.size());
            return std::make_pair(ok == 1 && fin == 1, out);
        };
        Bytes tag_s, tag_d, unused;
        auto [ok_s, ct_s] = run(cp.stitch.get(), 1, m.text, {}, tag_s);
        auto [ok_d, ct_d] = run(cp.reference.get(), 1, m.text, {}, tag_d);
        ASSERT_TRUE(ok_s && ok_d);
        ASSERT_EQ(to_hex(ct_s), to_hex(ct_d));
        ASSERT_EQ(to_hex(tag_s), to_hex(tag_d));
        auto [ok_open, pt] = run(cp.stitch.get(), 0, ct_s, tag_s, unused);
        ASSERT_TRUE(ok_open);
        ASSERT_EQ(to_hex(pt), to_hex(m.text));
        Bytes bad = tag_s;
        bad[i % 16] ^= uint8_t(1 << (i % 8));
        ASSERT_FALSE(run(cp.stitch.get(), 0, ct_s, bad, unused).first) << "pyca order accepted a wrong tag";
    }
}

// A copy taken after a key-only init is keyed but nonce-free: the original and
// the copy then take different nonces and must not share any state.
TEST(AeadDifferential, CopiesAreIndependent) {
    Rng rng = seeded_rng(0x5eed0009);
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    const Bytes key = rng.bytes(32);
    for (int i = 0; i < 20; ++i) {
        AeadMessage a = random_message(rng, rng.below(30), rng.below(500));
        AeadMessage b = random_message(rng, rng.below(30), rng.below(500));
        a.key = b.key = key;
        CipherCtxPtr base = new_cipher_ctx();
        ASSERT_EQ(EVP_EncryptInit_ex(base.get(), cp.stitch.get(), nullptr, key.data(), nullptr), 1);
        CipherCtxPtr copy = new_cipher_ctx();
        ASSERT_EQ(EVP_CIPHER_CTX_copy(copy.get(), base.get()), 1);
        ASSERT_EQ(EVP_EncryptInit_ex(base.get(), nullptr, nullptr, nullptr, a.nonce.data()), 1);
        ASSERT_EQ(EVP_EncryptInit_ex(copy.get(), nullptr, nullptr, nullptr, b.nonce.data()), 1);
        // Interleave the two messages call by call.
        int outl;
        Bytes ca(a.text.size()), cb(b.text.size()), ta(16), tb(16);
        ASSERT_EQ(EVP_EncryptUpdate(base.get(), nullptr, &outl, a.aad.data(), int(a.aad.size())), 1);
        ASSERT_EQ(EVP_EncryptUpdate(copy.get(), nullptr, &outl, b.aad.data(), int(b.aad.size())), 1);
        size_t half_a = a.text.size() / 2, half_b = b.text.size() / 2;
        ASSERT_EQ(EVP_EncryptUpdate(base.get(), ca.data(), &outl, a.text.data(), int(half_a)), 1);
        ASSERT_EQ(EVP_EncryptUpdate(copy.get(), cb.data(), &outl, b.text.data(), int(half_b)), 1);
        ASSERT_EQ(EVP_EncryptUpdate(base.get(), ca.data() + half_a, &outl, a.text.data() + half_a,
                                    int(a.text.size() - half_a)),
                  1);
        if (i % 2) base.reset();  // the copy must outlive its original
        ASSERT_EQ(EVP_EncryptUpdate(copy.get(), cb.data() + half_b, &outl, b.text.data() + half_b,
                                    int(b.text.size() - half_b)),
                  1);
        ASSERT_EQ(EVP_EncryptFinal_ex(copy.get(), cb.data(), &outl), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(copy.get(), EVP_CTRL_AEAD_GET_TAG, 16, tb.data()), 1);
        if (base) {
            ASSERT_EQ(EVP_EncryptFinal_ex(base.get(), ca.data(), &outl), 1);
            ASSERT_EQ(EVP_CIPHER_CTX_ctrl(base.get(), EVP_CTRL_AEAD_GET_TAG, 16, ta.data()), 1);
            const AeadResult want_a = seal(cp.reference.get(), a, one_shot_plan(a));
            EXPECT_EQ(to_hex(ca), to_hex(want_a.text));
            EXPECT_EQ(to_hex(ta), to_hex(want_a.tag));
        }
        const AeadResult want_b = seal(cp.reference.get(), b, one_shot_plan(b));
        EXPECT_EQ(to_hex(cb), to_hex(want_b.text));
        EXPECT_EQ(to_hex(tb), to_hex(want_b.tag));
    }
}

}  // namespace
}  // namespace stitch::test
