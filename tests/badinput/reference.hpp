// What a good message must come out as, from OpenSSL's default provider in the
// same library context: ChaCha20-Poly1305 and ChaCha20 directly, and
// chacha20-poly1305@openssh.com composed from its ChaCha20 and POLY1305 as
// PROTOCOL.chacha20poly1305 describes (key = K_2 ‖ K_1; K_1 block 0 encrypts
// the length; K_2 block 0 keys Poly1305 and blocks 1.. the payload; the tag
// covers encrypted length ‖ ciphertext).
#pragma once

#include <openssl/evp.h>

#include <stdexcept>

#include "common/evp_handles.hpp"
#include "common/openssh_iv.hpp"
#include "common/test_util.hpp"

namespace stitch::test::reference {

struct AeadSealed {
    Bytes ciphertext;
    Bytes tag;
};

inline Bytes run_cipher(const ProviderPair& pp, const char* name, const Bytes& key, const uint8_t* iv, const Bytes& aad,
                        const uint8_t* in, size_t n, Bytes* tag = nullptr) {
    const CipherPtr cipher = pp.fetch(name, "default");
    const CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    Bytes out(n + 1);
    int l = 0;
    bool ok = ctx && EVP_EncryptInit_ex(ctx.get(), cipher.get(), nullptr, key.data(), iv) == 1;
    if (ok && !aad.empty()) ok = EVP_EncryptUpdate(ctx.get(), nullptr, &l, aad.data(), int(aad.size())) == 1;
    ok = ok && EVP_EncryptUpdate(ctx.get(), out.data(), &l, in, int(n)) == 1 && size_t(l) == n;
    ok = ok && EVP_EncryptFinal_ex(ctx.get(), out.data() + n, &l) == 1;
    if (ok && tag) {
        tag->assign(16, 0);
        ok = EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag->data()) == 1;
    }
    if (!ok) throw std::runtime_error(std::string("default provider ") + name);
    out.resize(n);
    return out;
}

inline AeadSealed aead_seal(const ProviderPair& pp, const Bytes& key, const Bytes& iv, const Bytes& aad,
                            const Bytes& plain) {
    AeadSealed s;
    s.ciphertext = run_cipher(pp, "ChaCha20-Poly1305", key, iv.data(), aad, plain.data(), plain.size(), &s.tag);
    return s;
}

inline Bytes chacha20(const ProviderPair& pp, const Bytes& key, const Bytes& iv16, const Bytes& in) {
    return run_cipher(pp, "ChaCha20", key, iv16.data(), {}, in.data(), in.size());
}

inline Bytes poly1305(const ProviderPair& pp, const Bytes& key32, const Bytes& msg) {
    const MacPtr mac = pp.fetch_mac("POLY1305", "default");
    const MacCtxPtr ctx(EVP_MAC_CTX_new(mac.get()));
    Bytes tag(16);
    size_t l = 0;
    if (!ctx || EVP_MAC_init(ctx.get(), key32.data(), key32.size(), nullptr) != 1 ||
        EVP_MAC_update(ctx.get(), msg.data(), msg.size()) != 1 || EVP_MAC_final(ctx.get(), tag.data(), &l, 16) != 1 ||
        l != 16)
        throw std::runtime_error("default provider POLY1305");
    return tag;
}

// packet = length(4) ‖ payload; returns encrypted length ‖ ciphertext ‖ tag.
inline Bytes openssh_seal(const ProviderPair& pp, const Bytes& key64, uint64_t seq, const Bytes& packet) {
    const Bytes k2(key64.begin(), key64.begin() + 32), k1(key64.begin() + 32, key64.end());
    const Bytes length(packet.begin(), packet.begin() + 4), payload(packet.begin() + 4, packet.end());
    Bytes out = chacha20(pp, k1, openssh_chacha_iv(0, seq), length);
    const Bytes body = chacha20(pp, k2, openssh_chacha_iv(1, seq), payload);
    out.insert(out.end(), body.begin(), body.end());
    const Bytes poly_key = chacha20(pp, k2, openssh_chacha_iv(0, seq), Bytes(32, 0));
    const Bytes tag = poly1305(pp, poly_key, out);
    out.insert(out.end(), tag.begin(), tag.end());
    return out;
}

}  // namespace stitch::test::reference
