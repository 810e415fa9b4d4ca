// The reference the boundary generators hold every kernel set to: OpenSSL's
// default provider, composed. Its raw `ChaCha20` takes the 16-byte IV as the
// four counter words, so it reproduces any starting counter (word 0 carrying
// into word 1, as the kernels' 64-bit counter does), and its `POLY1305` MAC
// gives the tag; both MAC grids are built from the two the way
// tests/ssh/openssh_composition.hpp builds OpenSSH's. No stitch code runs here.
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <stdexcept>

#include "common/evp_handles.hpp"
#include "common/test_util.hpp"
#include "kernels/aead.hpp"

namespace stitch::test {

// Four counter words as OpenSSL's 16-byte ChaCha20 IV.
inline Bytes chacha_iv(const uint32_t ctr[4]) {
    Bytes iv(16);
    for (int i = 0; i < 16; ++i) iv[i] = uint8_t(ctr[i / 4] >> (8 * (i % 4)));
    return iv;
}

// ctr[0..1] as one 64-bit counter, plus `blocks` (what kern::chacha_advance does).
inline void advance_words(uint32_t ctr[4], uint64_t blocks) {
    const uint64_t c = (uint64_t(ctr[1]) << 32 | ctr[0]) + blocks;
    ctr[0] = uint32_t(c);
    ctr[1] = uint32_t(c >> 32);
}

class DefaultReference {
public:
    // in ^ keystream from counter words ctr (in == nullptr: the keystream).
    Bytes chacha(const uint8_t key[32], const uint32_t ctr[4], const uint8_t* in, size_t n) const {
        const Bytes iv = chacha_iv(ctr);
        const Bytes zeros(in ? 0 : n, 0);
        if (!in) in = zeros.data();
        Bytes out(n);
        CipherCtxPtr ctx = new_cipher_ctx();
        int outl = 0;
        if (EVP_EncryptInit_ex(ctx.get(), chacha_.get(), nullptr, key, iv.data()) != 1 ||
            (n > 0 && (EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in, int(n)) != 1 || size_t(outl) != n)))
            throw std::runtime_error("default ChaCha20");
        return out;
    }

    Bytes poly1305(const uint8_t key[32], const Bytes& msg) const {
        MacCtxPtr ctx = new_mac_ctx(mac_);
        Bytes tag(16);
        size_t outl = 0;
        if (EVP_MAC_init(ctx.get(), key, 32, nullptr) != 1 || EVP_MAC_update(ctx.get(), msg.data(), msg.size()) != 1 ||
            EVP_MAC_final(ctx.get(), tag.data(), &outl, tag.size()) != 1 || outl != 16)
            throw std::runtime_error("default POLY1305");
        return tag;
    }

    struct Sealed {
        Bytes ct, tag;
    };

    // ChaCha20-Poly1305 on either grid with the key block at counter words
    // ctr (ctr[0] = the RFC's initial counter; OpenSSH: 64-bit counter 0).
    Sealed aead(kern::Grid grid, const Bytes& key, const uint32_t ctr[4], const Bytes& aad, const Bytes& pt) const {
        const Bytes poly_key = chacha(key.data(), ctr, nullptr, 32);
        uint32_t text_ctr[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
        advance_words(text_ctr, 1);
        Sealed s;
        s.ct = chacha(key.data(), text_ctr, pt.data(), pt.size());
        Bytes mac_input = aad;
        if (grid == kern::Grid::rfc8439) {
            mac_input.resize((mac_input.size() + 15) / 16 * 16, 0);
            mac_input.insert(mac_input.end(), s.ct.begin(), s.ct.end());
            mac_input.resize((mac_input.size() + 15) / 16 * 16, 0);
            for (uint64_t len : {uint64_t(aad.size()), uint64_t(pt.size())})
                for (int i = 0; i < 8; ++i) mac_input.push_back(uint8_t(len >> (8 * i)));
        } else {
            mac_input.insert(mac_input.end(), s.ct.begin(), s.ct.end());
        }
        s.tag = poly1305(poly_key.data(), mac_input);
        return s;
    }

private:
    CipherPtr chacha_ = providers().fetch("ChaCha20", "default");
    MacPtr mac_ = providers().fetch_mac("POLY1305", "default");
};

}  // namespace stitch::test
