#include "provider/params.hpp"

#include <openssl/params.h>

namespace stitch::prov::param {

bool set_size(OSSL_PARAM& p, size_t v) noexcept {
    if (p.data_type == OSSL_PARAM_UNSIGNED_INTEGER && p.data_size == sizeof(size_t) && p.data) {
        std::memcpy(p.data, &v, sizeof(v));
        p.return_size = sizeof(v);
        return true;
    }
    return OSSL_PARAM_set_size_t(&p, v) != 0;
}

bool get_size(const OSSL_PARAM& p, size_t& v) noexcept {
    // No value to read: refused here, since OSSL_PARAM_get_size_t would read
    // through the NULL (3.0.19's default provider crashes on such a keylen).
    if (!p.data) return false;
    if (p.data_type == OSSL_PARAM_UNSIGNED_INTEGER && p.data_size == sizeof(size_t)) {
        std::memcpy(&v, p.data, sizeof(v));
        return true;
    }
    return OSSL_PARAM_get_size_t(&p, &v) != 0;
}

bool set_int(OSSL_PARAM& p, int v) noexcept { return OSSL_PARAM_set_int(&p, v) != 0; }
bool set_uint(OSSL_PARAM& p, unsigned v) noexcept { return OSSL_PARAM_set_uint(&p, v) != 0; }
bool set_utf8_ptr(OSSL_PARAM& p, const char* v) noexcept { return OSSL_PARAM_set_utf8_ptr(&p, v) != 0; }

}  // namespace stitch::prov::param
