// TLS13-KDF: the two steps of RFC 8446 §7.1 libssl's key schedule asks for,
// under OpenSSL's name and with 3.0's params (see kdf_ctx.hpp):
//   EXPAND_ONLY   HKDF-Expand-Label(key, prefix ‖ label, data, length)
//   EXTRACT_ONLY  HKDF-Extract(Derive-Secret(salt, prefix ‖ label, ""), key),
//                 with no salt: HKDF-Extract(no salt, key); with no key: HashLen zeros
// libssl calls it 21 times per handshake per side, each time fetching it,
// making a context and passing the digest's name: hence the name lookup
// without a fetch, and inputs kept inside the context.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "kernels/hkdf.hpp"
#include "provider/errors.hpp"
#include "provider/kdfs/kdf_ctx.hpp"
#include "provider/kdfs/kdfs.hpp"

namespace stitch::prov {

namespace {

int tls13_set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
    auto& c = *static_cast<KdfCtx*>(vctx);
    if (!params) return 1;
    const KdfParams p = locate_kdf_params(params);
    if (!set_common_params(c, p)) return 0;
    // The mode is checked on every call that passes params, even an empty
    // list, and before the TLS fields: a context that never set one refuses.
    if (c.mode == EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND) return refuse(*c.prov, R_INVALID_MODE);
    if (p.prefix && !set_bytes(c, c.prefix, *p.prefix)) return 0;
    if (p.label && !set_bytes(c, c.label, *p.label)) return 0;
    clear_data(c);
    if (p.data && !set_bytes(c, c.data, *p.data)) return 0;
    return 1;
}

int tls13_derive(void* vctx, unsigned char* out, size_t out_len, const OSSL_PARAM params[]) noexcept {
    auto& c = *static_cast<KdfCtx*>(vctx);
    if (!tls13_set_ctx_params(vctx, params)) return 0;
    const size_t hash_len = derive_hash_len(c, out);
    if (!hash_len) return 0;

    if (c.mode == EVP_KDF_HKDF_MODE_EXPAND_ONLY) {
        if (!c.key.present) return refuse(*c.prov, R_KEY_NOT_SET);
        // A zero length is accepted and writes nothing, as 3.0 does.
        return with_mac(c, out, out_len, [&](auto& mac) {
            return kern::tls13_expand_label(mac, c.key.data(), c.key.len, c.prefix.data(), c.prefix.len, c.label.data(),
                                            c.label.len, c.data.data(), c.data.len, out, out_len);
        });
    }
    if (c.mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY) {
        if (out_len != hash_len) return refuse(*c.prov, R_EXTRACT_OUTPUT_SIZE);
        return with_mac(c, out, out_len, [&](auto& mac) {
            return kern::tls13_extract_step(mac, c.salt.present, c.salt.data(), c.salt.len, c.key.present, c.key.data(),
                                            c.key.len, c.prefix.data(), c.prefix.len, c.label.data(), c.label.len, out);
        });
    }
    return refuse(*c.prov, R_INVALID_MODE);  // never set: a derive with no params gets here
}

const OSSL_PARAM kSettableCtxParams[] = {
    OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_MODE, nullptr, 0),
    OSSL_PARAM_int(OSSL_KDF_PARAM_MODE, nullptr),
    OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_PROPERTIES, nullptr, 0),
    OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_DIGEST, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_KEY, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_SALT, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_PREFIX, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_LABEL, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_DATA, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* tls13_settable_ctx_params(void*, void*) noexcept { return kSettableCtxParams; }

}  // namespace

const OSSL_DISPATCH kTls13KdfFunctions[] = {
    STITCH_DISPATCH(OSSL_FUNC_KDF_NEWCTX, OSSL_FUNC_kdf_newctx_fn, kdf_newctx),
    STITCH_DISPATCH(OSSL_FUNC_KDF_DUPCTX, OSSL_FUNC_kdf_dupctx_fn, kdf_dupctx),
    STITCH_DISPATCH(OSSL_FUNC_KDF_FREECTX, OSSL_FUNC_kdf_freectx_fn, kdf_freectx),
    STITCH_DISPATCH(OSSL_FUNC_KDF_RESET, OSSL_FUNC_kdf_reset_fn, kdf_reset),
    STITCH_DISPATCH(OSSL_FUNC_KDF_DERIVE, OSSL_FUNC_kdf_derive_fn, tls13_derive),
    STITCH_DISPATCH(OSSL_FUNC_KDF_SETTABLE_CTX_PARAMS, OSSL_FUNC_kdf_settable_ctx_params_fn, tls13_settable_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_KDF_SET_CTX_PARAMS, OSSL_FUNC_kdf_set_ctx_params_fn, tls13_set_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_KDF_GETTABLE_CTX_PARAMS, OSSL_FUNC_kdf_gettable_ctx_params_fn, kdf_gettable_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_KDF_GET_CTX_PARAMS, OSSL_FUNC_kdf_get_ctx_params_fn, kdf_get_ctx_params),
    {0, nullptr},
};

}  // namespace stitch::prov
