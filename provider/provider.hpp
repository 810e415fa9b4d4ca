// The provider context (provctx): what one load of stitch into one library
// context keeps. Every cipher context points back to it, so an error is
// raised against the load that made the context.
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/types.h>

#include "kernels/dispatch.hpp"
#include "kernels/sha2.hpp"

namespace stitch::prov {

// Provider param (utf8): the kernel set dispatch chose, e.g. "portable", "avx2".
inline constexpr char kParamKernel[] = "kernel";
// Provider param (utf8): the SHA-2 kernels the KDFs use, "shani" or "portable".
inline constexpr char kParamSha2Kernel[] = "sha2_kernel";

struct Provider {
    const OSSL_CORE_HANDLE* handle;
    // The core's error up-calls; any of them may be missing (then errors are dropped).
    OSSL_FUNC_core_new_error_fn* new_error;
    OSSL_FUNC_core_set_error_debug_fn* set_error_debug;
    OSSL_FUNC_core_vset_error_fn* vset_error;
    // The kernel set dispatch chose when the provider loaded.
    const kern::Impl* impl;
    // The SHA-2 kernels the KDFs' HMAC runs on, chosen at load likewise.
    const kern::Sha2Impl* sha2;
    // The core's dispatch table, kept for OSSL_LIB_CTX_new_child, and the
    // child library context the KDFs fetch digests other than SHA-256/384/512
    // from: made on first need (provider/kdfs/digest.cpp), freed at teardown.
    const OSSL_DISPATCH* core_in;
    void* child_lock;  // CRYPTO_RWLOCK
    OSSL_LIB_CTX* child_libctx;
};

}  // namespace stitch::prov

// One OSSL_DISPATCH slot. The static_cast to the OSSL_FUNC_*_fn type makes the
// compiler check the callback's signature (a noexcept function converts to
// it). Written as a macro because only a cast spelled out in the initializer
// keeps the table static data: a helper function would make the compiler fill
// the table at dlopen, before OSSL_provider_init.
#define STITCH_DISPATCH(id, fn_type, fn) {id, reinterpret_cast<void (*)(void)>(static_cast<fn_type*>(fn))}
