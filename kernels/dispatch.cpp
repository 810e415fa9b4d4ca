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
    bool (*allows)(const CpuFeatures& masked, const Impl& impl) noexcept;
};

// In order of preference: the first set whose preferred() is not null wins.
// portable prefers itself everywhere, so the list always ends in a choice.
constexpr KernelSet kSets[] = {
    {"avx512", avx512::impls, avx512::allowed, avx512::preferred, avx512::allows},
    {"avx2", avx2::impls, avx2::allowed, avx2::preferred, avx2::allows},
    {"portable", portable::impls, portable::allowed, portable::preferred, portable::allows},
};

// An Impl's label ("avx512-ifma", "avx512", "avx2", "portable") gets
// that Impl where its set allows it on this CPU; a set's name that is no
// Impl's label ("avx512" where IFMA is present names the set) gets the set's
// own choice for this CPU. Anything else
// (a set or variant not allowed after STITCH_CLEAR_CPUID, a label this CPU
// cannot run) gets nothing.
const Impl* asked_for(std::string_view want, const CpuFeatures& f) noexcept {
    for (const KernelSet& set : kSets)
        for (const Impl* impl : set.impls())
            if (want == impl_label(*impl)) return set.allows(f, *impl) ? impl : nullptr;
    for (const KernelSet& set : kSets)
        if (want == set.name) return set.allowed(f);
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

const Impl* allowed_impl(const char* name) noexcept { return name ? asked_for(name, cpu_features()) : nullptr; }

bool is_kernel_name(const char* name) noexcept {
    if (!name) return false;
    const std::string_view want(name);
    for (const KernelSet& set : kSets)
        if (want == set.name) return true;
    // The AVX-512 variant with IFMA has a name of its own; other Impls are
    // known by the labels of those this CPU runs.
    if (want == "avx512-ifma") return true;
    for (const Impl* impl : runnable_impls())
        if (want == impl_label(*impl)) return true;
    return false;
}

const Impl& dispatch_choice(const CpuFeatures& f) noexcept {
    for (const KernelSet& set : kSets)
        if (const Impl* impl = set.preferred(f)) return *impl;
    return portable_impl();
}

const Impl& active_impl() noexcept {
    static const Impl* const chosen = [] {
        const CpuFeatures f = cpu_features();
        if (const char* want = std::getenv("STITCH_KERNEL"))
            if (const Impl* impl = asked_for(want, f)) return impl;
        return &dispatch_choice(f);
    }();
    return *chosen;
}

}  // namespace stitch::kern
