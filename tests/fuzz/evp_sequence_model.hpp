// What the EVP sequence fuzzer knows of a context pair: stitch's state, as
// far as the rules need it (provider/ciphers/chacha20_poly1305.cpp and
// chacha20.cpp), and the few facts about the default provider's context that
// decide whether the two still agree, for the release installed
// (allowed_divergences.hpp). For each call it gives a Verdict: what stitch
// must answer, or which allowed divergence the call is.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "allowed_divergences.hpp"
#include "fuzz_input.hpp"

namespace stitch::fuzz {

enum class Kind : uint8_t { aead, chacha };

struct Verdict {
    enum Answer : int8_t { refuse = 0, accept = 1, either = 2 };
    Answer stitch = accept;
    std::optional<Divergence> why;  // set: not compared with 3.0 (see the rule)

    static Verdict of(bool ok) { return {ok ? accept : refuse, {}}; }
    static Verdict diverges(Divergence d) { return {refuse, d}; }
    // stitch answers `a`; the default provider is compared only on releases
    // the rule does not cover.
    static Verdict diverges_on_some(Answer a, Divergence d) {
        return {a, applies(d) ? std::optional<Divergence>(d) : std::nullopt};
    }
};

struct Model {
    // stitch
    bool evp_enc = false;  // EVP's direction: an init with enc = -1 keeps it
    bool enc = false;      // the provider's direction
    bool key = false, iv = false;
    bool text = false;   // data in this message
    bool ended = false;  // final or a TLS record ended it
    bool tls = false;    // tlsaad announced a record
    size_t tls_len = 0;  // the length the record's update must have
    bool tag_expected = false;
    bool tag_ready = false;
    bool tag_from_record = false;
    uint8_t record_tag[16] = {};
    Bytes key_bytes, iv_bytes;
    uint8_t tls_header[13] = {};
    // the default provider
    bool taglen_set = false;       // its taglen no longer reads 0
    bool ref_running = false;      // mac_inited: AAD or text since the message began
    bool ref_nonce_xored = false;  // its counter words hold a TLS record's nonce
    size_t aad_len = 0;            // AAD in this message (alike on both sides)
    bool ref_aad_open = false;     // AAD since its last pad to 16 (3.0's ctx->aad)
    bool ref_padded_early = false; // 3.0.22: an empty EVP_Cipher padded AAD that ended inside a block

    bool ready() const { return key && iv; }

    // ---- verdicts ----------------------------------------------------------

    Verdict init(Kind k, bool with_key, bool with_iv) const {
        if (k == Kind::aead && !with_iv &&
            (ref_nonce_xored || (!with_key && (ref_running || tls))))
            return {Verdict::accept, Divergence::restart_semantics};
        return Verdict::of(true);
    }

    // Tag, TLS and AAD calls are ChaCha20-Poly1305 only (evp_sequence_ops.hpp).
    Verdict set_tag(size_t len, bool with_data) const {
        if (len == 0 || len > 16) return Verdict::of(false);
        if (enc) return Verdict::of(!with_data);
        if (len != 16) return Verdict::diverges(Divergence::short_decrypt_tag);
        return Verdict::of(true);
    }

    Verdict get_tag(size_t len) const {
        if (!enc || len == 0 || len > 16) return Verdict::of(false);
        if (!tag_ready) return Verdict::diverges(Divergence::tag_before_final);
        if (tag_from_record) return {Verdict::accept, Divergence::tag_after_tls_record};
        return Verdict::of(true);
    }

    // `via_cipher`: EVP_Cipher(ctx, NULL, in, n), which stitch refuses empty
    // in TLS record mode too. Empty, it still reopens 3.0.22's AAD, which an
    // early pad then follows with a second pad at the text. After text it
    // reopens it too, and 3.0.22's next text (or final) pads by the AAD's
    // length mod 16 again, in the middle of the text (found by the fuzzer on
    // 3.0.22: 5 bytes of AAD, text, an empty AAD call, more text).
    Verdict aad(size_t n, bool via_cipher) const {
        if (n == 0) {
            if (via_cipher && tls) return Verdict::diverges(Divergence::tls_record_pending);
            if (via_cipher && ref_padded_early) return {Verdict::accept, Divergence::empty_cipher_splits_aad};
            if (via_cipher && text && aad_len % 16 && empty_cipher_enters_message())
                return {Verdict::accept, Divergence::empty_cipher_splits_aad};
            return Verdict::of(true);
        }
        if (!ready()) return Verdict::diverges(Divergence::key_or_iv_missing);
        if (ended) return Verdict::diverges(Divergence::message_already_ended);
        if (tls) return Verdict::diverges(Divergence::tls_record_pending);
        if (text) return Verdict::diverges(Divergence::aad_after_data);
        if (ref_padded_early) return {Verdict::accept, Divergence::empty_cipher_splits_aad};
        return Verdict::of(true);
    }

