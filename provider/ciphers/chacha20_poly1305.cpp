// ChaCha20-Poly1305 (RFC 8439 §2.8) under OpenSSL's name. It answers as
// OpenSSL 3.0's default provider does for every call sequence libssl (TLS 1.2
// one-shot records, TLS 1.3), OpenSSH, libssh and pyca use, and is stricter
// where 3.0 is unsafe: no decrypt without a 16-byte tag, no AAD after data, no
// second final, EVP_Cipher(ctx, NULL, NULL, 0) checks the tag, zero-length
// calls change nothing, and in TLS record mode EVP_Cipher takes nothing but the
// whole record. docs/openssl-3.0-semantics.md says why, call by call (#empty-calls
// is the table of empty calls). All crypto is in kernels/aead.hpp.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstring>

#include "kernels/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/verdict.hpp"
#include "provider/ciphers/cipher_common.hpp"
#include "provider/ciphers/ciphers.hpp"
#include "provider/errors.hpp"
#include "provider/params.hpp"

namespace stitch::prov {

namespace {

using kern::Direction;

constexpr size_t kKeyLen = 32;
constexpr size_t kIvLen = 12;
constexpr size_t kTagLen = 16;
constexpr size_t kTlsAadLen = 13;  // seq(8) ‖ type(1) ‖ version(2) ‖ length(2)
constexpr CipherShape kShape{kKeyLen, kIvLen, true};

struct Ctx {
    const Provider* prov;
    kern::AeadState st;
    uint8_t nonce[kIvLen];  // the IV as set; a TLS 1.2 record XORs its sequence number into a copy
    uint8_t tag[kTagLen];   // encrypt: the tag final computed; decrypt: the caller's tag
    size_t tag_len;         // what `taglen` reports: 16 unless a caller set a length
    size_t tls_payload;     // the payload length `tlsaad` announced
    bool initialised;       // einit or dinit has run, so `enc` means something
    bool enc;
    bool key_set;
    bool iv_set;
    bool tls_record;    // `tlsaad` set: the next update is that whole record
    bool finished;      // final (or a TLS record) ended the message; an init starts the next
    bool tag_ready;     // encrypt: `tag` holds this message's tag
    bool tag_expected;  // decrypt: `tag` holds the caller's tag; used up by one final
};

Direction direction(const Ctx& c) noexcept { return c.enc ? Direction::seal : Direction::open; }

// Text the 32-bit block counter still allows in this message.
bool room_for(const kern::AeadState& st, size_t len) noexcept { return len <= st.text_room - st.text_len; }

// The reason the message cannot take data or end now; 0 when it can.
int not_ready(const Ctx& c) noexcept {
    if (!c.initialised) return R_NOT_INITIALISED;
    if (!c.key_set) return R_KEY_NOT_SET;
    if (!c.iv_set) return R_IV_NOT_SET;
    if (c.finished) return R_ALREADY_FINAL;
    return 0;
}

// Every init starts a new message at the current nonce: a key-only re-init
// keeps the IV, an IV-only one keeps the key (TLS 1.3, OpenSSH rely on both).
void restart(Ctx& c) noexcept {
    if (c.iv_set) kern::aead_set_nonce(c.st, c.nonce);
    c.tls_record = false;
    c.finished = false;
    c.tag_ready = false;
}

// --- params ---------------------------------------------------------------

int set_tag(Ctx& c, const OSSL_PARAM& p) noexcept {
    if (!param::is_octets(p)) return refuse(*c.prov, R_INVALID_PARAM);
    if (p.data_size == 0 || p.data_size > kTagLen) return refuse(*c.prov, R_INVALID_TAG_LENGTH);
    if (c.enc) {
        if (p.data) return refuse(*c.prov, R_TAG_NOT_NEEDED);
        c.tag_len = p.data_size;  // a length alone (`openssl speed` sets one): what `taglen` reports
        return 1;
    }
    if (p.data_size != kTagLen) return refuse(*c.prov, R_INVALID_TAG_LENGTH);  // no truncated tags (docs: #unsafe-short-tag)
    if (p.data) {
        std::memcpy(c.tag, p.data, kTagLen);
        c.tag_expected = true;
    }
    c.tag_len = kTagLen;
    return 1;
}

int get_tag(const Ctx& c, OSSL_PARAM& p) noexcept {
    if (!param::is_octets(p) || !p.data) return refuse(*c.prov, R_INVALID_PARAM);
    if (p.data_size == 0 || p.data_size > kTagLen) return refuse(*c.prov, R_INVALID_TAG_LENGTH);
    if (!c.enc || !c.tag_ready) return refuse(*c.prov, R_TAG_NOT_READY);  // 3.0 returns stale bytes here
    std::memcpy(p.data, c.tag, p.data_size);  // 1..15 bytes: a prefix, as OpenSSL gives
    p.return_size = p.data_size;
    return 1;
}

// EVP_CTRL_AEAD_TLS1_AAD: the record header starts a one-record message whose
// nonce is the IV XOR the 64-bit sequence number (RFC 7905 §2). On decrypt the
// announced length includes the tag, which the MAC's AAD must not count.
int set_tls_aad(Ctx& c, const OSSL_PARAM& p) noexcept {
    if (!param::is_octets(p) || p.data_size != kTlsAadLen || !p.data) return refuse(*c.prov, R_INVALID_TLS_AAD);
    if (!c.key_set) return refuse(*c.prov, R_KEY_NOT_SET);
    if (!c.iv_set) return refuse(*c.prov, R_IV_NOT_SET);
    uint8_t aad[kTlsAadLen];
    std::memcpy(aad, p.data, kTlsAadLen);
    size_t len = size_t(aad[11]) << 8 | aad[12];
    if (!c.enc) {
        if (len < kTagLen) return refuse(*c.prov, R_TLS_RECORD_TOO_SHORT);
        len -= kTagLen;
        aad[11] = uint8_t(len >> 8);
        aad[12] = uint8_t(len);
    }
    // Bytes 4..11 of the IV XOR the sequence number as one 64-bit word, read
    // from the IV itself: g++ 12 read them back as one load over the 4- and
    // 8-byte stores of a copy (a store-forwarding stall a record).
    uint64_t seq, iv_tail;
    std::memcpy(&seq, aad, 8);
    std::memcpy(&iv_tail, c.nonce + 4, 8);
    iv_tail ^= seq;
    uint8_t nonce[kIvLen];
    std::memcpy(nonce, c.nonce, 4);
    std::memcpy(nonce + 4, &iv_tail, 8);
    kern::aead_set_nonce(c.st, nonce);
    kern::aead_aad(c.st, aad, kTlsAadLen);  // held back by the kernel until the record arrives
    c.tls_payload = len;
    c.tls_record = true;
    c.finished = false;
    c.tag_ready = false;
    return 1;
}

// EVP_CTRL_AEAD_SET_IV_FIXED: the whole 12-byte nonce, as an IV-only init.
int set_fixed_iv(Ctx& c, const OSSL_PARAM& p) noexcept {
    if (!param::is_octets(p) || p.data_size != kIvLen || !p.data) return refuse(*c.prov, R_INVALID_IV_LENGTH);
    std::memcpy(c.nonce, p.data, kIvLen);
    c.iv_set = true;
    restart(c);
    return 1;
}

int set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    for (const OSSL_PARAM* p = params; p && p->key; ++p) {
        const char* k = p->key;
        int ok = 1;
        if (param::is(k, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD))
            ok = set_tls_aad(c, *p);
        else if (param::is(k, OSSL_CIPHER_PARAM_AEAD_TAG))
            ok = set_tag(c, *p);
        else if (param::is(k, OSSL_CIPHER_PARAM_IVLEN))
            ok = check_fixed_len(*c.prov, *p, kIvLen, R_INVALID_IV_LENGTH);
        else if (param::is(k, OSSL_CIPHER_PARAM_KEYLEN))
            ok = check_fixed_len(*c.prov, *p, kKeyLen, R_INVALID_KEY_LENGTH);
        else if (param::is(k, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED))
            ok = set_fixed_iv(c, *p);
        // Anything else (libssl's tls-version and tls-mac-size, padding) is ignored, as 3.0 does.
        if (!ok) return 0;
    }
    return 1;
}

int get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    for (OSSL_PARAM* p = params; p && p->key; ++p) {
        const char* k = p->key;
        bool ok = true;
        if (param::is(k, OSSL_CIPHER_PARAM_AEAD_TAG)) {
            if (!get_tag(c, *p)) return 0;
        } else if (param::is(k, OSSL_CIPHER_PARAM_IVLEN)) {
            ok = param::set_size(*p, kIvLen);
        } else if (param::is(k, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) {
            ok = param::set_size(*p, kTagLen);  // what a TLS record adds: the tag
        } else if (param::is(k, OSSL_CIPHER_PARAM_KEYLEN)) {
            ok = param::set_size(*p, kKeyLen);
        } else if (param::is(k, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) {
            ok = param::set_size(*p, c.tag_len);
        }
        if (!ok) return refuse(*c.prov, R_INVALID_PARAM);
    }
    return 1;
}

const OSSL_PARAM kGettableCtx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, nullptr),
    OSSL_PARAM_END,
};

