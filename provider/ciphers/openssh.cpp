// chacha20-poly1305@openssh.com (PROTOCOL.chacha20poly1305) as an EVP cipher.
// The calls, fitted to OpenSSL's API:
//   key   64 bytes, K_2 (payload) ‖ K_1 (length), as OpenSSH orders them.
//   IV    8 bytes: the packet sequence number, big-endian (SSH's uint64).
//         Set it per packet: EVP_CipherInit_ex(ctx, NULL, NULL, NULL, seq, -1).
//   update / EVP_Cipher with inl = 4 + payload + 16, one whole packet:
//         encrypt: in = length ‖ payload ‖ 16 spare bytes; out = encrypted
//                  length ‖ ciphertext ‖ tag, outl = inl.
//         decrypt: in = encrypted length ‖ ciphertext ‖ tag; out = length ‖
//                  payload, outl = inl − 16; refused: 0, out[0..inl−16) zeros.
//         A packet uses up its sequence number: the next one needs a new IV.
//   update with inl = 4: the length field alone (K_1, one block), before the
//         rest of the packet has arrived; it does not use up the IV.
//   final: a no-op.
// Misuse (bad sizes, no key or IV, a spent IV) is refused with nothing written;
// a packet refused by its tag leaves zeros where its plaintext would be.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstdint>

#include "kernels/bytes.hpp"
#include "kernels/openssh.hpp"
#include "provider/ciphers/cipher_common.hpp"
#include "provider/ciphers/ciphers.hpp"
#include "provider/errors.hpp"
#include "provider/params.hpp"

namespace stitch::prov {

namespace {

using kern::kOpensshKeyLen;
using kern::kOpensshLengthLen;
using kern::kTagLen;

constexpr size_t kIvLen = 8;
constexpr size_t kMinPacket = kOpensshLengthLen + kTagLen;  // an empty payload still has length and tag
constexpr CipherShape kShape{kOpensshKeyLen, kIvLen, true};

struct Ctx {
    const Provider* prov;
    kern::OpensshState st;
    uint64_t seqnr;
    bool initialised;
    bool enc;
    bool key_set;
    bool iv_set;
    bool finished;  // a whole packet used this sequence number
};

// --- params ---------------------------------------------------------------

int set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
    return set_fixed_len_params(*static_cast<const Ctx*>(vctx)->prov, params, kShape);
}

int get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
    return get_fixed_len_params(*static_cast<const Ctx*>(vctx)->prov, params, kShape);
}

int get_params(OSSL_PARAM params[]) noexcept { return get_cipher_params(params, kShape); }

// --- lifetime and init ------------------------------------------------------

void* newctx(void* provctx) noexcept {
    const auto* prov = static_cast<const Provider*>(provctx);
    Ctx* c = new_ctx<Ctx>();
    if (!c) return nullptr;
    c->prov = prov;
    kern::openssh_init(c->st, *prov->impl);
    return c;
}

// K_2's message state and K_1: what free and re-key wipe.
void wipe_secrets(Ctx& c) noexcept {
    wipe_aead_secrets(c.st.main);
    wipe_secret(c.st.header.key, sizeof(c.st.header.key), region::kHeaderKey);
}

void freectx(void* vctx) noexcept {
    auto* c = static_cast<Ctx*>(vctx);
    if (c) wipe_secrets(*c);
    free_ctx(c);
}
void* dupctx(void* vctx) noexcept { return dup_ctx(static_cast<const Ctx*>(vctx)); }

uint64_t load_be64(const unsigned char* p) noexcept {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
    return v;
}

int init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen,
         const OSSL_PARAM params[], bool enc) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    if (key && keylen != kOpensshKeyLen) return refuse(*c.prov, R_INVALID_KEY_LENGTH);
    if (iv && ivlen != kIvLen) return refuse(*c.prov, R_INVALID_IV_LENGTH);
    c.initialised = true;
    c.enc = enc;
    if (key) {
        wipe_secrets(c);
        kern::openssh_set_key(c.st, key);
        c.key_set = true;
    }
    if (iv) {
        c.seqnr = load_be64(iv);
        c.iv_set = true;
    }
    c.finished = false;  // every init starts a new packet
    return set_ctx_params(vctx, params);
}

