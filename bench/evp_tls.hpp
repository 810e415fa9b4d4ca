// One message through EVP, in the call shapes libssl 3.0 uses
// (docs/openssl-3.0-semantics.md#callers). Each operation owns its context and buffers, is set up once, and
// then does exactly one record per call; `output()` after the first call is
// what the benchmark compares between providers before it times anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "bench/buffer.hpp"
#include "bench/inputs.hpp"
#include "bench/ossl.hpp"

namespace stitch::bench {

// TLS 1.3 seal: re-init with the IV only, 5-byte record header as AAD
// (update with out == NULL), the data in place, final, get the tag. With
// --place (bench/placement.hpp), in place or out of place at those offsets.
class Tls13Seal {
public:
    Tls13Seal(const EVP_CIPHER* aead, size_t len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return out_.span(); }  // ciphertext ‖ tag

private:
    CipherCtxPtr ctx_;
    Buffer in_;   // the plaintext, out of place; empty in place
    Buffer out_;  // ciphertext ‖ tag (in place: the plaintext first)
    size_t len_;
};

// TLS 1.3 open: re-init with the IV only, set the tag, AAD, the data (out of
// place, so every call opens the same authentic record), final. Placed in
// place with --place, each call first copies the record into its buffer.
class Tls13Open {
public:
    // `record` is ciphertext ‖ tag as Tls13Seal produced it for this length.
    Tls13Open(const EVP_CIPHER* aead, std::span<const uint8_t> record);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {out_.data(), len_}; }  // plaintext

private:
    CipherCtxPtr ctx_;
    Buffer record_;
    Buffer out_;
    size_t len_;
    bool in_place_ = false;
};

// Raw ChaCha20: re-init with the 16-byte IV (counter ‖ nonce), one in-place
// update (out of place with --place=IN,OUT).
class ChaCha20Xor {
public:
    ChaCha20Xor(const EVP_CIPHER* chacha, size_t len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return out_.span(); }

private:
    CipherCtxPtr ctx_;
    Buffer in_;  // out of place only
    Buffer out_;
    size_t len_;
};

// TLS 1.2 seal: EVP_CTRL_AEAD_TLS1_AAD with the 13-byte header, then one
// in-place update over payload ‖ 16 spare bytes that writes the tag.
class Tls12Seal {
public:
    Tls12Seal(const EVP_CIPHER* aead, size_t len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return buf_.span(); }  // ciphertext ‖ tag

private:
    CipherCtxPtr ctx_;
    Buffer buf_;
    size_t len_;
    uint8_t aad_[13];
};

// TLS 1.2 open: the header with the record length, one update that checks
// and strips the tag (out of place, as in Tls13Open).
class Tls12Open {
public:
    Tls12Open(const EVP_CIPHER* aead, std::span<const uint8_t> record);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {out_.data(), len_}; }  // plaintext

private:
    CipherCtxPtr ctx_;
    Buffer record_;
    Buffer out_;  // record-sized: the update may be given as much room as input
    size_t len_;
    uint8_t aad_[13];
};

}  // namespace stitch::bench
