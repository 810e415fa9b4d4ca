// The emulated AVX-512 Impls (both variants), for tests/common/kernel_sets.hpp.
#include "tests/emulated/emulated_impls.hpp"

#include "kernels/avx512/variants.hpp"

namespace stitch::test {

std::span<const kern::Impl* const> avx512_emulated_impls() noexcept {
    static const kern::Impl* const both[] = {&kern::avx512::ifma_emulated::impl(), &kern::avx512::base_emulated::impl()};
    return both;
}

}  // namespace stitch::test
