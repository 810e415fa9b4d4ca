// The AVX-512 set's Impls and its rule: a table keyed by CPUID vendor,
// family and model, each row saying whether stitch measured the choice there
// and on what. A CPU no row names follows OpenSSL's default provider: where
// libcrypto runs its AVX-512 ChaCha20 and Poly1305 (every CPU with the
// features but Skylake-SP), stitch runs its AVX-512 set too, so the two
// compete at the same vector width (docs/choosing-kernels.md).
#include "kernels/avx512/set.hpp"

#include "kernels/avx512/variants.hpp"

namespace stitch::kern::avx512 {

namespace {

enum class Choice : uint8_t { never, widest };

struct Row {
    CpuVendor vendor;
    uint32_t family;
    uint32_t model_lo, model_hi;  // inclusive
    bool amx;  // the row names only CPUs that report AMX (CpuFeatures::amx_tile)
    Choice choice;
    // IFMA Poly1305 runs of at least this many blocks take two sets of
    // eight zmm lanes (below: two sets of four ymm lanes); 0 for the default.
    size_t ifma_zmm_min_blocks;
    // Raw ChaCha20 in two sixteen-block batches at a time (chacha20.hpp's
    // keystream2) rather than one.
    bool chacha_two_batches;
    // Raw ChaCha20's single block in general-purpose registers
    // (x86/scalar_block.hpp) rather than as a ymm row pair (chacha20.cpp's
    // rows2).
    bool lone_block_in_gpr;
    // Five to twelve blocks of keystream as two or three zmm row sets
    // (chacha20.hpp's keystream_row_sets) rather than a word-per-register
    // batch of eight (ymm) or sixteen (zmm).
    bool row_sets;
    // Each IFMA Poly1305 step takes its limbs' products in the order the
    // carry round finishes them (limb 1, 2, 0) rather than limb order
    // (poly1305_ifma.hpp's Order).
    bool ifma_carry_order;
    const char* evidence;
};

// Where no row says otherwise: the width measured on Zen 4 (avx512/kernels.hpp),
// whose zmm IFMA runs at half rate.
constexpr size_t kDefaultIfmaZmmMinBlocks = 192;

// First match wins. Families and models as CPUID reports them (kernels/cpu.cpp).
constexpr Row kRows[] = {
    // OpenSSL's x86_64cpuid.pl clears AVX512F on this model (the core clock
    // drops under 512-bit multiply work), so its default provider runs AVX2
    // Poly1305 and 256-bit ChaCha20 there; stitch never runs the set there,
    // not even when asked for.
    {CpuVendor::intel, 6, 0x55, 0x55, false, Choice::never, 0, false, false, false, false,
     "Skylake-SP, Cascade Lake, Cooper Lake: never (OpenSSL avoids AVX-512 there); not measured"},
    // Two 512-bit IFMA pipes: two sets of eight zmm lanes beat two sets of
    // four ymm lanes from 48 blocks (init, blocks and final per call: 107
    // against 116 ns at 48 blocks, 161 against 198 at 96, 198 against 244
    // at 128; equal at 32). Five to twelve blocks as two or three zmm row
    // sets: measured 2026-12-06, the kernel (both ways in one process) raw
    // ChaCha20 of 257-768 B in 0.84-0.94 of the time of the ymm or zmm
    // batch, seals and opens of 193-704 B in 0.91-0.97.
    {CpuVendor::intel, 6, 0xcf, 0xcf, false, Choice::widest, 48, false, false, true, false,
     "Emerald Rapids: measured 2026-12-02 on a Xeon (2 vCPUs): avx512-ifma against the default as it "
     "comes 1.12-1.22x at 16-64 KiB, against the avx2 set's 0.35-0.59x (docs/benchmarks.md)"},
    // A KVM guest that reports Rocket Lake's model with AMX, which no Rocket
    // Lake has: a Xeon with 64 KiB of L1i and 2 MiB of L2 a core and 480 MiB
    // of L3, so Granite Rapids by inference (its own model, 0xAD, is not
    // measured). Five to twelve blocks as two or three zmm row sets:
    // measured 2026-12-07 through EVP, both ways in turn over four
    // processes, raw ChaCha20 of 320-448 B 1.30-1.35x -> 1.47-1.51x the
    // default as it comes and of 576-704 B 1.19-1.22x -> 1.28-1.29x, seals
    // and opens of 320-704 B 0-9% quicker. The IFMA width is the default's:
    // not measured here.
    {CpuVendor::intel, 6, 0xa7, 0xa7, true, Choice::widest, 0, false, false, true, false,
     "Xeon reporting 6/0xA7 with AMX (a KVM guest, Granite Rapids by inference): measured 2026-12-07 "
     "(2 vCPUs): avx512-ifma against the default as it comes 1.15-1.29x at 16-64 KiB (docs/benchmarks.md)"},
    // Ice Lake-SP, measured 2026-12-07 on a KVM guest (2 vCPUs), through EVP
    // against the default as it comes, each choice in turn over five
    // processes (medians of each process's speedup). Two sets of eight zmm
    // lanes from 48 blocks (the default's from 192): POLY1305 of 1 KiB
    // 1.04x -> 1.17x, 1.5 KiB 1.00 -> 1.19x, 2 KiB 0.98 -> 1.21x, 2.5 KiB
    // 0.96 -> 1.22x, TLS 1.3 seals and opens of 1-2.5 KiB 4-8% quicker;
    // from 32, 640 B went 1.10 -> 1.03x; from 64, 768 B gained nothing.
    // Row sets: raw ChaCha20 of 320-512 B 1.19-1.22x -> 1.34-1.37x, seals
    // and opens of 256-448 B 5-7% quicker, 576-768 B 1-3%. Two batches in
    // flight (raw ChaCha20 of 2-64 KiB 3-4% quicker, but records of 2-4 KiB
    // 3-5% slower), the carry order (POLY1305 of 1-64 KiB 3% slower) and a
    // lone block in general registers (raw ChaCha20 of 64 B 1.13x -> 0.76x)
    // stay off. Ice Lake-D (0x6C) and the client cores (one 512-bit FMA
    // port) are not measured.
    {CpuVendor::intel, 6, 0x6a, 0x6a, false, Choice::widest, 48, false, false, true, false,
     "Ice Lake-SP: measured 2026-12-07 on a Xeon (2 vCPUs): avx512-ifma against the default as it comes "
     "1.01-1.14x at 16-64 KiB over ten processes (docs/benchmarks.md)"},
    // Five to twelve blocks as a batch until row sets are measured here.
    {CpuVendor::intel, 6, 0x8f, 0x8f, false, Choice::widest, 48, false, false, false, false,
     "Sapphire Rapids: as Emerald Rapids, same core; not measured"},
    // Raw ChaCha20's single block as a ymm row pair (the default): measured
    // 2026-12-04 on an EPYC model 0x11, the kernel at 64 B ~105 ns against
    // 125-190 in general-purpose registers (four integer units to Zen 5's six).
    {CpuVendor::amd, 0x19, 0x10, 0x1f, false, Choice::widest, 0, false, false, false, false,
     "Zen 4 (Genoa): measured on an EPYC model 0x11: avx512-ifma 1.01-1.08x at 16-64 KiB, faster than avx2"},
    {CpuVendor::amd, 0x19, 0x60, 0x7f, false, Choice::widest, 0, false, false, false, false, "Zen 4 (Raphael, Phoenix): as Genoa, same core; not measured"},
    {CpuVendor::amd, 0x19, 0xa0, 0xaf, false, Choice::widest, 0, false, false, false, false, "Zen 4c (Bergamo, Siena): as Genoa, same core; not measured"},
    // Vector integer ops take two cycles: one sixteen-block batch leaves the
    // pipes half idle, two in flight fill them. Measured 2026-12-02 on an EPYC
    // model 0x02 (2 vCPUs), raw ChaCha20 against the default as it comes at
    // 4-64 KiB: one batch 1.01-1.03x (0.53-0.58 c/B), two 1.31-1.37x
    // (0.40-0.44); TLS 1.3 seal and open at 16-64 KiB 1.07-1.20x, two
    // 1.41-1.44x. Full-rate zmm IFMA: two sets of eight zmm lanes from 32
    // blocks, measured 2026-12-06 (core cycles a POLY1305 message, g++ 12
    // and clang 14, against two sets of four ymm lanes up to 191 blocks):
    // 512 B 245-250 -> 220-232, 1 KiB 406-427 -> 297-310, 2 KiB 712-740 ->
    // 470-498. With the switch at 16 blocks, runs of 24-31 blocks (a set
    // of four, then the zmm sets) read 3-6% slower than at 32.
    // A lone
    // block stays in general-purpose registers: ten double rounds ~300
    // cycles there, where two-cycle vector operations make a row pair's
    // chain about twice that (the AVX2 set's row pair: ~490). The two
    // batches in one asm statement (pair_run.hpp), measured 2026-12-06 on
    // the same model: raw ChaCha20 0.40 (g++ 12) and 0.36 (clang 14) c/B
    // -> 0.34 in both, 1.52-1.63x the default at 2-64 KiB. The IFMA
    // Poly1305's products in the carry round's order, measured 2026-12-06
    // on the same model (core cycles a POLY1305 message, g++ 12 / clang
    // 14): 256 B 168-173 -> 152-156 / 155-160 -> 151-155, 2 KiB 761-810 ->
    // 709-717 / 774-792 -> 726-746, 16 KiB 2764-2894 -> 2646-2706 /
    // 2927-2999 -> 2722-2817; no size slower (at Zen 4's width; with the
    // zmm sets from 32 blocks, 512 B 1-3% slower, 1.5-4 KiB 2-6% quicker;
    // docs/benchmarks.md).
    {CpuVendor::amd, 0x1a, 0x00, 0xff, false, Choice::widest, 32, true, true, false, true,
     "Zen 5: measured 2026-12-02 on an EPYC model 0x02: avx512-ifma with two ChaCha20 batches in flight "
     "1.31-1.44x the default as it comes at 4-64 KiB (one batch: 1.01-1.20x)"},
};

const Row* row_for(const CpuFeatures& f) noexcept {
    for (const Row& r : kRows)
        if (r.vendor == f.vendor && r.family == f.family && f.model >= r.model_lo && f.model <= r.model_hi &&
            (!r.amx || f.amx_tile))
            return &r;
    return nullptr;
}

}  // namespace

std::span<const Impl* const> impls() noexcept {
    static const Impl* const both[] = {&ifma::impl(), &base::impl()};
    const CpuFeatures f = cpu_features_raw();
    if (!f.avx512 || !f.bmi2) return {};
    if (!f.avx512ifma) return std::span<const Impl* const>(both + 1, 1);
    return both;
}

// Decided from the features alone (not from impls(), which reads this CPU),
// so tests can ask about CPUs this machine is not.
const Impl* allowed(const CpuFeatures& f) noexcept {
    if (!f.avx512 || !f.bmi2) return nullptr;
    if (const Row* row = row_for(f); row && row->choice == Choice::never) return nullptr;
    // The widest variant the features allow: IFMA Poly1305 where the CPU has
    // it (as OpenSSL's poly1305_blocks_vpmadd52), else the AVX-512 ChaCha20
    // with the four-lane AVX2 Poly1305.
    return f.avx512ifma ? &ifma::impl() : &base::impl();
}

// Measured or not, wherever the set may run: see the header comment.
const Impl* preferred(const CpuFeatures& f) noexcept { return allowed(f); }

bool allows(const CpuFeatures& f, const Impl& impl) noexcept {
    return allowed(f) && (&impl != &ifma::impl() || f.avx512ifma);
}

bool chacha_two_batches(const CpuFeatures& f) noexcept {
    const Row* row = row_for(f);
    return row && row->chacha_two_batches;
}

bool lone_block_in_gpr(const CpuFeatures& f) noexcept {
    const Row* row = row_for(f);
    return row && row->lone_block_in_gpr;
}

bool row_sets(const CpuFeatures& f) noexcept {
    const Row* row = row_for(f);
    return row && row->row_sets;
}

bool ifma_carry_order(const CpuFeatures& f) noexcept {
    const Row* row = row_for(f);
    return row && row->ifma_carry_order;
}

size_t ifma_zmm_min_blocks(const CpuFeatures& f) noexcept {
    const Row* row = row_for(f);
    return row && row->ifma_zmm_min_blocks ? row->ifma_zmm_min_blocks : kDefaultIfmaZmmMinBlocks;
}

const char* evidence(const CpuFeatures& f) noexcept {
    if (const Row* row = row_for(f)) return row->evidence;
    if (!f.avx512 || !f.bmi2) return "no AVX-512 (F, DQ, BW, VL with OS state) and BMI2";
    return "not measured: follows OpenSSL's default provider, which runs AVX-512 here";
}

}  // namespace stitch::kern::avx512
