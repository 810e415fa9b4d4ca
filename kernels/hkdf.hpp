// HKDF (RFC 5869) and TLS 1.3's HKDF-Expand-Label and Derive-Secret-then-
// Extract step (RFC 8446 §7.1), written once over any HMAC: the SHA-2 kernels
// (Sha2Hmac) or, for every other digest, the provider's HMAC over an EVP_MD.
//
// A Mac has: size() (HashLen); set_key(key, len); mac({pieces...}, out) for
// HMAC(key, pieces) into out[0..size()); empty_hash(out). Each returns false
// only when the HMAC underneath failed (an EVP call); the SHA-2 one never does.
//
// Limits are checked before a byte is written; an HMAC that fails midway
// leaves the caller to wipe what was written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/bytes.hpp"
#include "kernels/hmac.hpp"

namespace stitch::kern {

enum class KdfStatus {
    ok,
    output_too_long,   // more than 255 blocks of HashLen (RFC 5869 §2.3)
    label_too_long,    // TLS 1.3: prefix ‖ label over 255 bytes (the HkdfLabel's opaque<7..255>)
    context_too_long,  // TLS 1.3: context (data) over 255 bytes (opaque<0..255>)
    mac_failed,
};

inline constexpr size_t kHkdfMaxBlocks = 255;
inline constexpr size_t kKdfMaxHashLen = 64;     // EVP_MAX_MD_SIZE: no Mac may be longer
inline constexpr size_t kTls13MaxLabel = 255;    // prefix ‖ label
inline constexpr size_t kTls13MaxContext = 255;  // data
// u16 length ‖ u8 ‖ prefix ‖ label ‖ u8 ‖ data
inline constexpr size_t kTls13MaxHkdfLabel = 2 + 1 + kTls13MaxLabel + 1 + kTls13MaxContext;

inline bool hkdf_output_fits(size_t out_len, size_t hash_len) noexcept { return out_len <= kHkdfMaxBlocks * hash_len; }

// PRK = HMAC(salt, IKM), HashLen bytes. No salt is the empty key, which HMAC
// pads to the same block as HashLen zero bytes (RFC 5869 §2.2).
template <class Mac>
KdfStatus hkdf_extract(Mac& mac, const uint8_t* salt, size_t salt_len, const uint8_t* ikm, size_t ikm_len,
                       uint8_t* prk) noexcept {
    if (!mac.set_key(salt, salt_len) || !mac.mac({{ikm, ikm_len}}, prk)) return KdfStatus::mac_failed;
    return KdfStatus::ok;
}

// OKM = T(1) ‖ T(2) ‖ ..., T(i) = HMAC(PRK, T(i-1) ‖ info ‖ i), cut to out_len.
// Whole blocks are written in place; each is the next block's T(i-1).
template <class Mac>
KdfStatus hkdf_expand(Mac& mac, const uint8_t* prk, size_t prk_len, const uint8_t* info, size_t info_len, uint8_t* out,
                      size_t out_len) noexcept {
    const size_t hash_len = mac.size();
    if (!hkdf_output_fits(out_len, hash_len)) return KdfStatus::output_too_long;
    if (!mac.set_key(prk, prk_len)) return KdfStatus::mac_failed;
    alignas(16) uint8_t last[kKdfMaxHashLen];
    const uint8_t* prev = nullptr;
    size_t done = 0;
    for (uint8_t i = 1; done < out_len; ++i) {
        const uint8_t counter[1] = {i};
        const bool whole = out_len - done >= hash_len;
        uint8_t* t = whole ? out + done : last;
        if (!mac.mac({{prev, prev ? hash_len : 0}, {info, info_len}, {counter, 1}}, t)) {
            wipe(last, sizeof(last));
            return KdfStatus::mac_failed;
        }
        if (!whole) std::memcpy(out + done, last, out_len - done);
        prev = t;
        done += whole ? hash_len : out_len - done;
    }
    wipe(last, sizeof(last));
    return KdfStatus::ok;
}

// RFC 8446 §7.1's HkdfLabel: u16 out_len ‖ u8 len ‖ prefix ‖ label ‖ u8 len ‖
// data. Writes it into buf and returns its length, or 0 past a limit
// (kernels/hkdf.cpp).
size_t tls13_hkdf_label(uint8_t (&buf)[kTls13MaxHkdfLabel], size_t out_len, const uint8_t* prefix, size_t prefix_len,
                        const uint8_t* label, size_t label_len, const uint8_t* data, size_t data_len) noexcept;

// HKDF-Expand-Label(Secret = key, Label, Context = data, Length = out_len),
// with the prefix ("tls13 ", or DTLS's "dtls13") given by the caller.
template <class Mac>
KdfStatus tls13_expand_label(Mac& mac, const uint8_t* key, size_t key_len, const uint8_t* prefix, size_t prefix_len,
                             const uint8_t* label, size_t label_len, const uint8_t* data, size_t data_len, uint8_t* out,
                             size_t out_len) noexcept {
    if (prefix_len + label_len > kTls13MaxLabel) return KdfStatus::label_too_long;
    if (data_len > kTls13MaxContext) return KdfStatus::context_too_long;
    if (!hkdf_output_fits(out_len, mac.size())) return KdfStatus::output_too_long;
    uint8_t info[kTls13MaxHkdfLabel];
    const size_t info_len = tls13_hkdf_label(info, out_len, prefix, prefix_len, label, label_len, data, data_len);
    return hkdf_expand(mac, key, key_len, info, info_len, out, out_len);
}

// One step of the TLS 1.3 key schedule: HKDF-Extract(salt', IKM) where
// salt' = Derive-Secret(salt, label, "") = HKDF-Expand-Label(salt, label,
// Hash(""), HashLen), or the empty salt where there is no previous secret
// (has_salt false). No IKM means HashLen zero bytes (the schedule's "0").
// out_len is HashLen.
template <class Mac>
KdfStatus tls13_extract_step(Mac& mac, bool has_salt, const uint8_t* salt, size_t salt_len, bool has_ikm,
                             const uint8_t* ikm, size_t ikm_len, const uint8_t* prefix, size_t prefix_len,
                             const uint8_t* label, size_t label_len, uint8_t* out) noexcept {
    const size_t hash_len = mac.size();
    static constexpr uint8_t kZeros[kKdfMaxHashLen] = {};
    if (!has_ikm) {
        ikm = kZeros;
        ikm_len = hash_len;
    }
    if (!has_salt) return hkdf_extract(mac, nullptr, 0, ikm, ikm_len, out);

    alignas(16) uint8_t empty_hash[kKdfMaxHashLen];
    alignas(16) uint8_t derived[kKdfMaxHashLen];
    if (!mac.empty_hash(empty_hash)) return KdfStatus::mac_failed;
    KdfStatus st = tls13_expand_label(mac, salt, salt_len, prefix, prefix_len, label, label_len, empty_hash, hash_len,
                                      derived, hash_len);
    if (st == KdfStatus::ok) st = hkdf_extract(mac, derived, hash_len, ikm, ikm_len, out);
    wipe(derived, sizeof(derived));
    return st;
}

}  // namespace stitch::kern
