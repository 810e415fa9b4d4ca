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

// AMD family 0x19 holds Zen 3 and Zen 4: Zen 4 is models 0x10-0x1f (Genoa),
// 0x60-0x7f (Raphael, Phoenix) and 0xa0-0xaf (Bergamo, Siena).
bool zen4(const CpuFeatures& f) {
    if (f.vendor != CpuVendor::amd || f.family != 0x19) return false;
    const uint32_t m = f.model;
    return (m >= 0x10 && m <= 0x1f) || (m >= 0x60 && m <= 0x7f) || (m >= 0xa0 && m <= 0xaf);
}

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

// Intel Emerald Rapids (family 6 model 0xCF), the one Intel core measured.
// Sapphire Rapids (0x8F) and Alder/Raptor Lake's P-cores have the same
// core but were not measured.
bool emerald_rapids(const CpuFeatures& f) {
    return f.vendor == CpuVendor::intel && f.family == 6 && f.model == kEmeraldRapidsModel;
}

// The KVM guest that reports Rocket Lake's model (family 6 model 0xA7)
// with AMX, which no Rocket Lake has: a Xeon with 64 KiB of L1i and 2 MiB
// of L2 a core and 480 MiB of L3, Granite Rapids by inference. Measured
// in December 2026; real Rocket Lake (no AMX) is not.
bool xeon_guest_a7(const CpuFeatures& f) {
    return f.vendor == CpuVendor::intel && f.family == 6 && f.model == kXeonGuestA7Model && f.amx_tile;
}

// Intel Ice Lake-SP (family 6 model 0x6A), measured in December 2026 on a
// KVM guest of 2 vCPUs; Ice Lake-D and the client cores are not.
bool ice_lake_server(const CpuFeatures& f) {
    return f.vendor == CpuVendor::intel && f.family == 6 && f.model == kIceLakeServerModel;
}

}  // namespace

KeyBeside key_beside_batch(const CpuFeatures& f) noexcept {
    if ((f.vendor == CpuVendor::amd && f.family == kKeyBesideBatchFamily) || zen4(f)) return KeyBeside::every_seal;
    // The 0xA7 guest, measured through EVP (December 2026, AVX-512 hidden
    // from both sides, both rules in turn over four or five processes):
    // seals of 512 B, 1 KiB, 2 KiB and 4 KiB 1.11-1.22x the default in lane
    // 0, 1.27-1.40x beside; raw ChaCha20 of 520-576 B and 1088 B (the
    // nine-block statement, kRawNineBlocks) 1.09-1.37x -> 1.45-1.87x. At
    // lengths where no batch is saved (520, 576, 1088, 1100 B) every_seal
    // read level with lane 0 there, quiet and contended; it takes Emerald
    // Rapids' rule, whose busy-sibling loss it may share.
    // Ice Lake-SP, measured the same way over five processes: seals of
    // 512 B-4 KiB 1.04-1.08x -> 1.11-1.24x beside, 520-1300 B 3-9% slower
    // beside (avx2/tuning.hpp).
    if (emerald_rapids(f) || xeon_guest_a7(f) || ice_lake_server(f)) return KeyBeside::saving_a_batch;
    return KeyBeside::never;
}

bool lone_block_in_gpr(const CpuFeatures& f) noexcept {
    return f.vendor == CpuVendor::amd && f.family == kLoneBlockInGprFamily;
}

// The 0xA7 guest, measured through EVP (December 2026, AVX-512 hidden from
// both sides, both ways in turn over four processes): TLS 1.3 opens of
// 160-192 B 250-293 ns with block 0 in the rows' lanes against 288-309 in
// general registers, 65-128 B within 0-6% either way; TLS 1.2 opens of
// 160-192 B 1.62-1.70x the default -> 1.74-1.81x; TLS 1.3 first-call
// seals of 65-128 B 1.63-1.89x -> 1.76-2.01x. Emerald Rapids' rule.
// Ice Lake-SP, five processes each way: TLS 1.3 opens of 80-192 B
// 1.50-1.71x -> 1.74-2.04x in the lanes (avx2/tuning.hpp).
bool short_record_key_in_gpr(const CpuFeatures& f) noexcept {
    return !emerald_rapids(f) && !xeon_guest_a7(f) && !ice_lake_server(f);
}

size_t poly1305_one_accumulator_end(const CpuFeatures& f) noexcept {
    if (zen4(f)) return kOneAccumulatorEndZen4;
    // The 0xA7 guest takes Emerald Rapids' end: measured there (December
    // 2026, AVX-512 hidden from both sides, both ways in turn over six
    // processes) POLY1305 of 320-448 B 1.08-1.13x the default -> 1.16-1.23x,
    // 511 B 1.05-1.08x -> 1.08-1.11x, 256 and 640 B unchanged.
    if (emerald_rapids(f) || xeon_guest_a7(f)) return kOneAccumulatorEndEmeraldRapids;
    if (ice_lake_server(f)) return kOneAccumulatorEndIceLakeServer;
    return 0;
}

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
