// The harness behind bad_input_test's table. A row brings a fresh stitch
// context to some state and makes one bad call; the harness then requires:
// - the call was refused;
// - the error is stitch's, with the row's reason and text (refusal_check.hpp);
// - nothing was written: the output buffer still holds its canary and the
//   input buffer its bytes;
// - the same context, re-initialised with a good key and IV, seals or opens a
//   good message exactly as the default provider does.
// Rows reach the context either through EVP or straight through the
// provider's dispatch table (direct_cipher.hpp), for what EVP never passes.
#pragma once

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <functional>
#include <memory>
#include <string>

#include "aead_driver.hpp"
#include "direct_cipher.hpp"
#include "openssh_reference.hpp"
#include "refusal_check.hpp"

namespace stitch::test {

enum class Kind { Aead, Chacha20, Openssh };
enum class Via { Evp, Direct };

inline const char* algorithm(Kind k) {
    switch (k) {
        case Kind::Aead: return "ChaCha20-Poly1305";
        case Kind::Chacha20: return "ChaCha20";
        default: return "chacha20-poly1305@openssh.com";
    }
}
inline size_t key_len(Kind k) { return k == Kind::Openssh ? 64 : 32; }
inline size_t iv_len(Kind k) { return k == Kind::Aead ? 12 : k == Kind::Chacha20 ? 16 : 8; }

constexpr uint8_t kCanary = 0xa5;

// What a row works on: one stitch context reached both ways, right-sized key
// and IV, random input, and an output buffer filled with the canary.
struct Scene {
    Kind kind;
    CipherPtr cipher;
    CtxPtr ctx = new_ctx();
    DirectCipher direct;
    Bytes key, iv;
    Bytes in;       // random; must be unchanged after the refusal
    Bytes out;      // canary; must be unchanged after the refusal
    Bytes scratch;  // where setup calls before the bad one write

    explicit Scene(Kind k, Rng& rng)
        : kind(k),
          cipher(providers().fetch(algorithm(k), "stitch")),
          direct(providers().stitch(), algorithm(k)),
          key(rng.bytes(key_len(k))),
          iv(rng.bytes(iv_len(k))),
          in(rng.bytes(1024)),
          out(1024, kCanary),
          scratch(1024, 0) {}

    // Helpers for the setup steps: each must succeed.
    void init(int enc, bool with_key = true, bool with_iv = true) {
        ASSERT_EQ(EVP_CipherInit_ex(ctx.get(), cipher.get(), nullptr, with_key ? key.data() : nullptr,
                                    with_iv ? iv.data() : nullptr, enc),
                  1);
    }
    void aad(size_t n) {
        int outl;
        ASSERT_EQ(EVP_CipherUpdate(ctx.get(), nullptr, &outl, in.data(), int(n)), 1);
    }
    void data(size_t n) {
        int outl;
        ASSERT_EQ(EVP_CipherUpdate(ctx.get(), scratch.data(), &outl, in.data(), int(n)), 1);
    }
    void direct_init(int enc) { ASSERT_EQ(direct.init(enc, key.data(), key.size(), iv.data(), iv.size()), 1); }

    // The bad calls rows make most often; each returns whether it was accepted.
    bool update_into_out(size_t n) {
        int outl;
        return EVP_CipherUpdate(ctx.get(), out.data(), &outl, in.data(), int(n)) == 1;
    }
    bool ctrl(int type, int arg, void* ptr) { return EVP_CIPHER_CTX_ctrl(ctx.get(), type, arg, ptr) > 0; }
    bool set_size_param(const char* name, size_t v) {
        OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(name, &v), OSSL_PARAM_END};
        return EVP_CIPHER_CTX_set_params(ctx.get(), p) == 1;
    }
};

struct Row {
    std::string name;
    Kind kind;
    Via via;  // which door the row used: the recovery goes through it too
    int enc;  // direction of the good message after the refusal
    prov::Reason reason;
    std::function<bool(Scene&)> bad_call;  // setup, then the bad call; returns "accepted"
};

// One context's calls, through EVP or directly, for the recovery message.
struct Port {
    std::function<bool(int enc, const Bytes& key, const Bytes& iv)> init;
    std::function<bool(uint8_t* out, const uint8_t* in, size_t n, size_t* outl)> update;
    std::function<bool()> final;
    std::function<bool(const Bytes&)> set_tag;
    std::function<bool(Bytes&)> get_tag;
};

inline Port evp_port(EVP_CIPHER_CTX* ctx) {
    Port p;
    // cipher == NULL: re-initialise this very context, never a new one.
    p.init = [ctx](int enc, const Bytes& key, const Bytes& iv) {
        return EVP_CipherInit_ex(ctx, nullptr, nullptr, key.data(), iv.data(), enc) == 1;
    };
    p.update = [ctx](uint8_t* out, const uint8_t* in, size_t n, size_t* outl) {
        int l = -1;
        bool ok = EVP_CipherUpdate(ctx, out, &l, in, int(n)) == 1;
        *outl = size_t(l);
        return ok;
    };
    p.final = [ctx] {
        uint8_t spare[16];
        int l;
        return EVP_CipherFinal_ex(ctx, spare, &l) == 1;
    };
    p.set_tag = [ctx](const Bytes& t) {
        return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, int(t.size()), const_cast<uint8_t*>(t.data())) == 1;
    };
    p.get_tag = [ctx](Bytes& t) {
        return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, int(t.size()), t.data()) == 1;
    };
    return p;
}

