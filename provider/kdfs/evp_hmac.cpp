#include "provider/kdfs/evp_hmac.hpp"

#include <cstring>

#include "kernels/bytes.hpp"
#include "kernels/hkdf.hpp"

namespace stitch::prov {

bool EvpHmac::usable(const EVP_MD* md) noexcept {
    const int size = EVP_MD_get_size(md), block = EVP_MD_get_block_size(md);
    return size > 0 && size_t(size) <= kern::kKdfMaxHashLen && block > 0 && size_t(block) <= kMaxBlock &&
           !(EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF);
}

EvpHmac::EvpHmac(const EVP_MD* md) noexcept
    : md_(md),
      size_(size_t(EVP_MD_get_size(md))),
      block_(size_t(EVP_MD_get_block_size(md))),
      inner_(EVP_MD_CTX_new()),
      outer_(EVP_MD_CTX_new()),
      work_(EVP_MD_CTX_new()) {}

EvpHmac::~EvpHmac() {
    // Freeing a digest context cleanses it (the provider's freectx).
    EVP_MD_CTX_free(inner_);
    EVP_MD_CTX_free(outer_);
    EVP_MD_CTX_free(work_);
}

bool EvpHmac::set_key(const uint8_t* key, size_t len) noexcept {
    uint8_t pad[kMaxBlock] = {};
    bool ok = true;
    if (len > block_) {
        unsigned int n = 0;
        ok = EVP_DigestInit_ex2(work_, md_, nullptr) && EVP_DigestUpdate(work_, key, len) &&
             EVP_DigestFinal_ex(work_, pad, &n);
    } else if (len) {
        std::memcpy(pad, key, len);
    }
    for (size_t i = 0; i < block_; ++i) pad[i] ^= 0x36;
    ok = ok && EVP_DigestInit_ex2(inner_, md_, nullptr) && EVP_DigestUpdate(inner_, pad, block_);
    for (size_t i = 0; i < block_; ++i) pad[i] ^= 0x36 ^ 0x5c;
    ok = ok && EVP_DigestInit_ex2(outer_, md_, nullptr) && EVP_DigestUpdate(outer_, pad, block_);
    kern::wipe(pad, sizeof(pad));
    return ok;
}

bool EvpHmac::mac(std::initializer_list<kern::ByteView> pieces, uint8_t* out) noexcept {
    uint8_t inner_digest[kern::kKdfMaxHashLen];
    unsigned int n = 0;
    bool ok = EVP_MD_CTX_copy_ex(work_, inner_);
    for (const kern::ByteView& p : pieces) ok = ok && (p.len == 0 || EVP_DigestUpdate(work_, p.data, p.len));
    ok = ok && EVP_DigestFinal_ex(work_, inner_digest, &n) && EVP_MD_CTX_copy_ex(work_, outer_) &&
         EVP_DigestUpdate(work_, inner_digest, size_) && EVP_DigestFinal_ex(work_, out, &n);
    kern::wipe(inner_digest, sizeof(inner_digest));
    return ok;
}

bool EvpHmac::empty_hash(uint8_t* out) noexcept {
    unsigned int n = 0;
    return EVP_DigestInit_ex2(work_, md_, nullptr) && EVP_DigestFinal_ex(work_, out, &n);
}

}  // namespace stitch::prov
