// Every bad input to HKDF and TLS13-KDF in one table. Each row is refused by
// stitch with the error it names and by the default provider too; the
// output buffer, filled with a canary, is untouched; and the same context
// then derives correctly from good params.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/stitch_errors.hpp"
#include "kdf/kdf_support.hpp"

namespace stitch::test {
namespace {

using prov::Reason;

Bytes bytes(size_t n, uint8_t v = 0x11) { return Bytes(n, v); }
Bytes text(const char* s) { return Bytes(s, s + std::strlen(s)); }

KdfParamSet hkdf(int mode, const char* digest = "SHA2-256") {
    KdfParamSet p;
    p.mode = mode;
    p.digest = digest;
    p.key = bytes(32);
    p.salt = bytes(16, 0x22);
    p.infos = {text("info")};
    return p;
}

KdfParamSet tls13(int mode, const char* digest = "SHA2-256") {
    KdfParamSet p;
    p.mode = mode;
    p.digest = digest;
    p.key = bytes(32);
    p.prefix = text("tls13 ");
    p.label = text("key");
    p.data = bytes(32, 0x33);
    return p;
}

struct Row {
    const char* what;
    const char* kdf;
    std::vector<KdfParamSet> sets;  // the last goes to EVP_KDF_derive
    size_t out_len;
    Reason reason;
    bool null_out = false;
};

std::vector<Row> rows() {
    constexpr int kBoth = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, kExtract = EVP_KDF_HKDF_MODE_EXTRACT_ONLY,
                  kExpand = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    std::vector<Row> r;
    auto without_key = [](KdfParamSet p) {
        p.key.reset();
        return p;
    };
    auto with = [](KdfParamSet p, auto f) {
        f(p);
        return p;
    };

    r.push_back({"HKDF: no key", "HKDF", {without_key(hkdf(kBoth))}, 32, prov::R_KEY_NOT_SET});
    r.push_back({"HKDF: key param with no data",
                 "HKDF",
                 {with(hkdf(kBoth),
                       [](KdfParamSet& p) {
                           p.key.reset();
                           p.null_key = true;
                       })},
                 32,
                 prov::R_INVALID_PARAM});
    r.push_back({"HKDF: zero-length output", "HKDF", {hkdf(kBoth)}, 0, prov::R_EMPTY_OUTPUT});
    r.push_back(
        {"HKDF: expand one byte past 255 blocks", "HKDF", {hkdf(kExpand)}, 255 * 32 + 1, prov::R_OUTPUT_TOO_LONG});
    r.push_back({"HKDF: SHA-384 extract-and-expand past 255 blocks",
                 "HKDF",
                 {hkdf(kBoth, "SHA384")},
                 255 * 48 + 1,
                 prov::R_OUTPUT_TOO_LONG});
    r.push_back({"HKDF: SHA-1 (fetched) past 255 blocks",
                 "HKDF",
                 {hkdf(kExpand, "SHA1")},
                 255 * 20 + 1,
                 prov::R_OUTPUT_TOO_LONG});
    r.push_back(
        {"HKDF: extract into fewer bytes than the digest", "HKDF", {hkdf(kExtract)}, 31, prov::R_EXTRACT_OUTPUT_SIZE});
    r.push_back({"HKDF: extract into more bytes than the digest",
                 "HKDF",
                 {hkdf(kExtract, "SHA512")},
                 65,
                 prov::R_EXTRACT_OUTPUT_SIZE});
    r.push_back({"HKDF: unknown digest", "HKDF", {hkdf(kBoth, "NO-SUCH-DIGEST")}, 32, prov::R_UNKNOWN_DIGEST});
    r.push_back({"HKDF: digest from a provider that is not loaded",
                 "HKDF",
                 {with(hkdf(kBoth, "SHA256"), [](KdfParamSet& p) { p.properties = "provider=fips"; })},
                 32,
                 prov::R_UNKNOWN_DIGEST});
    r.push_back({"HKDF: no digest",
                 "HKDF",
                 {with(hkdf(kBoth), [](KdfParamSet& p) { p.digest.reset(); })},
                 32,
                 prov::R_DIGEST_NOT_SET});
    r.push_back({"HKDF: an XOF digest", "HKDF", {hkdf(kBoth, "SHAKE128")}, 16, prov::R_DIGEST_NOT_USABLE});
    r.push_back(
        {"HKDF: mode 3", "HKDF", {with(hkdf(kBoth), [](KdfParamSet& p) { p.mode = 3; })}, 32, prov::R_INVALID_MODE});
    r.push_back(
        {"HKDF: mode -1", "HKDF", {with(hkdf(kBoth), [](KdfParamSet& p) { p.mode = -1; })}, 32, prov::R_INVALID_MODE});
    r.push_back({"HKDF: mode string EXTRACT",
                 "HKDF",
                 {with(hkdf(kBoth),
                       [](KdfParamSet& p) {
                           p.mode.reset();
                           p.mode_str = "EXTRACT";
                       })},
                 32,
                 prov::R_INVALID_MODE});
    r.push_back({"HKDF: info over 32 KiB in one param",
                 "HKDF",
                 {with(hkdf(kExpand), [](KdfParamSet& p) { p.infos = {bytes(32 * 1024 + 1)}; })},
                 32,
                 prov::R_INFO_TOO_LONG});
    r.push_back({"HKDF: info over 32 KiB across two params",
                 "HKDF",
                 {with(hkdf(kExpand),
                       [](KdfParamSet& p) {
                           p.infos = {bytes(16 * 1024), bytes(16 * 1024 + 1)};
                       })},
                 32,
                 prov::R_INFO_TOO_LONG});
    r.push_back({"HKDF: NULL output buffer", "HKDF", {hkdf(kBoth)}, 32, prov::R_NULL_BUFFER, true});
    // 3.0 keeps a refused salt's length with no salt, and then refuses to extract.
    r.push_back({"HKDF: extract after a salt param with no data",
                 "HKDF",
                 {with(hkdf(kExtract),
                       [](KdfParamSet& p) {
                           p.salt.reset();
                           p.null_salt_len = 44;
                       }),
                  KdfParamSet{}},
                 32,
                 prov::R_SALT_REFUSED});

    r.push_back({"TLS13-KDF: prefix and label of 256 bytes",
                 "TLS13-KDF",
                 {with(tls13(kExpand), [](KdfParamSet& p) { p.label = bytes(250, 'l'); })},
                 32,
                 prov::R_LABEL_TOO_LONG});
    r.push_back({"TLS13-KDF: extract step with a 256-byte prefix and label",
                 "TLS13-KDF",
                 {with(tls13(kExtract),
                       [](KdfParamSet& p) {
                           p.label = bytes(250, 'l');
                           p.salt = bytes(32);
                       })},
                 32,
                 prov::R_LABEL_TOO_LONG});
    r.push_back({"TLS13-KDF: context (data) of 256 bytes",
                 "TLS13-KDF",
                 {with(tls13(kExpand), [](KdfParamSet& p) { p.data = bytes(256); })},
                 32,
                 prov::R_CONTEXT_TOO_LONG});
    r.push_back({"TLS13-KDF: mode EXTRACT_AND_EXPAND", "TLS13-KDF", {tls13(kBoth)}, 32, prov::R_INVALID_MODE});
    r.push_back({"TLS13-KDF: mode never set",
                 "TLS13-KDF",
                 {with(tls13(kExpand), [](KdfParamSet& p) { p.mode.reset(); })},
                 32,
                 prov::R_INVALID_MODE});
    r.push_back(
        {"TLS13-KDF: expand without a key", "TLS13-KDF", {without_key(tls13(kExpand))}, 32, prov::R_KEY_NOT_SET});
    r.push_back({"TLS13-KDF: extract into 48 bytes with SHA-256",
                 "TLS13-KDF",
                 {tls13(kExtract)},
                 48,
                 prov::R_EXTRACT_OUTPUT_SIZE});
    r.push_back(
        {"TLS13-KDF: expand past 255 blocks", "TLS13-KDF", {tls13(kExpand)}, 255 * 32 + 1, prov::R_OUTPUT_TOO_LONG});
    r.push_back({"TLS13-KDF: unknown digest", "TLS13-KDF", {tls13(kExpand, "SHA-257")}, 32, prov::R_UNKNOWN_DIGEST});
    r.push_back({"TLS13-KDF: NULL output buffer", "TLS13-KDF", {tls13(kExpand)}, 32, prov::R_NULL_BUFFER, true});
    return r;
}

// Refused by both; stitch raises its reason and writes nothing; then a good
// derive on the same context matches the default provider's.
void check_row(const Row& row) {
    SCOPED_TRACE(row.what);
    const KdfPair kdf(row.kdf);
    for (const bool stitch : {true, false}) {
        SCOPED_TRACE(stitch ? "stitch" : "default");
        KdfCtxPtr ctx = new_kdf_ctx(stitch ? kdf.stitch : kdf.dflt);
        std::vector<KdfParamSet> sets = row.sets;
        for (size_t i = 0; i + 1 < sets.size(); ++i) {
            ParamArray p(sets[i]);
            EVP_KDF_CTX_set_params(ctx.get(), p.get());
        }
        Bytes out(row.out_len + 16, 0xa5);
        ERR_clear_error();
        ParamArray last(sets.back());
        const int rc = EVP_KDF_derive(ctx.get(), row.null_out ? nullptr : out.data(), row.out_len, last.get());
        EXPECT_LE(rc, 0) << "accepted";
        EXPECT_EQ(out, Bytes(row.out_len + 16, 0xa5)) << "a refused derive wrote to its output";
        if (stitch) expect_stitch_error(row.reason);
        ERR_clear_error();
    }
    // The refused context still works.
    KdfParamSet good = std::string(row.kdf) == "HKDF" ? hkdf(EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND)
                                                      : tls13(EVP_KDF_HKDF_MODE_EXPAND_ONLY);
    KdfCtxPtr s = new_kdf_ctx(kdf.stitch);
    {
        std::vector<KdfParamSet> sets = row.sets;
        ParamArray p(sets.back());
        Bytes out(row.out_len + 1);
        EVP_KDF_derive(s.get(), row.null_out ? nullptr : out.data(), row.out_len, p.get());
        ERR_clear_error();
    }
    const DeriveResult after = run_kdf(s.get(), {good}, 42);
    const DeriveResult want = run_kdf(kdf.dflt, {good}, 42);
    ASSERT_EQ(want.rc, 1);
    EXPECT_EQ(after.rc, 1);
    EXPECT_EQ(to_hex(after.out), to_hex(want.out)) << "after the refusal";
}

TEST(KdfBadInput, EveryRowRefusedWithItsErrorAndNothingWritten) {
    for (const Row& row : rows()) check_row(row);
}

// A failed set_params says why, too: the refused param named by stitch's error.
TEST(KdfBadInput, RefusedSetParamsRaiseTheirError) {
    const KdfPair kdf("HKDF");
    KdfCtxPtr ctx = new_kdf_ctx(kdf.stitch);
    KdfParamSet p;
    p.digest = "NO-SUCH-DIGEST";
    ParamArray a(p);
    EXPECT_EQ(EVP_KDF_CTX_set_params(ctx.get(), a.get()), 0);
    expect_stitch_error(prov::R_UNKNOWN_DIGEST);

    OSSL_PARAM wrong_type[] = {OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>("SHA256"), 6),
                               OSSL_PARAM_construct_end()};
    EXPECT_EQ(EVP_KDF_CTX_set_params(ctx.get(), wrong_type), 0);
    expect_stitch_error(prov::R_INVALID_PARAM);

    OSSL_PARAM null_mode[] = {OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE, nullptr, 0),
                              OSSL_PARAM_construct_end()};
    EXPECT_EQ(EVP_KDF_CTX_set_params(ctx.get(), null_mode), 0);  // 3.0 dereferences it
    expect_stitch_error(prov::R_INVALID_MODE);
}

}  // namespace
}  // namespace stitch::test
