// The dispatch tables of the KDFs stitch offers, under OpenSSL's names and
// the same `provider=stitch` property as the ciphers: with conf/stitch.cnf's
// `?provider=stitch`, libssl's TLS 1.3 key schedule (TLS13-KDF, 21 derives
// per handshake on each side) and every EVP_KDF / EVP_PKEY HKDF caller land here.
#pragma once

#include <openssl/core.h>

namespace stitch::prov {

inline constexpr const char kNameHkdf[] = "HKDF";
inline constexpr const char kNameTls13Kdf[] = "TLS13-KDF";

extern const OSSL_DISPATCH kHkdfFunctions[];
extern const OSSL_DISPATCH kTls13KdfFunctions[];

}  // namespace stitch::prov