const OSSL_PARAM kSettableCtx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* gettable_ctx_params(void*, void*) noexcept { return kGettableCtx; }
const OSSL_PARAM* settable_ctx_params(void*, void*) noexcept { return kSettableCtx; }
int get_params(OSSL_PARAM params[]) noexcept { return get_cipher_params(params, kShape); }

// --- lifetime and init ------------------------------------------------------

void* newctx(void* provctx) noexcept {
    const auto* prov = static_cast<const Provider*>(provctx);
    Ctx* c = new_ctx<Ctx>();
    if (!c) return nullptr;
    c->prov = prov;
    kern::aead_init(c->st, *prov->impl, kern::Grid::rfc8439);
    c->tag_len = kTagLen;
    return c;
}

void freectx(void* vctx) noexcept {
    auto* c = static_cast<Ctx*>(vctx);
    if (c) wipe_aead_secrets(c->st);
    free_ctx(c);
}
void* dupctx(void* vctx) noexcept { return dup_ctx(static_cast<const Ctx*>(vctx)); }

int init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen,
         const OSSL_PARAM params[], bool enc) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    // Both lengths are checked before anything changes: a refused init leaves the context as it was.
    if (key && keylen != kKeyLen) return refuse(*c.prov, R_INVALID_KEY_LENGTH);
    if (iv && ivlen != kIvLen) return refuse(*c.prov, R_INVALID_IV_LENGTH);
    if (c.initialised && c.enc != enc) c.tag_expected = false;
    c.initialised = true;
    c.enc = enc;
    if (key) {
        wipe_aead_secrets(c.st);  // the old key's message goes with it; restart() begins the next
        kern::aead_set_key(c.st, key);
        c.key_set = true;
    }
    if (iv) {
        std::memcpy(c.nonce, iv, kIvLen);
        c.iv_set = true;
    }
    // A tag set before this init (pyca sets it before key and nonce) stays expected.
    restart(c);
    return set_ctx_params(vctx, params);
}

