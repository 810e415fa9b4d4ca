// The provider context (provctx): what one load of stitch into one library
// context keeps. Every cipher context points back to it, so an error is
// raised against the load that made the context.
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include "kernels/dispatch.hpp"

namespace stitch::prov {

// Provider param (utf8): the kernel set dispatch chose, e.g. "portable", "avx2".
inline constexpr char kParamKernel[] = "kernel";

struct Provider {
    const OSSL_CORE_HANDLE* handle;
    // The core's error up-calls; any of them may be missing (then errors are dropped).
    OSSL_FUNC_core_new_error_fn* new_error;
    OSSL_FUNC_core_set_error_debug_fn* set_error_debug;
    OSSL_FUNC_core_vset_error_fn* vset_error;
    // The kernel set dispatch chose when the provider loaded.
    const kern::Impl* impl;
};

}  // namespace stitch::prov

// One OSSL_DISPATCH slot. The static_cast to the OSSL_FUNC_*_fn type makes the
// compiler check the callback's signature (a noexcept function converts to
// it). Written as a macro because only a cast spelled out in the initializer
// keeps the table static data: a helper function would make the compiler fill
// the table at dlopen, before OSSL_provider_init.
#define STITCH_DISPATCH(id, fn_type, fn) {id, reinterpret_cast<void (*)(void)>(static_cast<fn_type*>(fn))}
