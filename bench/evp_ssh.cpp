#include "bench/evp_ssh.hpp"

#include <openssl/crypto.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace stitch::bench {

namespace {

CipherCtxPtr new_ctx(const EVP_CIPHER* cipher, const uint8_t* key, int enc) {
    if (!cipher) throw std::runtime_error("cipher not offered");
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    if (!ctx || EVP_CipherInit_ex(ctx.get(), cipher, nullptr, key, nullptr, enc) != 1)
        throw std::runtime_error(std::string("cannot initialise ") + EVP_CIPHER_get0_name(cipher));
    return ctx;
}

MacCtxPtr new_mac(const EVP_MAC* mac) {
    if (!mac) throw std::runtime_error("MAC not offered");
    MacCtxPtr ctx(EVP_MAC_CTX_new(const_cast<EVP_MAC*>(mac)));
    if (!ctx) throw std::runtime_error("cannot create a MAC context");
    return ctx;
}

void store_be64(uint8_t* p, uint64_t v) {
    for (int i = 7; i >= 0; --i, v >>= 8) p[i] = uint8_t(v);
}

// stitch's IV for the packet: the sequence number, big-endian.
struct Seq8 {
    uint8_t b[8];
    Seq8() { store_be64(b, inputs().ssh_seqnr); }
};

// OpenSSH's raw ChaCha20 IV: 64-bit block counter 0 ‖ BE64 sequence number.
struct Iv16 {
    uint8_t b[16] = {};
    Iv16() { store_be64(b + 8, inputs().ssh_seqnr); }
};

const uint8_t kZeros[64] = {};
const Seq8 kSeq;
const Iv16 kIv;

}  // namespace

SshSealCipher::SshSealCipher(const EVP_CIPHER* ssh, size_t payload)
    : ctx_(new_ctx(ssh, inputs().ssh_key, 1)),
      in_(ssh_packet(payload, kTagLen)),
      out_(kSshLengthLen + payload + kTagLen) {}

bool SshSealCipher::operator()() noexcept {
    int outl = 0;
    return EVP_CipherInit_ex(ctx_.get(), nullptr, nullptr, nullptr, kSeq.b, -1) == 1 &&
           EVP_CipherUpdate(ctx_.get(), out_.data(), &outl, in_.data(), int(in_.size())) == 1 &&
           size_t(outl) == in_.size();
}

SshOpenCipher::SshOpenCipher(const EVP_CIPHER* ssh, std::span<const uint8_t> packet)
    : ctx_(new_ctx(ssh, inputs().ssh_key, 0)),
      in_(copy_of(packet, kSshLengthLen + kTagLen)),
      out_(packet.size()) {}

bool SshOpenCipher::operator()() noexcept {
    int outl = 0;
    return EVP_CipherInit_ex(ctx_.get(), nullptr, nullptr, nullptr, kSeq.b, -1) == 1 &&
           EVP_CipherUpdate(ctx_.get(), out_.data(), &outl, in_.data(), int(in_.size())) == 1 &&
           size_t(outl) == in_.size() - kTagLen;
}

SshSealComposed::SshSealComposed(const EVP_CIPHER* chacha, const EVP_MAC* poly, size_t payload)
    : main_(new_ctx(chacha, inputs().ssh_key, 1)),
      header_(new_ctx(chacha, inputs().ssh_key + 32, 1)),
      mac_(new_mac(poly)),
      in_(ssh_packet(payload, 0)),
      out_(kSshLengthLen + payload + kTagLen),
      payload_(payload) {}

