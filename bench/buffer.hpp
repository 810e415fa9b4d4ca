// Message buffers: heap blocks aligned to a cache line (so a move keeps
// pointers into them valid, and no case gains from a lucky alignment), and
// reproducible filler bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>

namespace stitch::bench {

class Buffer {
public:
    Buffer() = default;
    explicit Buffer(size_t n) : n_(n) {
        const size_t bytes = (n + 64) / 64 * 64;  // never zero, whole cache lines
        p_.reset(static_cast<uint8_t*>(std::aligned_alloc(64, bytes)));
        if (!p_) throw std::bad_alloc();
        std::memset(p_.get(), 0, bytes);
    }
    // n bytes starting `page_offset` bytes into a page (bench/placement.hpp).
    Buffer(size_t n, size_t page_offset) : n_(n), off_(page_offset % 4096) {
        const size_t bytes = (off_ + n + 4096) / 4096 * 4096;
        p_.reset(static_cast<uint8_t*>(std::aligned_alloc(4096, bytes)));
        if (!p_) throw std::bad_alloc();
        std::memset(p_.get(), 0, bytes);
    }
    uint8_t* data() const { return p_.get() + off_; }
    size_t size() const { return n_; }
    std::span<const uint8_t> span() const { return {data(), n_}; }

private:
    struct Free {
        void operator()(uint8_t* p) const { std::free(p); }
    };
    std::unique_ptr<uint8_t, Free> p_;
    size_t n_ = 0;
    size_t off_ = 0;
};

// splitmix64 bytes: the same inputs in every run.
inline void fill(uint8_t* p, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; ++i) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        p[i] = uint8_t(z ^ (z >> 31));
    }
}

inline Buffer filled(size_t n, uint64_t seed) {
    Buffer b(n);
    fill(b.data(), n, seed);
    return b;
}

// A copy of a sealed record or packet to open. Shorter than `min` means
// sealing it failed upstream: refuse here rather than size buffers from an
// underflowed length.
inline Buffer copy_of(std::span<const uint8_t> src, size_t min) {
    if (src.size() < min) throw std::runtime_error("nothing to open: sealing the input failed");
    Buffer b(src.size());
    std::memcpy(b.data(), src.data(), src.size());
    return b;
}

}  // namespace stitch::bench
