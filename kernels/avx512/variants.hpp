// The Impl of each build of the AVX-512 sources (kernels/avx512/isa.hpp),
// for dispatch (native) and the tests (emulated).
#pragma once

namespace stitch::kern {
struct Impl;
namespace avx512_ifma {
const Impl& impl() noexcept;
}
namespace avx512 {
const Impl& impl() noexcept;
}
namespace avx512_ifma_emulated {
const Impl& impl() noexcept;
}
namespace avx512_emulated {
const Impl& impl() noexcept;
}
}  // namespace stitch::kern
