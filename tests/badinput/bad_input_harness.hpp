// What every row of the bad-input table must satisfy. A row takes a fresh
// stitch context (through EVP or straight through the provider's dispatch
// table), brings it to some state, and makes one bad call. Then:
//   1. the call was refused;
//   2. the last error on the queue is stitch's (its library, the row's
//      reason, that reason's text from provider/reasons.hpp);
//   3. nothing was written: the canary-filled output and the input are
//      intact, and *outl is what the door documents: stitch writes 0 before
//      any check, EVP leaves a failed call's outl as it was (or 0). (Only a
//      packet or record refused by its tag leaves zeros; no row is that.)
//   4. the same context, after a good re-init, seals and opens a message
//      exactly as the default provider does.
#pragma once

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "common/evp_handles.hpp"
#include "common/stitch_errors.hpp"
#include "common/test_util.hpp"
#include "dispatch_cipher.hpp"
#include "provider/reasons.hpp"
#include "reference.hpp"

namespace stitch::test {

enum class Alg { aead, chacha20, openssh };
enum class Door { evp, dispatch };

struct AlgInfo {
    const char* name;
    size_t keylen, ivlen;
};
inline AlgInfo info(Alg a) {
    switch (a) {
        case Alg::aead:
            return {"ChaCha20-Poly1305", 32, 12};
        case Alg::chacha20:
            return {"ChaCha20", 32, 16};
        default:
            return {"chacha20-poly1305@openssh.com", 64, 8};
    }
}

constexpr uint8_t kCanary = 0xa5;
constexpr size_t kOutlUnset = 0xdeadbeef;  // what a row's outl holds before the call
constexpr int kEvpOutlUnset = -77;

// What a row works on: a stitch context reached both ways, a right-sized key
// and IV, random input, and canary-filled output.
struct Scene {
    Alg alg;
    CipherPtr cipher;
    CipherCtxPtr ctx = new_cipher_ctx();
    DispatchCipher direct;
    Bytes key, iv;
    Bytes in;       // random, 512 bytes: must be unchanged after the refusal
    Bytes out;      // canary, 512 bytes: must be unchanged after the refusal
    Bytes scratch;  // where the good calls before the bad one write
    size_t outl = kOutlUnset;
    int evp_outl = kEvpOutlUnset;

    Scene(Alg a, Rng& rng)
        : alg(a),
          direct(providers().stitch(), info(a).name),
          key(rng.bytes(info(a).keylen)),
          iv(rng.bytes(info(a).ivlen)),
          in(rng.bytes(512)),
          out(512, kCanary),
          scratch(512, 0) {
        cipher = providers().fetch(info(a).name, "stitch");
    }
    EVP_CIPHER_CTX* evp() { return ctx.get(); }

    // Good steps before the bad call: each must succeed.
    void init(int enc, bool with_key = true, bool with_iv = true) {
        ASSERT_EQ(EVP_CipherInit_ex(evp(), cipher.get(), nullptr, with_key ? key.data() : nullptr,
                                    with_iv ? iv.data() : nullptr, enc),
                  1);
    }
    void aad(size_t n) {
        int l;
        ASSERT_EQ(EVP_CipherUpdate(evp(), nullptr, &l, in.data(), int(n)), 1);
    }
    void text(size_t n) {
        int l;
        ASSERT_EQ(EVP_CipherUpdate(evp(), scratch.data(), &l, in.data(), int(n)), 1);
    }
    // Ends an AEAD message of n text bytes (in[0..n), no AAD) successfully;
    // decrypting, with the tag of exactly that ciphertext.
    void good_final(int enc, size_t n) {
        if (!enc) {
            const Bytes plain(scratch.begin(), scratch.begin() + long(n));  // what text(n) decrypted in[0..n) to
            const auto sealed = reference::aead_seal(providers(), key, iv, {}, plain);
            ASSERT_EQ(EVP_CIPHER_CTX_ctrl(evp(), EVP_CTRL_AEAD_SET_TAG, 16, const_cast<uint8_t*>(sealed.tag.data())),
                      1);
        }
        int l;
        ASSERT_EQ(EVP_CipherFinal_ex(evp(), scratch.data(), &l), 1);
    }
    void direct_init(int enc) { ASSERT_EQ(direct.init(enc, key.data(), key.size(), iv.data(), iv.size()), 1); }

