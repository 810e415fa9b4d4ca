// OSSL_provider_init and the provider-level dispatch: parameters, the cipher
// and MAC queries, reason strings, teardown. Everything stitch decides at
// load happens here, once: the kernel set is chosen before any context exists.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <array>
#include <cstdio>
#include <string_view>

#include "provider/ciphers/ciphers.hpp"
#include "provider/kdfs/kdfs.hpp"
#include "provider/macs/macs.hpp"
#include "provider/errors.hpp"
#include "provider/params.hpp"
#include "provider/provider.hpp"
#include "provider/reasons.hpp"

namespace stitch::prov {

namespace {

constexpr const char kProviderName[] = "stitch";
constexpr const char kBuildInfo[] = "stitch " STITCH_VERSION " (" STITCH_COMPILER ", " STITCH_BUILD_TYPE ")";

// get_reason_strings wants OSSL_ITEMs; reasons.hpp is the one list of texts.
constexpr auto make_reason_items() {
    std::array<OSSL_ITEM, std::size(kReasonTexts) + 1> items{};
    for (size_t i = 0; i < std::size(kReasonTexts); ++i)
        items[i] = {unsigned(kReasonTexts[i].reason), const_cast<char*>(kReasonTexts[i].text)};
    items[std::size(kReasonTexts)] = {0, nullptr};
    return items;
}
constexpr auto kReasonItems = make_reason_items();

const OSSL_ALGORITHM kCiphers[] = {
    {kNameChaCha20Poly1305, kPropertyStitch, kChaCha20Poly1305Functions,
     "ChaCha20-Poly1305 AEAD (RFC 8439)"},
    {kNameChaCha20, kPropertyStitch, kChaCha20Functions, "ChaCha20 with OpenSSL's 16-byte counter||nonce IV"},
    {kNameOpenssh, kPropertyStitch, kOpensshFunctions, "chacha20-poly1305@openssh.com packet construction"},
    {nullptr, nullptr, nullptr, nullptr},
};

const OSSL_ALGORITHM kMacs[] = {
    {kNamePoly1305, kPropertyStitch, kPoly1305Functions, "Poly1305 one-time authenticator (RFC 8439)"},
    {nullptr, nullptr, nullptr, nullptr},
};

const OSSL_ALGORITHM kKdfs[] = {
    {kNameHkdf, kPropertyStitch, kHkdfFunctions, "HKDF (RFC 5869), SHA-256/384/512 on stitch's SHA-2 kernels"},
    {kNameTls13Kdf, kPropertyStitch, kTls13KdfFunctions, "TLS 1.3 key schedule steps (RFC 8446 section 7.1)"},
    {nullptr, nullptr, nullptr, nullptr},
};

const OSSL_PARAM kGettableParams[] = {
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, nullptr, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, nullptr, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, nullptr, 0),
    OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, nullptr),
    OSSL_PARAM_utf8_ptr(kParamKernel, nullptr, 0),
    OSSL_PARAM_utf8_ptr(kParamSha2Kernel, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* gettable_params(void*) noexcept { return kGettableParams; }

int get_params(void* provctx, OSSL_PARAM params[]) noexcept {
    const auto& prov = *static_cast<const Provider*>(provctx);
    for (OSSL_PARAM* p = params; p && p->key; ++p) {
        bool ok = true;
        if (param::is(p->key, OSSL_PROV_PARAM_NAME)) ok = param::set_utf8_ptr(*p, kProviderName);
        else if (param::is(p->key, OSSL_PROV_PARAM_VERSION)) ok = param::set_utf8_ptr(*p, STITCH_VERSION);
        else if (param::is(p->key, OSSL_PROV_PARAM_BUILDINFO)) ok = param::set_utf8_ptr(*p, kBuildInfo);
        else if (param::is(p->key, OSSL_PROV_PARAM_STATUS)) ok = param::set_int(*p, 1);
        else if (param::is(p->key, kParamKernel)) ok = param::set_utf8_ptr(*p, prov.impl->name);
        else if (param::is(p->key, kParamSha2Kernel)) ok = param::set_utf8_ptr(*p, prov.sha2->name);
        if (!ok) return 0;
    }
    return 1;
}

const OSSL_ALGORITHM* query_operation(void*, int operation_id, int* no_cache) noexcept {
    *no_cache = 0;
    switch (operation_id) {
        case OSSL_OP_CIPHER: return kCiphers;
        case OSSL_OP_MAC: return kMacs;
        case OSSL_OP_KDF: return kKdfs;
        default: return nullptr;
    }
}

const OSSL_ITEM* get_reason_strings(void*) noexcept { return kReasonItems.data(); }

void teardown(void* provctx) noexcept {
    auto* prov = static_cast<Provider*>(provctx);
    OSSL_LIB_CTX_free(prov->child_libctx);  // the KDFs' digest fetches, if any were made
    CRYPTO_THREAD_lock_free(prov->child_lock);
    OPENSSL_free(prov);
}

// The kernel set for this load: openssl.cnf's `kernel = ...` in the
// provider's section when it names one, else dispatch's choice (the CPU
// table, or STITCH_KERNEL). A name that is unknown, or a set this CPU cannot
// run, stops the load with an error: the administrator asked for that set,
// and running another one instead would hide the mistake.
bool choose_kernel(Provider& prov, OSSL_FUNC_core_get_params_fn* core_get_params) noexcept {
    const char* wanted = nullptr;
    if (core_get_params) {
        OSSL_PARAM request[] = {OSSL_PARAM_utf8_ptr(kParamKernel, const_cast<char**>(&wanted), 0), OSSL_PARAM_END};
        if (!core_get_params(prov.handle, request)) wanted = nullptr;
    }
    if (!wanted || !*wanted || std::string_view(wanted) == "auto") {
        prov.impl = &kern::active_impl();
        return true;
    }
    prov.impl = kern::allowed_impl(wanted);
    if (prov.impl) return true;
    const bool known = kern::is_kernel_name(wanted);
    // The core loads a provider's reason strings only once it has started,
    // so the detail carries the whole explanation.
    char detail[192];
    std::snprintf(detail, sizeof(detail), known ? "kernel = %.64s: this CPU cannot run that kernel set; stitch not started"
                                                : "kernel = %.64s: unknown kernel set (auto, avx512-ifma, avx512, avx2, portable); stitch not started",
                  wanted);
    raise_detail(prov, known ? R_KERNEL_NOT_RUNNABLE : R_UNKNOWN_KERNEL, detail);
    return false;
}

const OSSL_DISPATCH kProviderFunctions[] = {
    STITCH_DISPATCH(OSSL_FUNC_PROVIDER_TEARDOWN, OSSL_FUNC_provider_teardown_fn, teardown),
    STITCH_DISPATCH(OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, OSSL_FUNC_provider_gettable_params_fn, gettable_params),
    STITCH_DISPATCH(OSSL_FUNC_PROVIDER_GET_PARAMS, OSSL_FUNC_provider_get_params_fn, get_params),
    STITCH_DISPATCH(OSSL_FUNC_PROVIDER_QUERY_OPERATION, OSSL_FUNC_provider_query_operation_fn, query_operation),
    STITCH_DISPATCH(OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, OSSL_FUNC_provider_get_reason_strings_fn,
                    get_reason_strings),
    {0, nullptr},
};

}  // namespace

}  // namespace stitch::prov

