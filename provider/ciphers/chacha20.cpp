// Raw ChaCha20 under OpenSSL's name: 32-byte key, 16-byte IV read as the four
// counter words (LE32 block counter ‖ 96-bit nonce). The block counter carries
// into the next word, as OpenSSL's does: OpenSSH's IV (LE64 counter ‖ BE64
// sequence number) depends on it. Streams across updates; final is a no-op.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstdint>

#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "provider/ciphers/cipher_common.hpp"
#include "provider/ciphers/ciphers.hpp"
#include "provider/errors.hpp"
#include "provider/params.hpp"

namespace stitch::prov {

namespace {

constexpr size_t kKeyLen = 32;
constexpr size_t kIvLen = 16;
constexpr CipherShape kShape{kKeyLen, kIvLen, false};

struct Ctx {
    const Provider* prov;
    kern::ChaChaStream s;
    bool initialised;
    bool enc;  // kept for completeness: the keystream is the same both ways
    bool key_set;
    bool iv_set;
    // The last call ended exactly where a partly used block ran out. OpenSSL
    // still counts that block as current then (it advances only when the next
    // byte arrives), so a key-only re-init restarts it; the stream here has
    // already stepped past it.
    bool block_drained;
};

// --- params ---------------------------------------------------------------

int set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
    return set_fixed_len_params(*static_cast<const Ctx*>(vctx)->prov, params, kShape);
}

int get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
    return get_fixed_len_params(*static_cast<const Ctx*>(vctx)->prov, params, kShape);
}

int get_params(OSSL_PARAM params[]) noexcept { return get_cipher_params(params, kShape); }

// --- lifetime and init ------------------------------------------------------

void* newctx(void* provctx) noexcept {
    Ctx* c = new_ctx<Ctx>();
    if (!c) return nullptr;
    c->prov = static_cast<const Provider*>(provctx);
    kern::chacha_stream_reset(c->s);
    return c;
}

void freectx(void* vctx) noexcept {
    auto* c = static_cast<Ctx*>(vctx);
    if (c) wipe_stream_secrets(c->s);
    free_ctx(c);
}
void* dupctx(void* vctx) noexcept { return dup_ctx(static_cast<const Ctx*>(vctx)); }

int init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen,
         const OSSL_PARAM params[], bool enc) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    if (key && keylen != kKeyLen) return refuse(*c.prov, R_INVALID_KEY_LENGTH);
    if (iv && ivlen != kIvLen) return refuse(*c.prov, R_INVALID_IV_LENGTH);
    c.initialised = true;
    c.enc = enc;
    if (key) {
        // The stream has already stepped past a partly used block; OpenSSL
        // keeps its counter on that block, so a key-only re-init restarts it.
        if (c.s.ks_pos < kern::kChaChaBlock || c.block_drained) kern::chacha_advance(c.s.st.ctr, ~uint64_t(0));
        wipe_stream_secrets(c.s);
        kern::chacha_load_key(c.s.st, key);
        kern::chacha_stream_reset(c.s);
        c.block_drained = false;
        c.key_set = true;
    }
    if (iv) {
        kern::chacha_set_counter_row(c.s.st.ctr, iv);
        kern::chacha_stream_reset(c.s);
        c.block_drained = false;
        c.iv_set = true;
    }
    return set_ctx_params(vctx, params);
}

// --- data -------------------------------------------------------------------

// update and cipher alike (OpenSSH calls EVP_Cipher, libssh EVP_CipherUpdate).
int stream(void* vctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
           size_t inl) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    *outl = 0;
    if (!c.initialised) return refuse(*c.prov, R_NOT_INITIALISED);
    if (!c.key_set) return refuse(*c.prov, R_KEY_NOT_SET);
    if (!c.iv_set) return refuse(*c.prov, R_IV_NOT_SET);  // 3.0 would run on an all-zero IV
    if (inl == 0) return 1;
    if (!in || !out) return refuse(*c.prov, R_NULL_BUFFER);
    if (outsize < inl) return refuse(*c.prov, R_OUTPUT_BUFFER_TOO_SMALL);
    if (partially_overlap(in, inl, out, inl)) return refuse(*c.prov, R_OVERLAPPING_BUFFERS);
    c.block_drained = c.s.ks_pos < kern::kChaChaBlock && inl == kern::kChaChaBlock - c.s.ks_pos;
    kern::chacha_stream_xor(*c.prov->impl, c.s, in, out, inl);
    *outl = inl;
    return 1;
}

int final(void* vctx, unsigned char*, size_t* outl, size_t) noexcept {
    const auto& c = *static_cast<const Ctx*>(vctx);
    *outl = 0;
    if (!c.initialised) return refuse(*c.prov, R_NOT_INITIALISED);
    if (!c.key_set) return refuse(*c.prov, R_KEY_NOT_SET);
    return 1;
}

}  // namespace

const OSSL_DISPATCH kChaCha20Functions[] = {
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_NEWCTX, OSSL_FUNC_cipher_newctx_fn, newctx),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_FREECTX, OSSL_FUNC_cipher_freectx_fn, freectx),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_DUPCTX, OSSL_FUNC_cipher_dupctx_fn, dupctx),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_ENCRYPT_INIT, OSSL_FUNC_cipher_encrypt_init_fn, encrypt_init<init>),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_DECRYPT_INIT, OSSL_FUNC_cipher_decrypt_init_fn, decrypt_init<init>),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_UPDATE, OSSL_FUNC_cipher_update_fn, stream),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_FINAL, OSSL_FUNC_cipher_final_fn, final),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_CIPHER, OSSL_FUNC_cipher_cipher_fn, stream),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GET_PARAMS, OSSL_FUNC_cipher_get_params_fn, get_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GETTABLE_PARAMS, OSSL_FUNC_cipher_gettable_params_fn, gettable_cipher_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GET_CTX_PARAMS, OSSL_FUNC_cipher_get_ctx_params_fn, get_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_SET_CTX_PARAMS, OSSL_FUNC_cipher_set_ctx_params_fn, set_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, OSSL_FUNC_cipher_gettable_ctx_params_fn, fixed_len_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, OSSL_FUNC_cipher_settable_ctx_params_fn, fixed_len_params),
    {0, nullptr},
};

}  // namespace stitch::prov