// --- data -------------------------------------------------------------------

// Bytes a call of `inl` writes: the length field, a sealed packet (with its
// tag), an opened one (without). A malformed length writes nothing.
size_t output_len(const Ctx& c, size_t inl) noexcept {
    if (inl == kOpensshLengthLen) return kOpensshLengthLen;
    if (inl < kMinPacket) return 0;
    return c.enc ? inl : inl - kTagLen;
}

// The reason a call cannot run now; 0 when it can.
int not_ready(const Ctx& c, size_t inl) noexcept {
    if (!c.initialised) return R_NOT_INITIALISED;
    if (!c.key_set) return R_KEY_NOT_SET;
    if (!c.iv_set) return R_IV_NOT_SET;
    if (inl != kOpensshLengthLen && inl < kMinPacket) return R_INVALID_PACKET_LENGTH;
    if (inl != kOpensshLengthLen && c.finished) return R_ALREADY_FINAL;
    return 0;
}

int packet(void* vctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
           size_t inl) noexcept {
    auto& c = *static_cast<Ctx*>(vctx);
    *outl = 0;
    if (inl == 0) return 1;
    if (!in || !out) return refuse(*c.prov, R_NULL_BUFFER);
    const size_t nout = output_len(c, inl);
    if (outsize < nout) return refuse(*c.prov, R_OUTPUT_BUFFER_TOO_SMALL);
    if (partially_overlap(in, inl, out, nout)) return refuse(*c.prov, R_OVERLAPPING_BUFFERS);
    // Misuse writes nothing; only a packet refused by its tag leaves zeros.
    if (int why = not_ready(c, inl)) return refuse(*c.prov, Reason(why));
    if (inl == kOpensshLengthLen) {
        kern::openssh_length(c.st, c.seqnr, in, out);
        *outl = kOpensshLengthLen;
        return 1;
    }
    const size_t len = inl - kTagLen;  // length field ‖ payload
    c.finished = true;
    if (c.enc) {
        kern::openssh_seal(c.st, c.seqnr, in, out, len, out + len);
        *outl = inl;
        return 1;
    }
    // Refused: the kernel has left zeros in out[0..len), length field included.
    // The verdict is returned, not branched on (ct.provider checks stitch.so
    // has no branch on anything the tag decides): outl is len or 0 by mask.
    const bool ok = kern::openssh_open(c.st, c.seqnr, in, out, len, in + len);
    *outl = len & (0 - size_t(ok));
    return ok;
}

int final(void* vctx, unsigned char*, size_t* outl, size_t) noexcept {
    const auto& c = *static_cast<const Ctx*>(vctx);
    *outl = 0;
    if (!c.initialised) return refuse(*c.prov, R_NOT_INITIALISED);
    return 1;
}

}  // namespace

const OSSL_DISPATCH kOpensshFunctions[] = {
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_NEWCTX, OSSL_FUNC_cipher_newctx_fn, newctx),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_FREECTX, OSSL_FUNC_cipher_freectx_fn, freectx),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_DUPCTX, OSSL_FUNC_cipher_dupctx_fn, dupctx),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_ENCRYPT_INIT, OSSL_FUNC_cipher_encrypt_init_fn, encrypt_init<init>),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_DECRYPT_INIT, OSSL_FUNC_cipher_decrypt_init_fn, decrypt_init<init>),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_UPDATE, OSSL_FUNC_cipher_update_fn, packet),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_FINAL, OSSL_FUNC_cipher_final_fn, final),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_CIPHER, OSSL_FUNC_cipher_cipher_fn, packet),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GET_PARAMS, OSSL_FUNC_cipher_get_params_fn, get_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GETTABLE_PARAMS, OSSL_FUNC_cipher_gettable_params_fn, gettable_cipher_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GET_CTX_PARAMS, OSSL_FUNC_cipher_get_ctx_params_fn, get_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_SET_CTX_PARAMS, OSSL_FUNC_cipher_set_ctx_params_fn, set_ctx_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, OSSL_FUNC_cipher_gettable_ctx_params_fn, fixed_len_params),
    STITCH_DISPATCH(OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, OSSL_FUNC_cipher_settable_ctx_params_fn, fixed_len_params),
    {0, nullptr},
};

}  // namespace stitch::prov
