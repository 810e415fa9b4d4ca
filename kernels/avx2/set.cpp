// The AVX2+BMI2 set as one Impl, and its rule: where it may run.
#include "kernels/avx2/set.hpp"

#include <cstdlib>
#include <cstring>

#include "kernels/avx2/kernels.hpp"
#include "kernels/avx2/tuning.hpp"

namespace stitch::kern::avx2 {

namespace {

constexpr Impl kImpl{
    "avx2", chacha20_blocks_avx2, poly1305_blocks_avx2, aead_text_avx2, aead_open_record_avx2, nullptr, 8,
    chacha20_xor_last_avx2, 9, chacha20_two_keys_avx2,
};

bool runnable() {
    const CpuFeatures f = cpu_features_raw();
    return f.avx2 && f.bmi2;
}

}  // namespace

std::span<const Impl* const> impls() noexcept {
    static const Impl* const all[] = {&kImpl};
    if (!runnable()) return {};
    return all;
}

const Impl* allowed(const CpuFeatures& f) noexcept {
    if (!f.avx2 || !f.bmi2 || !runnable()) return nullptr;
    return &kImpl;
}

// Wherever it may run: as OpenSSL's default provider does, which takes its
// AVX2 ChaCha20 and Poly1305 code on every CPU that has AVX2.
const Impl* preferred(const CpuFeatures& f) noexcept { return allowed(f); }

bool allows(const CpuFeatures& f, const Impl&) noexcept { return allowed(f) != nullptr; }

namespace {

// STITCH_AVX2_KEY_BLOCK=lane|gpr puts block 0 and lone blocks in the
// vector lanes, or in general-purpose registers (block 0 beside every
// seal's first batch and every short open's rows), whatever the CPU;
// =beside puts block 0 beside every seal's first batch and every short
// open's rows in general-purpose registers and lone blocks in the lanes
// (Zen 4's mix). Unset: the CPU's rules.
enum class BlockPlace { rules, lane, gpr, beside };

BlockPlace forced_block_place() {
    const char* env = std::getenv("STITCH_AVX2_KEY_BLOCK");
    if (env && std::strcmp(env, "lane") == 0) return BlockPlace::lane;
    if (env && std::strcmp(env, "gpr") == 0) return BlockPlace::gpr;
    if (env && std::strcmp(env, "beside") == 0) return BlockPlace::beside;
    return BlockPlace::rules;
}

// The CPUs whose AVX2 choices were measured, one row each; every other CPU
// takes the design's default (the last four fields' defaults below). First
// match wins; families and models as CPUID reports them (kernels/cpu.cpp).
struct Row {
    CpuVendor vendor;
    uint32_t family;
    uint32_t model_lo, model_hi;  // inclusive
    bool amx;                     // the row names only CPUs that report AMX
    KeyBeside key_beside = KeyBeside::never;
    bool lone_block_in_gpr = false;
    bool short_record_key_in_gpr = true;
    size_t one_accumulator_end = 0;
};

constexpr Row kRows[] = {
    // Zen 5 (any model): every_seal, and lone blocks in general registers
    // (two-cycle vector operations; avx2/tuning.hpp).
    {CpuVendor::amd, kZen5Family, 0x00, 0xff, false, KeyBeside::every_seal, true, true, 0},
    // Zen 4: family 0x19 models 0x10-0x1f (Genoa), 0x60-0x7f (Raphael,
    // Phoenix) and 0xa0-0xaf (Bergamo, Siena); the rest of the family is
    // Zen 3.
    {CpuVendor::amd, 0x19, 0x10, 0x1f, false, KeyBeside::every_seal, false, true, kOneAccumulatorEndZen4},
    {CpuVendor::amd, 0x19, 0x60, 0x7f, false, KeyBeside::every_seal, false, true, kOneAccumulatorEndZen4},
    {CpuVendor::amd, 0x19, 0xa0, 0xaf, false, KeyBeside::every_seal, false, true, kOneAccumulatorEndZen4},
    // Intel Emerald Rapids, measured. Sapphire Rapids (0x8F) and
    // Alder/Raptor Lake's P-cores have the same core but were not.
    {CpuVendor::intel, 6, kEmeraldRapidsModel, kEmeraldRapidsModel, false, KeyBeside::saving_a_batch, false, false,
     kOneAccumulatorEndEmeraldRapids},
    // The KVM guest that reports Rocket Lake's model with AMX, which no
    // Rocket Lake has: a Xeon with 64 KiB of L1i and 2 MiB of L2 a core and
    // 480 MiB of L3, Granite Rapids by inference; real Rocket Lake (no AMX)
    // is not measured. Measured through EVP (December 2026, AVX-512 hidden
    // from both sides, both ways in turn over four to six processes): seals
    // of 512 B-4 KiB 1.11-1.22x the default in lane 0, 1.27-1.40x beside,
    // raw ChaCha20 of 520-576 B and 1088 B (the nine-block statement,
    // kRawNineBlocks) 1.09-1.37x -> 1.45-1.87x, and where no batch is saved
    // every_seal level with lane 0, so Emerald Rapids' rule, whose
    // busy-sibling loss it may share; TLS 1.3 opens of 160-192 B 250-293 ns
    // with block 0 in the rows' lanes against 288-309 in general registers,
    // TLS 1.2 opens of 160-192 B 1.62-1.70x -> 1.74-1.81x, first-call seals
    // of 65-128 B 1.63-1.89x -> 1.76-2.01x; POLY1305 of 320-448 B
    // 1.08-1.13x -> 1.16-1.23x with one accumulator to 31 blocks, 511 B
    // 1.05-1.08x -> 1.08-1.11x, 256 and 640 B unchanged.
    {CpuVendor::intel, 6, kXeonGuestA7Model, kXeonGuestA7Model, true, KeyBeside::saving_a_batch, false, false,
     kOneAccumulatorEndEmeraldRapids},
    // Intel Ice Lake-SP, measured December 2026 on a KVM guest of 2 vCPUs
    // (five processes each way, avx2/tuning.hpp): seals of 512 B-4 KiB
    // 1.04-1.08x -> 1.11-1.24x beside, 520-1300 B 3-9% slower beside every
    // seal; TLS 1.3 opens of 80-192 B 1.50-1.71x -> 1.74-2.04x in the lanes;
    // one accumulator to 63 blocks. Ice Lake-D and the client cores are not
    // measured.
    {CpuVendor::intel, 6, kIceLakeServerModel, kIceLakeServerModel, false, KeyBeside::saving_a_batch, false, false,
     kOneAccumulatorEndIceLakeServer},
};

constexpr Row kDefault{};

const Row& row_for(const CpuFeatures& f) noexcept {
    for (const Row& r : kRows)
        if (r.vendor == f.vendor && r.family == f.family && f.model >= r.model_lo && f.model <= r.model_hi &&
            (!r.amx || f.amx_tile))
            return r;
    return kDefault;
}

}  // namespace

KeyBeside key_beside_batch(const CpuFeatures& f) noexcept { return row_for(f).key_beside; }

bool lone_block_in_gpr(const CpuFeatures& f) noexcept { return row_for(f).lone_block_in_gpr; }

bool short_record_key_in_gpr(const CpuFeatures& f) noexcept { return row_for(f).short_record_key_in_gpr; }

size_t poly1305_one_accumulator_end(const CpuFeatures& f) noexcept { return row_for(f).one_accumulator_end; }

KeyBeside key_beside_batch_here() noexcept {
    const BlockPlace forced = forced_block_place();
    if (forced == BlockPlace::rules) return key_beside_batch(cpu_features_raw());
    return forced == BlockPlace::lane ? KeyBeside::never : KeyBeside::every_seal;
}

bool lone_block_in_gpr_here() noexcept {
    const BlockPlace forced = forced_block_place();
    if (forced == BlockPlace::rules) return lone_block_in_gpr(cpu_features_raw());
    return forced == BlockPlace::gpr;
}

bool short_record_key_in_gpr_here() noexcept {
    const BlockPlace forced = forced_block_place();
    if (forced == BlockPlace::rules) return short_record_key_in_gpr(cpu_features_raw());
    return forced != BlockPlace::lane;
}

}  // namespace stitch::kern::avx2