bool SshSealComposed::operator()() noexcept {
    uint8_t poly_key[64];
    uint8_t* out = out_.data();
    const uint8_t* in = in_.data();
    int l = 0;
    size_t tagl = 0;
    const bool ok = EVP_CipherInit_ex(main_.get(), nullptr, nullptr, nullptr, kIv.b, 1) == 1 &&
                    EVP_CipherInit_ex(header_.get(), nullptr, nullptr, nullptr, kIv.b, 1) == 1 &&
                    EVP_CipherUpdate(main_.get(), poly_key, &l, kZeros, sizeof(kZeros)) == 1 &&
                    EVP_MAC_init(mac_.get(), poly_key, 32, nullptr) == 1 &&
                    EVP_CipherUpdate(header_.get(), out, &l, in, kSshLengthLen) == 1 &&
                    EVP_CipherFinal_ex(header_.get(), out + kSshLengthLen, &l) == 1 &&
                    EVP_CipherUpdate(main_.get(), out + kSshLengthLen, &l, in + kSshLengthLen, int(payload_)) == 1 &&
                    EVP_CipherFinal_ex(main_.get(), out + kSshLengthLen + payload_, &l) == 1 &&
                    EVP_MAC_update(mac_.get(), out, kSshLengthLen + payload_) == 1 &&
                    EVP_MAC_final(mac_.get(), out + kSshLengthLen + payload_, &tagl, kTagLen) == 1;
    OPENSSL_cleanse(poly_key, sizeof(poly_key));
    return ok;
}

SshOpenComposed::SshOpenComposed(const EVP_CIPHER* chacha, const EVP_MAC* poly, std::span<const uint8_t> packet)
    : main_(new_ctx(chacha, inputs().ssh_key, 0)),
      header_(new_ctx(chacha, inputs().ssh_key + 32, 0)),
      mac_(new_mac(poly)),
      in_(copy_of(packet, kSshLengthLen + kTagLen)),
      out_(packet.size()),
      payload_(packet.size() - kSshLengthLen - kTagLen) {}

bool SshOpenComposed::operator()() noexcept {
    uint8_t poly_key[64];
    uint8_t tag[kTagLen];
    uint8_t* out = out_.data();
    const uint8_t* in = in_.data();
    int l = 0;
    size_t tagl = 0;
    const bool ok = EVP_CipherInit_ex(header_.get(), nullptr, nullptr, nullptr, kIv.b, 0) == 1 &&
                    EVP_CipherUpdate(header_.get(), out, &l, in, kSshLengthLen) == 1 &&
                    EVP_CipherFinal_ex(header_.get(), out + kSshLengthLen, &l) == 1 &&
                    EVP_CipherInit_ex(main_.get(), nullptr, nullptr, nullptr, kIv.b, 0) == 1 &&
                    EVP_CipherUpdate(main_.get(), poly_key, &l, kZeros, sizeof(kZeros)) == 1 &&
                    EVP_MAC_init(mac_.get(), poly_key, 32, nullptr) == 1 &&
                    EVP_MAC_update(mac_.get(), in, kSshLengthLen + payload_) == 1 &&
                    EVP_MAC_final(mac_.get(), tag, &tagl, kTagLen) == 1 &&
                    CRYPTO_memcmp(tag, in + kSshLengthLen + payload_, kTagLen) == 0 &&
                    EVP_CipherUpdate(main_.get(), out + kSshLengthLen, &l, in + kSshLengthLen, int(payload_)) == 1 &&
                    EVP_CipherFinal_ex(main_.get(), out + kSshLengthLen + payload_, &l) == 1;
    OPENSSL_cleanse(poly_key, sizeof(poly_key));
    return ok;
}

Poly1305Mac::Poly1305Mac(const EVP_MAC* poly, size_t len) : mac_(new_mac(poly)), msg_(plaintext(len)) {}

bool Poly1305Mac::operator()() noexcept {
    size_t tagl = 0;
    return EVP_MAC_init(mac_.get(), inputs().poly_key, sizeof(inputs().poly_key), nullptr) == 1 &&
           EVP_MAC_update(mac_.get(), msg_.data(), msg_.size()) == 1 &&
           EVP_MAC_final(mac_.get(), tag_, &tagl, kTagLen) == 1 && tagl == kTagLen;
}

}  // namespace stitch::bench
