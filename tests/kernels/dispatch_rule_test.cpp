// Dispatch's table, tested as a table: for each CPU family and model row,
// with the features that CPU reports, the set dispatch picks must be the one
// docs/kernels.md and the README's table document. The rule is pure, so
// every row is asked on any machine.
#include <gtest/gtest.h>

#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>

#include "kernels/avx2/set.hpp"
#include "kernels/avx512/set.hpp"
#include "kernels/dispatch.hpp"

namespace stitch::test {
namespace {

using kern::CpuFeatures;
using kern::CpuVendor;

enum Isa : unsigned { kAvx2 = 1, kAvx512 = 2, kIfma = 4, kAmx = 8 };

struct Row {
    const char* cpu;
    CpuVendor vendor;
    uint32_t family, model;
    unsigned isa;         // what that CPU reports (with BMI2 and OS state wherever it has AVX2)
    const char* want;     // the documented set
    bool measured;        // the row's evidence names a stitch measurement
};

constexpr Row kRows[] = {
    // Intel without AVX-512, or with it turned off where OpenSSL turns it off.
    {"Haswell", CpuVendor::intel, 6, 0x3c, kAvx2, "avx2", false},
    {"Skylake client", CpuVendor::intel, 6, 0x5e, kAvx2, "avx2", false},
    {"Skylake-SP / Cascade Lake", CpuVendor::intel, 6, 0x55, kAvx2 | kAvx512, "avx2", false},
    {"Alder Lake-S", CpuVendor::intel, 6, 0x97, kAvx2, "avx2", false},
    {"Raptor Lake-S", CpuVendor::intel, 6, 0xb7, kAvx2, "avx2", false},
    // Intel with AVX-512 and IFMA: as OpenSSL's default provider.
    {"Cannon Lake", CpuVendor::intel, 6, 0x66, kAvx2 | kAvx512 | kIfma, "avx512-ifma", false},
    {"Ice Lake client", CpuVendor::intel, 6, 0x7e, kAvx2 | kAvx512 | kIfma, "avx512-ifma", false},
    {"Ice Lake server", CpuVendor::intel, 6, 0x6a, kAvx2 | kAvx512 | kIfma, "avx512-ifma", true},
    {"Ice Lake-D", CpuVendor::intel, 6, 0x6c, kAvx2 | kAvx512 | kIfma, "avx512-ifma", false},
    {"Tiger Lake", CpuVendor::intel, 6, 0x8c, kAvx2 | kAvx512 | kIfma, "avx512-ifma", false},
    {"Rocket Lake", CpuVendor::intel, 6, 0xa7, kAvx2 | kAvx512 | kIfma, "avx512-ifma", false},
    {"Sapphire Rapids", CpuVendor::intel, 6, 0x8f, kAvx2 | kAvx512 | kIfma, "avx512-ifma", false},
    {"Emerald Rapids", CpuVendor::intel, 6, 0xcf, kAvx2 | kAvx512 | kIfma, "avx512-ifma", true},
    {"Granite Rapids", CpuVendor::intel, 6, 0xad, kAvx2 | kAvx512 | kIfma, "avx512-ifma", false},
    // AVX-512 without IFMA (Skylake-X-class parts outside model 0x55): the
    // AVX-512 ChaCha20 with the AVX2 Poly1305, as OpenSSL runs AVX-512 there.
    {"AVX-512 without IFMA", CpuVendor::intel, 6, 0x85, kAvx2 | kAvx512, "avx512", false},
    // AMD.
    {"Zen 2 (Rome)", CpuVendor::amd, 0x17, 0x31, kAvx2, "avx2", false},
    {"Zen 3 (Milan)", CpuVendor::amd, 0x19, 0x01, kAvx2, "avx2", false},
    {"Zen 4 (Genoa)", CpuVendor::amd, 0x19, 0x11, kAvx2 | kAvx512 | kIfma, "avx512-ifma", true},
    {"Zen 4 (Raphael)", CpuVendor::amd, 0x19, 0x61, kAvx2 | kAvx512 | kIfma, "avx512-ifma", false},
    {"Zen 5 (Turin)", CpuVendor::amd, 0x1a, 0x02, kAvx2 | kAvx512 | kIfma, "avx512-ifma", true},
    // No AVX2: the reference.
    {"pre-AVX2 x86-64", CpuVendor::intel, 6, 0x2a, 0, "portable", false},
    // A KVM guest reporting Rocket Lake's model with AMX (no Rocket Lake has
    // it): a Xeon, Granite Rapids by inference, measured December 2026.
    {"Xeon guest 0xA7 with AMX", CpuVendor::intel, 6, 0xa7, kAvx2 | kAvx512 | kIfma | kAmx, "avx512-ifma", true},
};
constexpr size_t kXeonGuestA7 = std::size(kRows) - 1;  // the last row
constexpr size_t kIceLakeServer = 7;

CpuFeatures features(const Row& r) {
    CpuFeatures f;
    f.vendor = r.vendor;
    f.family = r.family;
    f.model = r.model;
    f.avx2 = f.bmi2 = f.adx = (r.isa & kAvx2) != 0;
    f.avx512 = (r.isa & kAvx512) != 0;
    f.avx512ifma = (r.isa & kIfma) != 0;
    f.amx_tile = (r.isa & kAmx) != 0;
    return f;
}

class DispatchTable : public testing::TestWithParam<Row> {};

TEST_P(DispatchTable, PicksTheDocumentedSet) {
    const Row& row = GetParam();
    std::string want = row.want;
    // The AVX2 Impl exists only where this machine can run AVX2 (every
    // x86-64 CI machine so far); without it the same CPU row falls to portable.
    if (want == "avx2" && kern::avx2::impls().empty()) want = "portable";
    EXPECT_EQ(std::string(kern::dispatch_choice(features(row)).name), want) << row.cpu;
}

// The IFMA Poly1305's zmm width: measured rows carry their own cut-off,
// every other CPU Zen 4's.
TEST(DispatchRule, IfmaZmmWidthPerCpu) {
    EXPECT_EQ(kern::avx512::ifma_zmm_min_blocks(features(kRows[12])), 48u);   // Emerald Rapids
    EXPECT_EQ(kern::avx512::ifma_zmm_min_blocks(features(kRows[17])), 192u);  // Zen 4
    EXPECT_EQ(kern::avx512::ifma_zmm_min_blocks(features(kRows[19])), 32u);   // Zen 5
    EXPECT_EQ(kern::avx512::ifma_zmm_min_blocks(features(kRows[kIceLakeServer])), 48u);
    EXPECT_EQ(kern::avx512::ifma_zmm_min_blocks(features(kRows[8])), 192u);   // Ice Lake-D: not measured
    EXPECT_EQ(kern::avx512::ifma_zmm_min_blocks(features(kRows[6])), 192u);   // Ice Lake client: not measured
}

// Raw ChaCha20's batches in flight: two where a measured row says so (Zen
// 5), one everywhere else.
TEST(DispatchRule, ChaChaBatchesPerCpu) {
    EXPECT_TRUE(kern::avx512::chacha_two_batches(features(kRows[19])));    // Zen 5
    EXPECT_FALSE(kern::avx512::chacha_two_batches(features(kRows[17])));   // Zen 4
    EXPECT_FALSE(kern::avx512::chacha_two_batches(features(kRows[12])));   // Emerald Rapids
    EXPECT_FALSE(kern::avx512::chacha_two_batches(features(kRows[kIceLakeServer])));  // measured slower
    EXPECT_FALSE(kern::avx512::chacha_two_batches(features(kRows[8])));    // an unmeasured row
}

// The AVX-512 set's single raw ChaCha20 block in general registers on Zen 5
// only; a ymm row pair elsewhere (Zen 4 measured, the rest unmeasured).
TEST(DispatchRule, Avx512LoneBlockInGprOnZen5Only) {
    EXPECT_TRUE(kern::avx512::lone_block_in_gpr(features(kRows[19])));    // Zen 5
    EXPECT_FALSE(kern::avx512::lone_block_in_gpr(features(kRows[17])));   // Zen 4
    EXPECT_FALSE(kern::avx512::lone_block_in_gpr(features(kRows[12])));   // Emerald Rapids
    EXPECT_FALSE(kern::avx512::lone_block_in_gpr(features(kRows[kIceLakeServer])));  // measured slower
    EXPECT_FALSE(kern::avx512::lone_block_in_gpr(features(kRows[8])));    // an unmeasured row
}

// The IFMA Poly1305's products in the carry round's order on Zen 5 only,
// where that was measured quicker; limb order on Zen 4 (an order from limb
// 1 measured mixed there), Emerald Rapids and the unmeasured rows.
TEST(DispatchRule, Avx512IfmaCarryOrderOnZen5Only) {
    for (const Row& row : kRows) {
        const bool zen5 = std::string_view(row.cpu) == "Zen 5 (Turin)";
        EXPECT_EQ(kern::avx512::ifma_carry_order(features(row)), zen5) << row.cpu;
    }
    CpuFeatures other = features(kRows[19]);
    other.vendor = CpuVendor::intel;
    EXPECT_FALSE(kern::avx512::ifma_carry_order(other));
}

// Five to twelve blocks of keystream as two or three zmm row sets on
// Emerald Rapids, the 0xA7 guest with AMX and Ice Lake-SP only, where that
// was measured faster; a word-per-register batch on every other row,
// Sapphire Rapids (the same core as Emerald Rapids, unmeasured), Ice Lake-D
// and the client Ice Lake (unmeasured), Rocket Lake (0xA7 without AMX) and
// an AMD part with Emerald Rapids' or Ice Lake-SP's family and model
// included.
TEST(DispatchRule, Avx512RowSetsOnEmeraldRapidsAndTheXeonGuestOnly) {
    for (const Row& row : kRows) {
        const std::string_view cpu = row.cpu;
        const bool measured_faster =
            cpu == "Emerald Rapids" || cpu == "Xeon guest 0xA7 with AMX" || cpu == "Ice Lake server";
        EXPECT_EQ(kern::avx512::row_sets(features(row)), measured_faster) << row.cpu;
    }
    CpuFeatures other = features(kRows[12]);
    other.vendor = CpuVendor::amd;
    EXPECT_FALSE(kern::avx512::row_sets(other));
    other = features(kRows[kXeonGuestA7]);
    other.amx_tile = false;  // Rocket Lake itself
    EXPECT_FALSE(kern::avx512::row_sets(other));
    EXPECT_EQ(std::string_view(kern::avx512::evidence(other)).find("not measured"), 0u);
    EXPECT_EQ(kern::avx512::ifma_zmm_min_blocks(features(kRows[kXeonGuestA7])), 192u);  // not measured there
    other = features(kRows[kIceLakeServer]);
    other.vendor = CpuVendor::amd;
    EXPECT_FALSE(kern::avx512::row_sets(other));
    EXPECT_EQ(kern::avx512::ifma_zmm_min_blocks(other), 192u);
}

// The AVX2 seal's block 0 beside its first batch in general registers on
// Zen 4 and Zen 5 for every seal of a batch or more, on Emerald Rapids and
// the 0xA7 guest with AMX where that saves a batch, where each was measured faster; in lane 0
// elsewhere, the same core's unmeasured parts included.
TEST(DispatchRule, Avx2KeyBesideBatchOnZen4Zen5EmeraldRapidsAndTheXeonGuestOnly) {
    using kern::avx2::KeyBeside;
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[19])), KeyBeside::every_seal);  // Zen 5
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[17])), KeyBeside::every_seal);  // Zen 4 (Genoa)
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[18])), KeyBeside::every_seal);  // Zen 4 (Raphael)
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[15])), KeyBeside::never);  // Zen 2
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[16])), KeyBeside::never);  // Zen 3
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[12])), KeyBeside::saving_a_batch);  // Emerald Rapids
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[11])), KeyBeside::never);  // Sapphire Rapids
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[3])), KeyBeside::never);  // Alder Lake
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[4])), KeyBeside::never);  // Raptor Lake
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[13])), KeyBeside::never);  // Granite Rapids
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[kXeonGuestA7])), KeyBeside::saving_a_batch);
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[10])), KeyBeside::never);  // Rocket Lake: no AMX
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[kIceLakeServer])), KeyBeside::saving_a_batch);
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[8])), KeyBeside::never);  // Ice Lake-D
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[6])), KeyBeside::never);  // Ice Lake client
    EXPECT_EQ(kern::avx2::key_beside_batch(features(kRows[9])), KeyBeside::never);  // Tiger Lake
    CpuFeatures other = features(kRows[19]);
    other.vendor = CpuVendor::intel;  // family 0x1A from another vendor is not Zen 5
    EXPECT_EQ(kern::avx2::key_beside_batch(other), KeyBeside::never);
    other = features(kRows[17]);
    other.vendor = CpuVendor::intel;  // nor family 0x19 model 0x11 Zen 4
    EXPECT_EQ(kern::avx2::key_beside_batch(other), KeyBeside::never);
    other = features(kRows[12]);
    other.vendor = CpuVendor::amd;  // model 0xCF of family 6 from AMD is not Emerald Rapids
    EXPECT_EQ(kern::avx2::key_beside_batch(other), KeyBeside::never);
    other = features(kRows[kIceLakeServer]);
    other.vendor = CpuVendor::amd;  // nor model 0x6A Ice Lake-SP
    EXPECT_EQ(kern::avx2::key_beside_batch(other), KeyBeside::never);
    other = features(kRows[12]);
    other.family = 0x19;  // nor Intel's model 0xCF in another family
    EXPECT_EQ(kern::avx2::key_beside_batch(other), KeyBeside::never);
    for (uint32_t model : {0xceu, 0xd0u}) {  // Intel's neighbouring models
        other = features(kRows[12]);
        other.model = model;
        EXPECT_EQ(kern::avx2::key_beside_batch(other), KeyBeside::never) << std::hex << model;
    }
    // Family 0x19's Zen 3 models around Zen 4's ranges.
    for (uint32_t model : {0x00u, 0x0fu, 0x21u, 0x44u, 0x50u, 0x5fu, 0x80u, 0x9fu, 0xb0u}) {
        CpuFeatures zen3 = features(kRows[16]);
        zen3.model = model;
        EXPECT_EQ(kern::avx2::key_beside_batch(zen3), KeyBeside::never) << std::hex << model;
    }
    for (uint32_t model : {0x10u, 0x1fu, 0x60u, 0x7fu, 0xa0u, 0xafu}) {
        CpuFeatures zen4 = features(kRows[16]);
        zen4.model = model;
        EXPECT_EQ(kern::avx2::key_beside_batch(zen4), KeyBeside::every_seal) << std::hex << model;
    }
}