// --- data -------------------------------------------------------------------

// A TLS 1.2 record in one call (libssl: in place, inl = payload + 16).
// Encrypt writes the tag after the payload; decrypt checks the tag at the end
// of `in`, strips it, and on refusal leaves zeros where the payload would be.
int tls_record(Ctx& c, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in, size_t inl) noexcept {
    const size_t plen = c.tls_payload;
    if (!out || inl != plen + kTagLen) return refuse(*c.prov, R_TLS_LENGTH_MISMATCH);
    const size_t nout = c.enc ? inl : plen;
    if (outsize < nout) return refuse(*c.prov, R_OUTPUT_BUFFER_TOO_SMALL);
    if (partially_overlap(in, inl, out, nout)) return refuse(*c.prov, R_OVERLAPPING_BUFFERS);
    if (!room_for(c.st, plen)) return refuse(*c.prov, R_COUNTER_EXHAUSTED);
    c.tls_record = false;
    c.finished = true;  // the next record needs its own `tlsaad`
    if (c.enc) {
        kern::aead_text(c.st, Direction::seal, in, out, plen);
        kern::aead_final(c.st, c.tag);
        std::memcpy(out + plen, c.tag, kTagLen);
        c.tag_ready = true;
        *outl = inl;
        return 1;
    }
    // Whole record in hand: short records are authenticated before any byte
    // is decrypted. The verdict is returned, not branched on (ct.provider):
    // outl is plen or 0 by mask.
    const bool ok = kern::aead_open_record(c.st, in, out, plen, in + plen);
    *outl = plen & (0 - size_t(ok));
    return ok;
}

