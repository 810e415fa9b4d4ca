// Where the EVP sequence fuzzer lets stitch and OpenSSL 3.0.19's default
// provider differ. Everything else must match call for call: the same accept
// or refuse, the same outl, the same output bytes, the same tag.
//
// Most entries are places where 3.0 is unsafe and stitch deliberately refuses
// (research.md §g): there stitch MUST refuse, and 3.0 may do anything. The
// others are sequences after which 3.0 carries stale state on and stitch
// starts clean; there nothing is required of either. After any entry that
// changes state the pair is no longer compared: stitch alone runs on, so that
// a crash is still found, and its refusals are still checked.
#pragma once

namespace stitch::fuzz {

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
};

struct DivergenceRule {
    const char* name;
    bool stitch_refuses;  // stitch must refuse (else: nothing required)
    bool keeps_state;     // neither side's state changes: comparing goes on
    const char* reason;
};

inline constexpr DivergenceRule kRules[] = {
    {"decrypt_final_without_tag", true, false,
     "decrypt final or EVP_Cipher(ctx, NULL, NULL, 0) with no 16-byte tag set for this message: "
     "3.0.19 accepts any ciphertext (§g.2)"},
    {"short_decrypt_tag", true, false,
     "a decrypt tag of 1..15 bytes: 3.0.19 compares only that prefix, a 1-byte tag is a 1-in-256 forgery (§g.11)"},
    {"aad_after_data", true, false, "AAD after data: 3.0.19 makes an order-dependent tag outside RFC 8439 (§g.4)"},
    {"message_already_ended", true, false,
     "data, AAD or a final after final or a TLS record, with no new IV: 3.0.19 restarts the keystream at "
     "block 0 of the same nonce"},
    {"key_or_iv_missing", true, false,
     "data, AAD, a final or tlsaad before key and IV are set: 3.0.19 runs on an all-zero key or nonce"},
    {"tag_before_final", true, true, "encrypt tag read before final: 3.0.19 returns stale bytes as success (§g.10)"},
    {"taglen_before_set", false, true, "taglen before any tag length is set: 3.0.19 reads 0, stitch 16 (§g.10)"},
    {"tls_record_pending", true, false,
     "AAD, a final, or a refused tlsaad while a TLS record is announced: 3.0.19 mixes the record header "
     "into a normal message, or has already overwritten it"},
    {"restart_semantics", false, false,
     "an init without an IV, or tlsivfixed, while 3.0.19 holds a running message or a TLS record's "
     "sequence-XORed nonce: 3.0 carries that on, stitch starts a new message at the IV as set"},
    {"tag_after_tls_record", false, true,
     "encrypt tag read after a TLS record: 3.0.19 returns stale bytes; stitch's must equal the record's tag"},
};

inline const DivergenceRule& rule(Divergence d) { return kRules[static_cast<int>(d)]; }

}  // namespace stitch::fuzz
