#include "provider/ciphers/cipher_common.hpp"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "provider/params.hpp"

namespace stitch::prov {

namespace {

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, nullptr),
    OSSL_PARAM_END,
};

const OSSL_PARAM kFixedLen[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
    OSSL_PARAM_END,
};

}  // namespace

WipeObserver wipe_observer = nullptr;

void wipe_aead_secrets(kern::AeadState& st) noexcept {
    wipe_secret(st.chacha.key, sizeof(st.chacha.key), region::kKeySchedule);
    wipe_secret(st.ks, sizeof(st.ks), region::kKeystream);
    wipe_secret(&st.mac, sizeof(st.mac), region::kPoly1305);
    wipe_secret(st.pending, sizeof(st.pending), region::kPendingAad);
}

void wipe_stream_secrets(kern::ChaChaStream& s) noexcept {
    wipe_secret(s.st.key, sizeof(s.st.key), region::kKeySchedule);
    wipe_secret(s.ks, sizeof(s.ks), region::kKeystream);
}

int check_fixed_len(const Provider& prov, const OSSL_PARAM& p, size_t want, Reason wrong) noexcept {
    size_t v;
    if (!param::get_size(p, v)) return refuse(prov, R_INVALID_PARAM);
    return v == want ? 1 : refuse(prov, wrong);
}

int set_fixed_len_params(const Provider& prov, const OSSL_PARAM params[], const CipherShape& shape) noexcept {
    for (const OSSL_PARAM* p = params; p && p->key; ++p) {
        int ok = 1;
        if (param::is(p->key, OSSL_CIPHER_PARAM_IVLEN))
            ok = check_fixed_len(prov, *p, shape.ivlen, R_INVALID_IV_LENGTH);
        else if (param::is(p->key, OSSL_CIPHER_PARAM_KEYLEN))
            ok = check_fixed_len(prov, *p, shape.keylen, R_INVALID_KEY_LENGTH);
        if (!ok) return 0;
    }
    return 1;
}

int get_fixed_len_params(const Provider& prov, OSSL_PARAM params[], const CipherShape& shape) noexcept {
    for (OSSL_PARAM* p = params; p && p->key; ++p) {
        bool ok = true;
        if (param::is(p->key, OSSL_CIPHER_PARAM_IVLEN)) ok = param::set_size(*p, shape.ivlen);
        else if (param::is(p->key, OSSL_CIPHER_PARAM_KEYLEN)) ok = param::set_size(*p, shape.keylen);
        if (!ok) return refuse(prov, R_INVALID_PARAM);
    }
    return 1;
}

const OSSL_PARAM* fixed_len_params(void*, void*) noexcept { return kFixedLen; }

const OSSL_PARAM* gettable_cipher_params(void*) noexcept { return kGettable; }

// Answered from constants only: this runs while the core builds the method,
// where fetching anything else would fail.
int get_cipher_params(OSSL_PARAM params[], const CipherShape& shape) noexcept {
    for (OSSL_PARAM* p = params; p && p->key; ++p) {
        bool ok = true;
        const char* k = p->key;
        if (param::is(k, OSSL_CIPHER_PARAM_MODE)) ok = param::set_uint(*p, 0);  // EVP_CIPH_STREAM_CIPHER
        else if (param::is(k, OSSL_CIPHER_PARAM_KEYLEN)) ok = param::set_size(*p, shape.keylen);
        else if (param::is(k, OSSL_CIPHER_PARAM_IVLEN)) ok = param::set_size(*p, shape.ivlen);
        else if (param::is(k, OSSL_CIPHER_PARAM_BLOCK_SIZE)) ok = param::set_size(*p, 1);
        else if (param::is(k, OSSL_CIPHER_PARAM_AEAD)) ok = param::set_int(*p, shape.aead ? 1 : 0);
        else if (param::is(k, OSSL_CIPHER_PARAM_CUSTOM_IV)) ok = param::set_int(*p, 1);
        else if (param::is(k, OSSL_CIPHER_PARAM_CTS)) ok = param::set_int(*p, 0);
        else if (param::is(k, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK)) ok = param::set_int(*p, 0);
        else if (param::is(k, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) ok = param::set_int(*p, 0);
        if (!ok) return 0;
    }
    return 1;
}

}  // namespace stitch::prov
