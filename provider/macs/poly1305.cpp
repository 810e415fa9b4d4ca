// POLY1305 (RFC 8439 §2.5) as an EVP_MAC, with the names, params and call
// sequence of OpenSSL's default provider (providers/implementations/macs/
// poly1305_prov.c): a 32-byte one-time key r ‖ s given at init or through
// the `key` param, any update splits, a 16-byte tag; `size` reads 16.
//
// Stricter than OpenSSL 3.0 where 3.0 crashes or reuses a spent key:
// - update or final without a key, or after final, is refused (3.0 runs on a
//   cleared state and crashes);
// - a key of the wrong length leaves the context keyless, never on its old key;
// - init without a key keeps the key only while it has MACed nothing (as 3.0
//   does), so one key never tags two messages.
// The blocks go through the kernel set dispatch chose at load (MULX where
// the CPU has it). A context is plain data, so dupctx is a byte copy; the
// Poly1305 state is wiped on every new key, by final, and on free.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "kernels/impl.hpp"
#include "kernels/poly1305.hpp"
#include "provider/ciphers/cipher_common.hpp"
#include "provider/errors.hpp"
#include "provider/macs/macs.hpp"
#include "provider/params.hpp"

namespace stitch::prov {

namespace {

constexpr size_t kKeyLen = 32;
constexpr size_t kTagLen = 16;

struct Ctx {
    const Provider* prov;
    kern::Poly1305State st;
    bool key_set;  // a key is loaded and final has not spent it
    bool used;     // the loaded key has absorbed data or made a tag
};

// --- key and params ---------------------------------------------------------

int set_key(Ctx& c, const unsigned char* key, size_t keylen) noexcept {
    c.key_set = false;
    c.used = false;
    // The old key goes whatever happens next: a refusal wipes it, a new key
    // overwrites every field of the state (poly1305_init).
    if (keylen != kKeyLen || !key) {
        wipe_secret(&c.st, sizeof(c.st), region::kPoly1305);
        return refuse(*c.prov, keylen != kKeyLen ? R_INVALID_KEY_LENGTH : R_NULL_BUFFER);
    }
    kern::poly1305_init(c.st, key);
    c.key_set = true;
    return 1;
}

int set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    for (const OSSL_PARAM* p = params; p && p->key; ++p) {
        if (!param::is(p->key, OSSL_MAC_PARAM_KEY)) continue;  // unknown keys are ignored, as OpenSSL does
        if (!param::is_octets(*p)) return refuse(*c.prov, R_INVALID_PARAM);
        if (!set_key(c, static_cast<const unsigned char*>(p->data), p->data_size)) return 0;
    }
    return 1;
}

// `size` is a property of the algorithm; EVP_MAC_final reads it (through the
// ctx params where offered) on every call, so it is answered from a constant.
int set_size_params(OSSL_PARAM params[], const Provider* prov) noexcept {
    for (OSSL_PARAM* p = params; p && p->key; ++p)
        if (param::is(p->key, OSSL_MAC_PARAM_SIZE) && !param::set_size(*p, kTagLen))
            return prov ? refuse(*prov, R_INVALID_PARAM) : 0;
    return 1;
}

int get_params(OSSL_PARAM params[]) noexcept { return set_size_params(params, nullptr); }

int get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
    return set_size_params(params, static_cast<const Ctx*>(vctx)->prov);
}

const OSSL_PARAM kSizeParams[] = {
    OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, nullptr),
    OSSL_PARAM_END,
};

const OSSL_PARAM kSettableCtxParams[] = {
    OSSL_PARAM_octet_string(OSSL_MAC_PARAM_KEY, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* gettable_params(void*) noexcept { return kSizeParams; }
const OSSL_PARAM* gettable_ctx_params(void*, void*) noexcept { return kSizeParams; }
const OSSL_PARAM* settable_ctx_params(void*, void*) noexcept { return kSettableCtxParams; }

// --- lifetime ---------------------------------------------------------------

void* newctx(void* provctx) noexcept {
    Ctx* c = new_ctx<Ctx>();
    if (c) c->prov = static_cast<const Provider*>(provctx);
    return c;
}

void freectx(void* vctx) noexcept {
    auto* c = static_cast<Ctx*>(vctx);
    if (c) wipe_secret(&c->st, sizeof(c->st), region::kPoly1305);
    free_ctx(c);
}
void* dupctx(void* vctx) noexcept { return dup_ctx(static_cast<const Ctx*>(vctx)); }

// --- the MAC ----------------------------------------------------------------

int init(void* vctx, const unsigned char* key, size_t keylen, const OSSL_PARAM params[]) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    if (!set_ctx_params(vctx, params)) return 0;
    if (key) return set_key(c, key, keylen);
    if (c.used) return refuse(*c.prov, R_KEY_ALREADY_USED);
    return 1;  // no key yet is fine: it may still come through the `key` param
}

int update(void* vctx, const unsigned char* in, size_t inl) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    if (!c.key_set) return refuse(*c.prov, R_KEY_NOT_SET);
    c.used = true;
    if (inl == 0) return 1;
    if (!in) return refuse(*c.prov, R_NULL_BUFFER);
    kern::poly1305_update(*c.prov->impl, c.st, in, inl);
    return 1;
}

int final(void* vctx, unsigned char* out, size_t* outl, size_t outsize) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    *outl = 0;  // EVP copies it out even on failure
    if (!c.key_set) return refuse(*c.prov, R_KEY_NOT_SET);
    if (!out) return refuse(*c.prov, R_NULL_BUFFER);
    if (outsize < kTagLen) return refuse(*c.prov, R_OUTPUT_BUFFER_TOO_SMALL);
    kern::poly1305_final(*c.prov->impl, c.st, out);  // also wipes the state
    c.key_set = false;
    c.used = true;
    *outl = kTagLen;
    return 1;
}

}  // namespace

const OSSL_DISPATCH kPoly1305Functions[] = {
    STITCH_DISPATCH(OSSL_FUNC_MAC_NEWCTX, OSSL_FUNC_mac_newctx_fn, newctx),
    STITCH_DISPATCH(OSSL_FUNC_MAC_DUPCTX, OSSL_FUNC_mac_dupctx_fn, dupctx),
    STITCH_DISPATCH(OSSL_FUNC_MAC_FREECTX, OSSL_FUNC_mac_freectx_fn, freectx),
    STITCH_DISPATCH(OSSL_FUNC_MAC_INIT, OSSL_FUNC_mac_init_fn, init),
    STITCH_DISPATCH(OSSL_FUNC_MAC_UPDATE, OSSL_FUNC_mac_update_fn, update),
    STITCH_DISPATCH(OSSL_FUNC_MAC_FINAL, OSSL_FUNC_mac_final_fn, final),
    STITCH_DISPATCH(OSSL_FUNC_MAC_GET_PARAMS, OSSL_FUNC_mac_get_params_fn, get_params),
    STITCH_DISPATCH(OSSL_FUNC_MAC_GET_CTX_PARAMS, OSSL_FUNC_mac_get_ctx_params_fn, get_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_MAC_SET_CTX_PARAMS, OSSL_FUNC_mac_set_ctx_params_fn, set_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_MAC_GETTABLE_PARAMS, OSSL_FUNC_mac_gettable_params_fn, gettable_params),
    STITCH_DISPATCH(OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, OSSL_FUNC_mac_gettable_ctx_params_fn, gettable_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS, OSSL_FUNC_mac_settable_ctx_params_fn, settable_ctx_params),
    {0, nullptr},
};

}  // namespace stitch::prov
