// Counter boundaries on every kernel set (kernel_sets(): portable, every AVX2
// shape, and any set added later, native or emulated). The starting counter
// is 2^31 − k or 2^32 − k for every k in 1..64, and the message runs every
// block count up to 72, so the boundary falls on every lane of every batch
// shape a set has: AVX2's row pairs of 2 and 4 blocks, 8-block batches and
// up to three in flight (24), and room for 16-lane batches up to four in
// flight (64). 2^31 is where a lane counter computed with a signed compare
// goes wrong; 2^32 is where word 0 carries into word 1 (raw ChaCha20, the
// OpenSSH grid) or where the RFC 8439 message runs out of counter.
//
// Every output is held to OpenSSL's default provider (boundary_reference.hpp)
// and to the portable set; the counter words left behind are checked by a
// second call that must continue the same keystream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "boundary_reference.hpp"
#include "common/kernel_sets.hpp"
#include "common/seeded_rng.hpp"
#include "kernels/aead.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/portable/set.hpp"

namespace stitch::test {
namespace {

using kern::Direction;
using kern::Grid;

constexpr uint64_t kBases[] = {uint64_t(1) << 31, uint64_t(1) << 32};
constexpr uint32_t kMaxK = 64;       // 16 lanes x 4 batches in flight
constexpr size_t kMaxBlocks = 72;    // every shape, then some bulk past it
constexpr size_t kFollowBlocks = 3;  // the second call, on the counter the first left

// Block counts that put block k (the first past the boundary) on every lane:
// k - 1 (the boundary is the counter the call leaves behind) up to kMaxBlocks.
std::vector<size_t> block_counts(uint32_t k) {
    std::vector<size_t> v;
    for (size_t n = std::max<size_t>(1, k - 1); n <= kMaxBlocks; ++n) v.push_back(n);
    return v;
}

std::string where(const KernelSet& set, uint64_t base, uint32_t k, size_t n) {
    std::ostringstream s;
    s << "[" << set.label << "] counter 2^" << (base == (uint64_t(1) << 31) ? 31 : 32) << " - " << k << ", " << n
      << " blocks";
    return s.str();
}

// The first 64-byte block where a and b differ, for the failure message.
std::string first_bad_block(const Bytes& got, const Bytes& want) {
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        if (got[i] != want[i]) return "first difference in block " + std::to_string(i / 64);
    return got.size() == want.size() ? "equal" : "sizes differ";
}

// Each kernel set's failures stop at the first few: one bug would otherwise
// print thousands of lines.
struct FailureBudget {
    int left = 5;
    bool spend() { return left-- > 0; }
};

// chacha20_blocks from 2^31 - k / 2^32 - k: n blocks, then kFollowBlocks more
// on the counter the first call left, out of place and as bare keystream.
TEST(BoundaryCounter, ChaCha20BlocksPutTheBoundaryOnEveryLane) {
    Rng rng = seeded_rng(0xb0a4d001);
    const DefaultReference ref;
    const std::vector<KernelSet> sets = kernel_sets();
    std::vector<FailureBudget> budget(sets.size());
    const Bytes in = rng.bytes((kMaxBlocks + kFollowBlocks) * 64);
    for (uint64_t base : kBases) {
        for (uint32_t k = 1; k <= kMaxK; ++k) {
            kern::ChaChaState start;
            const Bytes key = rng.bytes(32);
            kern::chacha_load_key(start, key.data());
            // Word 1 all ones at 2^32 on every other k: the carry wraps it to 0.
            const uint32_t ctr1 = base > UINT32_MAX && k % 2 ? 0xffffffffu : uint32_t(rng.next());
            const uint32_t ctr[4] = {uint32_t(base - k), ctr1, uint32_t(rng.next()), uint32_t(rng.next())};
            std::copy(ctr, ctr + 4, start.ctr);
            const Bytes ks = ref.chacha(key.data(), ctr, nullptr, in.size());

            for (size_t n : block_counts(k)) {
                const size_t total = (n + kFollowBlocks) * 64;
                Bytes want_xor(total), want_ks(ks.begin(), ks.begin() + long(total));
                for (size_t i = 0; i < total; ++i) want_xor[i] = in[i] ^ ks[i];
                uint32_t want_ctr[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
                advance_words(want_ctr, n + kFollowBlocks);

                for (size_t s = 0; s < sets.size(); ++s) {
                    for (bool keystream_only : {false, true}) {
                        kern::ChaChaState st = start;
                        Bytes got(total, 0x5a);
                        const uint8_t* src = keystream_only ? nullptr : in.data();
                        sets[s].impl->chacha20_blocks(st, src, got.data(), n);
                        sets[s].impl->chacha20_blocks(st, src ? src + n * 64 : nullptr, got.data() + n * 64,
                                                      kFollowBlocks);
                        const Bytes& want = keystream_only ? want_ks : want_xor;
                        const bool ok = got == want && std::equal(want_ctr, want_ctr + 4, st.ctr);
                        if (!ok && budget[s].spend())
                            ADD_FAILURE() << where(sets[s], base, k, n) << (keystream_only ? ", keystream" : ", xor")
                                          << ": " << first_bad_block(got, want) << " (against the default provider"
                                          << (s ? " and the portable set" : "") << "), counter left at "
                                          << std::hex << st.ctr[1] << ":" << st.ctr[0] << ", want " << want_ctr[1]
                                          << ":" << want_ctr[0];
                    }
                }
            }
        }
    }
}

// ---- the AEAD on both MAC grids ------------------------------------------------

// How a case cuts its text into aead_text calls: whole, at a batch edge, or
// a few bytes in (so the rest starts with a partly used keystream block).
std::vector<size_t> text_cuts(size_t len, size_t style) {
    if (len == 0) return {};
    size_t first = len;
    if (style == 1) first = std::min(len, (len / 128) * 64 + 64);
    if (style == 2) first = std::min(len, size_t(13));
    std::vector<size_t> cuts{first};
    if (first < len) cuts.push_back(len - first);
    return cuts;
}

struct AeadCase {
    Grid grid;
    uint32_t ctr[4];
    Bytes key, aad, pt;
    size_t style;
};

struct AeadOut {
    bool accepted = false;
    Bytes out, tag;
};

AeadOut run_kernel(const kern::Impl& impl, const AeadCase& c, Direction dir, const Bytes& in) {
    kern::AeadState st;
    kern::aead_init(st, impl, c.grid);
    kern::aead_set_key(st, c.key.data());
    kern::aead_restart(st, c.ctr);
    AeadOut r;
    r.out.assign(in.size(), 0x5a);
    r.tag.assign(16, 0);
    EXPECT_TRUE(kern::aead_aad(st, c.aad.data(), c.aad.size()));
    size_t off = 0;
    r.accepted = true;
    for (size_t n : text_cuts(in.size(), c.style)) {
        r.accepted &= kern::aead_text(st, dir, in.data() + off, r.out.data() + off, n);
        off += n;
    }
    if (r.accepted) kern::aead_final(st, r.tag.data());
    kern::aead_wipe(st);
    return r;
}

// The whole-record open (the short path and the long one).
AeadOut open_record(const kern::Impl& impl, const AeadCase& c, const Bytes& ct, const Bytes& tag) {
    kern::AeadState st;
    kern::aead_init(st, impl, c.grid);
    kern::aead_set_key(st, c.key.data());
    kern::aead_restart(st, c.ctr);
    EXPECT_TRUE(kern::aead_aad(st, c.aad.data(), c.aad.size()));
    AeadOut r;
    r.out.assign(ct.size(), 0x5a);
    r.accepted = kern::aead_open_record(st, ct.data(), r.out.data(), ct.size(), tag.data());
    kern::aead_wipe(st);
    return r;
}

// Seal, open by aead_text and open whole on every set, against the default
// provider's composition and the portable set.
void check_aead_case(const std::vector<KernelSet>& sets, std::vector<FailureBudget>& budget, const DefaultReference& ref,
                     const AeadCase& c, const std::string& label) {
    const auto want = ref.aead(c.grid, c.key, c.ctr, c.aad, c.pt);
    const AeadOut portable = run_kernel(kern::portable_impl(), c, Direction::seal, c.pt);
    for (size_t s = 0; s < sets.size(); ++s) {
        const std::string at = "[" + sets[s].label + "] " + label;
        const AeadOut seal = run_kernel(*sets[s].impl, c, Direction::seal, c.pt);
        if ((!seal.accepted || seal.out != want.ct || seal.tag != want.tag) && budget[s].spend())
            ADD_FAILURE() << at << ": seal " << (seal.accepted ? first_bad_block(seal.out, want.ct) : "refused")
                          << (seal.tag == want.tag ? "" : ", tag differs from the default provider's")
                          << (seal.out == portable.out && seal.tag == portable.tag ? " (same as portable)"
                                                                                  : " (differs from portable too)");
        const AeadOut open = run_kernel(*sets[s].impl, c, Direction::open, want.ct);
        if ((!open.accepted || open.out != c.pt || open.tag != want.tag) && budget[s].spend())
            ADD_FAILURE() << at << ": open " << (open.accepted ? first_bad_block(open.out, c.pt) : "refused")
                          << (open.tag == want.tag ? "" : ", tag differs");
        const AeadOut whole = open_record(*sets[s].impl, c, want.ct, want.tag);
        if ((!whole.accepted || whole.out != c.pt) && budget[s].spend())
            ADD_FAILURE() << at << ": whole-record open " << (whole.accepted ? first_bad_block(whole.out, c.pt) : "refused");
    }
}

// The RFC 8439 grid from 2^31 - k (any length fits) and the OpenSSH grid
// from 2^31 - k and 2^32 - k (its 64-bit counter carries into word 1), every
// block count; AAD none, TLS-sized (held back) and longer than is held back.
TEST(BoundaryCounter, AeadPutsTheBoundaryOnEveryLane) {
    Rng rng = seeded_rng(0xb0a4d002);
    const DefaultReference ref;
    const std::vector<KernelSet> sets = kernel_sets();
    std::vector<FailureBudget> budget(sets.size());
    const Bytes plain = rng.bytes(kMaxBlocks * 64);
    for (Grid grid : {Grid::rfc8439, Grid::openssh}) {
        for (uint64_t base : kBases) {
            if (grid == Grid::rfc8439 && base > UINT32_MAX) continue;  // its own test below
            for (uint32_t k = 1; k <= kMaxK; ++k) {
                AeadCase c{grid, {uint32_t(base - k), uint32_t(rng.next()), uint32_t(rng.next()), uint32_t(rng.next())},
                           rng.bytes(32), rng.bytes(k % 3 == 0 ? 0 : k % 3 == 1 ? 13 : 40), {}, 0};
                if (grid == Grid::openssh && base > UINT32_MAX && k % 2) c.ctr[1] = 0xffffffffu;
                for (size_t n : block_counts(k)) {
                    static constexpr size_t kShort[] = {0, 1, 17, 63};  // the last block whole or partial
                    const size_t len = n * 64 - kShort[(k + n) % 4];
                    c.pt.assign(plain.begin(), plain.begin() + long(len));
                    c.style = (k + n) % 3;
                    std::ostringstream label;
                    label << (grid == Grid::rfc8439 ? "rfc8439" : "openssh") << " grid, key block at 2^"
                          << (base > UINT32_MAX ? 32 : 31) << " - " << k << ", " << len << " bytes, cut style "
                          << c.style << ", aad " << c.aad.size();
                    check_aead_case(sets, budget, ref, c, label.str());
                }
            }
        }
    }
}

// RFC 8439 from 2^32 - k: the key block at 2^32 - k leaves k - 1 text blocks.
// Each of the last nine lengths that fit is sealed and opened exactly as the
// default provider's composition does; one byte more is refused with
// nothing written, on both the streaming and the whole-record path.
TEST(BoundaryCounter, Rfc8439MessageEndsExactlyAtTheLastCounter) {
    Rng rng = seeded_rng(0xb0a4d003);
    const DefaultReference ref;
    const std::vector<KernelSet> sets = kernel_sets();
    std::vector<FailureBudget> budget(sets.size());
    const Bytes plain = rng.bytes(kMaxK * 64 + 1);
    for (uint32_t k = 1; k <= kMaxK; ++k) {
        AeadCase c{Grid::rfc8439, {uint32_t(0x100000000ull - k), uint32_t(rng.next()), uint32_t(rng.next()), uint32_t(rng.next())},
                   rng.bytes(32), rng.bytes(k % 3 == 0 ? 0 : k % 3 == 1 ? 13 : 40), {}, 0};
        const size_t room = size_t(k - 1) * 64;
        for (size_t n = k > 9 ? k - 9 : 0; n < k; ++n) {
            for (size_t len : {n * 64, n > 0 ? n * 64 - 1 : 0}) {
                c.pt.assign(plain.begin(), plain.begin() + long(len));
                c.style = (k + n + len) % 3;
                check_aead_case(sets, budget, ref, c,
                                "rfc8439 grid, key block at 2^32 - " + std::to_string(k) + ", " + std::to_string(len) + " bytes");
            }
        }
        // One byte past the room.
        c.pt.assign(plain.begin(), plain.begin() + long(room + 1));
        for (size_t s = 0; s < sets.size(); ++s) {
            for (size_t style = 0; style < 3; ++style) {
                c.style = style;
                const AeadOut r = run_kernel(*sets[s].impl, c, Direction::seal, c.pt);
                // A cut style may let the first piece through; the piece that
                // crosses the end must be refused and write nothing.
                const std::vector<size_t> cuts = text_cuts(c.pt.size(), style);
                const size_t written = cuts.size() > 1 ? cuts[0] : 0;
                const bool untouched = std::all_of(r.out.begin() + long(written), r.out.end(), [](uint8_t b) { return b == 0x5a; });
                EXPECT_TRUE(!r.accepted && untouched)
                    << "[" << sets[s].label << "] 2^32 - " << k << ": " << c.pt.size() << " bytes accepted or written past the room";
            }
            const AeadOut whole = open_record(*sets[s].impl, c, c.pt, Bytes(16, 0));
            EXPECT_TRUE(!whole.accepted && std::all_of(whole.out.begin(), whole.out.end(), [](uint8_t b) { return b == 0x5a; }))
                << "[" << sets[s].label << "] 2^32 - " << k << ": whole-record open past the room";
        }
    }
}

}  // namespace
}  // namespace stitch::test
