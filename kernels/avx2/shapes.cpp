// Which AVX2 shape a CPU gets: a table keyed by CPUID vendor, family and
// model. An entry names the CPUs it covers and says whether its shape was
// measured on them; CPUs no entry covers get kSafe.
#include "kernels/avx2/shapes.hpp"

#include <string_view>

namespace stitch::kern::avx2 {

namespace {

struct Entry {
    CpuVendor vendor;
    uint32_t family;
    uint32_t model_lo, model_hi;  // inclusive
    const Shape* shape;
    const char* cpus;  // what the range is, and where the shape comes from
};

// First match wins. Families and models as CPUID reports them (display
// family and model, kernels/cpu.cpp).
constexpr Entry kTable[] = {
    // AMD.
    {CpuVendor::amd, 0x1a, 0x00, 0xff, &kZen5, "Zen 5: measured there (EPYC)"},
    {CpuVendor::amd, 0x19, 0x10, 0x1f, &kZen4, "Zen 4 (Genoa, Storm Peak): measured on an EPYC, model 0x11"},
    {CpuVendor::amd, 0x19, 0x60, 0x7f, &kZen4, "Zen 4 (Raphael, Phoenix): as the EPYC, same core"},
    {CpuVendor::amd, 0x19, 0xa0, 0xaf, &kZen4, "Zen 4c (Bergamo, Siena): as the EPYC, same core"},
    // Zen 3 shares family 0x19 with Zen 4 but has not been measured, and Zen
    // and Zen 2 (0x17) neither: they keep the shape every AVX2 CPU ran
    // before shapes existed. Never retuned without a measurement there.
    {CpuVendor::amd, 0x19, 0x00, 0x0f, &kZen5, "Zen 3 (Milan): not measured; the shape it always had"},
    {CpuVendor::amd, 0x19, 0x20, 0x5f, &kZen5, "Zen 3 (Vermeer, Cezanne, Rembrandt): not measured; as before"},
    {CpuVendor::amd, 0x17, 0x00, 0xff, &kZen5, "Zen, Zen+, Zen 2: not measured; the shape they always had"},
    // Intel Golden Cove class: Alder Lake and Raptor Lake P-cores, Sapphire
    // and Emerald Rapids. NOT MEASURED on Intel: kSafe until a measurement
    // there picks a shape (the candidates kTwoPass and kSpillC are in every
    // build's kernel table for that).
    {CpuVendor::intel, 6, 0x97, 0x97, &kSafe, "Alder Lake-S: unmeasured, the safe shape"},
    {CpuVendor::intel, 6, 0x9a, 0x9a, &kSafe, "Alder Lake-P: unmeasured, the safe shape"},
    {CpuVendor::intel, 6, 0xb7, 0xb7, &kSafe, "Raptor Lake-S: unmeasured, the safe shape"},
    {CpuVendor::intel, 6, 0xba, 0xba, &kSafe, "Raptor Lake-P: unmeasured, the safe shape"},
    {CpuVendor::intel, 6, 0xbf, 0xbf, &kSafe, "Raptor Lake-S refresh: unmeasured, the safe shape"},
    {CpuVendor::intel, 6, 0x8f, 0x8f, &kSafe, "Sapphire Rapids: unmeasured, the safe shape"},
    {CpuVendor::intel, 6, 0xcf, 0xcf, &kSafe, "Emerald Rapids: unmeasured, the safe shape"},
};

}  // namespace

const Shape& shape_for(CpuVendor vendor, uint32_t family, uint32_t model) noexcept {
    for (const Entry& e : kTable)
        if (e.vendor == vendor && e.family == family && model >= e.model_lo && model <= e.model_hi) return *e.shape;
    return kSafe;  // nobody has measured this CPU
}

const Shape* shape_named(const char* name) noexcept {
    if (!name) return nullptr;
    const std::string_view n(name);
    for (const Shape* s : kAllShapes)
        if (n == s->name || n == s->label) return s;
    return nullptr;
}

}  // namespace stitch::kern::avx2