    // Bad calls rows make often; each returns whether it was accepted.
    bool evp_update(size_t n) { return EVP_CipherUpdate(evp(), out.data(), &evp_outl, in.data(), int(n)) == 1; }
    bool evp_final() { return EVP_CipherFinal_ex(evp(), out.data(), &evp_outl) == 1; }
    bool ctrl(int type, int arg, void* ptr) { return EVP_CIPHER_CTX_ctrl(evp(), type, arg, ptr) > 0; }
    bool set_size_param(const char* name, size_t v) {
        OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(name, &v), OSSL_PARAM_END};
        return EVP_CIPHER_CTX_set_params(evp(), p) == 1;
    }
    bool direct_update(size_t outsize, const uint8_t* src, size_t n) {
        return direct.update(out.data(), &outl, outsize, src, n) == 1;
    }
};

// What *outl must hold after the refusal.
enum class Outl {
    none,       // the call has no outl (init, params, ctrl)
    zero,       // a data call straight to stitch: it writes 0 before any check
    untouched,  // a data call through EVP: libcrypto leaves it (or writes 0)
};

struct Row {
    std::string name;
    Alg alg;
    Door door;            // the context the row works on; the re-init uses it too
    prov::Reason reason;  // the error stitch must raise
    Outl outl;
    std::function<bool(Scene&)> call;  // good steps, then the bad call; returns "accepted"
};

inline void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

// Check 3.
inline void expect_nothing_written(const Scene& s, const Row& row, const Bytes& in_before) {
    size_t first = s.out.size(), changed = 0;
    for (size_t i = s.out.size(); i-- > 0;)
        if (s.out[i] != kCanary) first = i, ++changed;
    EXPECT_EQ(changed, 0u) << "the refused call wrote " << changed << " output bytes, the first at " << first;
    EXPECT_EQ(to_hex(s.in), to_hex(in_before)) << "the refused call wrote into its input";
    switch (row.outl) {
        case Outl::none:
            EXPECT_EQ(s.outl, kOutlUnset);
            EXPECT_EQ(s.evp_outl, kEvpOutlUnset);
            break;
        case Outl::zero:
            EXPECT_EQ(s.outl, 0u) << "stitch must report 0 bytes written";
            break;
        case Outl::untouched:
            EXPECT_TRUE(s.evp_outl == kEvpOutlUnset || s.evp_outl == 0) << "EVP outl = " << s.evp_outl;
            break;
    }
}

// The calls of a good message, through one door.
struct Port {
    std::function<bool(int enc, const Bytes& key, const Bytes& iv)> init;
    std::function<bool(uint8_t* out, const uint8_t* in, size_t n, size_t* outl)> update;  // out == NULL: AAD
    std::function<bool()> final;
    std::function<bool(Bytes& tag)> get_tag;
    std::function<bool(const Bytes& tag)> set_tag;
};

inline Port evp_port(EVP_CIPHER_CTX* ctx) {
    return {
        // cipher == NULL: the same context, re-initialised.
        [ctx](int enc, const Bytes& k, const Bytes& iv) {
            return EVP_CipherInit_ex(ctx, nullptr, nullptr, k.data(), iv.data(), enc) == 1;
        },
        [ctx](uint8_t* out, const uint8_t* in, size_t n, size_t* outl) {
            int l = 0;
            const bool ok = EVP_CipherUpdate(ctx, out, &l, in, int(n)) == 1;
            *outl = size_t(l);
            return ok;
        },
        [ctx] {
            uint8_t spare[16];
            int l = 0;
            return EVP_CipherFinal_ex(ctx, spare, &l) == 1 && l == 0;
        },
        [ctx](Bytes& t) { return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, int(t.size()), t.data()) == 1; },
        [ctx](const Bytes& t) {
            return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, int(t.size()), const_cast<uint8_t*>(t.data())) == 1;
        },
    };
}

inline Port dispatch_port(DispatchCipher& d) {
    auto tag_param = [](const Bytes& t) {
        return OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, const_cast<uint8_t*>(t.data()), t.size());
    };
    return {
        [&d](int enc, const Bytes& k, const Bytes& iv) {
            return d.init(enc, k.data(), k.size(), iv.data(), iv.size()) == 1;
        },
        [&d](uint8_t* out, const uint8_t* in, size_t n, size_t* outl) { return d.update(out, outl, n, in, n) == 1; },
        [&d] {
            size_t l = 1;
            return d.final(nullptr, &l, 0) == 1 && l == 0;
        },
        [&d, tag_param](Bytes& t) {
            OSSL_PARAM p[] = {tag_param(t), OSSL_PARAM_END};
            return d.get_params(p) == 1;
        },
        [&d, tag_param](const Bytes& t) {
            OSSL_PARAM p[] = {tag_param(t), OSSL_PARAM_END};
            return d.set_params(p) == 1;
        },
    };
}

