// OpenSSH packets (PROTOCOL.chacha20poly1305) through EVP, two ways:
//  - stitch's `chacha20-poly1305@openssh.com`: per packet, re-init with the
//    8-byte sequence number and ONE update over the whole packet;
//  - the construction composed from the default provider's ChaCha20 and its
//    POLY1305 EVP_MAC, call for call as libssh 0.10.6 does it with OpenSSL 3
//    (docs/openssl-3.0-semantics.md#callers).
// And the POLY1305 EVP_MAC alone. Packets are sealed and opened out of place,
// as SSH implementations do, so every call sees the same input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "bench/buffer.hpp"
#include "bench/inputs.hpp"
#include "bench/ossl.hpp"

namespace stitch::bench {

// in = length ‖ payload ‖ 16 spare bytes; out = encrypted length ‖ ciphertext ‖ tag.
class SshSealCipher {
public:
    SshSealCipher(const EVP_CIPHER* ssh, size_t payload);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return out_.span(); }

private:
    CipherCtxPtr ctx_;
    Buffer in_, out_;
};

// in = encrypted length ‖ ciphertext ‖ tag; out = length ‖ payload.
class SshOpenCipher {
public:
    SshOpenCipher(const EVP_CIPHER* ssh, std::span<const uint8_t> packet);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {out_.data(), out_.size() - kTagLen}; }

private:
    CipherCtxPtr ctx_;
    Buffer in_, out_;
};

// libssh's seal: both ChaCha20 contexts re-initialised with the sequence
// number, 64 zero bytes through K_2 for the Poly1305 key, the length through
// K_1, the payload through K_2 from block 1, then the MAC over both.
class SshSealComposed {
public:
    SshSealComposed(const EVP_CIPHER* chacha, const EVP_MAC* poly, size_t payload);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return out_.span(); }

private:
    CipherCtxPtr main_, header_;
    MacCtxPtr mac_;
    Buffer in_, out_;
    size_t payload_;
};

// libssh's open: the length decrypted first (a receiver needs it to read the
// rest), then the MAC checked, then the payload decrypted.
class SshOpenComposed {
public:
    SshOpenComposed(const EVP_CIPHER* chacha, const EVP_MAC* poly, std::span<const uint8_t> packet);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {out_.data(), out_.size() - kTagLen}; }

private:
    CipherCtxPtr main_, header_;
    MacCtxPtr mac_;
    Buffer in_, out_;
    size_t payload_;
};

// POLY1305 EVP_MAC, one message per call: init with a one-time key, one
// update, final.
class Poly1305Mac {
public:
    Poly1305Mac(const EVP_MAC* poly, size_t len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {tag_, kTagLen}; }

private:
    MacCtxPtr mac_;
    Buffer msg_;
    uint8_t tag_[kTagLen] = {};
};

}  // namespace stitch::bench
