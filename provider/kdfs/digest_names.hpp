// Every name OpenSSL 3.0's default provider registers for SHA-256, SHA-384
// and SHA-512 (EVP_MD_names_do_all; tests/kdf checks this list against it).
// A `digest` param naming one of them, compared without case as EVP_MD_fetch
// does, runs on stitch's own SHA-2 kernels; any other name is fetched.
#pragma once

#include "kernels/sha2.hpp"

namespace stitch::prov {

struct Sha2Name {
    const char* name;
    kern::Sha2 alg;
};

// clang-format off
inline constexpr Sha2Name kSha2Names[] = {
    // libssl passes EVP_MD_get0_name(), the first of each: tried first.
    {"SHA2-256", kern::Sha2::sha256},
    {"SHA2-384", kern::Sha2::sha384},
    {"SHA2-512", kern::Sha2::sha512},
    {"SHA-256", kern::Sha2::sha256},
    {"SHA256", kern::Sha2::sha256},
    {"2.16.840.1.101.3.4.2.1", kern::Sha2::sha256},
    {"SHA-384", kern::Sha2::sha384},
    {"SHA384", kern::Sha2::sha384},
    {"2.16.840.1.101.3.4.2.2", kern::Sha2::sha384},
    {"SHA-512", kern::Sha2::sha512},
    {"SHA512", kern::Sha2::sha512},
    {"2.16.840.1.101.3.4.2.3", kern::Sha2::sha512},
};
// clang-format on

}  // namespace stitch::prov
