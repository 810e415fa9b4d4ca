// HKDF (RFC 5869) as an EVP_KDF under OpenSSL's name, with the params, modes
// and refusals of 3.0's default provider (see kdf_ctx.hpp), over stitch's
// SHA-2 kernels for SHA-256/384/512 and a fetched digest otherwise.
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

int hkdf_set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
    auto& c = *static_cast<KdfCtx*>(vctx);
    if (!params) return 1;
    const KdfParams p = locate_kdf_params(params);
    return set_common_params(c, p) && set_info(c, p);
}

int hkdf_derive(void* vctx, unsigned char* out, size_t out_len, const OSSL_PARAM params[]) noexcept {
    auto& c = *static_cast<KdfCtx*>(vctx);
    if (!hkdf_set_ctx_params(vctx, params)) return 0;
    const size_t hash_len = derive_hash_len(c, out);
    if (!hash_len) return 0;
    if (!c.key.present) return refuse(*c.prov, R_KEY_NOT_SET);
    if (!out_len) return refuse(*c.prov, R_EMPTY_OUTPUT);
    const uint8_t* key = c.key.data();
    const size_t key_len = c.key.len;
    if (c.salt_refused && c.mode != EVP_KDF_HKDF_MODE_EXPAND_ONLY) return refuse(*c.prov, R_SALT_REFUSED);

    if (c.mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY) {
        if (out_len != hash_len) return refuse(*c.prov, R_EXTRACT_OUTPUT_SIZE);
        return with_mac(c, out, out_len, [&](auto& mac) {
            return kern::hkdf_extract(mac, c.salt.data(), c.salt.len, key, key_len, out);
        });
    }
    if (!kern::hkdf_output_fits(out_len, hash_len)) return refuse(*c.prov, R_OUTPUT_TOO_LONG);
    if (c.mode == EVP_KDF_HKDF_MODE_EXPAND_ONLY) {
        return with_mac(c, out, out_len, [&](auto& mac) {
            return kern::hkdf_expand(mac, key, key_len, c.info.data(), c.info.len, out, out_len);
        });
    }
    return with_mac(c, out, out_len, [&](auto& mac) {
        alignas(16) uint8_t prk[kern::kKdfMaxHashLen];
        kern::KdfStatus st = kern::hkdf_extract(mac, c.salt.data(), c.salt.len, key, key_len, prk);
        if (st == kern::KdfStatus::ok)
            st = kern::hkdf_expand(mac, prk, hash_len, c.info.data(), c.info.len, out, out_len);
        kern::wipe(prk, sizeof(prk));
        return st;
    });
}

const OSSL_PARAM kSettableCtxParams[] = {
    OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_MODE, nullptr, 0),
    OSSL_PARAM_int(OSSL_KDF_PARAM_MODE, nullptr),
    OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_PROPERTIES, nullptr, 0),
    OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_DIGEST, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_KEY, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_SALT, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_INFO, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* hkdf_settable_ctx_params(void*, void*) noexcept { return kSettableCtxParams; }

}  // namespace

const OSSL_DISPATCH kHkdfFunctions[] = {
    STITCH_DISPATCH(OSSL_FUNC_KDF_NEWCTX, OSSL_FUNC_kdf_newctx_fn, kdf_newctx),
    STITCH_DISPATCH(OSSL_FUNC_KDF_DUPCTX, OSSL_FUNC_kdf_dupctx_fn, kdf_dupctx),
    STITCH_DISPATCH(OSSL_FUNC_KDF_FREECTX, OSSL_FUNC_kdf_freectx_fn, kdf_freectx),
    STITCH_DISPATCH(OSSL_FUNC_KDF_RESET, OSSL_FUNC_kdf_reset_fn, kdf_reset),
    STITCH_DISPATCH(OSSL_FUNC_KDF_DERIVE, OSSL_FUNC_kdf_derive_fn, hkdf_derive),
    STITCH_DISPATCH(OSSL_FUNC_KDF_SETTABLE_CTX_PARAMS, OSSL_FUNC_kdf_settable_ctx_params_fn, hkdf_settable_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_KDF_SET_CTX_PARAMS, OSSL_FUNC_kdf_set_ctx_params_fn, hkdf_set_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_KDF_GETTABLE_CTX_PARAMS, OSSL_FUNC_kdf_gettable_ctx_params_fn, kdf_gettable_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_KDF_GET_CTX_PARAMS, OSSL_FUNC_kdf_get_ctx_params_fn, kdf_get_ctx_params),
    {0, nullptr},
};

}  // namespace stitch::prov
