#include "provider/kdfs/kdf_ctx.hpp"

#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <cstdint>
#include <cstring>

#include "kernels/bytes.hpp"
#include "provider/ciphers/cipher_common.hpp"
#include "provider/errors.hpp"
#include "provider/params.hpp"

namespace stitch::prov {

namespace {

// --- fields -----------------------------------------------------------------

// An input longer than its inline room lives on the heap; it is wiped (and
// reported to the wipe observer, tests/wipe) before it is freed.
constexpr char kHeapInput[] = "kdf input on the heap";

template <size_t N>
void clear_field(ParamBytes<N>& f) noexcept {
    if (f.heap) {
        wipe_secret(f.heap, f.len, kHeapInput);
        OPENSSL_free(f.heap);
    } else {
        kern::wipe(f.small, f.len);
    }
    f.heap = nullptr;
    f.len = 0;
    f.present = false;
}

// Room for n bytes, present; nullptr if the heap refused.
template <size_t N>
uint8_t* make_room(ParamBytes<N>& f, size_t n) noexcept {
    clear_field(f);
    if (n > N && !(f.heap = static_cast<uint8_t*>(OPENSSL_malloc(n)))) return nullptr;
    f.len = n;
    f.present = true;
    return f.heap ? f.heap : f.small;
}

template <size_t N>
bool copy_field(ParamBytes<N>& dst, const ParamBytes<N>& src) noexcept {
    dst = ParamBytes<N>{};
    if (!src.present) return true;
    uint8_t* p = make_room(dst, src.len);
    if (!p) return false;
    if (src.len) std::memcpy(p, src.data(), src.len);
    return true;
}

template <size_t N>
int set_field(KdfCtx& c, ParamBytes<N>& f, const OSSL_PARAM& p) noexcept {
    clear_field(f);
    if (p.data_type != OSSL_PARAM_OCTET_STRING || !p.data) return refuse(*c.prov, R_INVALID_PARAM);
    uint8_t* dst = make_room(f, p.data_size);
    if (!dst) return refuse(*c.prov, R_OUT_OF_MEMORY);  // 3.0's OPENSSL_malloc raises nothing
    if (p.data_size) std::memcpy(dst, p.data, p.data_size);
    return 1;
}

void clear_all(KdfCtx& c) noexcept {
    kdf_digest_clear(c.digest);
    clear_field(c.key);
    clear_field(c.salt);
    clear_field(c.info);
    clear_field(c.prefix);
    clear_field(c.label);
    clear_field(c.data);
    c.mode = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;
    c.salt_refused = false;
}

// --- params -----------------------------------------------------------------

// An ASCII compare without case, as 3.0 compares the mode names.
bool same_word(const char* a, const char* b) noexcept {
    for (;; ++a, ++b) {
        char x = *a, y = *b;
        if (x >= 'a' && x <= 'z') x = char(x - 'a' + 'A');
        if (x != y) return false;  // b is upper case
        if (!x) return true;
    }
}

int set_mode(KdfCtx& c, const OSSL_PARAM& p) noexcept {
    int mode = -1;
    if (p.data_type == OSSL_PARAM_UTF8_STRING) {
        const char* s = static_cast<const char*>(p.data);
        if (!s) return refuse(*c.prov, R_INVALID_MODE);  // 3.0 dereferences it
        if (same_word(s, "EXTRACT_AND_EXPAND"))
            mode = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;
        else if (same_word(s, "EXTRACT_ONLY"))
            mode = EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
        else if (same_word(s, "EXPAND_ONLY"))
            mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    } else if (!p.data || !OSSL_PARAM_get_int(&p, &mode)) {
        mode = -1;  // no data: OSSL_PARAM_get_int would read through NULL (3.0's HKDF does, and crashes)
    }
    if (mode != EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND && mode != EVP_KDF_HKDF_MODE_EXTRACT_ONLY &&
        mode != EVP_KDF_HKDF_MODE_EXPAND_ONLY)
        return refuse(*c.prov, R_INVALID_MODE);
    c.mode = mode;
    return 1;
}

const OSSL_PARAM kGettableCtxParams[] = {
    OSSL_PARAM_size_t(OSSL_KDF_PARAM_SIZE, nullptr),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_INFO, nullptr, 0),
    OSSL_PARAM_END,
};

}  // namespace

// --- lifetime ---------------------------------------------------------------

