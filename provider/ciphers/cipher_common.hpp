// What the three ciphers share: the static (algorithm) params every cipher
// answers, buffer checks, and context lifetime. A context is plain data (the
// kernel states hold only a pointer to a static kernel table), so dupctx is a
// byte copy and freectx wipes the whole context before releasing it.
#pragma once

#include <openssl/core.h>
#include <openssl/crypto.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "provider/errors.hpp"

namespace stitch::prov {

// The algorithm params of research.md §a.3: mode 0 (stream), block size 1,
// custom IV, no CTS / TLS multiblock / random key.
struct CipherShape {
    size_t keylen;
    size_t ivlen;
    bool aead;
};

int get_cipher_params(OSSL_PARAM params[], const CipherShape& shape) noexcept;
const OSSL_PARAM* gettable_cipher_params(void* provctx) noexcept;

// `keylen` / `ivlen` set on a context: only the one length the cipher has.
int check_fixed_len(const Provider& prov, const OSSL_PARAM& p, size_t want, Reason wrong) noexcept;

// in == out is in place and fine; any other sharing of bytes is refused.
inline bool partially_overlap(const void* in, size_t in_len, const void* out, size_t out_len) noexcept {
    if (in_len == 0 || out_len == 0) return false;
    const auto a = reinterpret_cast<uintptr_t>(in);
    const auto b = reinterpret_cast<uintptr_t>(out);
    return a != b && a < b + out_len && b < a + in_len;
}

template <class Ctx>
Ctx* new_ctx() noexcept {
    static_assert(std::is_trivially_copyable_v<Ctx>);
    return static_cast<Ctx*>(OPENSSL_zalloc(sizeof(Ctx)));
}

template <class Ctx>
Ctx* dup_ctx(const Ctx* src) noexcept {
    auto* dst = static_cast<Ctx*>(OPENSSL_malloc(sizeof(Ctx)));
    if (dst) std::memcpy(dst, src, sizeof(Ctx));
    return dst;
}

template <class Ctx>
void free_ctx(Ctx* ctx) noexcept {
    OPENSSL_clear_free(ctx, sizeof(Ctx));  // key, keystream, MAC state: wiped before release
}

}  // namespace stitch::prov
