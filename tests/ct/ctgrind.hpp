// The ctgrind method: memcheck treats bytes marked "undefined" as if they
// were uninitialised, so any branch or address computed from them is
// reported. Secrets are marked undefined; a value that is public by design
// (a tag check's verdict, an output we compare) is declassified first.
// Outside valgrind both calls cost a few instructions and do nothing.
#pragma once

#include <valgrind/memcheck.h>

#include <cstddef>

namespace stitch::ct {

inline void secret(const void* p, size_t n) { (void)VALGRIND_MAKE_MEM_UNDEFINED(p, n); }

inline void declassify(const void* p, size_t n) { (void)VALGRIND_MAKE_MEM_DEFINED(p, n); }

// A verdict the caller may branch on: declassified, then returned.
inline bool public_verdict(bool v) {
    declassify(&v, sizeof(v));
    return v;
}

}  // namespace stitch::ct
