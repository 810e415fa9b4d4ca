// The portable set: plain C++ over the scalar quarter round and 64-bit
// Poly1305 limbs. The reference every other set is tested against, and the
// set of every CPU no faster set is allowed on.
#pragma once

#include <span>

#include "kernels/cpu.hpp"
#include "kernels/impl.hpp"

namespace stitch::kern {

// The one portable Impl (tests compare every other set with it).
const Impl& portable_impl() noexcept;

namespace portable {

// The set's Impls: the one above, on every CPU.
std::span<const Impl* const> impls() noexcept;

// The set's rule: runs anywhere, asked for (STITCH_KERNEL=portable) or not.
const Impl* allowed(const CpuFeatures& masked) noexcept;
const Impl* preferred(const CpuFeatures& masked) noexcept;
bool allows(const CpuFeatures& masked, const Impl& impl) noexcept;

}  // namespace portable
}  // namespace stitch::kern
