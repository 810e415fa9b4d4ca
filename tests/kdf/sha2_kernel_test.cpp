// The SHA-2 and HMAC kernels called directly, on every SHA-2 set this CPU can
// run (portable; SHA-NI for SHA-256 and AVX2 + BMI2 for SHA-512 where CPUID
// has them) whatever dispatch chose, one instance of each test per set,
// against the portable kernels and libcrypto's digests and HMAC (the default
// provider's), over every length 0..1000 and Wycheproof's HKDF vectors; and
// dispatch's choice itself.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cpuid.h>

#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/seeded_rng.hpp"
#include "common/test_util.hpp"
#include "kdf/wycheproof_hkdf.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/hkdf.hpp"
#include "kernels/hmac.hpp"
#include "kernels/sha2.hpp"

namespace stitch::test {
namespace {

using kern::Sha2;

const EVP_MD* md_of(Sha2 a) {
    return a == Sha2::sha256 ? EVP_sha256() : a == Sha2::sha384 ? EVP_sha384() : EVP_sha512();
}
const char* name_of(Sha2 a) { return a == Sha2::sha256 ? "SHA-256" : a == Sha2::sha384 ? "SHA-384" : "SHA-512"; }
constexpr Sha2 kAlgs[] = {Sha2::sha256, Sha2::sha384, Sha2::sha512};

Bytes reference_digest(Sha2 a, const Bytes& m) {
    Bytes out(size_t(EVP_MD_get_size(md_of(a))));
    unsigned n = 0;
    EXPECT_EQ(EVP_Digest(m.data(), m.size(), out.data(), &n, md_of(a), nullptr), 1);
    return out;
}

Bytes reference_hmac(Sha2 a, const Bytes& key, const Bytes& m) {
    Bytes out(size_t(EVP_MD_get_size(md_of(a))));
    unsigned n = 0;
    static const uint8_t none[1] = {0};  // HMAC() refuses a NULL key even of length 0
    EXPECT_NE(HMAC(md_of(a), key.empty() ? none : key.data(), int(key.size()), m.empty() ? none : m.data(), m.size(),
                   out.data(), &n),
              nullptr);
    return out;
}

std::string set_name(const kern::Sha2Impl* impl) {
    std::string s = impl->name;
    if (impl == &kern::sha2_active_impl()) s += " (active)";
    return s;
}

// Each test over SHA-2 sets runs once per set this CPU runs, named after it
// (EverySha2Set/Sha2Sets.LongMessages/shani_avx2), so a failure names the set.
class Sha2Sets : public ::testing::TestWithParam<const kern::Sha2Impl*> {};
class HmacOnSha2Sets : public Sha2Sets {};
class HkdfOnSha2Sets : public Sha2Sets {};

std::vector<const kern::Sha2Impl*> sha2_sets() {
    const auto all = kern::sha2_runnable_impls();
    return {all.begin(), all.end()};
}
std::string sha2_set_name(const ::testing::TestParamInfo<const kern::Sha2Impl*>& info) {
    std::string name = info.param->name;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

// Every length 0..1000 (past seven SHA-512 blocks and fifteen SHA-256
// blocks, so every padding case and the two-block schedule path meet every
// tail), in one update and in random pieces down to one byte, against the
// portable kernel and libcrypto.
TEST_P(Sha2Sets, DigestsMatchPortableAndLibcryptoAtEveryLength) {
    Rng rng = seeded_rng(0x5a2d16e5);
    const Bytes m = rng.bytes(1000);
    for (Sha2 a : kAlgs) {
        SCOPED_TRACE(name_of(a));
        std::vector<Bytes> want(1001);
        for (size_t len = 0; len <= 1000; ++len) {
            want[len] = reference_digest(a, Bytes(m.begin(), m.begin() + long(len)));
            Bytes portable(want[len].size());
            kern::sha2_digest(kern::sha2_portable_impl(), a, m.data(), len, portable.data());
            ASSERT_EQ(to_hex(portable), to_hex(want[len])) << "portable, length " << len;
        }
        const kern::Sha2Impl* impl = GetParam();
        SCOPED_TRACE(set_name(impl));
        for (size_t len = 0; len <= 1000; ++len) {
            Bytes got(want[len].size());
            kern::sha2_digest(*impl, a, m.data(), len, got.data());
            ASSERT_EQ(to_hex(got), to_hex(want[len])) << "length " << len;

            kern::Sha2Hasher h(*impl, a);
            for (size_t pos = 0; pos < len;) {
                const size_t n = std::min(len - pos, 1 + rng.below(300));
                h.update(m.data() + pos, n);
                pos += n;
            }
            h.final(got.data());
            ASSERT_EQ(to_hex(got), to_hex(want[len])) << "length " << len << " in pieces";
        }
    }
}

// Many blocks in one call: the kernels' multi-block loops carry the state.
TEST_P(Sha2Sets, LongMessages) {
    Rng rng = seeded_rng(0x10e6);
    const kern::Sha2Impl* impl = GetParam();
    SCOPED_TRACE(set_name(impl));
    for (Sha2 a : kAlgs)
        for (size_t len : {4096u, 65536u + 7u}) {
            const Bytes m = rng.bytes(len);
            Bytes got(size_t(EVP_MD_get_size(md_of(a))));
            kern::sha2_digest(*impl, a, m.data(), m.size(), got.data());
            EXPECT_EQ(to_hex(got), to_hex(reference_digest(a, m))) << name_of(a) << " length " << len;
        }
}

// Every set's compression against the portable one, from random chaining
// states (not only the IV): one to seven blocks per call (odd and even
// counts: the AVX2 SHA-512 kernel takes blocks two at a time), and the pair
// calls (one block into each of two states) HMAC's key setup makes.
TEST_P(Sha2Sets, EverySetCompressesLikePortable) {
    Rng rng = seeded_rng(0xc0de);
    const kern::Sha2Impl* impl = GetParam();
    SCOPED_TRACE(set_name(impl));
    for (int trial = 0; trial < 200; ++trial) {
        const size_t blocks = 1 + rng.below(7);
        const Bytes in = rng.bytes(64 * blocks);
        uint32_t a[8], b[8];
        for (int i = 0; i < 8; ++i) a[i] = b[i] = uint32_t(rng.next());
        impl->sha256_blocks(a, in.data(), blocks);
        kern::sha256_blocks_portable(b, in.data(), blocks);
        ASSERT_EQ(to_hex(reinterpret_cast<uint8_t*>(a), 32), to_hex(reinterpret_cast<uint8_t*>(b), 32));
        const Bytes in512 = rng.bytes(128 * blocks);
        uint64_t c[8], d[8];
        for (int i = 0; i < 8; ++i) c[i] = d[i] = rng.next();
        impl->sha512_blocks(c, in512.data(), blocks);
        kern::sha512_blocks_portable(d, in512.data(), blocks);
        ASSERT_EQ(to_hex(reinterpret_cast<uint8_t*>(c), 64), to_hex(reinterpret_cast<uint8_t*>(d), 64))
            << blocks << " blocks";
    }
    for (int trial = 0; trial < 100; ++trial) {
        const Bytes in = rng.bytes(2 * 128);
        uint32_t a1[8], b1[8], a2[8], b2[8];
        uint64_t c1[8], d1[8], c2[8], d2[8];
        for (int i = 0; i < 8; ++i) {
            a1[i] = a2[i] = uint32_t(rng.next());
            b1[i] = b2[i] = uint32_t(rng.next());
            c1[i] = c2[i] = rng.next();
            d1[i] = d2[i] = rng.next();
        }
        impl->sha256_pair(a1, in.data(), b1, in.data() + 64);
        kern::sha256_blocks_portable(a2, in.data(), 1);
        kern::sha256_blocks_portable(b2, in.data() + 64, 1);
        ASSERT_EQ(to_hex(reinterpret_cast<uint8_t*>(a1), 32), to_hex(reinterpret_cast<uint8_t*>(a2), 32));
        ASSERT_EQ(to_hex(reinterpret_cast<uint8_t*>(b1), 32), to_hex(reinterpret_cast<uint8_t*>(b2), 32));
        impl->sha512_pair(c1, in.data(), d1, in.data() + 128);
        kern::sha512_blocks_portable(c2, in.data(), 1);
        kern::sha512_blocks_portable(d2, in.data() + 128, 1);
        ASSERT_EQ(to_hex(reinterpret_cast<uint8_t*>(c1), 64), to_hex(reinterpret_cast<uint8_t*>(c2), 64));
        ASSERT_EQ(to_hex(reinterpret_cast<uint8_t*>(d1), 64), to_hex(reinterpret_cast<uint8_t*>(d2), 64));
    }
}

// Keys of every length around the block (hashed when longer), messages in
// several pieces across block edges, and a key reused for many MACs; then
// every message length 0..1000 under one key of each size class.
TEST_P(HmacOnSha2Sets, MatchesLibcryptoHmac) {
    Rng rng = seeded_rng(0x4a4ac);
    const kern::Sha2Impl* impl = GetParam();
    SCOPED_TRACE(set_name(impl));
    for (Sha2 a : kAlgs) {
        SCOPED_TRACE(name_of(a));
        for (size_t key_len : {0u, 1u, 20u, 32u, 48u, 63u, 64u, 65u, 127u, 128u, 129u, 300u}) {
            const Bytes key = rng.bytes(key_len);
            kern::Sha2Hmac mac(*impl, a);
            ASSERT_TRUE(mac.set_key(key.data(), key.size()));
            for (size_t len : {0u, 1u, 31u, 55u, 56u, 64u, 111u, 112u, 119u, 120u, 128u, 129u, 300u}) {
                const Bytes m = rng.bytes(len);
                const size_t cut1 = rng.below(len + 1), cut2 = cut1 + rng.below(len - cut1 + 1);
                Bytes got(mac.size());
                ASSERT_TRUE(mac.mac(
                    {{m.data(), cut1}, {m.data() + cut1, cut2 - cut1}, {m.data() + cut2, len - cut2}}, got.data()));
                ASSERT_EQ(to_hex(got), to_hex(reference_hmac(a, key, m))) << "key " << key_len << " msg " << len;
            }
        }
        const Bytes m = rng.bytes(1000);
        for (size_t key_len : {32u, 128u, 200u}) {
            const Bytes key = rng.bytes(key_len);
            kern::Sha2Hmac mac(*impl, a);
            ASSERT_TRUE(mac.set_key(key.data(), key.size()));
            for (size_t len = 0; len <= 1000; ++len) {
                Bytes got(mac.size());
                ASSERT_TRUE(mac.mac({{m.data(), len}}, got.data()));
                ASSERT_EQ(to_hex(got), to_hex(reference_hmac(a, key, Bytes(m.begin(), m.begin() + long(len)))))
                    << "key " << key_len << " msg " << len;
            }
        }
    }
}

TEST_P(HmacOnSha2Sets, EmptyHashIsTheDigestOfNothing) {
    const kern::Sha2Impl* impl = GetParam();
    for (Sha2 a : kAlgs) {
        kern::Sha2Hmac mac(*impl, a);
        Bytes got(mac.size());
        ASSERT_TRUE(mac.empty_hash(got.data()));
        EXPECT_EQ(to_hex(got), to_hex(reference_digest(a, {}))) << name_of(a) << " on " << impl->name;
    }
}

// HKDF-Expand writes whole blocks in place and cuts the last: every length
// across two blocks, against an expand composed from libcrypto's HMAC.
TEST_P(HkdfOnSha2Sets, ExpandAtEveryLengthMatchesComposedHmac) {
    Rng rng = seeded_rng(0xe4a9d);
    const kern::Sha2Impl* impl = GetParam();
    SCOPED_TRACE(set_name(impl));
    for (Sha2 a : kAlgs) {
        const size_t h = kern::sha2_digest_len(a);
        const Bytes prk = rng.bytes(h), info = rng.bytes(rng.below(80));
        Bytes composed, prev;
        for (uint8_t i = 1; composed.size() < 3 * h; ++i) {
            Bytes m = concat(prev, info);
            m.push_back(i);
            prev = reference_hmac(a, prk, m);
            composed = concat(composed, prev);
        }
        for (size_t len = 1; len <= 3 * h; ++len) {
            kern::Sha2Hmac mac(*impl, a);
            Bytes out(len + 1, 0xee);
            ASSERT_EQ(kern::hkdf_expand(mac, prk.data(), prk.size(), info.data(), info.size(), out.data(), len),
                      kern::KdfStatus::ok);
            ASSERT_EQ(out[len], 0xee) << "wrote past " << len;
            out.pop_back();
            ASSERT_EQ(to_hex(out), to_hex(Bytes(composed.begin(), composed.begin() + len))) << name_of(a);
        }
        kern::Sha2Hmac mac(*impl, a);
        Bytes out(255 * h + 1);
        EXPECT_EQ(kern::hkdf_expand(mac, prk.data(), prk.size(), nullptr, 0, out.data(), 255 * h),
                  kern::KdfStatus::ok);
        EXPECT_EQ(kern::hkdf_expand(mac, prk.data(), prk.size(), nullptr, 0, out.data(), 255 * h + 1),
                  kern::KdfStatus::output_too_long);
    }
}

// Wycheproof's HKDF vectors for SHA-256/384/512 through each set's HMAC
// directly (extract, then expand): the published answers, not only
// agreement with libcrypto.
TEST_P(HkdfOnSha2Sets, WycheproofVectorsOnEverySet) {
    for (auto [hash, alg] : {std::pair{"sha256", Sha2::sha256}, {"sha384", Sha2::sha384}, {"sha512", Sha2::sha512}}) {
        size_t declared = 0;
        const auto tests = load_wycheproof_hkdf(hash, declared);
        ASSERT_EQ(tests.size(), declared);
        const kern::Sha2Impl* impl = GetParam();
        SCOPED_TRACE(set_name(impl) + " " + hash);
        int valid = 0;
        for (const auto& t : tests) {
            kern::Sha2Hmac mac(*impl, alg);
            uint8_t prk[kern::kSha2MaxDigest];
            ASSERT_EQ(kern::hkdf_extract(mac, t.salt.data(), t.salt.size(), t.ikm.data(), t.ikm.size(), prk),
                      kern::KdfStatus::ok);
            Bytes out(t.size);
            const kern::KdfStatus st =
                kern::hkdf_expand(mac, prk, mac.size(), t.info.data(), t.info.size(), out.data(), out.size());
            if (!t.valid) {
                EXPECT_EQ(st, kern::KdfStatus::output_too_long) << "tcId " << t.tc_id;
                continue;
            }
            ASSERT_EQ(st, kern::KdfStatus::ok) << "tcId " << t.tc_id;
            EXPECT_EQ(to_hex(out), to_hex(t.okm)) << "tcId " << t.tc_id << " " << t.comment;
            ++valid;
        }
        EXPECT_GT(valid, 70);
    }
}

// RFC 8446 §7.1's HkdfLabel layout and its limits.
TEST(HkdfKernel, Tls13LabelLayoutAndLimits) {
    uint8_t buf[kern::kTls13MaxHkdfLabel];
    const uint8_t prefix[] = {'t', 'l', 's', '1', '3', ' '}, label[] = {'k', 'e', 'y'}, ctx[] = {1, 2};
    const size_t n = kern::tls13_hkdf_label(buf, 16, prefix, 6, label, 3, ctx, 2);
    EXPECT_EQ(to_hex(buf, n),
              "0010"
              "09"
              "746c73313320"
              "6b6579"
              "02"
              "0102");
    const Bytes long_label(250, 'x'), long_ctx(256, 'y');
    EXPECT_NE(kern::tls13_hkdf_label(buf, 16, prefix, 6, long_label.data(), 249, nullptr, 0), 0u);
    EXPECT_EQ(kern::tls13_hkdf_label(buf, 16, prefix, 6, long_label.data(), 250, nullptr, 0), 0u);
    EXPECT_NE(kern::tls13_hkdf_label(buf, 16, prefix, 6, label, 3, long_ctx.data(), 255), 0u);
    EXPECT_EQ(kern::tls13_hkdf_label(buf, 16, prefix, 6, label, 3, long_ctx.data(), 256), 0u);
    EXPECT_NE(kern::tls13_hkdf_label(buf, 0xffff, prefix, 6, label, 3, nullptr, 0), 0u);
    EXPECT_EQ(kern::tls13_hkdf_label(buf, 0x10000, prefix, 6, label, 3, nullptr, 0), 0u) << "Length is a uint16";
}

// The sets each combination of features gets: which one dispatch takes, and
// which ones the tests run, on every kind of CPU (not only this one).
TEST(Sha2Dispatch, SetsForEveryFeatureCombination) {
    struct Case {
        bool sha, avx2, bmi2;
        const char* chosen;
        std::vector<std::string> runnable;
    };
    const Case cases[] = {
        {false, false, false, "portable", {"portable"}},
        {true, false, false, "shani", {"portable", "shani"}},
        {false, true, true, "avx2", {"portable", "avx2"}},
        {false, true, false, "portable", {"portable"}},  // AVX2 without BMI2's RORX: not enough
        {false, false, true, "portable", {"portable"}},
        {true, true, true, "shani+avx2", {"portable", "shani", "avx2", "shani+avx2"}},
    };
    for (const Case& c : cases) {
        kern::CpuFeatures f;
        f.sha = c.sha;
        f.avx2 = c.avx2;
        f.bmi2 = c.bmi2;
        SCOPED_TRACE(std::string("sha ") + (c.sha ? "1" : "0") + " avx2 " + (c.avx2 ? "1" : "0") + " bmi2 " +
                     (c.bmi2 ? "1" : "0"));
        EXPECT_STREQ(kern::sha2_impl_for(f).name, c.chosen);
        const kern::Sha2Sets sets = kern::sha2_sets_for(f);
        std::vector<std::string> names;
        for (size_t i = 0; i < sets.count; ++i) names.push_back(sets.items[i]->name);
        EXPECT_EQ(names, c.runnable);
    }
}

// Dispatch takes SHA-NI for SHA-256 exactly where CPUID reports SHA (with
// SSSE3 and SSE4.1), and AVX2 for SHA-512 exactly where it reports AVX2 (with
// the OS saving ymm state) and BMI2, unless STITCH_CLEAR_CPUID hides them.
// Under CTest's .portable run (STITCH_CLEAR_CPUID=all) this checks the
// portable choice.
TEST(Sha2Dispatch, FollowsCpuidAndTheMask) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    bool cpu_sha = false, cpu_avx2 = false, cpu_bmi2 = false;
    if (__get_cpuid(1, &a, &b, &c, &d) && __get_cpuid_max(0, nullptr) >= 7) {
        const bool ssse3_sse41 = ((c >> 9) & 1) && ((c >> 19) & 1);
        const bool ymm = ((c >> 27) & 1) && ((c >> 28) & 1);  // OSXSAVE, AVX
        unsigned lo = 0, hi = 0;
        if (ymm) __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        __cpuid_count(7, 0, a, b, c, d);
        cpu_sha = ssse3_sse41 && ((b >> 29) & 1);
        cpu_avx2 = ymm && (lo & 6) == 6 && ((b >> 5) & 1);
        cpu_bmi2 = (b >> 8) & 1;
    }
    const bool cpu_sha512 = cpu_avx2 && cpu_bmi2;
    EXPECT_EQ(kern::cpu_features_raw().sha, cpu_sha);
    EXPECT_EQ(kern::sha2_runnable_impls().size(), 1u + cpu_sha + cpu_sha512 + (cpu_sha && cpu_sha512));
    const char* mask = std::getenv("STITCH_CLEAR_CPUID");
    const std::string m = mask ? mask : "";
    const auto hidden = [&](const char* word) {
        return m.find("all") != std::string::npos || m.find(word) != std::string::npos;
    };
    const bool sha = cpu_sha && !hidden("sha");
    const bool avx2 = cpu_sha512 && !hidden("avx2") && !hidden("bmi2");
    const char* want = sha ? (avx2 ? "shani+avx2" : "shani") : (avx2 ? "avx2" : "portable");
    EXPECT_STREQ(kern::sha2_active_impl().name, want);
    std::printf("[ sha2     ] CPU SHA-NI: %s, AVX2+BMI2: %s; dispatch chose %s; sets run above: %zu\n",
                cpu_sha ? "yes" : "no", cpu_sha512 ? "yes" : "no", kern::sha2_active_impl().name,
                kern::sha2_runnable_impls().size());
}

INSTANTIATE_TEST_SUITE_P(EverySha2Set, Sha2Sets, ::testing::ValuesIn(sha2_sets()), sha2_set_name);
INSTANTIATE_TEST_SUITE_P(EverySha2Set, HmacOnSha2Sets, ::testing::ValuesIn(sha2_sets()), sha2_set_name);
INSTANTIATE_TEST_SUITE_P(EverySha2Set, HkdfOnSha2Sets, ::testing::ValuesIn(sha2_sets()), sha2_set_name);

}  // namespace
}  // namespace stitch::test
