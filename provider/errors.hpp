// Raising stitch's own reasons through the core's error up-calls, so
// ERR_print_errors shows e.g. "stitch...invalid iv length". Only refusals
// raise: an authentication failure returns 0 with nothing on the error queue,
// as OpenSSL's default provider does (libssl's DTLS drops such records
// silently and reads the queue afterwards).
#pragma once

#include "provider/provider.hpp"
#include "provider/reasons.hpp"

namespace stitch::prov {

// The default arguments record the caller's file and line (std::source_location
// would do the same, but clang 14 cannot use libstdc++ 12's).
void raise(const Provider& prov, Reason reason, const char* file = __builtin_FILE(),
           int line = __builtin_LINE()) noexcept;

// raise() with a detail the error queue shows after the reason, e.g. the
// configured value that was refused.
void raise_detail(const Provider& prov, Reason reason, const char* detail, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE()) noexcept;

// raise() shaped for a callback's return statement: `return refuse(prov, R_X);`
inline int refuse(const Provider& prov, Reason reason, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE()) noexcept {
    raise(prov, reason, file, line);
    return 0;
}

}  // namespace stitch::prov
