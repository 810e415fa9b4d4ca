// The digest a KDF context runs on, chosen once, when the `digest` param is
// set: SHA-256/384/512 by name onto stitch's own kernels (no fetch, ever),
// anything else fetched once from the other providers of the library
// context through stitch's child library context.
#pragma once

#include <openssl/evp.h>

#include <cstddef>

#include "kernels/sha2.hpp"
#include "provider/provider.hpp"

namespace stitch::prov {

struct KdfDigest {
    enum class Kind : uint8_t { none, sha2, evp };
    Kind kind;
    kern::Sha2 sha2;  // kind == sha2
    EVP_MD* md;       // kind == evp: owned
};

// The `digest` param (with `properties`, or nullptr): 1, or 0 with an error
// raised and the digest left unset, as OpenSSL 3.0 leaves it after a failed
// fetch. A properties string always takes the fetch, so it is honoured.
int kdf_digest_set(KdfDigest& d, const Provider& prov, const char* name, const char* properties) noexcept;

// HashLen; 0 when unset or when the fetched digest has no fixed size.
size_t kdf_digest_size(const KdfDigest& d) noexcept;

void kdf_digest_clear(KdfDigest& d) noexcept;

// dst is cleared; false only when the fetched digest's reference could not be taken.
bool kdf_digest_copy(KdfDigest& dst, const KdfDigest& src) noexcept;

// stitch's child of the library context it was loaded into (made on first
// call, kept until teardown), or nullptr if it cannot be made. It mirrors
// that context's providers and default properties; stitch fetches only
// digests there, which it does not offer itself, so nothing it fetches can
// lead back into its own KDFs.
OSSL_LIB_CTX* child_libctx(const Provider& prov) noexcept;

}  // namespace stitch::prov
