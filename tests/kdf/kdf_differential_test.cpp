// stitch's HKDF and TLS13-KDF against the default provider's in one process:
// random keys, salts, infos, labels, data, modes, digests and output lengths
// up to 255 x HashLen, with the params given in one derive call or spread
// over several set_params calls. Every derive must agree: the same accept or
// refuse, and on accept the same bytes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/seeded_rng.hpp"
#include "kdf/kdf_support.hpp"

namespace stitch::test {
namespace {

struct Digest {
    const char* name;
    size_t size;
};
// SHA-256/384/512 under several of their names run on stitch's kernels; the
// rest take its fetched-digest path.
constexpr Digest kDigests[] = {
    {"SHA2-256", 32}, {"sha256", 32},   {"SHA-384", 48},  {"SHA2-384", 48},     {"SHA512", 64},
    {"SHA1", 20},     {"SHA2-224", 28}, {"SHA3-256", 32}, {"SHA2-512/256", 32}, {"SM3", 32},
};

size_t pick_length(Rng& rng, size_t hash) {
    switch (rng.below(6)) {
        case 0:
            return 1 + rng.below(hash);
        case 1:
            return hash;
        case 2:
            return hash * (1 + rng.below(5)) + rng.below(3);
        case 3:
            return 255 * hash - rng.below(2);  // the largest output and its neighbour
        case 4:
            return 255 * hash + 1;  // one past: refused by both
        default:
            return 1 + rng.below(3 * hash);
    }
}

Bytes maybe_bytes(Rng& rng, size_t max) { return rng.bytes(rng.below(max + 1)); }

// The params of one derive, spread over `calls` set_params calls at random
// (each param in exactly one call; infos kept together, as a later info
// call would replace them), the last call going to EVP_KDF_derive.
std::vector<KdfParamSet> spread(Rng& rng, const KdfParamSet& all, size_t calls) {
    std::vector<KdfParamSet> sets(calls);
    auto where = [&] { return rng.below(calls); };
    sets[where()].digest = all.digest;
    if (all.mode) sets[where()].mode = all.mode;
    if (all.mode_str) sets[where()].mode_str = all.mode_str;
    if (all.key) sets[where()].key = all.key;
    if (all.salt) sets[where()].salt = all.salt;
    if (!all.infos.empty()) sets[where()].infos = all.infos;
    if (all.prefix) sets[where()].prefix = all.prefix;
    if (all.label) sets[where()].label = all.label;
    // TLS13-KDF forgets `data` on every set call: it must come with the last one.
    if (all.data) sets.back().data = all.data;
    return sets;
}

void set_mode(Rng& rng, KdfParamSet& p, int mode) {
    static const char* const kNames[] = {"EXTRACT_AND_EXPAND", "EXTRACT_ONLY", "EXPAND_ONLY"};
    static const char* const kLower[] = {"extract_and_expand", "Extract_Only", "expand_only"};
    switch (rng.below(3)) {
        case 0:
            p.mode = mode;
            break;
        case 1:
            p.mode_str = kNames[mode];
            break;
        default:
            p.mode_str = kLower[mode];
            break;
    }
}

void compare(const KdfPair& kdf, std::vector<KdfParamSet> sets, size_t len, int& accepted, const std::string& what) {
    SCOPED_TRACE(what);
    const DeriveResult s = run_kdf(kdf.stitch, sets, len);
    const DeriveResult d = run_kdf(kdf.dflt, sets, len);
    ASSERT_EQ(s.rc, d.rc) << "stitch and default disagree on accepting it";
    if (s.rc > 0) {
        ASSERT_EQ(to_hex(s.out), to_hex(d.out));
        ++accepted;
    }
}

TEST(KdfDifferential, HkdfRandomInputsModesAndSplits) {
    Rng rng = seeded_rng(0x4bdf0001);
    const KdfPair hkdf("HKDF");
    int accepted = 0;
    for (int i = 0; i < 1500; ++i) {
        const Digest& dg = kDigests[rng.below(std::size(kDigests))];
        const int mode = int(rng.below(3));
        KdfParamSet p;
        p.digest = dg.name;
        set_mode(rng, p, mode);
        p.key = mode == EVP_KDF_HKDF_MODE_EXPAND_ONLY && rng.below(2) ? rng.bytes(dg.size) : maybe_bytes(rng, 200);
        if (rng.below(4)) p.salt = maybe_bytes(rng, 200);
        for (size_t n = rng.below(4); n; --n) p.infos.push_back(maybe_bytes(rng, 120));
        const size_t len = mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY && rng.below(4) ? dg.size : pick_length(rng, dg.size);
        const size_t calls = 1 + rng.below(3);
        compare(hkdf, spread(rng, p, calls), len, accepted,
                "iteration " + std::to_string(i) + ": " + dg.name + " mode " + std::to_string(mode) + " len " +
                    std::to_string(len) + " calls " + std::to_string(calls));
        if (HasFatalFailure()) return;
    }
    EXPECT_GT(accepted, 1000);
}

TEST(KdfDifferential, Tls13KdfRandomInputsModesAndSplits) {
    Rng rng = seeded_rng(0x7135f002);
    const KdfPair kdf("TLS13-KDF");
    int accepted = 0;
    for (int i = 0; i < 1500; ++i) {
        const Digest& dg = kDigests[rng.below(std::size(kDigests))];
        const int mode = rng.below(2) ? EVP_KDF_HKDF_MODE_EXPAND_ONLY : EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
        KdfParamSet p;
        p.digest = dg.name;
        set_mode(rng, p, mode);
        if (rng.below(5)) p.key = rng.below(3) ? rng.bytes(dg.size) : maybe_bytes(rng, 100);
        if (mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY && rng.below(3))
            p.salt = rng.below(3) ? rng.bytes(dg.size) : maybe_bytes(rng, 100);
        if (rng.below(6)) p.prefix = rng.below(2) ? Bytes{'t', 'l', 's', '1', '3', ' '} : maybe_bytes(rng, 12);
        // Labels and contexts around RFC 8446's 255-byte limits.
        if (rng.below(6)) p.label = rng.below(8) ? maybe_bytes(rng, 20) : rng.bytes(240 + rng.below(20));
        if (rng.below(3)) p.data = rng.below(8) ? maybe_bytes(rng, 64) : rng.bytes(250 + rng.below(10));
        const size_t len = mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY ? (rng.below(6) ? dg.size : pick_length(rng, dg.size))
                                                                  : (rng.below(10) ? pick_length(rng, dg.size) : 0);
        const size_t calls = 1 + rng.below(3);
        compare(kdf, spread(rng, p, calls), len, accepted,
                "iteration " + std::to_string(i) + ": " + dg.name + " mode " + std::to_string(mode) + " len " +
                    std::to_string(len) + " calls " + std::to_string(calls));
        if (HasFatalFailure()) return;
    }
    EXPECT_GT(accepted, 800);
}

// One context, many derives: params carried over from earlier calls (a new
// key, then new info only, then a new digest) must act as in 3.0.
TEST(KdfDifferential, ContextReusedAcrossDerives) {
    Rng rng = seeded_rng(0x4e05e003);
    for (const char* name : {"HKDF", "TLS13-KDF"}) {
        SCOPED_TRACE(name);
        const KdfPair kdf(name);
        const bool tls = std::string(name) == "TLS13-KDF";
        KdfCtxPtr s = new_kdf_ctx(kdf.stitch), d = new_kdf_ctx(kdf.dflt);
        for (int i = 0; i < 300; ++i) {
            const Digest& dg = kDigests[rng.below(std::size(kDigests))];
            KdfParamSet p;
            if (rng.below(4) == 0) p.digest = dg.name;
            if (rng.below(5) == 0) set_mode(rng, p, tls ? 1 + int(rng.below(2)) : int(rng.below(3)));
            if (rng.below(3) == 0) p.key = maybe_bytes(rng, 64);
            if (rng.below(4) == 0) p.salt = maybe_bytes(rng, 64);
            // Never an empty info after a non-empty one: 3.0.19 then reads its
            // freed info through a NULL pointer (kdf_params_test shows stitch's answer).
            if (!tls && rng.below(3) == 0) p.infos = {rng.bytes(1 + rng.below(40))};
            if (tls && rng.below(3) == 0) p.label = maybe_bytes(rng, 20);
            if (tls && rng.below(2) == 0) p.data = maybe_bytes(rng, 48);
            const size_t len = rng.below(3) ? 32 : 1 + rng.below(200);
            const bool with_params = rng.below(4) != 0;
            SCOPED_TRACE("derive " + std::to_string(i) + " len " + std::to_string(len));
            const DeriveResult rs = run_kdf(s.get(), {p}, len, with_params);
            const DeriveResult rd = run_kdf(d.get(), {p}, len, with_params);
            ASSERT_EQ(rs.rc, rd.rc);
            if (rs.rc > 0) {
                ASSERT_EQ(to_hex(rs.out), to_hex(rd.out));
            }
        }
    }
}

}  // namespace
}  // namespace stitch::test