// Check 4: after a good re-init the context seals a fresh message exactly as
// the default provider does, then (re-initialised to decrypt) opens it.
inline void expect_recovers(Alg alg, Port& port, Rng& rng) {
    const ProviderPair& pp = providers();
    const AlgInfo a = info(alg);
    const Bytes key = rng.bytes(a.keylen), iv = rng.bytes(a.ivlen), aad = rng.bytes(13), plain = rng.bytes(100);
    size_t outl = 0;
    if (alg == Alg::aead) {
        const auto want = reference::aead_seal(pp, key, iv, aad, plain);
        Bytes ct(plain.size()), pt(plain.size()), tag(16);
        ASSERT_TRUE(port.init(1, key, iv)) << "a good re-init was refused";
        ASSERT_TRUE(port.update(nullptr, aad.data(), aad.size(), &outl));
        ASSERT_TRUE(port.update(ct.data(), plain.data(), plain.size(), &outl));
        ASSERT_EQ(outl, plain.size());
        ASSERT_TRUE(port.final());
        ASSERT_TRUE(port.get_tag(tag));
        EXPECT_EQ(to_hex(ct), to_hex(want.ciphertext));
        EXPECT_EQ(to_hex(tag), to_hex(want.tag));
        ASSERT_TRUE(port.init(0, key, iv));
        ASSERT_TRUE(port.set_tag(want.tag));
        ASSERT_TRUE(port.update(nullptr, aad.data(), aad.size(), &outl));
        ASSERT_TRUE(port.update(pt.data(), ct.data(), ct.size(), &outl));
        ASSERT_TRUE(port.final()) << "the default provider's message was refused";
        EXPECT_EQ(to_hex(pt), to_hex(plain));
    } else if (alg == Alg::chacha20) {
        const Bytes want = reference::chacha20(pp, key, iv, plain);
        Bytes ct(plain.size()), pt(plain.size());
        ASSERT_TRUE(port.init(1, key, iv)) << "a good re-init was refused";
        ASSERT_TRUE(port.update(ct.data(), plain.data(), plain.size(), &outl));
        EXPECT_EQ(to_hex(ct), to_hex(want));
        ASSERT_TRUE(port.init(0, key, iv));
        ASSERT_TRUE(port.update(pt.data(), ct.data(), ct.size(), &outl));
        EXPECT_EQ(to_hex(pt), to_hex(plain));
    } else {
        uint64_t seq = 0;
        for (uint8_t b : iv) seq = seq << 8 | b;
        Bytes packet = {0, 0, 0, uint8_t(plain.size())};
        packet.insert(packet.end(), plain.begin(), plain.end());
        const Bytes want = reference::openssh_seal(pp, key, seq, packet);
        Bytes in = packet, sealed(want.size()), opened(packet.size());
        in.resize(want.size(), 0);  // length ‖ payload ‖ 16 spare bytes for the tag
        ASSERT_TRUE(port.init(1, key, iv)) << "a good re-init was refused";
        ASSERT_TRUE(port.update(sealed.data(), in.data(), in.size(), &outl));
        EXPECT_EQ(to_hex(sealed), to_hex(want));
        ASSERT_TRUE(port.init(0, key, iv));
        ASSERT_TRUE(port.update(opened.data(), want.data(), want.size(), &outl)) << "the reference packet was refused";
        EXPECT_EQ(to_hex(opened), to_hex(packet));
    }
}

inline void run_row(const Row& row) {
    Rng rng(0xbad1 + std::hash<std::string>{}(row.name));
    Scene s(row.alg, rng);
    const Bytes in_before = s.in;
    ERR_clear_error();
    const bool accepted = row.call(s);
    if (::testing::Test::HasFatalFailure()) return;  // a good step failed: not the row's verdict
    EXPECT_FALSE(accepted) << "the bad call was accepted";
    expect_stitch_error(row.reason);
    ERR_clear_error();
    expect_nothing_written(s, row, in_before);
    Port port = row.door == Door::evp ? evp_port(s.evp()) : dispatch_port(s.direct);
    expect_recovers(row.alg, port, rng);
}

}  // namespace stitch::test
