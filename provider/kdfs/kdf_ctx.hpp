// The context HKDF and TLS13-KDF share, and the parameter handling of OpenSSL
// 3.0's default provider (providers/implementations/kdfs/hkdf.c), which the
// differential tests hold stitch to: the same params, applied in the same
// order, with the same partial effect when one of them is refused.
//
// Inputs are copied in; up to a few dozen bytes each (everything libssl
// passes) live inside the context, so setting them allocates nothing.
#pragma once

#include <openssl/core.h>
#include <openssl/crypto.h>

#include <cstddef>
#include <cstdint>

#include "kernels/hkdf.hpp"
#include "provider/kdfs/digest.hpp"
#include "provider/kdfs/evp_hmac.hpp"
#include "provider/provider.hpp"

// The HKDF steps are made once per Mac, in kdf_ctx.cpp, not once in every
// file that calls them (one copy in stitch.so either way, after the linker;
// but gcov counts the copies it discards as code never run).
#define STITCH_KDF_STEPS(prefix, Mac)                                                                           \
    prefix template KdfStatus hkdf_extract<Mac>(Mac&, const uint8_t*, size_t, const uint8_t*, size_t,           \
                                                uint8_t*) noexcept;                                             \
    prefix template KdfStatus hkdf_expand<Mac>(Mac&, const uint8_t*, size_t, const uint8_t*, size_t, uint8_t*,  \
                                               size_t) noexcept;                                                \
    prefix template KdfStatus tls13_expand_label<Mac>(Mac&, const uint8_t*, size_t, const uint8_t*, size_t,     \
                                                      const uint8_t*, size_t, const uint8_t*, size_t, uint8_t*, \
                                                      size_t) noexcept;                                         \
    prefix template KdfStatus tls13_extract_step<Mac>(Mac&, bool, const uint8_t*, size_t, bool, const uint8_t*, \
                                                      size_t, const uint8_t*, size_t, const uint8_t*, size_t,   \
                                                      uint8_t*) noexcept;
namespace stitch::kern {
STITCH_KDF_STEPS(extern, Sha2Hmac)
STITCH_KDF_STEPS(extern, prov::EvpHmac)
}  // namespace stitch::kern

namespace stitch::prov {

// The bytes of one octet-string param. `present` tells an unset key or salt
// (or one a failed set removed) from an empty one, which OpenSSL 3.0 treats
// differently (HKDF's missing key; TLS 1.3's zero IKM and no previous secret).
template <size_t Inline>
struct ParamBytes {
    uint8_t* heap;  // holds the bytes when len > Inline
    size_t len;
    bool present;
    uint8_t small[Inline];

    const uint8_t* data() const noexcept { return heap ? heap : small; }
};

struct KdfCtx {
    const Provider* prov;
    KdfDigest digest;
    int mode;  // EVP_KDF_HKDF_MODE_*
    ParamBytes<64> key;
    ParamBytes<64> salt;
    ParamBytes<128> info;   // HKDF
    ParamBytes<16> prefix;  // TLS13-KDF
    ParamBytes<64> label;   // TLS13-KDF
    ParamBytes<64> data;    // TLS13-KDF
    // A `salt` param with no data but a length was refused: 3.0 keeps that
    // length with no salt, and its HKDF extract then refuses every derive.
    bool salt_refused;
};

// HKDF's cap on all `info` params of one call together, as in 3.0.19.
inline constexpr size_t kMaxInfo = 32 * 1024;

void* kdf_newctx(void* provctx) noexcept;
void kdf_freectx(void* vctx) noexcept;
void* kdf_dupctx(void* vctx) noexcept;
void kdf_reset(void* vctx) noexcept;

// The params each KDF reads, located in one pass over the array: the first
// of each key (as OSSL_PARAM_locate finds it), and the first `info`.
struct KdfParams {
    const OSSL_PARAM* properties;
    const OSSL_PARAM* digest;
    const OSSL_PARAM* mode;
    const OSSL_PARAM* key;
    const OSSL_PARAM* salt;
    const OSSL_PARAM* info;
    const OSSL_PARAM* prefix;
    const OSSL_PARAM* label;
    const OSSL_PARAM* data;
};
KdfParams locate_kdf_params(const OSSL_PARAM params[]) noexcept;

// digest (with properties), mode, key, salt: in this order, stopping at the
// first refusal with what came before it applied.
int set_common_params(KdfCtx& c, const KdfParams& p) noexcept;
// HKDF's info: every `info` param of the call, concatenated, replacing the old.
int set_info(KdfCtx& c, const KdfParams& p) noexcept;
// An octet-string param into a field: the old bytes go first, and a param of
// another type or with no data leaves the field unset.
int set_bytes(KdfCtx& c, ParamBytes<64>& field, const OSSL_PARAM& p) noexcept;
int set_bytes(KdfCtx& c, ParamBytes<16>& field, const OSSL_PARAM& p) noexcept;
// TLS13-KDF forgets its `data` on every set_ctx_params call, as 3.0 does.
void clear_data(KdfCtx& c) noexcept;

// get_ctx_params of both KDFs: `size` (SIZE_MAX unless EXTRACT_ONLY, then
// HashLen), else `info`, else -2, as 3.0 answers.
int kdf_get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept;
const OSSL_PARAM* kdf_gettable_ctx_params(void* vctx, void* provctx) noexcept;

// The checks every derive makes first: a digest, an output buffer, a digest
// an HMAC can run on. Returns HashLen, or 0 after raising the error.
size_t derive_hash_len(KdfCtx& c, const unsigned char* out) noexcept;

// The refusal a status other than ok stands for; 0, to return.
int refuse_status(const Provider& prov, kern::KdfStatus st) noexcept;

// Runs f(mac) on an HMAC for the context's digest: stitch's SHA-2 kernels, or
// the fetched digest through EvpHmac. f returns a kern::KdfStatus; anything
// but ok is refused, and output an HMAC failure left half written is wiped.
template <class F>
int with_mac(KdfCtx& c, unsigned char* out, size_t out_len, F&& f) noexcept {
    kern::KdfStatus st;
    if (c.digest.kind == KdfDigest::Kind::sha2) {
        kern::Sha2Hmac mac(*c.prov->sha2, c.digest.sha2);
        st = f(mac);
    } else {
        EvpHmac mac(c.digest.md);
        st = mac.ready() ? f(mac) : kern::KdfStatus::mac_failed;
    }
    if (st == kern::KdfStatus::ok) return 1;
    if (st == kern::KdfStatus::mac_failed) OPENSSL_cleanse(out, out_len);
    return refuse_status(*c.prov, st);
}

}  // namespace stitch::prov
