// A provider's cipher functions called straight from its dispatch table, with
// no EVP in between, so a test can pass what EVP never would: an outsize
// smaller than the input, NULL with a length, overlapping buffers, an update
// before any init.
#pragma once

#include <openssl/core_dispatch.h>
#include <openssl/provider.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>
#include <string_view>

namespace stitch::test {

class DirectCipher {
public:
    DirectCipher(OSSL_PROVIDER* prov, std::string_view name) : prov_(prov) {
        int no_cache = 0;
        algs_ = OSSL_PROVIDER_query_operation(prov, OSSL_OP_CIPHER, &no_cache);
        for (const OSSL_ALGORITHM* a = algs_; a && a->algorithm_names; ++a)
            if (names_contain(a->algorithm_names, name)) bind(a->implementation);
        if (!newctx_) throw std::runtime_error("no cipher named " + std::string(name));
        ctx_ = newctx_(OSSL_PROVIDER_get0_provider_ctx(prov));
        if (!ctx_) throw std::runtime_error("newctx");
    }
    ~DirectCipher() {
        if (ctx_) freectx_(ctx_);
        OSSL_PROVIDER_unquery_operation(prov_, OSSL_OP_CIPHER, algs_);
    }
    DirectCipher(const DirectCipher&) = delete;
    DirectCipher& operator=(const DirectCipher&) = delete;

    int init(int enc, const uint8_t* key, size_t keylen, const uint8_t* iv, size_t ivlen) {
        return (enc ? einit_ : dinit_)(ctx_, key, keylen, iv, ivlen, nullptr);
    }
    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
        return update_(ctx_, out, outl, outsize, in, inl);
    }
    int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
        return cipher_(ctx_, out, outl, outsize, in, inl);
    }
    int final(uint8_t* out, size_t* outl, size_t outsize) { return final_(ctx_, out, outl, outsize); }
    int set_params(const OSSL_PARAM* p) { return set_ctx_params_(ctx_, p); }
    int get_params(OSSL_PARAM* p) { return get_ctx_params_(ctx_, p); }

private:
    static bool names_contain(std::string_view names, std::string_view want) {
        while (!names.empty()) {
            size_t colon = names.find(':');
            std::string_view one = names.substr(0, colon);
            if (one.size() == want.size() && std::equal(one.begin(), one.end(), want.begin(), [](char a, char b) {
                    return std::tolower(a) == std::tolower(b);
                }))
                return true;
            if (colon == std::string_view::npos) break;
            names.remove_prefix(colon + 1);
        }
        return false;
    }
    template <class F>
    static void take(F& f, const OSSL_DISPATCH* d) {
        f = reinterpret_cast<F>(d->function);
    }
    void bind(const OSSL_DISPATCH* d) {
        for (; d->function_id; ++d) {
            switch (d->function_id) {
                case OSSL_FUNC_CIPHER_NEWCTX: take(newctx_, d); break;
                case OSSL_FUNC_CIPHER_FREECTX: take(freectx_, d); break;
                case OSSL_FUNC_CIPHER_ENCRYPT_INIT: take(einit_, d); break;
                case OSSL_FUNC_CIPHER_DECRYPT_INIT: take(dinit_, d); break;
                case OSSL_FUNC_CIPHER_UPDATE: take(update_, d); break;
                case OSSL_FUNC_CIPHER_FINAL: take(final_, d); break;
                case OSSL_FUNC_CIPHER_CIPHER: take(cipher_, d); break;
                case OSSL_FUNC_CIPHER_SET_CTX_PARAMS: take(set_ctx_params_, d); break;
                case OSSL_FUNC_CIPHER_GET_CTX_PARAMS: take(get_ctx_params_, d); break;
                default: break;
            }
        }
    }

    OSSL_PROVIDER* prov_;
    const OSSL_ALGORITHM* algs_ = nullptr;
    void* ctx_ = nullptr;
    OSSL_FUNC_cipher_newctx_fn* newctx_ = nullptr;
    OSSL_FUNC_cipher_freectx_fn* freectx_ = nullptr;
    OSSL_FUNC_cipher_encrypt_init_fn* einit_ = nullptr;
    OSSL_FUNC_cipher_decrypt_init_fn* dinit_ = nullptr;
    OSSL_FUNC_cipher_update_fn* update_ = nullptr;
    OSSL_FUNC_cipher_final_fn* final_ = nullptr;
    OSSL_FUNC_cipher_cipher_fn* cipher_ = nullptr;
    OSSL_FUNC_cipher_set_ctx_params_fn* set_ctx_params_ = nullptr;
    OSSL_FUNC_cipher_get_ctx_params_fn* get_ctx_params_ = nullptr;
};

}  // namespace stitch::test
