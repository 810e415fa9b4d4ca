// chacha20-poly1305@openssh.com composed from the default provider's ChaCha20
// and POLY1305 EVP_MAC, as OpenSSH's cipher-chachapoly-libcrypto.c and libssh
// build it (PROTOCOL.chacha20poly1305): the reference the packet fuzzer holds
// stitch's cipher of that name to.
//   key = K_2 (payload, Poly1305 key) ‖ K_1 (length field)
//   ChaCha20 IV, OpenSSL's 16-byte layout = LE64 block counter ‖ BE64 seqnr
//   tag = Poly1305(K_2 block 0, encrypted length ‖ ciphertext), unpadded
#pragma once

#include <openssl/evp.h>

#include <cstdint>

#include "common/evp_handles.hpp"
#include "common/openssh_iv.hpp"
#include "fuzz_input.hpp"
#include "fuzz_providers.hpp"

namespace stitch::fuzz {

class OpensshComposed {
public:
    explicit OpensshComposed(const FuzzProviders& prov) : prov_(prov) {}

    // packet = length(4) ‖ payload, plain; returns encrypted length ‖ ciphertext (no tag).
    Bytes encrypt(const Bytes& key, uint64_t seq, const uint8_t* packet, size_t len) const {
        Bytes out = chacha(key.data() + 32, 0, seq, packet, 4);
        const Bytes body = chacha(key.data(), 1, seq, packet + 4, len - 4);
        out.insert(out.end(), body.begin(), body.end());
        return out;
    }

    // The same keystreams decrypt: encrypt and decrypt are one XOR.
    Bytes decrypt(const Bytes& key, uint64_t seq, const uint8_t* packet, size_t len) const {
        return encrypt(key, seq, packet, len);
    }

    Bytes length(const Bytes& key, uint64_t seq, const uint8_t* enc4) const { return chacha(key.data() + 32, 0, seq, enc4, 4); }

    Bytes tag(const Bytes& key, uint64_t seq, const uint8_t* sealed, size_t len) const {
        const Bytes zeros(32, 0);
        const Bytes poly_key = chacha(key.data(), 0, seq, zeros.data(), 32);
        const test::MacCtxPtr ctx(EVP_MAC_CTX_new(prov_.default_poly1305));
        Bytes t(16);
        size_t outl = 0;
        const bool ok = ctx && EVP_MAC_init(ctx.get(), poly_key.data(), 32, nullptr) == 1 &&
                        EVP_MAC_update(ctx.get(), sealed, len) == 1 &&
                        EVP_MAC_final(ctx.get(), t.data(), &outl, 16) == 1 && outl == 16;
        if (!ok) fuzz_fail("default POLY1305 failed");
        return t;
    }

private:
    Bytes chacha(const uint8_t* key32, uint64_t counter, uint64_t seq, const uint8_t* in, size_t n) const {
        const Bytes iv = test::openssh_chacha_iv(counter, seq);
        const CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        Bytes out(n);
        int outl = 0;
        const bool ok = ctx && EVP_EncryptInit_ex(ctx.get(), prov_.default_chacha, nullptr, key32, iv.data()) == 1 &&
                        EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in, int(n)) == 1 && size_t(outl) == n;
        if (!ok) fuzz_fail("default ChaCha20 failed");
        return out;
    }

    const FuzzProviders& prov_;
};

}  // namespace stitch::fuzz
