// One stitch cipher context driven through the provider's own dispatch table
// (OSSL_PROVIDER_query_operation → the algorithm → its OSSL_DISPATCH), with no
// EVP in between. That is the only way to hand stitch what EVP never passes
// on: an outsize smaller than the input, NULL with a length, partially
// overlapping buffers, an update before any init, a key or IV of the wrong
// length.
#pragma once

#include <openssl/core_dispatch.h>
#include <openssl/provider.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <strings.h>
#include <string_view>

namespace stitch::test {

class DispatchCipher {
public:
    DispatchCipher(OSSL_PROVIDER* prov, std::string_view name) : prov_(prov) {
        int no_cache = 0;
        algs_ = OSSL_PROVIDER_query_operation(prov, OSSL_OP_CIPHER, &no_cache);
        for (const OSSL_ALGORITHM* a = algs_; a && a->algorithm_names; ++a)
            if (has_name(a->algorithm_names, name)) bind(a->implementation);
        if (!newctx_ || !freectx_ || !einit_ || !dinit_ || !update_ || !final_ || !cipher_ || !set_params_ ||
            !get_params_)
            throw std::runtime_error("stitch has no complete cipher named " + std::string(name));
        ctx_ = newctx_(OSSL_PROVIDER_get0_provider_ctx(prov));
        if (!ctx_) throw std::runtime_error("newctx");
    }
    ~DispatchCipher() {
        freectx_(ctx_);
        OSSL_PROVIDER_unquery_operation(prov_, OSSL_OP_CIPHER, algs_);
    }
    DispatchCipher(const DispatchCipher&) = delete;
    DispatchCipher& operator=(const DispatchCipher&) = delete;

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
    int set_params(const OSSL_PARAM params[]) { return set_params_(ctx_, params); }
    int get_params(OSSL_PARAM params[]) { return get_params_(ctx_, params); }

private:
    // OpenSSL's name lists are "A:B:C", compared without case.
    static bool has_name(std::string_view names, std::string_view want) {
        for (size_t start = 0; start <= names.size();) {
            const size_t colon = std::min(names.find(':', start), names.size());
            const std::string one(names.substr(start, colon - start));
            if (one.size() == want.size() && strncasecmp(one.c_str(), want.data(), want.size()) == 0) return true;
            start = colon + 1;
        }
        return false;
    }
    template <class Fn>
    static void take(Fn*& fn, const OSSL_DISPATCH* d) {
        fn = reinterpret_cast<Fn*>(d->function);
    }
    void bind(const OSSL_DISPATCH* d) {
        for (; d->function_id != 0; ++d) {
            switch (d->function_id) {
                case OSSL_FUNC_CIPHER_NEWCTX:
                    take(newctx_, d);
                    break;
                case OSSL_FUNC_CIPHER_FREECTX:
                    take(freectx_, d);
                    break;
                case OSSL_FUNC_CIPHER_ENCRYPT_INIT:
                    take(einit_, d);
                    break;
                case OSSL_FUNC_CIPHER_DECRYPT_INIT:
                    take(dinit_, d);
                    break;
                case OSSL_FUNC_CIPHER_UPDATE:
                    take(update_, d);
                    break;
                case OSSL_FUNC_CIPHER_FINAL:
                    take(final_, d);
                    break;
                case OSSL_FUNC_CIPHER_CIPHER:
                    take(cipher_, d);
                    break;
                case OSSL_FUNC_CIPHER_SET_CTX_PARAMS:
                    take(set_params_, d);
                    break;
                case OSSL_FUNC_CIPHER_GET_CTX_PARAMS:
                    take(get_params_, d);
                    break;
                default:
                    break;
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
    OSSL_FUNC_cipher_set_ctx_params_fn* set_params_ = nullptr;
    OSSL_FUNC_cipher_get_ctx_params_fn* get_params_ = nullptr;
};

}  // namespace stitch::test
