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

#include <stdexcept>

#include "common/openssh_iv.hpp"
#include "evp_support.hpp"

namespace stitch::test {

class OpensshReference {
public:
    OpensshReference()
        : chacha_(providers().fetch("ChaCha20", "default")), mac_(providers().fetch_mac("POLY1305", "default")) {}

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

private:
    Bytes chacha(const uint8_t* key32, uint64_t counter, uint64_t seq, const uint8_t* in, size_t n) const {
        const Bytes iv = openssh_chacha_iv(counter, seq);
        CipherCtxPtr ctx = new_cipher_ctx();
        Bytes out(n);
        int outl = 0;
        if (EVP_EncryptInit_ex(ctx.get(), chacha_.get(), nullptr, key32, iv.data()) != 1 ||
            EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in, int(n)) != 1 || size_t(outl) != n)
            throw std::runtime_error("default ChaCha20");
        return out;
    }

    Bytes poly1305(const Bytes& key32, const Bytes& msg) const {
        MacCtxPtr ctx(EVP_MAC_CTX_new(mac_.get()));
        Bytes tag(16);
        size_t outl = 0;
        if (!ctx || EVP_MAC_init(ctx.get(), key32.data(), key32.size(), nullptr) != 1 ||
            EVP_MAC_update(ctx.get(), msg.data(), msg.size()) != 1 ||
            EVP_MAC_final(ctx.get(), tag.data(), &outl, 16) != 1 || outl != 16)
            throw std::runtime_error("default POLY1305");
        return tag;
    }

    CipherPtr chacha_;
    MacPtr mac_;
};

}  // namespace stitch::test
