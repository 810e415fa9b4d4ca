#include "provider/errors.hpp"

#include <cstdarg>

namespace stitch::prov {

namespace {

// CORE_VSET_ERROR takes a va_list; this turns "no arguments" into one.
void set_error(const Provider& prov, int reason, const char* fmt, ...) noexcept {
    va_list args;
    va_start(args, fmt);
    prov.vset_error(prov.handle, uint32_t(reason), fmt, args);
    va_end(args);
}

}  // namespace

void raise(const Provider& prov, Reason reason, const char* file, int line) noexcept {
    if (!prov.new_error || !prov.set_error_debug || !prov.vset_error) return;
    prov.new_error(prov.handle);
    prov.set_error_debug(prov.handle, file, line, nullptr);
    // A reason with the top 8 bits clear is the provider's own: the core maps
    // it into the error library it gave this provider.
    set_error(prov, reason, nullptr);
}

void raise_detail(const Provider& prov, Reason reason, const char* detail, const char* file, int line) noexcept {
    if (!prov.new_error || !prov.set_error_debug || !prov.vset_error) return;
    prov.new_error(prov.handle);
    prov.set_error_debug(prov.handle, file, line, nullptr);
    set_error(prov, reason, "%s", detail ? detail : "");
}

}  // namespace stitch::prov
