// The stitch kernels called directly, one message per call, for one kernel
// set (portable_impl(), avx2, ...): what the provider layer costs is the
// difference between these rows and stitch's EVP rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "bench/buffer.hpp"
#include "bench/inputs.hpp"
#include "kernels/aead.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/openssh.hpp"
#include "kernels/poly1305.hpp"
#include "kernels/portable/set.hpp"

namespace stitch::bench {

// aead_set_nonce, 5-byte AAD, aead_text in place, aead_final: a TLS 1.3 seal.
class KernelSeal {
public:
    KernelSeal(const kern::Impl& impl, size_t len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return buf_.span(); }  // ciphertext ‖ tag

private:
    kern::AeadState st_;
    Buffer buf_;
    size_t len_;
};

// aead_set_nonce, 5-byte AAD, aead_open_record out of place.
class KernelOpen {
public:
    KernelOpen(const kern::Impl& impl, std::span<const uint8_t> record);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return out_.span(); }

private:
    kern::AeadState st_;
    Buffer record_, out_;
    size_t len_;
};

// Raw ChaCha20 through the stream over Impl::chacha20_blocks, in place.
class KernelChaCha20 {
public:
    KernelChaCha20(const kern::Impl& impl, size_t len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return buf_.span(); }

private:
    const kern::Impl* impl_;
    kern::ChaChaStream s_;
    Buffer buf_;
};

class KernelPoly1305 {
public:
    KernelPoly1305(const kern::Impl& impl, size_t len);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {tag_, kTagLen}; }

private:
    const kern::Impl* impl_;
    kern::Poly1305State st_;
    Buffer msg_;
    uint8_t tag_[kTagLen] = {};
};

// openssh_seal: length ‖ payload in, encrypted length ‖ ciphertext ‖ tag out.
class KernelSshSeal {
public:
    KernelSshSeal(const kern::Impl& impl, size_t payload);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return out_.span(); }

private:
    kern::OpensshState st_;
    Buffer in_, out_;
};

// openssh_open of a whole packet (encrypted length ‖ ciphertext ‖ tag).
class KernelSshOpen {
public:
    KernelSshOpen(const kern::Impl& impl, std::span<const uint8_t> packet);
    bool operator()() noexcept;
    std::span<const uint8_t> output() const { return {out_.data(), out_.size() - kTagLen}; }

private:
    kern::OpensshState st_;
    Buffer in_, out_;
};

}  // namespace stitch::bench