    Verdict data(Kind k, size_t n, bool via_cipher) const {
        if (k == Kind::chacha) {
            if (!key) return Verdict::of(false);  // both refuse, even a zero-length call
            if (!iv) return Verdict::diverges(Divergence::key_or_iv_missing);
            return Verdict::of(true);
        }
        if (n == 0) {
            if (via_cipher && tls) return Verdict::diverges_on_some(Verdict::refuse, Divergence::empty_cipher_in_tls_record);
            return Verdict::of(true);
        }
        if (!ready()) return Verdict::diverges(Divergence::key_or_iv_missing);
        if (ended) return Verdict::diverges(Divergence::message_already_ended);
        if (tls) return n != tls_len ? Verdict::of(false) : Verdict{enc ? Verdict::accept : Verdict::either, {}};
        return Verdict::of(true);
    }

    // `via_cipher`: EVP_Cipher(ctx, NULL, NULL, 0).
    Verdict final(Kind k, bool via_cipher) const {
        if (k == Kind::chacha) {
            if (!key) return Verdict::of(false);
            if (via_cipher && !iv) return Verdict::diverges(Divergence::key_or_iv_missing);
            return Verdict::of(true);
        }
        if (!ready()) return Verdict::diverges(Divergence::key_or_iv_missing);
        if (ended) return Verdict::diverges(Divergence::message_already_ended);
        if (tls) return Verdict::diverges(Divergence::tls_record_pending);
        if (!enc && !tag_expected) return Verdict::diverges(Divergence::decrypt_final_without_tag);
        return {enc ? Verdict::accept : Verdict::either, {}};
    }

    Verdict tls_aad(size_t size, size_t len) const {
        if (size != 13) return Verdict::of(false);
        if (!ready()) return Verdict::diverges(Divergence::key_or_iv_missing);
        // 3.0 copies the header in before it sees the short length: a pending record is spoilt.
        if (!enc && len < 16) return tls ? Verdict::diverges(Divergence::tls_record_pending) : Verdict::of(false);
        return Verdict::of(true);
    }

    Verdict fixed_iv(size_t size) const {
        if (size != 12) return Verdict::of(false);
        if (ref_running || tls) return {Verdict::accept, Divergence::restart_semantics};
        return Verdict::of(true);
    }

    // ---- what an accepted call changes -------------------------------------

    void fresh(bool direction) {
        *this = Model{};
        evp_enc = enc = direction;
    }

    void did_init(int enc_arg, const Bytes* k, const Bytes* v) {
        const bool e = enc_arg == -1 ? evp_enc : enc_arg == 1;
        evp_enc = e;
        if (enc != e) tag_expected = false;
        enc = e;
        if (k) {
            key = true;
            key_bytes = *k;
        }
        if (v) {
            iv = true;
            iv_bytes = *v;
            ref_nonce_xored = false;
        }
        if (k || v) ref_running = ref_aad_open = ref_padded_early = false;
        restart();
    }

    void did_set_tag(bool with_data) {
        taglen_set = true;
        if (!enc && with_data) tag_expected = true;
    }

    void did_aad(size_t n, bool via_cipher) {
        // 3.0.22 takes an empty AAD call through EVP_Cipher into the message.
        if (n || (via_cipher && empty_cipher_enters_message())) ref_running = ref_aad_open = true;
        aad_len += n;
    }

    void did_data(size_t n, bool via_cipher) {
        if (n) {
            text = true;
            ref_running = true;
            ref_aad_open = ref_padded_early = false;
        } else if (via_cipher && empty_cipher_enters_message()) {
            // 3.0.22 starts its MAC and pads the AAD seen so far now; the pad
            // is harmless unless more AAD follows.
            ref_running = true;
            if (ref_aad_open && aad_len % 16) ref_padded_early = true;
            ref_aad_open = false;
        }
    }

    void did_final() {
        ended = true;
        ref_running = ref_aad_open = ref_padded_early = false;
        if (enc) {
            tag_ready = true;
            tag_from_record = false;
        } else {
            tag_expected = false;
        }
    }

    void did_tls_aad(const uint8_t header[13], size_t len) {
        std::memcpy(tls_header, header, 13);
        tls = true;
        tls_len = enc ? len + 16 : len;
        ended = text = tag_ready = false;
        ref_running = ref_aad_open = ref_padded_early = false;
        ref_nonce_xored = true;
    }

    // A TLS record of the announced length ran; `tag` is the sealed record's.
    void did_record(const uint8_t* tag) {
        tls = false;
        ended = true;
        if (enc && tag) {
            tag_ready = tag_from_record = true;
            std::memcpy(record_tag, tag, 16);
        }
    }

    void did_fixed_iv(const Bytes& v) {
        iv = true;
        iv_bytes = v;
        ref_nonce_xored = false;
        restart();
    }

private:
    void restart() {
        tls = ended = text = tag_ready = tag_from_record = false;
        aad_len = 0;
    }
};

}  // namespace stitch::fuzz
