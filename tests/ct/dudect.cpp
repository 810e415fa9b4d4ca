// A dudect-style timing check (Reparaz, Balasch, Verbauwhede 2017): each call
// gets input from a fixed class or a random class, picked at random per call;
// rdtsc brackets the call; Welch's t over the two classes' timings, uncropped
// and cropped at several percentiles, says whether timing depends on the
// input. |t| < 4.5 → no leak detected. A benchmark, not a CI assertion: this
// machine is noisy. The control rows are a deliberately leaky compare: they
// show the run had the power to see a leak of that size.
//   ct_dudect [--seconds N] [--impl active|portable|both]
#include <x86intrin.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "ct/welch.hpp"
#include "kernels/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/verdict.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/portable/set.hpp"

namespace {

using namespace stitch::kern;
using stitch::test::Bytes;
using stitch::test::Rng;

constexpr size_t kBatch = 4096;   // inputs prepared ahead, then timed back to back
constexpr double kThreshold = 4.5;

inline uint64_t cycles() {
    _mm_lfence();  // keep the call from moving across the timer
    const uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

// One row of the table: fills input slot i for class 0 (fixed) or 1
// (random) outside the timed region, then runs the timed call on slot i.
class Target {
public:
    virtual ~Target() = default;
    virtual void prepare(Rng& rng, int cls, size_t i) = 0;
    virtual void run(size_t i) = 0;
};

uint8_t nonzero(Rng& rng) { return uint8_t(1 + rng.below(255)); }

// Seal with key and plaintext both fixed, or both random.
class Seal : public Target {
public:
    Seal(const Impl& impl, size_t len, Rng& rng)
        : len_(len), fixed_(rng.bytes(32 + len)), slots_(kBatch * (32 + len)), out_(len) {
        aead_init(st_, impl, Grid::rfc8439);
    }
    void prepare(Rng& rng, int cls, size_t i) override {
        uint8_t* s = slot(i);
        // Both classes byte by byte, the same loop: a memcpy for one class
        // alone reaches the timed call in another core state on AVX-512
        // machines (glibc's copy runs in zmm registers) and reads as a leak
        // (measured on Intel Emerald Rapids; docs/security.md, dudect).
        for (size_t j = 0; j < 32 + len_; ++j) {
            const uint8_t random = uint8_t(rng.next());
            s[j] = cls == 0 ? fixed_[j] : random;
        }
    }
    void run(size_t i) override {
        static const uint8_t nonce[12] = {7}, aad[13] = {1};
        const uint8_t* s = slot(i);
        aead_set_key(st_, s);
        aead_set_nonce(st_, nonce);
        aead_aad(st_, aad, sizeof(aad));
        aead_text(st_, Direction::seal, s + 32, out_.data(), len_);
        aead_final(st_, tag_);
    }

private:
    uint8_t* slot(size_t i) { return slots_.data() + i * (32 + len_); }
    size_t len_;
    Bytes fixed_, slots_, out_;
    AeadState st_;
    uint8_t tag_[16];
};

// A refused open: the tag's first wrong byte at position 0, or anywhere.
class Refusal : public Target {
public:
    Refusal(const Impl& impl, size_t len, Rng& rng) : len_(len), ct_(len), out_(len), tags_(kBatch * 16) {
        const Bytes key = rng.bytes(32), pt = rng.bytes(len);
        aead_init(st_, impl, Grid::rfc8439);
        aead_set_key(st_, key.data());
        restart();
        aead_text(st_, Direction::seal, pt.data(), ct_.data(), len);
        aead_final(st_, good_);
    }
    void prepare(Rng& rng, int cls, size_t i) override {
        uint8_t* tag = &tags_[i * 16];
        std::memcpy(tag, good_, 16);
        tag[cls == 0 ? 0 : rng.below(16)] ^= nonzero(rng);
    }
    void run(size_t i) override {
        restart();
        aead_open_record(st_, ct_.data(), out_.data(), len_, &tags_[i * 16]);
    }

private:
    void restart() {
        static const uint8_t nonce[12] = {9}, aad[13] = {2};
        aead_set_nonce(st_, nonce);
        aead_aad(st_, aad, sizeof(aad));
    }
    size_t len_;
    Bytes ct_, out_, tags_;
    AeadState st_;
    uint8_t good_[16];
};

// Called through a volatile pointer so the compiler cannot specialise the
// compare to the inputs it can see.
__attribute__((noinline)) int call_tag_equal(const uint8_t* a, const uint8_t* b, size_t) { return tag_equal(a, b); }

// The control: returns at the first difference, as memcmp may.
__attribute__((noinline)) int early_exit_equal(const uint8_t* a, const uint8_t* b, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return 0;
    return 1;
}

// A compare of two buffers differing first at position 0 or anywhere.
class Compare : public Target {
public:
    using Fn = int (*)(const uint8_t*, const uint8_t*, size_t);
    Compare(Fn fn, size_t len, Rng& rng) : fn_(fn), len_(len), a_(rng.bytes(len)), slots_(kBatch * len) {}
    void prepare(Rng& rng, int cls, size_t i) override {
        uint8_t* b = &slots_[i * len_];
        std::memcpy(b, a_.data(), len_);
        b[cls == 0 ? 0 : rng.below(len_)] ^= nonzero(rng);
    }
    void run(size_t i) override { sink_ = fn_(a_.data(), &slots_[i * len_], len_); }

private:
    Fn volatile fn_;
    size_t len_;
    Bytes a_, slots_;
    volatile int sink_ = 0;
};

struct Result {
    double measurements, t, percentile;
};

// Batches of kBatch calls in random class order until `seconds` pass; the
// first batch only sets the cropping thresholds.
Result measure(Target& target, Rng& rng, double seconds) {
    stitch::ct::CroppedWelch stats;
    std::vector<int> cls(kBatch);
    std::vector<uint64_t> time(kBatch);
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (bool first = true; first || std::chrono::steady_clock::now() < end; first = false) {
        for (size_t i = 0; i < kBatch; ++i) {
            cls[i] = int(rng.next() & 1);
            target.prepare(rng, cls[i], i);
        }
        for (size_t i = 0; i < kBatch; ++i) {
            const uint64_t t0 = cycles();
            target.run(i);
            time[i] = cycles() - t0;
        }
        if (first) stats.calibrate(time);
        else for (size_t i = 0; i < kBatch; ++i) stats.add(cls[i], time[i]);
    }
    Result r{stats.count(), 0, 1};
    r.t = stats.max_abs_t(&r.percentile);
    return r;
}

struct Row {
    std::string check, impl;
    std::unique_ptr<Target> target;
    bool control = false;
};

}  // namespace

int main(int argc, char** argv) {
    double seconds = 60;
    std::string which = "both";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
        else if (arg == "--impl" && i + 1 < argc) which = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--seconds N] [--impl active|portable|both]\n", argv[0]);
            return 2;
        }
    }
    Rng rng(uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::vector<const Impl*> impls;
    if (which == "active" || which == "both") impls.push_back(&active_impl());
    if ((which == "portable" || which == "both") && (impls.empty() || impls[0] != &portable_impl()))
        impls.push_back(&portable_impl());  // once when dispatch chose portable
    if (impls.empty()) {
        std::fprintf(stderr, "--impl: active, portable or both\n");
        return 2;
    }

    std::vector<Row> rows;
    for (const Impl* impl : impls)
        for (size_t len : {64, 1024}) {
            rows.push_back({"seal " + std::to_string(len) + " B", impl->name, std::make_unique<Seal>(*impl, len, rng)});
            rows.push_back({"refusal " + std::to_string(len) + " B", impl->name,
                            std::make_unique<Refusal>(*impl, len, rng)});
        }
    rows.push_back({"tag_equal 16 B", "-", std::make_unique<Compare>(call_tag_equal, 16, rng)});
    for (size_t len : {16, 1024})
        rows.push_back({"control: early-exit compare " + std::to_string(len) + " B", "-",
                        std::make_unique<Compare>(early_exit_equal, len, rng), true});

    std::printf("dudect-style check, %.0f s over %zu rows; active kernels: %s\n", seconds, rows.size(),
                active_impl().name);
    std::printf("%-36s %-9s %12s %8s %6s  %s\n", "check", "impl", "measurements", "max|t|", "crop", "verdict");
    const double each = seconds / double(rows.size());
    for (Row& row : rows) {
        const Result r = measure(*row.target, rng, each);
        const bool leak = r.t >= kThreshold;
        const char* verdict = row.control ? (leak ? "leak seen (expected: the test has power)"
                                                  : "NO LEAK SEEN: too few measurements to trust the rows above")
                                          : (leak ? "LEAK?" : "no leak detected");
        char crop[16] = "none";
        if (r.percentile < 1) std::snprintf(crop, sizeof(crop), "p%.1f", 100 * r.percentile);
        std::printf("%-36s %-9s %12.0f %8.2f %6s  %s\n", row.check.c_str(), row.impl.c_str(), r.measurements, r.t,
                    crop, verdict);
        std::fflush(stdout);
    }
    std::printf("|t| < %.1f: no leak detected at this many measurements; crop: the percentile below which the\n"
                "largest |t| was found (none: all measurements)\n",
                kThreshold);
    return 0;
}