// Which seals take it under each rule: eight text blocks or more (the
// eighth partial from 449 bytes), and under Emerald Rapids' rule only a
// multiple of eight blocks (the last one partial or not), where block 0
// beside the first batch saves a batch statement.
TEST(DispatchRule, Avx2KeyBesideTakesTheSealsItSavesABatchFor) {
    using kern::avx2::KeyBeside;
    using kern::avx2::key_beside_takes;
    for (size_t len : {0u, 1u, 64u, 447u, 448u}) {
        EXPECT_FALSE(key_beside_takes(KeyBeside::every_seal, len)) << len;
        EXPECT_FALSE(key_beside_takes(KeyBeside::saving_a_batch, len)) << len;
    }
    for (size_t len : {449u, 480u, 511u, 512u, 961u, 1024u, 1536u, 2048u, 16384u, 65536u, 65535u, 16321u}) {
        EXPECT_TRUE(key_beside_takes(KeyBeside::every_seal, len)) << len;
        EXPECT_TRUE(key_beside_takes(KeyBeside::saving_a_batch, len)) << len;
        EXPECT_FALSE(key_beside_takes(KeyBeside::never, len)) << len;
    }
    for (size_t len : {513u, 576u, 960u, 1025u, 1300u, 1472u, 2112u, 16320u, 16385u}) {
        EXPECT_TRUE(key_beside_takes(KeyBeside::every_seal, len)) << len;
        EXPECT_FALSE(key_beside_takes(KeyBeside::saving_a_batch, len)) << len;
    }
}

