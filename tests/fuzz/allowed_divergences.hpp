// Where the EVP sequence fuzzer lets stitch and the default provider differ,
// and for which OpenSSL releases. Everything else must match call for call:
// the same accept or refuse, the same outl, the same output bytes, the same
// tag. docs/openssl-3.0-semantics.md#unsafe explains each entry.
//
// Each rule names the releases whose default provider answers otherwise
// (`since` up to, not including, `until`; until {0,0,0}: no release fixed yet)
// and its upstream reference. On any other release the call is compared like
// every other: a patch release that changes an answer either moves into a
// rule, with its reference, or is a finding.
//
// Kinds: where 3.0 is unsafe stitch MUST refuse and 3.0 may do anything;
// where 3.0 is wrong (the tag is not RFC 8439's) stitch must be right, which
// the fuzzer checks against a tag it composes from the default provider's
// ChaCha20 and Poly1305; where 3.0 carries stale state on, nothing is
// required of either. After any rule that changes state the pair is no
// longer compared: stitch alone runs on, so that a crash is still found, and
// its refusals and (when it seals) its tags are still checked.
#pragma once

#include "common/openssl_release.hpp"

namespace stitch::fuzz {

using test::Release;

enum class Divergence {
    decrypt_final_without_tag,
    short_decrypt_tag,
    aad_after_data,
    message_already_ended,
    key_or_iv_missing,
    tag_before_final,
    taglen_before_set,
    tls_record_pending,
    restart_semantics,
    tag_after_tls_record,
    empty_cipher_in_tls_record,
    empty_cipher_splits_aad,
    evp_cipher_final_does_nothing,
};

enum class RuleKind {
    unsafe_in_3_0,    // stitch refuses
    wrong_in_3_0,     // stitch accepts and is right: RFC 8439's tag
    stale_in_3_0,     // nothing required of either
    stitch_defined,   // 3.0 answers with a default it never set; stitch's answer is fixed
};

struct DivergenceRule {
    const char* name;
    RuleKind kind;
    bool keeps_state;  // neither side's state changes: comparing goes on
    Release since, until;
    const char* upstream;
    const char* reason;

    bool stitch_refuses() const { return kind == RuleKind::unsafe_in_3_0; }
    bool applies(const Release& r) const { return r.at_least(since) && (until.major == 0 || !r.at_least(until)); }
};

inline constexpr Release kAll{3, 0, 0}, kNone{0, 0, 0}, k3_0_22{3, 0, 22};

inline constexpr DivergenceRule kRules[] = {
    {"decrypt_final_without_tag", RuleKind::unsafe_in_3_0, false, kAll, kNone, "openssl#28137, #31285 (3.5+: #28683)",
     "decrypt final or EVP_Cipher(ctx, NULL, NULL, 0) with no 16-byte tag set for this message: 3.0 compares "
     "no bytes and accepts any ciphertext"},
    {"short_decrypt_tag", RuleKind::unsafe_in_3_0, false, kAll, kNone, "3.0 by design (tag length 1..16)",
     "a decrypt tag of 1..15 bytes: 3.0 compares only that prefix, a 1-byte tag is a 1-in-256 forgery"},
    {"aad_after_data", RuleKind::unsafe_in_3_0, false, kAll, kNone, "openssl#31188 (fixed after 3.0: #31673)",
     "AAD after data: 3.0 makes an order-dependent tag outside RFC 8439"},
    {"message_already_ended", RuleKind::unsafe_in_3_0, false, kAll, kNone, "",
     "data, AAD or a final after final or a TLS record, with no new IV: 3.0 restarts the keystream at block 0 "
     "of the same nonce"},
    {"key_or_iv_missing", RuleKind::unsafe_in_3_0, false, kAll, kNone, "",
     "data, AAD, a final or tlsaad before key and IV are set: 3.0 runs on an all-zero key or nonce"},
    {"tag_before_final", RuleKind::unsafe_in_3_0, true, kAll, kNone, "openssl#32833",
     "encrypt tag read before final: 3.0 returns stale bytes as success"},
    {"taglen_before_set", RuleKind::stitch_defined, true, kAll, kNone, "openssl#32833",
     "taglen before any tag length is set: 3.0 reads 0, stitch 16"},
    {"tls_record_pending", RuleKind::unsafe_in_3_0, false, kAll, kNone, "",
     "AAD (also an empty one through EVP_Cipher), a final, or a refused tlsaad while a TLS record is announced: "
     "3.0 mixes the record header into a streaming message, or has already overwritten it"},
    {"restart_semantics", RuleKind::stale_in_3_0, false, kAll, kNone, "",
     "an init without an IV, or tlsivfixed, while 3.0 holds a running message or a TLS record's "
     "sequence-XORed nonce: 3.0 carries that on, stitch starts a new message at the IV as set"},
    {"tag_after_tls_record", RuleKind::stale_in_3_0, true, kAll, kNone, "",
     "encrypt tag read after a TLS record: 3.0 returns stale bytes; stitch's must equal the record's tag"},
    {"empty_cipher_in_tls_record", RuleKind::unsafe_in_3_0, true, kAll, k3_0_22,
     "openssl#32417 (the 3.0 backport of #32173); #32753 keeps it",
     "EVP_Cipher(ctx, out, in, 0) while a TLS record is announced: 3.0.21 and before take it as a no-op; "
     "3.0.22 refuses it, as stitch does (issue 19's finding)"},
    {"empty_cipher_splits_aad", RuleKind::wrong_in_3_0, false, k3_0_22, kNone, "openssl#32752 (fix proposed: #32753)",
     "AAD (or an empty AAD call through EVP_Cipher) after a zero-length EVP_Cipher(ctx, out, in, 0) that "
     "followed AAD ending inside a 16-byte block: 3.0.22 padded the AAD at the empty call, so its tag is not "
     "RFC 8439's and distinct AADs can collide; and an empty AAD call through EVP_Cipher after text, with "
     "AAD that ended inside a block: 3.0.22 pads by the AAD's length again at its next text or final. "
     "stitch's empty calls change nothing"},
    {"evp_cipher_final_does_nothing", RuleKind::unsafe_in_3_0, true, kAll, k3_0_22,
     "openssl#32258 (CVE-2026-75803), #32173, 3.0 backport #32417",
     "EVP_Cipher(ctx, NULL, NULL, 0) on ChaCha20-Poly1305: 3.0.21 and before neither end the message nor check "
     "the tag; stitch's answer is compared with the default provider's EVP_CipherFinal_ex there instead"},
};

inline const DivergenceRule& rule(Divergence d) { return kRules[static_cast<int>(d)]; }

// The release the default provider comes from, read once.
inline const Release& reference_release() {
    static const Release r = test::installed_release();
    return r;
}

inline bool applies(Divergence d) { return rule(d).applies(reference_release()); }

// 3.0.22 on: a zero-length EVP_Cipher with an input starts the default
// provider's MAC (mac_inited), as data would; before, it did nothing.
inline bool empty_cipher_enters_message() {
    return reference_release().at_least(test::change::empty_cipher_enters_message);
}

}  // namespace stitch::fuzz
