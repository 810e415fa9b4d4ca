#include "bench/kernel_ops.hpp"

#include <cstring>

#include "kernels/bytes.hpp"

namespace stitch::bench {

using kern::Direction;

KernelSeal::KernelSeal(const kern::Impl& impl, size_t len) : buf_(len + kTagLen), len_(len) {
    kern::aead_init(st_, impl, kern::Grid::rfc8439);
    kern::aead_set_key(st_, inputs().key);
    std::memcpy(buf_.data(), plaintext(len).data(), len);
}

bool KernelSeal::operator()() noexcept {
    uint8_t aad[5];
    tls13_header(aad, len_);
    kern::aead_set_nonce(st_, inputs().iv12);
    bool ok = kern::aead_aad(st_, aad, sizeof(aad));
    ok &= kern::aead_text(st_, Direction::seal, buf_.data(), buf_.data(), len_);
    kern::aead_final(st_, buf_.data() + len_);
    return ok;
}

KernelOpen::KernelOpen(const kern::Impl& impl, std::span<const uint8_t> record)
    : record_(copy_of(record, kTagLen)), out_(record.size() - kTagLen), len_(record.size() - kTagLen) {
    kern::aead_init(st_, impl, kern::Grid::rfc8439);
    kern::aead_set_key(st_, inputs().key);
}

bool KernelOpen::operator()() noexcept {
    uint8_t aad[5];
    tls13_header(aad, len_);
    kern::aead_set_nonce(st_, inputs().iv12);
    return kern::aead_aad(st_, aad, sizeof(aad)) &&
           kern::aead_open_record(st_, record_.data(), out_.data(), len_, record_.data() + len_);
}

KernelChaCha20::KernelChaCha20(const kern::Impl& impl, size_t len) : impl_(&impl), buf_(plaintext(len)) {
    kern::chacha_load_key(s_.st, inputs().key);
}

bool KernelChaCha20::operator()() noexcept {
    for (int i = 0; i < 4; ++i) s_.st.ctr[i] = kern::load_le32(inputs().iv16 + 4 * i);
    kern::chacha_stream_reset(s_);
    kern::chacha_stream_xor(*impl_, s_, buf_.data(), buf_.data(), buf_.size());
    return true;
}

KernelPoly1305::KernelPoly1305(const kern::Impl& impl, size_t len) : impl_(&impl), msg_(plaintext(len)) {}

bool KernelPoly1305::operator()() noexcept {
    kern::poly1305_init(st_, inputs().poly_key);
    kern::poly1305_update(*impl_, st_, msg_.data(), msg_.size());
    kern::poly1305_final(*impl_, st_, tag_);
    return true;
}

KernelSshSeal::KernelSshSeal(const kern::Impl& impl, size_t payload)
    : in_(ssh_packet(payload, 0)), out_(kSshLengthLen + payload + kTagLen) {
    kern::openssh_init(st_, impl);
    kern::openssh_set_key(st_, inputs().ssh_key);
}

bool KernelSshSeal::operator()() noexcept {
    kern::openssh_seal(st_, inputs().ssh_seqnr, in_.data(), out_.data(), in_.size(), out_.data() + in_.size());
    return true;
}

KernelSshOpen::KernelSshOpen(const kern::Impl& impl, std::span<const uint8_t> packet)
    : in_(copy_of(packet, kSshLengthLen + kTagLen)), out_(packet.size()) {
    kern::openssh_init(st_, impl);
    kern::openssh_set_key(st_, inputs().ssh_key);
}

bool KernelSshOpen::operator()() noexcept {
    const size_t len = in_.size() - kTagLen;
    return kern::openssh_open(st_, inputs().ssh_seqnr, in_.data(), out_.data(), len, in_.data() + len);
}

}  // namespace stitch::bench
