// Which kernel set a process runs: chosen once, when the library loads, from
// the ordered list of sets (dispatch.cpp) and one CPU snapshot (cpu.hpp).
// Each set states its own rule (its set.hpp); this file only asks them in
// order. Nothing here runs per record.
#pragma once

#include <span>

#include "kernels/cpu.hpp"
#include "kernels/impl.hpp"

namespace stitch::kern {

// The set dispatch chose for this process: decided on the first call (the
// provider makes that call in OSSL_provider_init) and never again.
// STITCH_KERNEL=<set name or Impl label> asks for one; without it, or where
// what it asks for is not allowed here, the first set whose rule prefers
// itself on this CPU (after STITCH_CLEAR_CPUID) wins.
const Impl& active_impl() noexcept;

// Every Impl this build has and this CPU can run, by CPUID and XGETBV
// without the STITCH_CLEAR_CPUID mask: the reference (portable) first, then
// each set up the list, each Impl once. Tests and benchmarks run every entry,
// whatever dispatch chose.
std::span<const Impl* const> runnable_impls() noexcept;

// The Impl `name` (a set name, "avx512-ifma", or a label, "avx512 (SIMDe)") asks
// for, if this process may run it: its set allowed on this CPU after the
// STITCH_CLEAR_CPUID mask; else nullptr. A set name gets the set's own
// choice for this CPU. STITCH_KERNEL and openssl.cnf's `kernel` setting
// both go through it.
const Impl* allowed_impl(const char* name) noexcept;

// Whether `name` names a kernel set or an Impl this build has, whatever the
// CPU: tells an unknown word from a set this CPU cannot run.
bool is_kernel_name(const char* name) noexcept;

// The Impl dispatch picks, STITCH_KERNEL aside, for a CPU with the (masked)
// features f: the first set of the list whose rule prefers itself. Pure, so
// tests can ask about CPUs this machine is not; active_impl() asks once
// about this one.
const Impl& dispatch_choice(const CpuFeatures& f) noexcept;

// The runnable Impl whose label is `name` ("avx2", "avx512-ifma"), else the
// first whose name is; nullptr if none.
const Impl* find_impl(const char* name) noexcept;

}  // namespace stitch::kern
