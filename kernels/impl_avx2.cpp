// Placeholder until the AVX2 kernels land: no AVX2 kernel set in this build.
#include "kernels/dispatch.hpp"

namespace stitch::kern {
const Impl* avx2_impl() noexcept { return nullptr; }
}  // namespace stitch::kern