// The data path of update and cipher: out == NULL is AAD (any number of
// calls, all before the first data byte), otherwise text in any split.
int process(Ctx& c, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in, size_t inl) noexcept {
    *outl = 0;
    if (inl == 0) return 1;  // transparent anywhere, even between AAD pieces (docs: #unsafe-empty-cipher-aad)
    if (!in) return refuse(*c.prov, R_NULL_BUFFER);
    if (int why = not_ready(c)) return refuse(*c.prov, Reason(why));
    if (c.tls_record) return tls_record(c, out, outl, outsize, in, inl);
    if (!out) {
        if (!kern::aead_aad(c.st, in, inl)) return refuse(*c.prov, R_AAD_AFTER_DATA);
        *outl = inl;  // 3.0 reports AAD as consumed bytes
        return 1;
    }
    if (outsize < inl) return refuse(*c.prov, R_OUTPUT_BUFFER_TOO_SMALL);
    if (partially_overlap(in, inl, out, inl)) return refuse(*c.prov, R_OVERLAPPING_BUFFERS);
    if (!kern::aead_text(c.st, direction(c), in, out, inl)) return refuse(*c.prov, R_COUNTER_EXHAUSTED);
    *outl = inl;
    return 1;
}

// Ends the message. Encrypt: the tag becomes readable. Decrypt: compares, in
// constant time, with the 16-byte tag the caller set for this message; a
// mismatch returns 0 without an error entry, as 3.0 does.
int finish(Ctx& c) noexcept {
    if (int why = not_ready(c)) return refuse(*c.prov, Reason(why));
    if (c.tls_record) return refuse(*c.prov, R_TLS_LENGTH_MISMATCH);
    if (!c.enc && !c.tag_expected) return refuse(*c.prov, R_TAG_NOT_SET);  // 3.0 accepts anything here
    c.finished = true;
    if (c.enc) {
        kern::aead_final(c.st, c.tag);
        c.tag_ready = true;
        return 1;
    }
    // The verdict every kernel set's whole-record open takes too
    // (kernels/verdict.hpp): returned as 1 or 0, not branched on.
    const int ok = kern::tag_verdict(c.st, c.tag) & 1;
    c.tag_expected = false;
    return ok;
}

int update(void* vctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
           size_t inl) noexcept {
    return process(*static_cast<Ctx*>(vctx), out, outl, outsize, in, inl);
}

// EVP_Cipher: as update, except that in == NULL ends the message and checks
// the tag (the fix 3.0.22 made for CVE-2026-75803; 3.0.19 skipped the check),
// and that an announced TLS record takes no empty call, as 3.0.22 refuses
// one with an output buffer (docs: #unsafe-tls-empty-call).
int cipher(void* vctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
           size_t inl) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    *outl = 0;
    if (in && inl == 0 && c.tls_record) return refuse(*c.prov, R_TLS_EMPTY_CALL);
    if (in) return process(c, out, outl, outsize, in, inl);
    if (inl != 0) return refuse(*c.prov, R_NULL_BUFFER);
    return finish(c);
}

int final(void* vctx, unsigned char*, size_t* outl, size_t) noexcept {
    *outl = 0;
    return finish(*static_cast<Ctx*>(vctx));
}

}  // namespace

const OSSL_DISPATCH kChaCha20Poly1305Functions[] = {
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_NEWCTX, OSSL_FUNC_cipher_newctx_fn, newctx),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_FREECTX, OSSL_FUNC_cipher_freectx_fn, freectx),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_DUPCTX, OSSL_FUNC_cipher_dupctx_fn, dupctx),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_ENCRYPT_INIT, OSSL_FUNC_cipher_encrypt_init_fn, encrypt_init<init>),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_DECRYPT_INIT, OSSL_FUNC_cipher_decrypt_init_fn, decrypt_init<init>),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_UPDATE, OSSL_FUNC_cipher_update_fn, update),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_FINAL, OSSL_FUNC_cipher_final_fn, final),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_CIPHER, OSSL_FUNC_cipher_cipher_fn, cipher),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GET_PARAMS, OSSL_FUNC_cipher_get_params_fn, get_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GETTABLE_PARAMS, OSSL_FUNC_cipher_gettable_params_fn, gettable_cipher_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GET_CTX_PARAMS, OSSL_FUNC_cipher_get_ctx_params_fn, get_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_SET_CTX_PARAMS, OSSL_FUNC_cipher_set_ctx_params_fn, set_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, OSSL_FUNC_cipher_gettable_ctx_params_fn, gettable_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, OSSL_FUNC_cipher_settable_ctx_params_fn, settable_ctx_params),
    {0, nullptr},
};

}  // namespace stitch::prov
