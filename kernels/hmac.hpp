// HMAC (RFC 2104) over the SHA-2 kernels. Setting a key compresses its inner
// and outer pad blocks once; every MAC under that key then starts from those
// two saved states, so an HKDF expand costs two compressions per output
// block instead of four.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "kernels/sha2.hpp"

namespace stitch::kern {

// A piece of a MAC's message; the message is the pieces in order.
struct ByteView {
    const uint8_t* data;
    size_t len;
};

class Sha2Hmac {
public:
    Sha2Hmac(const Sha2Impl& impl, Sha2 alg) noexcept : impl_(&impl), alg_(alg) {}
    ~Sha2Hmac() { wipe_key(); }
    Sha2Hmac(const Sha2Hmac&) = delete;
    Sha2Hmac& operator=(const Sha2Hmac&) = delete;

    size_t size() const noexcept { return sha2_digest_len(alg_); }

    // The Mac contract of kernels/hkdf.hpp. These never fail (its false is
    // for the provider's HMAC over EVP): inline, so the HKDF code's failure
    // branches fold away when it runs on this one.

    // A key of any length; one longer than the block is hashed first (RFC 2104 §2).
    bool set_key(const uint8_t* key, size_t len) noexcept {
        load_key(key, len);
        return true;
    }

    // HMAC(key, pieces...) into out[0..size()).
    bool mac(std::initializer_list<ByteView> pieces, uint8_t* out) noexcept {
        compute(pieces, out);
        return true;
    }

    // The hash of the empty message (TLS 1.3's Derive-Secret(., "derived", "")).
    bool empty_hash(uint8_t* out) noexcept {
        copy_empty_hash(out);
        return true;
    }

private:
    void load_key(const uint8_t* key, size_t len) noexcept;
    void compute(std::initializer_list<ByteView> pieces, uint8_t* out) noexcept;
    void copy_empty_hash(uint8_t* out) noexcept;
    void wipe_key() noexcept;

    const Sha2Impl* impl_;
    Sha2 alg_;
    Sha2State inner_{};  // after key ^ ipad
    Sha2State outer_{};  // after key ^ opad
};

}  // namespace stitch::kern
