#include "bench/evp_tls.hpp"

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

Tls13Seal::Tls13Seal(const EVP_CIPHER* aead, size_t len)
    : ctx_(new_ctx(aead, 1, inputs().iv12)), buf_(len + kTagLen), len_(len) {
    std::memcpy(buf_.data(), plaintext(len).data(), len);
}

bool Tls13Seal::operator()() noexcept {
    EVP_CIPHER_CTX* c = ctx_.get();
    uint8_t* buf = buf_.data();
    uint8_t aad[5];
    tls13_header(aad, len_);
    int outl = 0, aadl = 0, finl = 0;
    return EVP_CipherInit_ex(c, nullptr, nullptr, nullptr, inputs().iv12, -1) == 1 &&
           EVP_CipherUpdate(c, nullptr, &aadl, aad, sizeof(aad)) == 1 &&
           EVP_CipherUpdate(c, buf, &outl, buf, int(len_)) == 1 && EVP_CipherFinal_ex(c, buf + outl, &finl) == 1 &&
           size_t(outl + finl) == len_ && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, kTagLen, buf + len_) == 1;
}

Tls13Open::Tls13Open(const EVP_CIPHER* aead, std::span<const uint8_t> record)
    : ctx_(new_ctx(aead, 0, inputs().iv12)),
      record_(copy_of(record, kTagLen)),
      out_(record.size() - kTagLen),
      len_(record.size() - kTagLen) {}

bool Tls13Open::operator()() noexcept {
    EVP_CIPHER_CTX* c = ctx_.get();
    uint8_t aad[5];
    tls13_header(aad, len_);
    int outl = 0, aadl = 0, finl = 0;
    return EVP_CipherInit_ex(c, nullptr, nullptr, nullptr, inputs().iv12, -1) == 1 &&
           EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, kTagLen, record_.data() + len_) == 1 &&
           EVP_CipherUpdate(c, nullptr, &aadl, aad, sizeof(aad)) == 1 &&
           EVP_CipherUpdate(c, out_.data(), &outl, record_.data(), int(len_)) == 1 &&
           EVP_CipherFinal_ex(c, out_.data() + outl, &finl) == 1 && size_t(outl + finl) == len_;
}

ChaCha20Xor::ChaCha20Xor(const EVP_CIPHER* chacha, size_t len)
    : ctx_(new_ctx(chacha, 1, inputs().iv16)), buf_(len), len_(len) {
    std::memcpy(buf_.data(), plaintext(len).data(), len);
}

bool ChaCha20Xor::operator()() noexcept {
    EVP_CIPHER_CTX* c = ctx_.get();
    int outl = 0;
    return EVP_CipherInit_ex(c, nullptr, nullptr, nullptr, inputs().iv16, -1) == 1 &&
           EVP_CipherUpdate(c, buf_.data(), &outl, buf_.data(), int(len_)) == 1 && size_t(outl) == len_;
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