// A CPU rule's answer for table rows: true for `yes`, false for `no`, and
// false for the first `yes` row under another vendor's name (the same family
// and model from Intel is not that AMD core).
void expect_rule(bool (*rule)(const CpuFeatures&) noexcept, std::initializer_list<size_t> yes,
                 std::initializer_list<size_t> no) {
    for (size_t i : yes) EXPECT_TRUE(rule(features(kRows[i]))) << kRows[i].cpu;
    for (size_t i : no) EXPECT_FALSE(rule(features(kRows[i]))) << kRows[i].cpu;
    CpuFeatures other = features(kRows[*yes.begin()]);
    other.vendor = CpuVendor::intel;
    EXPECT_FALSE(rule(other)) << "Intel with " << kRows[*yes.begin()].cpu << "'s family and model";
}

// The vector Poly1305's one-accumulator form from kOneAccumulatorMin blocks
// up to 24 on Zen 4, 32 on Emerald Rapids and the 0xA7 guest with AMX and
// 64 on Ice Lake-SP, where each was measured faster; no run of it elsewhere
// (Zen 5 and the rest unmeasured, Sapphire Rapids, Granite Rapids, Rocket
// Lake, Ice Lake-D and the client Ice Lake included), every row of the
// table checked.
TEST(DispatchRule, Avx2Poly1305OneAccumulatorEnds) {
    for (const Row& row : kRows) {
        const std::string_view cpu = row.cpu;
        const size_t want = cpu.starts_with("Zen 4")                                       ? 24
                            : cpu == "Emerald Rapids" || cpu == "Xeon guest 0xA7 with AMX" ? 32
                            : cpu == "Ice Lake server"                                     ? 64
                                                                                           : 0;
        EXPECT_EQ(kern::avx2::poly1305_one_accumulator_end(features(row)), want) << row.cpu;
    }
    CpuFeatures amd = features(kRows[12]);
    amd.vendor = CpuVendor::amd;
    EXPECT_EQ(kern::avx2::poly1305_one_accumulator_end(amd), 0u) << "AMD with Emerald Rapids' family and model";
    CpuFeatures intel = features(kRows[17]);
    intel.vendor = CpuVendor::intel;
    EXPECT_EQ(kern::avx2::poly1305_one_accumulator_end(intel), 0u) << "Intel with Zen 4's family and model";
    CpuFeatures rocket_lake = features(kRows[kXeonGuestA7]);
    rocket_lake.amx_tile = false;
    EXPECT_EQ(kern::avx2::poly1305_one_accumulator_end(rocket_lake), 0u) << "0xA7 without AMX";
    // Both ends past the start, or the CPUs named would get no run at all.
    EXPECT_GT(kern::avx2::kOneAccumulatorEndZen4, kern::avx2::kOneAccumulatorMin);
    EXPECT_GT(kern::avx2::kOneAccumulatorEndEmeraldRapids, kern::avx2::kOneAccumulatorMin);
    EXPECT_GT(kern::avx2::kOneAccumulatorEndIceLakeServer, kern::avx2::kOneAccumulatorMin);
    CpuFeatures amd_icl = features(kRows[kIceLakeServer]);
    amd_icl.vendor = CpuVendor::amd;
    EXPECT_EQ(kern::avx2::poly1305_one_accumulator_end(amd_icl), 0u) << "AMD with Ice Lake-SP's family and model";
}