inline Port direct_port(DirectCipher& d) {
    Port p;
    p.init = [&d](int enc, const Bytes& key, const Bytes& iv) {
        return d.init(enc, key.data(), key.size(), iv.data(), iv.size()) == 1;
    };
    p.update = [&d](uint8_t* out, const uint8_t* in, size_t n, size_t* outl) {
        return d.update(out, outl, 1 << 16, in, n) == 1;
    };
    p.final = [&d] {
        uint8_t spare[16];
        size_t l;
        return d.final(spare, &l, sizeof spare) == 1;
    };
    p.set_tag = [&d](const Bytes& t) {
        OSSL_PARAM ps[] = {
            OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, const_cast<uint8_t*>(t.data()), t.size()),
            OSSL_PARAM_END};
        return d.set_params(ps) == 1;
    };
    p.get_tag = [&d](Bytes& t) {
        OSSL_PARAM ps[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, t.data(), t.size()),
                           OSSL_PARAM_END};
        return d.get_params(ps) == 1;
    };
    return p;
}

// After a good re-init the context seals or opens a good message exactly as
// the default provider does.
inline void expect_recovers(Scene& s, Port& port, int enc, Rng& rng) {
    const Bytes text = rng.bytes(100);
    size_t outl = 0;
    Bytes out(200, 0);
    ASSERT_TRUE(port.init(enc, s.key, s.iv)) << "good re-init refused after the refusal";
    if (s.kind == Kind::Aead) {
        const AeadMessage m{s.key, s.iv, rng.bytes(13), text};
        const CipherPtr ref(providers().fetch("ChaCha20-Poly1305", "default"));
        const AeadResult want = seal(ref.get(), m, one_shot_plan(m));
        if (!enc) {
            ASSERT_TRUE(port.set_tag(want.tag));
        }
        ASSERT_TRUE(port.update(nullptr, m.aad.data(), m.aad.size(), &outl));
        ASSERT_TRUE(port.update(out.data(), enc ? text.data() : want.text.data(), text.size(), &outl));
        ASSERT_EQ(outl, text.size());
        ASSERT_TRUE(port.final()) << "good message refused after the refusal";
        if (enc) {
            Bytes tag(16);
            ASSERT_TRUE(port.get_tag(tag));
            EXPECT_EQ(to_hex(tag), to_hex(want.tag));
            EXPECT_EQ(to_hex(out.data(), outl), to_hex(want.text));
        } else {
            EXPECT_EQ(to_hex(out.data(), outl), to_hex(text));
        }
    } else if (s.kind == Kind::Chacha20) {
        CipherPtr ref(providers().fetch("ChaCha20", "default"));
        CtxPtr c = new_ctx();
        Bytes want(text.size());
        int l;
        ASSERT_EQ(EVP_CipherInit_ex(c.get(), ref.get(), nullptr, s.key.data(), s.iv.data(), 1), 1);
        ASSERT_EQ(EVP_CipherUpdate(c.get(), want.data(), &l, text.data(), int(text.size())), 1);
        ASSERT_TRUE(port.update(out.data(), text.data(), text.size(), &outl));
        EXPECT_EQ(to_hex(out.data(), outl), to_hex(want));
    } else {
        uint64_t seq = 0;
        for (uint8_t b : s.iv) seq = seq << 8 | b;
        Bytes packet = {0, 0, 0, uint8_t(text.size())};
        packet.insert(packet.end(), text.begin(), text.end());
        const Bytes sealed = OpensshReference().seal(s.key, seq, packet);
        const Bytes in = enc ? concat(packet, Bytes(16, 0)) : sealed;
        ASSERT_TRUE(port.update(out.data(), in.data(), in.size(), &outl)) << "good packet refused after the refusal";
        EXPECT_EQ(to_hex(out.data(), outl), to_hex(enc ? sealed : packet));
    }
}

// gtest prints a row by its name, not its bytes.
inline void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

inline void run_row(const Row& row) {
    Rng rng = seeded_rng(0xbad00000 + std::hash<std::string>{}(row.name) % 0xffff);
    Scene s(row.kind, rng);
    const Bytes in_before = s.in;
    ERR_clear_error();
    const bool accepted = row.bad_call(s);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_FALSE(accepted) << "the bad call was accepted";
    expect_stitch_error(row.reason);
    size_t first_written = s.out.size(), written = 0;
    for (size_t i = s.out.size(); i-- > 0;)
        if (s.out[i] != kCanary) first_written = i, ++written;
    EXPECT_EQ(written, 0u) << "a refused call wrote " << written << " output bytes, the first at " << first_written;
    EXPECT_EQ(to_hex(s.in), to_hex(in_before)) << "a refused call wrote into its input";
    ERR_clear_error();

    Port port = row.via == Via::Evp ? evp_port(s.ctx.get()) : direct_port(s.direct);
    expect_recovers(s, port, row.enc, rng);
}

}  // namespace stitch::test
