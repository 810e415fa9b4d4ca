// The portable set's one Impl, and its rule: dispatch's last resort, so it
// is preferred wherever it is reached (dispatch.cpp lists it last).
#include "kernels/portable/set.hpp"

namespace stitch::kern {

namespace {

const Impl kPortable = {
    "portable",
    chacha20_blocks_portable,
    poly1305_blocks_portable,
    aead_text_portable,
    aead_open_record_portable,
};

const Impl* const kAll[] = {&kPortable};

}  // namespace

const Impl& portable_impl() noexcept { return kPortable; }

namespace portable {

std::span<const Impl* const> impls() noexcept { return kAll; }

const Impl* allowed(const CpuFeatures&) noexcept { return &kPortable; }

const Impl* preferred(const CpuFeatures&) noexcept { return &kPortable; }

bool allows(const CpuFeatures&, const Impl&) noexcept { return true; }

}  // namespace portable
}  // namespace stitch::kern