void* kdf_newctx(void* provctx) noexcept {
    auto* c = static_cast<KdfCtx*>(OPENSSL_zalloc(sizeof(KdfCtx)));
    if (c) c->prov = static_cast<const Provider*>(provctx);
    return c;
}

void kdf_freectx(void* vctx) noexcept {
    auto* c = static_cast<KdfCtx*>(vctx);
    if (!c) return;
    // The inline inputs go with the one wipe of the whole context (libssl
    // frees one after each of its derives): only heap-held ones first.
    kdf_digest_clear(c->digest);
    for (ParamBytes<64>* f : {&c->key, &c->salt, &c->label, &c->data})
        if (f->heap) clear_field(*f);
    if (c->info.heap) clear_field(c->info);
    if (c->prefix.heap) clear_field(c->prefix);
    wipe_secret(c, sizeof(*c), region::kContext);
    OPENSSL_free(c);
}

// OpenSSL 3.0's own HKDF has no dupctx (EVP_KDF_CTX_dup fails on it);
// stitch's copies everything, so a copy derives what the original would.
void* kdf_dupctx(void* vctx) noexcept {
    const auto& src = *static_cast<const KdfCtx*>(vctx);
    auto* c = static_cast<KdfCtx*>(kdf_newctx(const_cast<Provider*>(src.prov)));
    if (!c) return nullptr;
    c->mode = src.mode;
    c->salt_refused = src.salt_refused;
    if (!kdf_digest_copy(c->digest, src.digest) || !copy_field(c->key, src.key) || !copy_field(c->salt, src.salt) ||
        !copy_field(c->info, src.info) || !copy_field(c->prefix, src.prefix) || !copy_field(c->label, src.label) ||
        !copy_field(c->data, src.data)) {
        kdf_freectx(c);
        return nullptr;
    }
    return c;
}

void kdf_reset(void* vctx) noexcept { clear_all(*static_cast<KdfCtx*>(vctx)); }

// --- params -----------------------------------------------------------------

KdfParams locate_kdf_params(const OSSL_PARAM params[]) noexcept {
    KdfParams f{};
    auto first = [](const OSSL_PARAM*& slot, const OSSL_PARAM* p) {
        if (!slot) slot = p;
    };
    for (const OSSL_PARAM* p = params; p->key; ++p) {  // (both callers pass a non-NULL array)
        const char* k = p->key;
        switch (k[0]) {
            case 'd':
                if (param::is(k, OSSL_KDF_PARAM_DIGEST))
                    first(f.digest, p);
                else if (param::is(k, OSSL_KDF_PARAM_DATA))
                    first(f.data, p);
                break;
            case 'm':
                if (param::is(k, OSSL_KDF_PARAM_MODE)) first(f.mode, p);
                break;
            case 'k':
                if (param::is(k, OSSL_KDF_PARAM_KEY)) first(f.key, p);
                break;
            case 'l':
                if (param::is(k, OSSL_KDF_PARAM_LABEL)) first(f.label, p);
                break;
            case 'p':
                if (param::is(k, OSSL_KDF_PARAM_PREFIX))
                    first(f.prefix, p);
                else if (param::is(k, OSSL_KDF_PARAM_PROPERTIES))
                    first(f.properties, p);
                break;
            case 's':
                if (param::is(k, OSSL_KDF_PARAM_SALT)) first(f.salt, p);
                break;
            case 'i':
                if (param::is(k, OSSL_KDF_PARAM_INFO)) first(f.info, p);
                break;
            default:
                break;
        }
    }
    return f;
}

int set_common_params(KdfCtx& c, const KdfParams& p) noexcept {
    // 3.0 reads `properties` whenever it looks for a digest, even with none given.
    const char* properties = nullptr;
    if (p.properties) {
        if (p.properties->data_type != OSSL_PARAM_UTF8_STRING) return refuse(*c.prov, R_INVALID_PARAM);
        properties = static_cast<const char*>(p.properties->data);
    }
    if (p.digest) {
        if (p.digest->data_type != OSSL_PARAM_UTF8_STRING) return refuse(*c.prov, R_INVALID_PARAM);
        if (!kdf_digest_set(c.digest, *c.prov, static_cast<const char*>(p.digest->data), properties)) return 0;
    }
    if (p.mode && !set_mode(c, *p.mode)) return 0;
    if (p.key && !set_field(c, c.key, *p.key)) return 0;
    if (p.salt) {
        c.salt_refused = false;
        if (!set_field(c, c.salt, *p.salt)) {
            c.salt_refused = !p.salt->data && p.salt->data_size > 0;
            return 0;
        }
    }
    return 1;
}

