// Seals and opens one ChaCha20-Poly1305 message through EVP, fed the way an
// AeadPlan says: AAD and text cut into calls, in place or not, the tag set
// before or after the data, zero-length calls between the parts, and a context
// copy somewhere in the message. The same plan drives stitch and the default
// provider, so any difference in the result is the provider's.
#pragma once

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <string>
#include <vector>

#include "evp_support.hpp"

namespace stitch::test {

struct AeadMessage {
    Bytes key, nonce, aad, text;  // text: plaintext to seal, or ciphertext to open
};

struct AeadPlan {
    enum class Copy { None, AfterInit, InAad, InText };

    std::vector<size_t> aad_parts, text_parts;
    bool in_place = false;
    bool tag_before_data = false;    // open: SET_TAG right after init (pyca and TLS 1.3 order)
    bool zero_length_calls = false;  // a zero-length call before every part
    bool via_evp_cipher = false;     // parts go through EVP_Cipher instead of EVP_CipherUpdate
    Copy copy = Copy::None;
    size_t copy_part = 0;        // the copy is taken before this AAD or text part
    bool free_original = false;  // after the copy, free the original and finish on the copy

    std::string describe() const {
        return "aad_parts=" + std::to_string(aad_parts.size()) + " text_parts=" + std::to_string(text_parts.size()) +
               " in_place=" + std::to_string(in_place) + " tag_before=" + std::to_string(tag_before_data) +
               " zero_calls=" + std::to_string(zero_length_calls) + " evp_cipher=" + std::to_string(via_evp_cipher) +
               " copy=" + std::to_string(int(copy)) + "@" + std::to_string(copy_part) +
               " free_original=" + std::to_string(free_original);
    }
};

inline AeadPlan random_plan(Rng& rng, size_t aad_len, size_t text_len) {
    AeadPlan p;
    p.aad_parts = random_split(rng, aad_len);
    p.text_parts = random_split(rng, text_len);
    p.in_place = rng.below(2);
    p.tag_before_data = rng.below(2);
    p.zero_length_calls = rng.below(4) == 0;
    p.via_evp_cipher = rng.below(4) == 0;
    switch (rng.below(4)) {
        case 1: p.copy = AeadPlan::Copy::AfterInit; break;
        case 2:
            if (!p.aad_parts.empty()) p.copy = AeadPlan::Copy::InAad, p.copy_part = rng.below(p.aad_parts.size());
            break;
        case 3:
            if (!p.text_parts.empty()) p.copy = AeadPlan::Copy::InText, p.copy_part = rng.below(p.text_parts.size());
            break;
        default: break;
    }
    p.free_original = rng.below(2);
    return p;
}

struct AeadResult {
    bool ok = false;  // every call accepted (open: final accepted the tag)
    Bytes text;       // ciphertext or plaintext
    Bytes tag;        // seal only
};

namespace detail {

// One EVP call on a data or AAD part (out == nullptr). Returns outl, or -1.
inline int aead_part(EVP_CIPHER_CTX* ctx, uint8_t* out, const uint8_t* in, size_t n, bool via_evp_cipher) {
    if (via_evp_cipher) return EVP_Cipher(ctx, out, in, unsigned(n));
    int outl = -2;
    return EVP_CipherUpdate(ctx, out, &outl, in, int(n)) == 1 ? outl : -1;
}

struct Lane {
    CipherCtxPtr ctx;
    Bytes out;
    bool ok = true;
};

}  // namespace detail

// Runs one message. `tag` is used when opening (enc == 0).
inline AeadResult run_aead(const EVP_CIPHER* cipher, int enc, const AeadMessage& m, const Bytes& tag,
                           const AeadPlan& p) {
    using detail::Lane;
    static const uint8_t kNothing[1] = {0};
    uint8_t spare[1];
    std::vector<Lane> lanes;
    lanes.push_back(Lane{new_cipher_ctx(), p.in_place ? m.text : Bytes(m.text.size(), 0xee)});
    lanes[0].ok = EVP_CipherInit_ex(lanes[0].ctx.get(), cipher, nullptr, m.key.data(), m.nonce.data(), enc) == 1;

    auto copy_here = [&](AeadPlan::Copy where, size_t part) {
        if (p.copy != where || p.copy_part != part || lanes.size() != 1) return;
        Lane twin{new_cipher_ctx(), lanes[0].out, lanes[0].ok};
        twin.ok &= EVP_CIPHER_CTX_copy(twin.ctx.get(), lanes[0].ctx.get()) == 1;
        if (p.free_original)
            lanes[0] = std::move(twin);
        else
            lanes.push_back(std::move(twin));
    };
    auto set_tag = [&] {
        for (auto& l : lanes)
            l.ok &= EVP_CIPHER_CTX_ctrl(l.ctx.get(), EVP_CTRL_AEAD_SET_TAG, int(tag.size()),
                                        const_cast<uint8_t*>(tag.data())) == 1;
    };

    copy_here(AeadPlan::Copy::AfterInit, 0);
    if (!enc && p.tag_before_data) set_tag();

    size_t off = 0;
    for (size_t i = 0; i < p.aad_parts.size(); ++i) {
        copy_here(AeadPlan::Copy::InAad, i);
        for (auto& l : lanes) {
            if (p.zero_length_calls) {
                // Both kinds of empty call: neither may pad the AAD early
                // (docs/openssl-3.0-semantics.md#unsafe-empty-cipher-aad).
                uint8_t* out = l.out.empty() ? spare : l.out.data();
                l.ok &= detail::aead_part(l.ctx.get(), nullptr, kNothing, 0, p.via_evp_cipher) == 0;
                l.ok &= detail::aead_part(l.ctx.get(), out, kNothing, 0, p.via_evp_cipher) == 0;
            }
            l.ok &= detail::aead_part(l.ctx.get(), nullptr, m.aad.data() + off, p.aad_parts[i], p.via_evp_cipher) ==
                    int(p.aad_parts[i]);
        }
        off += p.aad_parts[i];
    }
    off = 0;
    for (size_t i = 0; i < p.text_parts.size(); ++i) {
        copy_here(AeadPlan::Copy::InText, i);
        for (auto& l : lanes) {
            uint8_t* out = l.out.data() + off;
            const uint8_t* in = p.in_place ? out : m.text.data() + off;
            if (p.zero_length_calls) l.ok &= detail::aead_part(l.ctx.get(), out, in, 0, p.via_evp_cipher) == 0;
            l.ok &= detail::aead_part(l.ctx.get(), out, in, p.text_parts[i], p.via_evp_cipher) == int(p.text_parts[i]);
        }
        off += p.text_parts[i];
    }
    if (!enc && !p.tag_before_data) set_tag();

    std::vector<AeadResult> results;
    for (auto& l : lanes) {
        AeadResult r;
        int outl = -2;
        uint8_t tail[16];
        bool final_ok = EVP_CipherFinal_ex(l.ctx.get(), tail, &outl) == 1;
        if (final_ok) {
            EXPECT_EQ(outl, 0) << "final writes nothing for a stream cipher";
        }
        r.ok = l.ok && final_ok;
        r.text = l.out;
        if (enc && r.ok) {
            r.tag.assign(16, 0);
            r.ok = EVP_CIPHER_CTX_ctrl(l.ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, r.tag.data()) == 1;
        }
        results.push_back(std::move(r));
    }
    if (results.size() == 2) {
        // A copy is a second, independent stream: it must end exactly as the original.
        EXPECT_EQ(results[0].ok, results[1].ok) << "original and copy disagree";
        EXPECT_EQ(to_hex(results[0].text), to_hex(results[1].text)) << "original and copy disagree";
        EXPECT_EQ(to_hex(results[0].tag), to_hex(results[1].tag)) << "original and copy disagree";
    }
    return results[0];
}

inline AeadResult seal(const EVP_CIPHER* c, const AeadMessage& m, const AeadPlan& p) {
    return run_aead(c, 1, m, {}, p);
}

// Opens with m.text as ciphertext.
inline AeadResult open(const EVP_CIPHER* c, const AeadMessage& m, const Bytes& tag, const AeadPlan& p) {
    return run_aead(c, 0, m, tag, p);
}

// The whole message in one call each, the reference shape.
inline AeadPlan one_shot_plan(const AeadMessage& m) {
    AeadPlan p;
    if (!m.aad.empty()) p.aad_parts = {m.aad.size()};
    if (!m.text.empty()) p.text_parts = {m.text.size()};
    return p;
}

inline AeadMessage random_message(Rng& rng, size_t aad_len, size_t text_len) {
    return AeadMessage{rng.bytes(32), rng.bytes(12), rng.bytes(aad_len), rng.bytes(text_len)};
}

}  // namespace stitch::test
