// ChaCha20-Poly1305 through EVP in the call shapes real callers use, for the
// vector tests: each function returns what the caller would see, so a test
// can assert exact bytes and accept/refuse for any provider's cipher.
#pragma once

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <optional>

#include "common/evp_handles.hpp"
#include "common/test_util.hpp"

namespace stitch::test {

// EVP treats a NULL input as "no data" or "final"; an empty message is
// passed as a valid pointer with length 0, as callers with a buffer do.
inline const uint8_t* ptr(const Bytes& b) {
    static const uint8_t empty = 0;
    return b.empty() ? &empty : b.data();
}

// The shapes a message goes through.
enum class EvpShape {
    // pyca-style: init with key and IV, AAD update (out = NULL), data out of
    // place, final; the tag is got after final or set after the updates.
    update_out_of_place,
    // libssl TLS 1.3 record: one context keyed once and re-initialised with the
    // IV alone per message; the tag set before the updates; data in place.
    tls13_in_place,
    // The cipher entry (EVP_Cipher): AAD with out = NULL, data, then
    // EVP_Cipher(ctx, NULL, NULL, 0) to finalise.
    cipher_entry,
};

inline const char* shape_name(EvpShape s) {
    switch (s) {
        case EvpShape::update_out_of_place: return "update, out of place";
        case EvpShape::tls13_in_place: return "TLS 1.3 record shape, in place";
        case EvpShape::cipher_entry: return "EVP_Cipher";
    }
    return "?";
}

// The result of one message: ok is false at the first refused call.
struct EvpResult {
    bool ok = false;
    Bytes out;  // ciphertext or plaintext as the caller received it
    Bytes tag;  // seal only
};

// One context per (cipher, shape): the TLS 1.3 shape keeps its context
// across messages (key set once, IV-only re-init), as libssl does.
class EvpAead {
public:
    explicit EvpAead(EVP_CIPHER* cipher) : cipher_(cipher), ctx_(EVP_CIPHER_CTX_new()) {}

    EvpResult run(EvpShape shape, bool enc, const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& in,
                  const Bytes& tag_in) {
        EvpResult r;
        EVP_CIPHER_CTX* c = ctx_.get();
        if (!c || !begin(shape, enc, key, iv)) return r;
        const bool tag_first = shape != EvpShape::update_out_of_place;
        if (!enc && tag_first && !set_tag(tag_in)) return r;

        r.out = shape == EvpShape::tls13_in_place ? in : Bytes(in.size(), 0xa5);
        const uint8_t* src = shape == EvpShape::tls13_in_place ? ptr(r.out) : ptr(in);
        uint8_t* dst = r.out.empty() ? scratch_ : r.out.data();

        if (shape == EvpShape::cipher_entry) {
            if (!aad.empty() && EVP_Cipher(c, nullptr, ptr(aad), aad.size()) < 0) return r;
            if (!in.empty() && EVP_Cipher(c, dst, src, in.size()) != int(in.size())) return r;
            if (EVP_Cipher(c, nullptr, nullptr, 0) < 0) return r;
        } else {
            int n = 0, m = 0;
            if (!aad.empty() && (!EVP_CipherUpdate(c, nullptr, &n, ptr(aad), int(aad.size())) || n != int(aad.size())))
                return r;
            if (!EVP_CipherUpdate(c, dst, &n, src, int(in.size()))) return r;
            if (!enc && !tag_first && !set_tag(tag_in)) return r;
            if (!EVP_CipherFinal_ex(c, dst + n, &m) || size_t(n + m) != in.size()) return r;
        }
        if (enc) {
            r.tag.assign(16, 0);
            if (EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, r.tag.data()) <= 0) return r;
        }
        r.ok = true;
        return r;
    }

private:
    bool begin(EvpShape shape, bool enc, const Bytes& key, const Bytes& iv) {
        EVP_CIPHER_CTX* c = ctx_.get();
        if (shape != EvpShape::tls13_in_place) return EVP_CipherInit_ex2(c, cipher_, key.data(), iv.data(), enc, nullptr);
        if (!keyed_ || key != key_) {
            if (!EVP_CipherInit_ex2(c, cipher_, key.data(), nullptr, enc, nullptr)) return false;
            keyed_ = true;
            key_ = key;
        }
        return EVP_CipherInit_ex2(c, nullptr, nullptr, iv.data(), enc, nullptr);
    }

    bool set_tag(const Bytes& tag) {
        Bytes t = tag;  // the ctrl takes a non-const pointer
        return EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_AEAD_SET_TAG, int(t.size()), t.data()) > 0;
    }

    EVP_CIPHER* cipher_;
    CipherCtxPtr ctx_;
    bool keyed_ = false;
    Bytes key_;
    uint8_t scratch_[16] = {};
};

}  // namespace stitch::test
