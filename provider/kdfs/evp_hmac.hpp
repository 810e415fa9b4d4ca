// HMAC (RFC 2104) over a digest fetched from another provider: the Mac of
// kernels/hkdf.hpp for every digest stitch has no kernel for (SHA-1, SHA-224,
// SHA3, SM3, ...). The pad blocks are absorbed once per key into two digest
// contexts; each MAC copies them. This path allocates (EVP_MD_CTX copies);
// SHA-256/384/512, the TLS 1.3 digests, never take it.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "kernels/hmac.hpp"

namespace stitch::prov {

class EvpHmac {
public:
    explicit EvpHmac(const EVP_MD* md) noexcept;
    ~EvpHmac();
    EvpHmac(const EvpHmac&) = delete;
    EvpHmac& operator=(const EvpHmac&) = delete;

    // The digest can key an HMAC here: a fixed size of 1..64 bytes, a block
    // of up to kMaxBlock bytes, not an XOF.
    static bool usable(const EVP_MD* md) noexcept;
    bool ready() const noexcept { return inner_ && outer_ && work_; }

    size_t size() const noexcept { return size_; }
    bool set_key(const uint8_t* key, size_t len) noexcept;
    bool mac(std::initializer_list<kern::ByteView> pieces, uint8_t* out) noexcept;
    bool empty_hash(uint8_t* out) noexcept;

    static constexpr size_t kMaxBlock = 168;  // SHAKE128's rate, the widest block OpenSSL has

private:
    const EVP_MD* md_;
    size_t size_, block_;
    EVP_MD_CTX* inner_;
    EVP_MD_CTX* outer_;
    EVP_MD_CTX* work_;
};

}  // namespace stitch::prov
