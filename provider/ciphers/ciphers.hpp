// The dispatch tables of the three ciphers stitch offers, and the names and
// property they are registered under.
#pragma once

#include <openssl/core.h>

namespace stitch::prov {

inline constexpr const char kPropertyStitch[] = "provider=stitch";

// OpenSSL's own names, so implicit fetches (EVP_chacha20_poly1305(),
// EVP_chacha20(), libssl) find stitch under `default_properties = ?provider=stitch`.
inline constexpr const char kNameChaCha20Poly1305[] = "ChaCha20-Poly1305";
inline constexpr const char kNameChaCha20[] = "ChaCha20";
inline constexpr const char kNameOpenssh[] = "chacha20-poly1305@openssh.com";

extern const OSSL_DISPATCH kChaCha20Poly1305Functions[];
extern const OSSL_DISPATCH kChaCha20Functions[];
extern const OSSL_DISPATCH kOpensshFunctions[];

}  // namespace stitch::prov
