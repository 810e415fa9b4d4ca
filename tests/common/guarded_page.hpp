// One accessible page between two inaccessible ones: a buffer placed at its
// start or its end faults on any read or write past that edge.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace stitch::test {

class GuardedPage {
public:
    GuardedPage() : size_(size_t(sysconf(_SC_PAGESIZE))) {
        void* p = mmap(nullptr, 3 * size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return;
        base_ = static_cast<uint8_t*>(p);
        if (mprotect(base_ + size_, size_, PROT_READ | PROT_WRITE) != 0) {
            munmap(base_, 3 * size_);
            base_ = nullptr;
        }
    }
    ~GuardedPage() {
        if (base_) munmap(base_, 3 * size_);
    }
    GuardedPage(const GuardedPage&) = delete;
    GuardedPage& operator=(const GuardedPage&) = delete;
    bool ok() const { return base_ != nullptr; }
    uint8_t* start() { return base_ + size_; }                   // the accessible page's first byte
    uint8_t* ending(size_t len) { return base_ + 2 * size_ - len; }  // its last len bytes

private:
    size_t size_;
    uint8_t* base_ = nullptr;
};

}  // namespace stitch::test
