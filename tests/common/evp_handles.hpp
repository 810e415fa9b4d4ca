// Owning handles for the OpenSSL objects the tests make: one set, so that any
// test-support headers can be included together.
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

namespace stitch::test {

// Frees with the given OpenSSL function.
template <auto Free>
struct OsslFree {
    template <class T>
    void operator()(T* p) const {
        Free(p);
    }
};

using CipherPtr = std::unique_ptr<EVP_CIPHER, OsslFree<EVP_CIPHER_free>>;
using CipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, OsslFree<EVP_CIPHER_CTX_free>>;
using MacPtr = std::unique_ptr<EVP_MAC, OsslFree<EVP_MAC_free>>;
using MacCtxPtr = std::unique_ptr<EVP_MAC_CTX, OsslFree<EVP_MAC_CTX_free>>;
using BioPtr = std::unique_ptr<BIO, OsslFree<BIO_free>>;

inline CipherCtxPtr new_cipher_ctx() {
    CipherCtxPtr c(EVP_CIPHER_CTX_new());
    if (!c) throw std::runtime_error("EVP_CIPHER_CTX_new");
    return c;
}

inline MacCtxPtr new_mac_ctx(const MacPtr& mac) {
    MacCtxPtr c(EVP_MAC_CTX_new(mac.get()));
    if (!c) throw std::runtime_error("EVP_MAC_CTX_new");
    return c;
}

}  // namespace stitch::test
