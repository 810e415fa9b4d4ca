// The Impl of each build of the AVX-512 sources (kernels/isa_avx512.hpp),
// for the set (avx512/set.cpp: native) and the tests (emulated).
#pragma once

namespace stitch::kern {
struct Impl;
}

namespace stitch::kern::avx512 {
namespace ifma {
const Impl& impl() noexcept;
}
namespace base {
const Impl& impl() noexcept;
}
namespace ifma_emulated {
const Impl& impl() noexcept;
}
namespace base_emulated {
const Impl& impl() noexcept;
}
}  // namespace stitch::kern::avx512
