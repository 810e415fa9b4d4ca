// What the three ciphers share: the static (algorithm) params every cipher
// answers, buffer checks, context lifetime, and the wipe of secrets. A context
// is plain data (the kernel states hold only a pointer to a static kernel
// table), so dupctx is a byte copy and freectx wipes the whole context before
// releasing it.
#pragma once

#include <openssl/core.h>
#include <openssl/crypto.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "provider/errors.hpp"

namespace stitch::prov {

// The algorithm params OpenSSL 3.0 gives both ciphers (docs/openssl-3.0-semantics.md
// #names): mode 0 (stream), block size 1, custom IV, no CTS / TLS multiblock /
// random key.
struct CipherShape {
    size_t keylen;
    size_t ivlen;
    bool aead;
};

int get_cipher_params(OSSL_PARAM params[], const CipherShape& shape) noexcept;
const OSSL_PARAM* gettable_cipher_params(void* provctx) noexcept;

// `keylen` / `ivlen` set on a context: only the one length the cipher has.
int check_fixed_len(const Provider& prov, const OSSL_PARAM& p, size_t want, Reason wrong) noexcept;

// Context params of a cipher whose only ones are its fixed `keylen` and
// `ivlen` (ChaCha20, the OpenSSH cipher); unknown keys are ignored.
int set_fixed_len_params(const Provider& prov, const OSSL_PARAM params[], const CipherShape& shape) noexcept;
int get_fixed_len_params(const Provider& prov, OSSL_PARAM params[], const CipherShape& shape) noexcept;
const OSSL_PARAM* fixed_len_params(void* vctx, void* provctx) noexcept;

// in == out is in place and fine; any other sharing of bytes is refused.
inline bool partially_overlap(const void* in, size_t in_len, const void* out, size_t out_len) noexcept {
    if (in_len == 0 || out_len == 0) return false;
    const auto a = reinterpret_cast<uintptr_t>(in);
    const auto b = reinterpret_cast<uintptr_t>(out);
    return a != b && a < b + out_len && b < a + in_len;
}

// A cipher's init with the direction as its last argument; encrypt_init<init>
// and decrypt_init<init> are its OSSL_FUNC_cipher_{en,de}crypt_init entries.
using InitFn = int (*)(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen,
                       const OSSL_PARAM params[], bool enc) noexcept;

template <InitFn Init>
int encrypt_init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen,
                 const OSSL_PARAM params[]) noexcept {
    return Init(vctx, key, keylen, iv, ivlen, params, true);
}

template <InitFn Init>
int decrypt_init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen,
                 const OSSL_PARAM params[]) noexcept {
    return Init(vctx, key, keylen, iv, ivlen, params, false);
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

// --- wiping secrets ----------------------------------------------------------
//
// Free and re-key wipe each secret region of a context by name, then report it
// to wipe_observer: a test hook (tests/wipe) that checks the region is zero
// before the memory is released or takes the new key. nullptr in production,
// where it costs one predictable branch per region on free and re-key only.
using WipeObserver = void (*)(const void* region, size_t len, const char* what) noexcept;
extern WipeObserver wipe_observer;

namespace region {
inline constexpr char kKeySchedule[] = "key schedule";          // ChaCha20 key words
inline constexpr char kKeystream[] = "keystream buffer";        // a partly used block
inline constexpr char kPoly1305[] = "poly1305 state";           // r, s, accumulator, buffered bytes
inline constexpr char kPendingAad[] = "pending aad";            // held-back AAD: the TLS AAD copy, OpenSSH's length
inline constexpr char kHeaderKey[] = "openssh header key";      // K_1
inline constexpr char kContext[] = "context";                   // the whole context, on free
}  // namespace region

inline void wipe_secret(void* p, size_t len, const char* what) noexcept {
    kern::wipe(p, len);
    if (wipe_observer) [[unlikely]] wipe_observer(p, len, what);
}

// The secrets of a ChaCha20-Poly1305 message state (either MAC grid). The
// state is left for a new key and a restart, which every data path needs.
void wipe_aead_secrets(kern::AeadState& st) noexcept;

// The secrets of a raw ChaCha20 stream; its counter words are kept.
void wipe_stream_secrets(kern::ChaChaStream& s) noexcept;

// Wipes the whole context, then releases it. A cipher's freectx first wipes
// its named regions, the same wipe as a re-key, so each is reported by name.
template <class Ctx>
void free_ctx(Ctx* ctx) noexcept {
    if (!ctx) return;
    wipe_secret(ctx, sizeof(Ctx), region::kContext);
    OPENSSL_free(ctx);
}

}  // namespace stitch::prov
