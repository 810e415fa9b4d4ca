// The dispatch tables of the MACs stitch offers, and the names they are
// registered under (with the same `provider=stitch` property as the ciphers).
#pragma once

#include <openssl/core.h>

namespace stitch::prov {

// OpenSSL's own name, so `EVP_MAC_fetch(NULL, "poly1305", NULL)` (libssh, newer
// OpenSSH) finds stitch under `default_properties = ?provider=stitch`.
inline constexpr const char kNamePoly1305[] = "POLY1305";

extern const OSSL_DISPATCH kPoly1305Functions[];

}  // namespace stitch::prov
