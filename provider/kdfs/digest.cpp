#include "provider/kdfs/digest.hpp"

#include <openssl/crypto.h>
#include <openssl/err.h>

#include <array>
#include <cstring>
#include <string>

#include "provider/errors.hpp"
#include "provider/kdfs/digest_names.hpp"

namespace stitch::prov {

namespace {

// ASCII only, as OpenSSL compares algorithm names (OPENSSL_strcasecmp),
// whatever the process locale. b is one of kSha2Names, all upper case.
bool same_name(const char* a, const char* b) noexcept {
    for (;; ++a, ++b) {
        char x = *a;
        if (x >= 'a' && x <= 'z') x = char(x - 'a' + 'A');
        if (x != *b) return false;
        if (!x) return true;
    }
}

constexpr bool no_lower_case() {
    for (const Sha2Name& n : kSha2Names)
        for (const char* c = n.name; *c; ++c)
            if (*c >= 'a' && *c <= 'z') return false;
    return true;
}
static_assert(no_lower_case(), "same_name() folds only its first argument");

// The names' lengths, so most candidates are passed over on one compare
// (libssl sets the digest on every one of its derives).
constexpr auto kSha2NameLengths = [] {
    std::array<size_t, std::size(kSha2Names)> lengths{};
    for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = std::char_traits<char>::length(kSha2Names[i].name);
    return lengths;
}();

const Sha2Name* find_sha2(const char* name) noexcept {
    const size_t len = strnlen(name, 32);
    for (size_t i = 0; i < std::size(kSha2Names); ++i)
        if (kSha2NameLengths[i] == len && same_name(name, kSha2Names[i].name)) return &kSha2Names[i];
    return nullptr;
}

}  // namespace

OSSL_LIB_CTX* child_libctx(const Provider& prov) noexcept {
    auto& p = const_cast<Provider&>(prov);  // the one field made lazily, under its lock
    OSSL_LIB_CTX* c = __atomic_load_n(&p.child_libctx, __ATOMIC_ACQUIRE);
    if (c) return c;  // (the lock exists: OSSL_provider_init refuses to load without it)
    if (!CRYPTO_THREAD_write_lock(p.child_lock)) return nullptr;
    c = p.child_libctx;
    if (!c) {
        c = OSSL_LIB_CTX_new_child(p.handle, p.core_in);
        __atomic_store_n(&p.child_libctx, c, __ATOMIC_RELEASE);
    }
    CRYPTO_THREAD_unlock(p.child_lock);
    return c;
}

int kdf_digest_set(KdfDigest& d, const Provider& prov, const char* name, const char* properties) noexcept {
    kdf_digest_clear(d);
    if (!name) return refuse(prov, R_UNKNOWN_DIGEST);
    if (!properties) {
        if (const Sha2Name* n = find_sha2(name)) {
            d.kind = KdfDigest::Kind::sha2;
            d.sha2 = n->alg;
            return 1;
        }
    }
    OSSL_LIB_CTX* child = child_libctx(prov);
    if (!child) return refuse(prov, R_UNKNOWN_DIGEST);
    // The fetch's own errors are replaced by one that names the KDF's view.
    ERR_set_mark();
    EVP_MD* md = EVP_MD_fetch(child, name, properties);
    ERR_pop_to_mark();
    if (!md) return refuse(prov, R_UNKNOWN_DIGEST);
    d.kind = KdfDigest::Kind::evp;
    d.md = md;
    return 1;
}

size_t kdf_digest_size(const KdfDigest& d) noexcept {
    switch (d.kind) {
        case KdfDigest::Kind::sha2:
            return kern::sha2_digest_len(d.sha2);
        case KdfDigest::Kind::evp: {
            const int n = EVP_MD_get_size(d.md);
            return n > 0 ? size_t(n) : 0;
        }
        case KdfDigest::Kind::none:
            break;
    }
    return 0;
}

void kdf_digest_clear(KdfDigest& d) noexcept {
    if (d.kind == KdfDigest::Kind::evp) EVP_MD_free(d.md);
    d.kind = KdfDigest::Kind::none;
    d.md = nullptr;
}

bool kdf_digest_copy(KdfDigest& dst, const KdfDigest& src) noexcept {
    kdf_digest_clear(dst);
    if (src.kind == KdfDigest::Kind::evp && !EVP_MD_up_ref(src.md)) return false;
    dst = src;
    return true;
}

}  // namespace stitch::prov