int set_info(KdfCtx& c, const KdfParams& p) noexcept {
    if (!p.info) return 1;
    // Every piece is checked and measured before the old info goes.
    size_t total = 0;
    for (const OSSL_PARAM* q = p.info; q->key; ++q) {
        if (!param::is(q->key, OSSL_KDF_PARAM_INFO)) continue;
        if (q->data_type != OSSL_PARAM_OCTET_STRING) return refuse(*c.prov, R_INVALID_PARAM);
        if (q->data) total += q->data_size;  // 3.0 skips a piece with no data
        if (total > kMaxInfo) return refuse(*c.prov, R_INFO_TOO_LONG);
    }
    // An empty total clears the info. (3.0.19 frees it but keeps the old
    // length, and its next derive reads through a NULL pointer.)
    uint8_t* dst = make_room(c.info, total);
    if (!dst) return refuse(*c.prov, R_OUT_OF_MEMORY);
    for (const OSSL_PARAM* q = p.info; q->key; ++q) {
        if (!param::is(q->key, OSSL_KDF_PARAM_INFO) || !q->data || !q->data_size) continue;
        std::memcpy(dst, q->data, q->data_size);
        dst += q->data_size;
    }
    return 1;
}

int set_bytes(KdfCtx& c, ParamBytes<64>& field, const OSSL_PARAM& p) noexcept { return set_field(c, field, p); }
int set_bytes(KdfCtx& c, ParamBytes<16>& field, const OSSL_PARAM& p) noexcept { return set_field(c, field, p); }

void clear_data(KdfCtx& c) noexcept { clear_field(c.data); }

int kdf_get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
    auto& c = *static_cast<KdfCtx*>(vctx);
    if (OSSL_PARAM* p = OSSL_PARAM_locate(params, OSSL_KDF_PARAM_SIZE)) {
        size_t size = SIZE_MAX;  // any length: the expanding modes
        if (c.mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY) {
            size = kdf_digest_size(c.digest);
            // 0: no digest, or one of no fixed size (the "NULL" digest), which 3.0 refuses silently.
            if (!size) return c.digest.kind == KdfDigest::Kind::none ? refuse(*c.prov, R_DIGEST_NOT_SET) : 0;
        }
        return param::set_size(*p, size) ? 1 : 0;
    }
    if (OSSL_PARAM* p = OSSL_PARAM_locate(params, OSSL_KDF_PARAM_INFO)) {
        if (!c.info.len) {
            p->return_size = 0;
            return 1;
        }
        return OSSL_PARAM_set_octet_string(p, c.info.data(), c.info.len);
    }
    return -2;  // what 3.0 answers when asked for neither (EVP passes it on)
}

const OSSL_PARAM* kdf_gettable_ctx_params(void*, void*) noexcept { return kGettableCtxParams; }

// --- derive -----------------------------------------------------------------

size_t derive_hash_len(KdfCtx& c, const unsigned char* out) noexcept {
    if (c.digest.kind == KdfDigest::Kind::none) return size_t(refuse(*c.prov, R_DIGEST_NOT_SET));
    if (c.digest.kind == KdfDigest::Kind::evp && !EvpHmac::usable(c.digest.md))
        return size_t(refuse(*c.prov, R_DIGEST_NOT_USABLE));
    if (!out) return size_t(refuse(*c.prov, R_NULL_BUFFER));
    return kdf_digest_size(c.digest);
}

int refuse_status(const Provider& prov, kern::KdfStatus st) noexcept {
    switch (st) {
        case kern::KdfStatus::output_too_long:
            return refuse(prov, R_OUTPUT_TOO_LONG);
        case kern::KdfStatus::label_too_long:
            return refuse(prov, R_LABEL_TOO_LONG);
        case kern::KdfStatus::context_too_long:
            return refuse(prov, R_CONTEXT_TOO_LONG);
        case kern::KdfStatus::mac_failed:
        default:  // (ok never comes here: with_mac returns 1 first)
            return refuse(prov, R_HMAC_FAILED);
    }
}

}  // namespace stitch::prov

// The one copy of each HKDF step per Mac (kdf_ctx.hpp).
namespace stitch::kern {
STITCH_KDF_STEPS(, Sha2Hmac)
STITCH_KDF_STEPS(, prov::EvpHmac)
}  // namespace stitch::kern
