#include "bench/floor_provider.hpp"

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstring>
#include <new>

namespace stitch::bench {

namespace {

// The context: the tag a get_ctx_params hands back, nothing else.
struct Ctx {
    unsigned char tag[16];
};

void* newctx(void*) noexcept { return new (std::nothrow) Ctx{}; }
void freectx(void* c) noexcept { delete static_cast<Ctx*>(c); }
void* dupctx(void* c) noexcept { return new (std::nothrow) Ctx(*static_cast<Ctx*>(c)); }
int init(void*, const unsigned char*, size_t, const unsigned char*, size_t, const OSSL_PARAM[]) noexcept { return 1; }

// Reports every byte as processed and writes none of them.
int update(void*, unsigned char*, size_t* outl, size_t, const unsigned char*, size_t inl) noexcept {
    *outl = inl;
    return 1;
}
int final(void*, unsigned char*, size_t* outl, size_t) noexcept {
    *outl = 0;
    return 1;
}

int get_params(OSSL_PARAM params[]) noexcept {
    OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) && !OSSL_PARAM_set_uint(p, 0)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) && !OSSL_PARAM_set_size_t(p, 32)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) && !OSSL_PARAM_set_size_t(p, 12)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) && !OSSL_PARAM_set_size_t(p, 1)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD)) && !OSSL_PARAM_set_int(p, 1)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CUSTOM_IV)) && !OSSL_PARAM_set_int(p, 1)) return 0;
    return 1;
}

int get_ctx_params(void* c, OSSL_PARAM params[]) noexcept {
    OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) &&
        !OSSL_PARAM_set_octet_string(p, static_cast<Ctx*>(c)->tag, p->data_size < 16 ? p->data_size : 16))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) && !OSSL_PARAM_set_size_t(p, 16)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) && !OSSL_PARAM_set_size_t(p, 32)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) && !OSSL_PARAM_set_size_t(p, 12)) return 0;
    return 1;
}

int set_ctx_params(void*, const OSSL_PARAM[]) noexcept { return 1; }

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, nullptr),
    OSSL_PARAM_END,
};
const OSSL_PARAM kCtxGettable[] = {
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
    OSSL_PARAM_END,
};
const OSSL_PARAM kCtxSettable[] = {
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
    OSSL_PARAM_END,
};
const OSSL_PARAM* gettable(void*) noexcept { return kGettable; }
const OSSL_PARAM* ctx_gettable(void*, void*) noexcept { return kCtxGettable; }
const OSSL_PARAM* ctx_settable(void*, void*) noexcept { return kCtxSettable; }

const OSSL_DISPATCH kCipher[] = {
    {OSSL_FUNC_CIPHER_NEWCTX, reinterpret_cast<void (*)()>(newctx)},
    {OSSL_FUNC_CIPHER_FREECTX, reinterpret_cast<void (*)()>(freectx)},
    {OSSL_FUNC_CIPHER_DUPCTX, reinterpret_cast<void (*)()>(dupctx)},
    {OSSL_FUNC_CIPHER_ENCRYPT_INIT, reinterpret_cast<void (*)()>(init)},
    {OSSL_FUNC_CIPHER_DECRYPT_INIT, reinterpret_cast<void (*)()>(init)},
    {OSSL_FUNC_CIPHER_UPDATE, reinterpret_cast<void (*)()>(update)},
    {OSSL_FUNC_CIPHER_FINAL, reinterpret_cast<void (*)()>(final)},
    {OSSL_FUNC_CIPHER_GET_PARAMS, reinterpret_cast<void (*)()>(get_params)},
    {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, reinterpret_cast<void (*)()>(get_ctx_params)},
    {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, reinterpret_cast<void (*)()>(set_ctx_params)},
    {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, reinterpret_cast<void (*)()>(gettable)},
    {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, reinterpret_cast<void (*)()>(ctx_gettable)},
    {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, reinterpret_cast<void (*)()>(ctx_settable)},
    {0, nullptr},
};

const OSSL_ALGORITHM kCiphers[] = {
    {"ChaCha20-Poly1305", "provider=stitch-floor", kCipher, "no-op, for the EVP floor"},
    {nullptr, nullptr, nullptr, nullptr},
};

const OSSL_ALGORITHM* query(void*, int operation, int* no_cache) noexcept {
    *no_cache = 0;
    return operation == OSSL_OP_CIPHER ? kCiphers : nullptr;
}

const OSSL_DISPATCH kProvider[] = {
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, reinterpret_cast<void (*)()>(query)},
    {0, nullptr},
};

int provider_init(const OSSL_CORE_HANDLE*, const OSSL_DISPATCH*, const OSSL_DISPATCH** out, void** provctx) noexcept {
    *out = kProvider;
    *provctx = nullptr;
    return 1;
}

}  // namespace

OSSL_PROVIDER* load_floor_provider(OSSL_LIB_CTX* libctx) {
    if (OSSL_PROVIDER_add_builtin(libctx, "stitch-floor", provider_init) != 1) return nullptr;
    return OSSL_PROVIDER_load(libctx, "stitch-floor");
}

}  // namespace stitch::bench