// A block with nothing beside it in general registers on Zen 5 only (two-
// cycle vector operations there); a row pair elsewhere, Zen 4 measured.
TEST(DispatchRule, Avx2LoneBlockInGprOnZen5Only) {
    expect_rule(kern::avx2::lone_block_in_gpr, {19}, {17, 15, 16, 12, 3});
}

// A 65-192 byte open's block 0 in the rows' lane 0, the MAC after the
// rounds, on Emerald Rapids, the 0xA7 guest with AMX and Ice Lake-SP only,
// where that was measured faster; in
// general registers beside the rows on every other row of the table,
// Sapphire Rapids (the same core, unmeasured) and an AMD part with Emerald
// Rapids' family and model included.
TEST(DispatchRule, Avx2ShortOpenKeyInLanesOnEmeraldRapidsAndTheXeonGuestOnly) {
    for (const Row& row : kRows) {
        const std::string_view cpu = row.cpu;
        const bool measured_faster =
            cpu == "Emerald Rapids" || cpu == "Xeon guest 0xA7 with AMX" || cpu == "Ice Lake server";
        EXPECT_EQ(kern::avx2::short_record_key_in_gpr(features(row)), !measured_faster) << row.cpu;
    }
    CpuFeatures other = features(kRows[12]);
    other.vendor = CpuVendor::amd;
    EXPECT_TRUE(kern::avx2::short_record_key_in_gpr(other));
    other = features(kRows[kXeonGuestA7]);
    other.amx_tile = false;  // Rocket Lake itself
    EXPECT_TRUE(kern::avx2::short_record_key_in_gpr(other));
}

