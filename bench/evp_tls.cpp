#include "bench/evp_tls.hpp"

#include "bench/placement.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace stitch::bench {

namespace {

CipherCtxPtr new_ctx(const EVP_CIPHER* cipher, int enc, const uint8_t* iv) {
    if (!cipher) throw std::runtime_error("cipher not offered");
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    if (!ctx || EVP_CipherInit_ex(ctx.get(), cipher, nullptr, inputs().key, iv, enc) != 1)
        throw std::runtime_error(std::string("cannot initialise ") + EVP_CIPHER_get0_name(cipher));
    return ctx;
}

}  // namespace

namespace {

// The two buffers of an op under the placement: the input (empty in place)
// and the output, `out_len` bytes.
Buffer input_buffer(size_t len) {
    const Placement& p = placement();
    return p.set && !p.in_place ? Buffer(len, p.in) : Buffer();
}
Buffer output_buffer(size_t out_len) {
    const Placement& p = placement();
    if (!p.set) return Buffer(out_len);
    return Buffer(out_len, p.in_place ? p.in : p.out);
}

}  // namespace

Tls13Seal::Tls13Seal(const EVP_CIPHER* aead, size_t len)
    : ctx_(new_ctx(aead, 1, inputs().iv12)), in_(input_buffer(len)), out_(output_buffer(len + kTagLen)), len_(len) {
    std::memcpy(in_.size() ? in_.data() : out_.data(), plaintext(len).data(), len);
}

bool Tls13Seal::operator()() noexcept {
    EVP_CIPHER_CTX* c = ctx_.get();
    uint8_t* buf = out_.data();
    const uint8_t* src = in_.size() ? in_.data() : buf;
    uint8_t aad[5];
    tls13_header(aad, len_);
    int outl = 0, aadl = 0, finl = 0;
    return EVP_CipherInit_ex(c, nullptr, nullptr, nullptr, inputs().iv12, -1) == 1 &&
           EVP_CipherUpdate(c, nullptr, &aadl, aad, sizeof(aad)) == 1 &&
           EVP_CipherUpdate(c, buf, &outl, src, int(len_)) == 1 && EVP_CipherFinal_ex(c, buf + outl, &finl) == 1 &&
           size_t(outl + finl) == len_ && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, kTagLen, buf + len_) == 1;
}

Tls13Open::Tls13Open(const EVP_CIPHER* aead, std::span<const uint8_t> record)
    : ctx_(new_ctx(aead, 0, inputs().iv12)), len_(record.size() - kTagLen) {
    const Placement& p = placement();
    if (record.size() < kTagLen) throw std::runtime_error("nothing to open: sealing the input failed");
    record_ = p.set && !p.in_place ? Buffer(record.size(), p.in) : Buffer(record.size());
    std::memcpy(record_.data(), record.data(), record.size());
    out_ = p.set ? Buffer(record.size(), p.in_place ? p.in : p.out) : Buffer(len_);
    in_place_ = p.set && p.in_place;
}

bool Tls13Open::operator()() noexcept {
    EVP_CIPHER_CTX* c = ctx_.get();
    uint8_t aad[5];
    tls13_header(aad, len_);
    // In place, the record is opened in out_: a fresh copy each time, as
    // the one before was decrypted over.
    if (in_place_) std::memcpy(out_.data(), record_.data(), len_);
    const uint8_t* src = in_place_ ? out_.data() : record_.data();
    int outl = 0, aadl = 0, finl = 0;
    return EVP_CipherInit_ex(c, nullptr, nullptr, nullptr, inputs().iv12, -1) == 1 &&
           EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, kTagLen, record_.data() + len_) == 1 &&
           EVP_CipherUpdate(c, nullptr, &aadl, aad, sizeof(aad)) == 1 &&
           EVP_CipherUpdate(c, out_.data(), &outl, src, int(len_)) == 1 &&
           EVP_CipherFinal_ex(c, out_.data() + outl, &finl) == 1 && size_t(outl + finl) == len_;
}

ChaCha20Xor::ChaCha20Xor(const EVP_CIPHER* chacha, size_t len)
    : ctx_(new_ctx(chacha, 1, inputs().iv16)), in_(input_buffer(len)), out_(output_buffer(len)), len_(len) {
    std::memcpy(in_.size() ? in_.data() : out_.data(), plaintext(len).data(), len);
}

bool ChaCha20Xor::operator()() noexcept {
    EVP_CIPHER_CTX* c = ctx_.get();
    const uint8_t* src = in_.size() ? in_.data() : out_.data();
    int outl = 0;
    return EVP_CipherInit_ex(c, nullptr, nullptr, nullptr, inputs().iv16, -1) == 1 &&
           EVP_CipherUpdate(c, out_.data(), &outl, src, int(len_)) == 1 && size_t(outl) == len_;
}

Tls12Seal::Tls12Seal(const EVP_CIPHER* aead, size_t len)
    : ctx_(new_ctx(aead, 1, inputs().iv12)), buf_(len + kTagLen), len_(len) {
    std::memcpy(buf_.data(), plaintext(len).data(), len);
    tls12_header(aad_, len);
}

bool Tls12Seal::operator()() noexcept {
    EVP_CIPHER_CTX* c = ctx_.get();
    int outl = 0;
    return EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_TLS1_AAD, sizeof(aad_), aad_) == int(kTagLen) &&
           EVP_CipherUpdate(c, buf_.data(), &outl, buf_.data(), int(len_ + kTagLen)) == 1 &&
           size_t(outl) == len_ + kTagLen;
}

Tls12Open::Tls12Open(const EVP_CIPHER* aead, std::span<const uint8_t> record)
    : ctx_(new_ctx(aead, 0, inputs().iv12)),
      record_(copy_of(record, kTagLen)),
      out_(record.size()),
      len_(record.size() - kTagLen) {
    tls12_header(aad_, record.size());
}

bool Tls12Open::operator()() noexcept {
    EVP_CIPHER_CTX* c = ctx_.get();
    int outl = 0;
    return EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_TLS1_AAD, sizeof(aad_), aad_) == int(kTagLen) &&
           EVP_CipherUpdate(c, out_.data(), &outl, record_.data(), int(len_ + kTagLen)) == 1 &&
           size_t(outl) == len_;
}

}  // namespace stitch::bench
