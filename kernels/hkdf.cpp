// The HkdfLabel of RFC 8446 §7.1, out of line: one copy for every caller,
// the provider's and the kernel tests' alike.
#include "kernels/hkdf.hpp"

namespace stitch::kern {

size_t tls13_hkdf_label(uint8_t (&buf)[kTls13MaxHkdfLabel], size_t out_len, const uint8_t* prefix, size_t prefix_len,
                        const uint8_t* label, size_t label_len, const uint8_t* data, size_t data_len) noexcept {
    if (prefix_len + label_len > kTls13MaxLabel || data_len > kTls13MaxContext || out_len > 0xffff) return 0;
    size_t n = 0;
    buf[n++] = uint8_t(out_len >> 8);
    buf[n++] = uint8_t(out_len);
    buf[n++] = uint8_t(prefix_len + label_len);
    if (prefix_len) std::memcpy(buf + n, prefix, prefix_len);
    n += prefix_len;
    if (label_len) std::memcpy(buf + n, label, label_len);
    n += label_len;
    buf[n++] = uint8_t(data_len);
    if (data_len) std::memcpy(buf + n, data, data_len);
    return n + data_len;
}

}  // namespace stitch::kern