TEST_P(DispatchTable, RowNamesItsEvidence) {
    const Row& row = GetParam();
    const std::string_view evidence = kern::avx512::evidence(features(row));
    EXPECT_FALSE(evidence.empty());
    EXPECT_EQ(evidence.find("measured ") == 0 || evidence.find(": measured") != std::string_view::npos, row.measured)
        << row.cpu << ": " << evidence;
}

INSTANTIATE_TEST_SUITE_P(Cpus, DispatchTable, testing::ValuesIn(kRows), [](const auto& info) {
    std::string name = info.param.cpu;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
});

// BMI2 is part of every vector set's contract (MULX Poly1305): without it no
// vector set is chosen, whatever the vector width.
TEST(DispatchRule, NoBmi2NoVectorSet) {
    CpuFeatures f = features(kRows[12]);  // Emerald Rapids
    f.bmi2 = false;
    EXPECT_STREQ(kern::dispatch_choice(f).name, "portable");
}

// The OS must save the zmm and opmask state (CpuFeatures::avx512 carries
// XGETBV): a CPU with AVX-512 whose OS does not save it runs AVX2.
TEST(DispatchRule, AvxStateNotSavedMeansAvx2) {
    CpuFeatures f = features(kRows[12]);
    f.avx512 = f.avx512ifma = false;
    const std::string want = kern::avx2::impls().empty() ? "portable" : "avx2";
    EXPECT_EQ(std::string(kern::dispatch_choice(f).name), want);
}

// allowed_impl takes set names and Impl labels, and nothing else.
TEST(DispatchRule, AllowedImplNames) {
    EXPECT_STREQ(kern::allowed_impl("portable")->name, "portable");
    EXPECT_EQ(kern::allowed_impl("bogus"), nullptr);
    EXPECT_EQ(kern::allowed_impl(""), nullptr);
    EXPECT_EQ(kern::allowed_impl("AVX2"), nullptr);
    EXPECT_EQ(kern::allowed_impl(nullptr), nullptr);
    EXPECT_TRUE(kern::is_kernel_name("avx512-ifma"));
    EXPECT_FALSE(kern::is_kernel_name("avx1024"));
    for (const kern::Impl* impl : kern::runnable_impls()) {
        EXPECT_TRUE(kern::is_kernel_name(impl->name)) << impl->name;
        if (impl->label) {
            EXPECT_TRUE(kern::is_kernel_name(impl->label)) << impl->label;
        }
    }
}

}  // namespace
}  // namespace stitch::test
