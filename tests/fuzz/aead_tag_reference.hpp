// The RFC 8439 tag of a message, composed from the default provider's raw
// ChaCha20 (the Poly1305 key from block 0) and its POLY1305 MAC, never from
// an AEAD implementation: the EVP sequence fuzzer sets it as a decrypt tag
// (set_tag's "tag of the message so far"), so that a sequence can open a
// message it never sealed, and a stale tag left from an earlier message
// would pass where it must not.
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <memory>

#include "fuzz_input.hpp"
#include "fuzz_providers.hpp"

namespace stitch::fuzz {

inline Bytes aead_reference_tag(const FuzzProviders& prov, const Bytes& key, const Bytes& nonce, const Bytes& aad,
                                const Bytes& ct) {
    Bytes iv(16, 0), poly_key(32, 0), tag(16, 0);
    std::copy(nonce.begin(), nonce.end(), iv.begin() + 4);  // block counter 0 ‖ nonce
    int outl = 0;
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> c(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    if (!c || EVP_EncryptInit_ex(c.get(), prov.default_chacha, nullptr, key.data(), iv.data()) != 1 ||
        EVP_EncryptUpdate(c.get(), poly_key.data(), &outl, poly_key.data(), 32) != 1)
        fuzz_fail("reference tag: default ChaCha20");

    Bytes in = aad;
    in.resize((in.size() + 15) / 16 * 16, 0);
    in.insert(in.end(), ct.begin(), ct.end());
    in.resize((in.size() + 15) / 16 * 16, 0);
    for (uint64_t len : {uint64_t(aad.size()), uint64_t(ct.size())})
        for (int i = 0; i < 8; ++i) in.push_back(uint8_t(len >> (8 * i)));

    std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> m(EVP_MAC_CTX_new(prov.default_poly1305), EVP_MAC_CTX_free);
    size_t n = 0;
    if (!m || EVP_MAC_init(m.get(), poly_key.data(), 32, nullptr) != 1 ||
        EVP_MAC_update(m.get(), in.data(), in.size()) != 1 || EVP_MAC_final(m.get(), tag.data(), &n, 16) != 1)
        fuzz_fail("reference tag: default POLY1305");
    return tag;
}

}  // namespace stitch::fuzz
