// chacha20-poly1305@openssh.com composed from the default provider's ChaCha20
// and its POLY1305 EVP_MAC, as OpenSSH's cipher-chachapoly-libcrypto.c and
// libssh do it (PROTOCOL.chacha20poly1305). The reference stitch's own cipher
// of that name is held to.
//
// Key = K_2 ‖ K_1. The length uses K_1 from block 0; the Poly1305 key is the
// first 32 bytes of K_2's block 0; the payload uses K_2 from block 1. ChaCha20
// IV (OpenSSL's 16-byte layout) = LE64 block counter ‖ BE64 sequence number.
// The tag covers encrypted length ‖ ciphertext, unpadded.
#pragma once

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

#include "evp_support.hpp"

namespace stitch::test {

class OpensshReference {
public:
    OpensshReference()
        : chacha_(providers().fetch("ChaCha20", "default")),
          mac_(EVP_MAC_fetch(providers().libctx(), "POLY1305", "provider=default")) {
        if (!mac_) throw std::runtime_error("fetch POLY1305 from default");
    }

    // packet = plain length(4) ‖ payload; returns encrypted length ‖ ciphertext ‖ tag.
    Bytes seal(const Bytes& key, uint64_t seq, const Bytes& packet) const {
        Bytes out = chacha(key.data() + 32, 0, seq, packet.data(), 4);
        Bytes body = chacha(key.data(), 1, seq, packet.data() + 4, packet.size() - 4);
        out.insert(out.end(), body.begin(), body.end());
        const Bytes tag = poly1305(poly_key(key, seq), out);
        out.insert(out.end(), tag.begin(), tag.end());
        return out;
    }

    // The plain 4-byte length from its encryption (K_1 only, no MAC).
    Bytes length(const Bytes& key, uint64_t seq, const uint8_t* enc4) const {
        return chacha(key.data() + 32, 0, seq, enc4, 4);
    }

    Bytes poly_key(const Bytes& key, uint64_t seq) const {
        const Bytes zeros(32, 0);
        return chacha(key.data(), 0, seq, zeros.data(), 32);
    }

    static Bytes openssh_iv(uint64_t counter, uint64_t seq) {
        Bytes iv(16);
        for (int i = 0; i < 8; ++i) iv[i] = uint8_t(counter >> (8 * i));
        for (int i = 0; i < 8; ++i) iv[8 + i] = uint8_t(seq >> (56 - 8 * i));
        return iv;
    }

private:
    Bytes chacha(const uint8_t* key32, uint64_t counter, uint64_t seq, const uint8_t* in, size_t n) const {
        const Bytes iv = openssh_iv(counter, seq);
        CtxPtr ctx = new_ctx();
        Bytes out(n);
        int outl = 0;
        if (EVP_EncryptInit_ex(ctx.get(), chacha_.get(), nullptr, key32, iv.data()) != 1 ||
            EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in, int(n)) != 1 || size_t(outl) != n)
            throw std::runtime_error("default ChaCha20");
        return out;
    }

    Bytes poly1305(const Bytes& key32, const Bytes& msg) const {
        std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> ctx(EVP_MAC_CTX_new(mac_.get()), EVP_MAC_CTX_free);
        Bytes tag(16);
        size_t outl = 0;
        if (!ctx || EVP_MAC_init(ctx.get(), key32.data(), key32.size(), nullptr) != 1 ||
            EVP_MAC_update(ctx.get(), msg.data(), msg.size()) != 1 ||
            EVP_MAC_final(ctx.get(), tag.data(), &outl, 16) != 1 || outl != 16)
            throw std::runtime_error("default POLY1305");
        return tag;
    }

    struct MacFree {
        void operator()(EVP_MAC* m) const { EVP_MAC_free(m); }
    };
    CipherPtr chacha_;
    std::unique_ptr<EVP_MAC, MacFree> mac_;
};

}  // namespace stitch::test