// The module's only exported symbol.
extern "C" __attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE* handle,
                                                                         const OSSL_DISPATCH* in,
                                                                         const OSSL_DISPATCH** out,
                                                                         void** provctx) {
    using namespace stitch::prov;
    auto* prov = static_cast<Provider*>(OPENSSL_zalloc(sizeof(Provider)));
    if (!prov) return 0;
    prov->handle = handle;
    prov->core_in = in;
    prov->child_lock = CRYPTO_THREAD_lock_new();
    if (!prov->child_lock) {
        OPENSSL_free(prov);
        return 0;
    }
    OSSL_FUNC_core_get_params_fn* core_get_params = nullptr;
    for (; in && in->function_id != 0; ++in) {
        switch (in->function_id) {
            case OSSL_FUNC_CORE_NEW_ERROR: prov->new_error = OSSL_FUNC_core_new_error(in); break;
            case OSSL_FUNC_CORE_SET_ERROR_DEBUG: prov->set_error_debug = OSSL_FUNC_core_set_error_debug(in); break;
            case OSSL_FUNC_CORE_VSET_ERROR: prov->vset_error = OSSL_FUNC_core_vset_error(in); break;
            case OSSL_FUNC_CORE_GET_PARAMS: core_get_params = OSSL_FUNC_core_get_params(in); break;
            default: break;
        }
    }
    // Dispatch is decided here, at load, and never per record.
    if (!choose_kernel(*prov, core_get_params)) {
        CRYPTO_THREAD_lock_free(prov->child_lock);
        OPENSSL_free(prov);
        return 0;
    }
    prov->sha2 = &stitch::kern::sha2_active_impl();
    *out = kProviderFunctions;
    *provctx = prov;
    return 1;
}
