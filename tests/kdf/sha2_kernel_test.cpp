// The SHA-2 and HMAC kernels called directly, on every SHA-2 set this CPU can
// run (portable, and SHA-NI where CPUID has it) whatever dispatch chose, one
// instance of each test per set, against libcrypto's digests and HMAC; and
// dispatch's choice itself.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cpuid.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/seeded_rng.hpp"
#include "common/test_util.hpp"
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

// Each test over SHA-2 sets runs once per set this CPU runs, named after it
// (EverySha2Set/Sha2Sets.LongMessages/shani).
class Sha2Sets : public ::testing::TestWithParam<const kern::Sha2Impl*> {};
class HmacOnSha2Sets : public Sha2Sets {};
class HkdfOnSha2Sets : public Sha2Sets {};

std::vector<const kern::Sha2Impl*> sha2_sets() {
    const auto all = kern::sha2_runnable_impls();
    return {all.begin(), all.end()};
}
std::string sha2_set_name(const ::testing::TestParamInfo<const kern::Sha2Impl*>& info) { return info.param->name; }

// Every length through the block edges (and two blocks past SHA-512's), in
// one update and in random pieces down to one byte.
TEST_P(Sha2Sets, DigestsMatchLibcryptoAtEveryLength) {
    const kern::Sha2Impl* impl = GetParam();
    Rng rng = seeded_rng(0x5a2d16e5);
    for (Sha2 a : kAlgs) {
        SCOPED_TRACE(name_of(a));
        for (size_t len = 0; len <= 400; ++len) {
            const Bytes m = rng.bytes(len);
            const Bytes want = reference_digest(a, m);
            Bytes got(want.size());
            kern::sha2_digest(*impl, a, m.data(), m.size(), got.data());
            ASSERT_EQ(to_hex(got), to_hex(want)) << "length " << len;

            kern::Sha2Hasher h(*impl, a);
            for (size_t pos = 0; pos < len;) {
                const size_t n = std::min(len - pos, 1 + rng.below(150));
                h.update(m.data() + pos, n);
                pos += n;
            }
            h.final(got.data());
            ASSERT_EQ(to_hex(got), to_hex(want)) << "length " << len << " in pieces";
        }
    }
}

// Many blocks in one call: the kernels' multi-block loops carry the state.
TEST_P(Sha2Sets, LongMessages) {
    const kern::Sha2Impl* impl = GetParam();
    Rng rng = seeded_rng(0x10e6);
    for (Sha2 a : kAlgs)
        for (size_t len : {4096u, 65536u + 7u}) {
            const Bytes m = rng.bytes(len);
            Bytes got(size_t(EVP_MD_get_size(md_of(a))));
            kern::sha2_digest(*impl, a, m.data(), m.size(), got.data());
            EXPECT_EQ(to_hex(got), to_hex(reference_digest(a, m))) << name_of(a) << " length " << len;
        }
}

// The SHA-NI compression against the portable one, block by block, from
// random chaining states (not only the IV).
TEST_P(Sha2Sets, EverySetCompressesLikePortable) {
    const kern::Sha2Impl* impl = GetParam();
    Rng rng = seeded_rng(0xc0de);
    for (int trial = 0; trial < 200; ++trial) {
        const size_t blocks = 1 + rng.below(5);
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
        ASSERT_EQ(to_hex(reinterpret_cast<uint8_t*>(c), 64), to_hex(reinterpret_cast<uint8_t*>(d), 64));
    }
}

// Keys of every length around the block (hashed when longer), messages in
// several pieces across block edges, and a key reused for many MACs.
TEST_P(HmacOnSha2Sets, MatchesLibcryptoHmac) {
    const kern::Sha2Impl* impl = GetParam();
    Rng rng = seeded_rng(0x4a4ac);
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
    const kern::Sha2Impl* impl = GetParam();
    Rng rng = seeded_rng(0xe4a9d);
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
}

// Dispatch takes SHA-NI exactly where CPUID reports SHA (with SSSE3 and
// SSE4.1) and STITCH_CLEAR_CPUID does not hide it. Under CTest's .portable
// run (STITCH_CLEAR_CPUID=all) this checks the portable choice.
TEST(Sha2Dispatch, FollowsCpuidAndTheMask) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    bool cpu_sha = false;
    if (__get_cpuid(1, &a, &b, &c, &d) && ((c >> 9) & 1) && ((c >> 19) & 1) && __get_cpuid_max(0, nullptr) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        cpu_sha = (b >> 29) & 1;
    }
    EXPECT_EQ(kern::cpu_features_raw().sha, cpu_sha);
    EXPECT_EQ(kern::sha2_shani_impl() != nullptr, cpu_sha);
    EXPECT_EQ(kern::sha2_runnable_impls().size(), cpu_sha ? 2u : 1u);
    const char* mask = std::getenv("STITCH_CLEAR_CPUID");
    const std::string m = mask ? mask : "";
    const bool masked = m.find("all") != std::string::npos || m.find("sha") != std::string::npos;
    EXPECT_STREQ(kern::sha2_active_impl().name, cpu_sha && !masked ? "shani" : "portable");
    std::printf("[ sha2     ] CPU SHA-NI: %s; dispatch chose %s; sets run above: %zu\n", cpu_sha ? "yes" : "no",
                kern::sha2_active_impl().name, kern::sha2_runnable_impls().size());
}

INSTANTIATE_TEST_SUITE_P(EverySha2Set, Sha2Sets, ::testing::ValuesIn(sha2_sets()), sha2_set_name);
INSTANTIATE_TEST_SUITE_P(EverySha2Set, HmacOnSha2Sets, ::testing::ValuesIn(sha2_sets()), sha2_set_name);
INSTANTIATE_TEST_SUITE_P(EverySha2Set, HkdfOnSha2Sets, ::testing::ValuesIn(sha2_sets()), sha2_set_name);

}  // namespace
}  // namespace stitch::test
