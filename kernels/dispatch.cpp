// The ordered list of kernel sets, and the choice among them. Each set's
// rule lives in its folder (preferred() and allowed() in its set.hpp), so
// adding a set is a folder, one line in kSets, and CMake
// (docs/kernels.md has the checklist).
#include "kernels/dispatch.hpp"

#include <cstdlib>
#include <iterator>
#include <string_view>

#include "kernels/avx2/set.hpp"
#include "kernels/avx512/set.hpp"
#include "kernels/portable/set.hpp"

namespace stitch::kern {

namespace {

struct KernelSet {
    const char* name;  // what STITCH_KERNEL calls the set
    std::span<const Impl* const> (*impls)() noexcept;
    const Impl* (*allowed)(const CpuFeatures& masked) noexcept;
    const Impl* (*preferred)(const CpuFeatures& masked) noexcept;
};

// In order of preference: the first set whose preferred() is not null wins.
// portable prefers itself everywhere, so the list always ends in a choice.
constexpr KernelSet kSets[] = {
    {"avx512", avx512::impls, avx512::allowed, avx512::preferred},
    {"avx2", avx2::impls, avx2::allowed, avx2::preferred},
    {"portable", portable::impls, portable::allowed, portable::preferred},
};

// STITCH_KERNEL=<set> gets the set's own choice for this CPU where it is
// allowed; STITCH_KERNEL=<label> gets that Impl where its set is allowed.
// Anything else (a set not allowed after STITCH_CLEAR_CPUID, a label this
// CPU cannot run) is ignored.
const Impl* asked_for(std::string_view want, const CpuFeatures& f) noexcept {
    for (const KernelSet& set : kSets)
        if (want == set.name) return set.allowed(f);
    for (const KernelSet& set : kSets) {
        if (!set.allowed(f)) continue;
        for (const Impl* impl : set.impls())
            if (want == impl_label(*impl)) return impl;
    }
    return nullptr;
}

}  // namespace

std::span<const Impl* const> runnable_impls() noexcept {
    struct List {
        const Impl* items[16];
        size_t count = 0;
        void add(const Impl* impl) {
            for (size_t i = 0; i < count; ++i)
                if (items[i] == impl) return;
            if (count < std::size(items)) items[count++] = impl;
        }
    };
    static const List list = [] {
        List l;
        for (auto set = std::rbegin(kSets); set != std::rend(kSets); ++set)
            for (const Impl* impl : set->impls()) l.add(impl);
        return l;
    }();
    return {list.items, list.count};
}

const Impl* find_impl(const char* name) noexcept {
    if (!name) return nullptr;
    const std::string_view want(name);
    for (const Impl* impl : runnable_impls())
        if (want == impl_label(*impl)) return impl;
    for (const Impl* impl : runnable_impls())
        if (want == impl->name) return impl;
    return nullptr;
}

const Impl& active_impl() noexcept {
    static const Impl* const chosen = [] {
        const CpuFeatures f = cpu_features();
        if (const char* want = std::getenv("STITCH_KERNEL"))
            if (const Impl* impl = asked_for(want, f)) return impl;
        for (const KernelSet& set : kSets)
            if (const Impl* impl = set.preferred(f)) return impl;
        return &portable_impl();
    }();
    return *chosen;
}

}  // namespace stitch::kern
