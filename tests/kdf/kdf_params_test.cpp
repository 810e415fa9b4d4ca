// The parameter contract of OpenSSL 3.0's HKDF and TLS13-KDF, stitch beside
// the default provider: the settable and gettable tables, `size` and `info`
// reads, reset, several `info` params and their 32 KiB cap, mode numbers and
// strings, digest names (the list stitch matches without a fetch, against
// the names OpenSSL registers), `properties`, TLS13-KDF forgetting `data`,
// dupctx (stitch only: 3.0 has none), and the provider's `sha2_kernel`.
#include <gtest/gtest.h>
#include <openssl/provider.h>

#include <algorithm>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <cctype>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/stitch_errors.hpp"
#include "kdf/kdf_support.hpp"
#include "kernels/sha2.hpp"
#include "provider/kdfs/digest_names.hpp"

namespace stitch::test {
namespace {

std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::set<std::string> keys_and_types(const OSSL_PARAM* p) {
    std::set<std::string> s;
    for (; p && p->key; ++p) s.insert(std::string(p->key) + "/" + std::to_string(p->data_type));
    return s;
}

Bytes text(const char* s) { return Bytes(s, s + std::strlen(s)); }

KdfParamSet hkdf_params(int mode = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND) {
    KdfParamSet p;
    p.mode = mode;
    p.digest = "SHA2-256";
    p.key = Bytes(32, 0x0b);
    p.salt = text("salt");
    return p;
}

TEST(KdfParams, SettableAndGettableTablesMatchDefault) {
    for (const char* name : {"HKDF", "TLS13-KDF"}) {
        SCOPED_TRACE(name);
        const KdfPair kdf(name);
        EXPECT_EQ(keys_and_types(EVP_KDF_settable_ctx_params(kdf.stitch.get())),
                  keys_and_types(EVP_KDF_settable_ctx_params(kdf.dflt.get())));
        EXPECT_EQ(keys_and_types(EVP_KDF_gettable_ctx_params(kdf.stitch.get())),
                  keys_and_types(EVP_KDF_gettable_ctx_params(kdf.dflt.get())));
    }
}

// size: SIZE_MAX for the expanding modes, HashLen for EXTRACT_ONLY, refused
// without a digest; read back the same from both providers.
TEST(KdfParams, SizeFollowsModeAndDigest) {
    for (const char* name : {"HKDF", "TLS13-KDF"}) {
        SCOPED_TRACE(name);
        const KdfPair kdf(name);
        for (const bool stitch : {true, false}) {
            KdfCtxPtr c = new_kdf_ctx(stitch ? kdf.stitch : kdf.dflt);
            EXPECT_EQ(EVP_KDF_CTX_get_kdf_size(c.get()), SIZE_MAX);
            KdfParamSet m;
            m.mode = EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
            ParamArray pm(m);
            ASSERT_EQ(EVP_KDF_CTX_set_params(c.get(), pm.get()), 1);
            EXPECT_EQ(EVP_KDF_CTX_get_kdf_size(c.get()), 0u) << "EXTRACT_ONLY without a digest";
            if (stitch) expect_stitch_error(prov::R_DIGEST_NOT_SET);
            ERR_clear_error();
            for (auto [digest, size] :
                 {std::pair{"SHA256", 32}, {"sha-384", 48}, {"SHA2-512", 64}, {"SHA1", 20}, {"SHA3-224", 28}}) {
                KdfParamSet d;
                d.digest = digest;
                ParamArray pd(d);
                ASSERT_EQ(EVP_KDF_CTX_set_params(c.get(), pd.get()), 1) << digest;
                EXPECT_EQ(EVP_KDF_CTX_get_kdf_size(c.get()), size_t(size)) << digest;
            }
            m.mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
            ParamArray pe(m);
            ASSERT_EQ(EVP_KDF_CTX_set_params(c.get(), pe.get()), 1);
            EXPECT_EQ(EVP_KDF_CTX_get_kdf_size(c.get()), SIZE_MAX);
            // Neither size nor info asked: 3.0 answers -2, which EVP passes on.
            int unused = 0;
            OSSL_PARAM other[] = {OSSL_PARAM_construct_int("no-such-param", &unused), OSSL_PARAM_construct_end()};
            EXPECT_EQ(EVP_KDF_CTX_get_params(c.get(), other), -2);
        }
    }
}

// Several `info` params in one call are one info, concatenated; a later call
// with info replaces it; it reads back through `info`.
TEST(KdfParams, InfosConcatenateAndReadBack) {
    const KdfPair kdf("HKDF");
    const Bytes a = text("first-"), b = text("second-"), c = text("third");
    for (const bool stitch : {true, false}) {
        SCOPED_TRACE(stitch ? "stitch" : "default");
        const KdfPtr& k = stitch ? kdf.stitch : kdf.dflt;
        KdfParamSet three = hkdf_params(), one = hkdf_params();
        three.infos = {a, b, c};
        one.infos = {concat(concat(a, b), c)};
        const DeriveResult r3 = run_kdf(k, {three}, 64), r1 = run_kdf(k, {one}, 64);
        ASSERT_EQ(r3.rc, 1);
        EXPECT_EQ(to_hex(r3.out), to_hex(r1.out));

        KdfCtxPtr ctx = new_kdf_ctx(k);
        ParamArray p3(three);
        ASSERT_EQ(EVP_KDF_CTX_set_params(ctx.get(), p3.get()), 1);
        uint8_t buf[64];
        OSSL_PARAM get[] = {OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, buf, sizeof(buf)),
                            OSSL_PARAM_construct_end()};
        ASSERT_EQ(EVP_KDF_CTX_get_params(ctx.get(), get), 1);
        EXPECT_EQ(to_hex(buf, get[0].return_size), to_hex(one.infos[0]));
        OSSL_PARAM small[] = {OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, buf, 4),
                              OSSL_PARAM_construct_end()};
        EXPECT_EQ(EVP_KDF_CTX_get_params(ctx.get(), small), 0) << "info does not fit";
        ERR_clear_error();

        KdfParamSet later;
        later.infos = {b};
        ParamArray pl(later);
        ASSERT_EQ(EVP_KDF_CTX_set_params(ctx.get(), pl.get()), 1);
        ASSERT_EQ(EVP_KDF_CTX_get_params(ctx.get(), get), 1);
        EXPECT_EQ(to_hex(buf, get[0].return_size), to_hex(b)) << "a later info replaces";
    }
}

// 32 KiB of info in all is accepted, one byte more refused, whether in one
// param or split; the refusal leaves the previous info in place.
TEST(KdfParams, InfoCapIs32KiBInAll) {
    const KdfPair kdf("HKDF");
    for (const auto& sizes : std::vector<std::vector<size_t>>{{32768}, {16384, 16384}, {32769}, {16384, 16385}}) {
        size_t total = 0;
        for (size_t n : sizes) total += n;
        SCOPED_TRACE("info " + std::to_string(total));
        KdfParamSet p = hkdf_params(EVP_KDF_HKDF_MODE_EXPAND_ONLY);
        for (size_t n : sizes) p.infos.push_back(Bytes(n, 0x69));
        const DeriveResult s = run_kdf(kdf.stitch, {p}, 32), d = run_kdf(kdf.dflt, {p}, 32);
        EXPECT_EQ(s.rc, total <= 32768 ? 1 : 0);
        EXPECT_EQ(s, d);
    }
}

// Where 3.0.19 is unsafe, stitch is not: an empty info after a non-empty one
// clears it (3.0.19 frees it, keeps its length, and its next derive reads
// through a NULL pointer, so it is not run here).
TEST(KdfParams, EmptyInfoAfterInfoClearsIt) {
    const KdfPair kdf("HKDF");
    KdfParamSet with = hkdf_params(), without = hkdf_params(), empty;
    with.infos = {text("context")};
    empty.infos = {Bytes{}};
    KdfCtxPtr ctx = new_kdf_ctx(kdf.stitch);
    ASSERT_EQ(run_kdf(ctx.get(), {with}, 32).rc, 1);
    const DeriveResult r = run_kdf(ctx.get(), {empty}, 32, false);
    ASSERT_EQ(r.rc, 1);
    EXPECT_EQ(to_hex(r.out), to_hex(run_kdf(kdf.dflt, {without}, 32).out));
}

TEST(KdfParams, ResetForgetsEverything) {
    for (const char* name : {"HKDF", "TLS13-KDF"}) {
        SCOPED_TRACE(name);
        const KdfPair kdf(name);
        KdfParamSet p = hkdf_params(EVP_KDF_HKDF_MODE_EXPAND_ONLY);
        p.digest = "SHA1";  // the fetched path too: its digest is released
        for (const bool stitch : {true, false}) {
            KdfCtxPtr c = new_kdf_ctx(stitch ? kdf.stitch : kdf.dflt);
            ParamArray a(p);
            ASSERT_EQ(EVP_KDF_CTX_set_params(c.get(), a.get()), 1);
            EVP_KDF_CTX_reset(c.get());
            EXPECT_EQ(EVP_KDF_CTX_get_kdf_size(c.get()), SIZE_MAX) << "mode back to its default";
            uint8_t out[32];
            EXPECT_EQ(EVP_KDF_derive(c.get(), out, sizeof(out), nullptr), 0) << "digest and key gone";
            if (stitch && std::string(name) == "HKDF") expect_stitch_error(prov::R_DIGEST_NOT_SET);
            ERR_clear_error();
        }
        const DeriveResult s = run_kdf(kdf.stitch, {p}, 20), d = run_kdf(kdf.dflt, {p}, 20);
        EXPECT_EQ(s, d);
    }
}

// Mode as a number or as a string in any case, on both KDFs.
TEST(KdfParams, ModeNumbersAndStrings) {
    const KdfPair hkdf("HKDF");
    for (const char* s : {"EXTRACT_AND_EXPAND", "extract_only", "Expand_Only", "EXPAND_ONLY"}) {
        KdfParamSet byname = hkdf_params(), bynumber = hkdf_params();
        byname.mode.reset();
        byname.mode_str = s;
        bynumber.mode = mode_number(upper(s).c_str());
        const size_t len = bynumber.mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY ? 32 : 40;
        const DeriveResult a = run_kdf(hkdf.stitch, {byname}, len), b = run_kdf(hkdf.stitch, {bynumber}, len),
                           d = run_kdf(hkdf.dflt, {byname}, len);
        EXPECT_EQ(a.rc, 1) << s;
        EXPECT_EQ(a, b) << s;
        EXPECT_EQ(a, d) << s;
    }
}

// kSha2Names is every name the default provider registers for SHA-256,
// SHA-384 and SHA-512, no more and no fewer (compared without case, as
// fetches compare), and each derives what the default provider derives.
TEST(KdfParams, Sha2NameListIsExactlyOpenSslsNames) {
    const KdfPair kdf("HKDF");
    for (auto [canonical, alg] : {std::pair{"SHA2-256", kern::Sha2::sha256},
                                  {"SHA2-384", kern::Sha2::sha384},
                                  {"SHA2-512", kern::Sha2::sha512}}) {
        SCOPED_TRACE(canonical);
        EVP_MD* md = EVP_MD_fetch(providers().libctx(), canonical, "provider=default");
        ASSERT_NE(md, nullptr);
        std::set<std::string> openssl;
        EVP_MD_names_do_all(
            md, [](const char* n, void* set) { static_cast<std::set<std::string>*>(set)->insert(upper(n)); }, &openssl);
        EVP_MD_free(md);
        std::set<std::string> ours;
        for (const auto& n : prov::kSha2Names)
            if (n.alg == alg) ours.insert(upper(n.name));
        EXPECT_EQ(ours, openssl);
        for (const std::string& name : openssl) {
            KdfParamSet p = hkdf_params();
            p.digest = name;
            p.infos = {text("names")};
            const DeriveResult s = run_kdf(kdf.stitch, {p}, 50), d = run_kdf(kdf.dflt, {p}, 50);
            EXPECT_EQ(s.rc, 1) << name;
            EXPECT_EQ(s, d) << name;
        }
    }
}

// `properties` picks where a digest is fetched from; with it stitch fetches
// even SHA-256, so the answer is the default provider's in every case.
TEST(KdfParams, PropertiesAreHonoured) {
    const KdfPair kdf("HKDF");
    for (const char* props : {"provider=default", "", "provider=stitch", "provider=nonesuch"}) {
        for (const char* digest : {"SHA256", "SHA1"}) {
            SCOPED_TRACE(std::string(digest) + " with properties \"" + props + "\"");
            KdfParamSet p = hkdf_params();
            p.digest = digest;
            p.properties = props;
            const DeriveResult s = run_kdf(kdf.stitch, {p}, 32), d = run_kdf(kdf.dflt, {p}, 32);
            EXPECT_EQ(s, d);
            EXPECT_EQ(s.rc,
                      std::string(props).find("provider=") == 0 && std::string(props) != "provider=default" ? 0 : 1);
        }
    }
}

// TLS13-KDF forgets `data` on each set_params call, and checks the mode on
// every call that passes params.
TEST(KdfParams, Tls13KdfDataLastsOneCall) {
    const KdfPair kdf("TLS13-KDF");
    KdfParamSet p;
    p.mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    p.digest = "SHA2-384";
    p.key = Bytes(48, 7);
    p.prefix = text("tls13 ");
    p.label = text("c ap traffic");
    p.data = Bytes(48, 9);
    KdfParamSet nothing;
    for (const bool stitch : {true, false}) {
        SCOPED_TRACE(stitch ? "stitch" : "default");
        const KdfPtr& k = stitch ? kdf.stitch : kdf.dflt;
        KdfCtxPtr c = new_kdf_ctx(k);
        const DeriveResult with_data = run_kdf(c.get(), {p}, 48, false);  // set, then derive(NULL params)
        const DeriveResult again = run_kdf(c.get(), {nothing}, 48);       // derive with an empty list: data gone
        KdfParamSet no_data = p;
        no_data.data.reset();
        const DeriveResult want = run_kdf(k, {no_data}, 48);
        ASSERT_EQ(with_data.rc, 1);
        ASSERT_EQ(again.rc, 1);
        EXPECT_NE(with_data.out, again.out);
        EXPECT_EQ(again, want);
        const DeriveResult zero = run_kdf(k, {p}, 0);
        EXPECT_EQ(zero.rc, 1) << "a zero-length expand is accepted, as 3.0 does";
    }
}

// dupctx: 3.0 has none; stitch's copy derives what the original derives,
// and the two are independent afterwards.
TEST(KdfParams, DupCopiesEverythingStitchOnly) {
    for (const char* name : {"HKDF", "TLS13-KDF"}) {
        for (const char* digest : {"SHA2-256", "SHA1"}) {
            SCOPED_TRACE(std::string(name) + " " + digest);
            const KdfPair kdf(name);
            KdfParamSet p = hkdf_params(EVP_KDF_HKDF_MODE_EXPAND_ONLY);
            p.digest = digest;
            p.key = Bytes(100, 0x42);  // longer than stitch keeps inline
            p.infos = {Bytes(300, 0x17)};
            p.prefix = text("tls13 ");
            p.label = text("derived");
            p.data = Bytes(20, 3);
            KdfCtxPtr d = new_kdf_ctx(kdf.dflt);
            EXPECT_EQ(EVP_KDF_CTX_dup(d.get()), nullptr) << "3.0's default provider grew a dupctx";
            KdfCtxPtr s = new_kdf_ctx(kdf.stitch);
            ParamArray a(p);
            ASSERT_EQ(EVP_KDF_CTX_set_params(s.get(), a.get()), 1);
            KdfCtxPtr copy(EVP_KDF_CTX_dup(s.get()));
            ASSERT_NE(copy, nullptr);
            const DeriveResult from_copy = run_kdf(copy.get(), {}, 70, false);
            KdfParamSet other;
            other.key = Bytes(32, 1);
            ParamArray b(other);
            ASSERT_EQ(EVP_KDF_CTX_set_params(copy.get(), b.get()), 1);
            const DeriveResult from_original = run_kdf(s.get(), {}, 70, false);
            const DeriveResult want = run_kdf(kdf.dflt, {p}, 70);
            ASSERT_EQ(want.rc, 1);
            EXPECT_EQ(from_copy, want);
            EXPECT_EQ(from_original, want) << "re-keying the copy changed the original";
            s.reset();
            EXPECT_EQ(run_kdf(copy.get(), {}, 70, false).rc, 1) << "the copy outlives the original";
        }
    }
}

// The provider says which SHA-2 kernels its KDFs run on: dispatch's choice
// in this process (SHA-NI where the CPU has it, portable under the mask).
TEST(KdfParams, ProviderReportsItsSha2Kernel) {
    const char* value = nullptr;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_ptr("sha2_kernel", const_cast<char**>(&value), 0),
                      OSSL_PARAM_construct_end()};
    ASSERT_EQ(OSSL_PROVIDER_get_params(providers().stitch(), p), 1);
    ASSERT_NE(value, nullptr);
    EXPECT_STREQ(value, kern::sha2_active_impl().name);
    // CTest's .portable run must really be on the portable SHA-2 kernels.
    const char* mask = std::getenv("STITCH_CLEAR_CPUID");
    if (mask && std::string(mask) == "all") {
        EXPECT_STREQ(value, "portable");
    }
    std::printf("[ sha2     ] stitch's KDFs run on the %s SHA-2 kernels\n", value);
}

// Digests stitch fetches go through a child library context it makes on
// first need: threads that race to make it, in a fresh library context,
// all derive the right bytes.
TEST(KdfParams, ThreadsRaceToTheFirstFetchedDigest) {
    OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
    ASSERT_NE(libctx, nullptr);
    ASSERT_EQ(OSSL_PROVIDER_set_default_search_path(libctx, module_dir()), 1);
    OSSL_PROVIDER* s = OSSL_PROVIDER_load(libctx, "stitch");
    OSSL_PROVIDER* d = OSSL_PROVIDER_load(libctx, "default");
    ASSERT_TRUE(s && d);
    EVP_KDF* hkdf = EVP_KDF_fetch(libctx, "HKDF", "provider=stitch");
    ASSERT_NE(hkdf, nullptr);
    KdfParamSet p = hkdf_params();
    p.digest = "SHA3-256";
    const DeriveResult want = run_kdf(fetch_kdf("HKDF", "default"), {p}, 32);
    ASSERT_EQ(want.rc, 1);
    std::vector<std::thread> threads;
    std::vector<Bytes> got(4);
    for (size_t t = 0; t < got.size(); ++t)
        threads.emplace_back([&, t] {
            KdfParamSet mine = p;
            ParamArray a(mine);
            EVP_KDF_CTX* c = EVP_KDF_CTX_new(hkdf);
            Bytes out(32);
            if (c && EVP_KDF_derive(c, out.data(), out.size(), a.get()) == 1) got[t] = out;
            EVP_KDF_CTX_free(c);
        });
    for (auto& t : threads) t.join();
    for (const Bytes& g : got) EXPECT_EQ(to_hex(g), to_hex(want.out));
    EVP_KDF_free(hkdf);
    OSSL_PROVIDER_unload(s);
    OSSL_PROVIDER_unload(d);
    OSSL_LIB_CTX_free(libctx);
}


// Raw param arrays, for what KdfParamSet cannot say: unknown keys, a key
// given twice, params of the wrong type.
struct RawParams {
    std::vector<OSSL_PARAM> p;
    std::vector<std::string> strings;  // reserved: params point into them
    std::vector<Bytes> bytes;
    int ints[8] = {};
    int n_ints = 0;
    RawParams() {
        strings.reserve(32);
        bytes.reserve(32);
    }
    RawParams& utf8(const char* key, const char* v) {
        strings.emplace_back(v);
        p.push_back(OSSL_PARAM_construct_utf8_string(key, strings.back().data(), 0));
        return *this;
    }
    RawParams& octets(const char* key, Bytes v) {
        bytes.push_back(std::move(v));
        p.push_back(OSSL_PARAM_construct_octet_string(key, bytes.back().data(), bytes.back().size()));
        return *this;
    }
    RawParams& integer(const char* key, int v) {
        ints[n_ints] = v;
        p.push_back(OSSL_PARAM_construct_int(key, &ints[n_ints++]));
        return *this;
    }
    OSSL_PARAM* get() {
        p.push_back(OSSL_PARAM_construct_end());
        return p.data();
    }
};

// Runs the same raw params on both providers: set_params, then a derive.
void same_on_both(const KdfPair& kdf, const std::function<void(RawParams&)>& fill, size_t len, const std::string& what) {
    SCOPED_TRACE(what);
    int rc[2];
    DeriveResult r[2];
    for (int i = 0; i < 2; ++i) {
        RawParams raw;
        fill(raw);
        KdfCtxPtr c = new_kdf_ctx(i ? kdf.dflt : kdf.stitch);
        rc[i] = EVP_KDF_CTX_set_params(c.get(), raw.get());
        ERR_clear_error();
        r[i] = run_kdf(c.get(), {}, len, false);
    }
    EXPECT_EQ(rc[0], rc[1]) << "set_params: stitch, default";
    EXPECT_EQ(r[0], r[1]);
}

// A key given twice: the first counts (OSSL_PARAM_locate's rule), in 3.0 and
// in stitch. Keys neither KDF knows, whatever letter they start with, are
// ignored by both.
TEST(KdfParams, RepeatedAndUnknownKeysActAsInOpenSsl) {
    const KdfPair hkdf("HKDF"), tls("TLS13-KDF");
    auto hkdf_base = [](RawParams& r) {
        r.utf8("digest", "SHA2-256").utf8("digest", "SHA1").integer("mode", 0).integer("mode", 1);
        r.octets("key", Bytes(32, 1)).octets("key", Bytes(20, 2)).octets("salt", Bytes(16, 3));
        r.octets("salt", Bytes(8, 4)).utf8("properties", "provider=default").utf8("properties", "provider=nonesuch");
        r.octets("info", text("first")).octets("info", text("second"));
    };
    same_on_both(hkdf, hkdf_base, 32, "HKDF, every key twice");
    same_on_both(
        hkdf,
        [&](RawParams& r) {
            for (const char* k : {"dummy", "mac", "kdf-size", "lbl", "pkey", "seed", "iv", "zz", "digest-x", "key2",
                                  "labels", "prefixes", "salty", "info2", "data2", "modes", "propq"})
                r.octets(k, text("ignored"));
            hkdf_base(r);
        },
        32, "HKDF, unknown keys first");
    auto tls_base = [](RawParams& r) {
        r.integer("mode", 2).integer("mode", 0).utf8("digest", "SHA2-384").utf8("digest", "SHA2-256");
        r.octets("key", Bytes(48, 1)).octets("key", Bytes(32, 2)).octets("prefix", text("tls13 "));
        r.octets("prefix", text("dtls13")).octets("label", text("c hs traffic")).octets("label", text("key"));
        r.octets("data", Bytes(48, 5)).octets("data", Bytes(7, 6));
    };
    same_on_both(tls, tls_base, 48, "TLS13-KDF, every key twice");
    same_on_both(
        tls,
        [&](RawParams& r) {
            for (const char* k : {"data-x", "moderate", "keys", "lab", "pre", "sal", "i", "q"}) r.octets(k, text("x"));
            tls_base(r);
        },
        48, "TLS13-KDF, unknown keys first");
}

// Params of the wrong type are refused by both, with what came before them
// applied, and the refused field left unset.
TEST(KdfParams, ParamsOfTheWrongTypeAreRefusedAsInOpenSsl) {
    const KdfPair hkdf("HKDF"), tls("TLS13-KDF");
    auto hkdf_with = [](std::function<void(RawParams&)> bad) {
        return [bad](RawParams& r) {
            r.utf8("digest", "SHA2-256").integer("mode", 0).octets("key", Bytes(32, 1)).octets("salt", Bytes(8, 2));
            bad(r);
        };
    };
    same_on_both(hkdf, hkdf_with([](RawParams& r) { r.octets("properties", text("provider=default")); }), 32,
                 "properties as octets");
    same_on_both(hkdf, hkdf_with([](RawParams& r) { r.utf8("info", "info as text"); }), 32, "info as text");
    same_on_both(
        hkdf,
        [](RawParams& r) {
            r.utf8("digest", "SHA2-256").octets("mode", text("1")).octets("key", Bytes(32, 1));
        },
        32, "mode as octets");
    same_on_both(
        hkdf, [](RawParams& r) { r.utf8("digest", "SHA2-256").utf8("key", "a key as text"); }, 32, "key as text");
    same_on_both(
        hkdf, [](RawParams& r) { r.utf8("digest", "SHA2-256").octets("key", Bytes(32, 1)).integer("salt", 7); }, 32,
        "salt as an integer");
    auto tls_with = [](std::function<void(RawParams&)> bad) {
        return [bad](RawParams& r) {
            r.integer("mode", 2).utf8("digest", "SHA2-256").octets("key", Bytes(32, 1));
            bad(r);
        };
    };
    same_on_both(tls, tls_with([](RawParams& r) { r.utf8("prefix", "tls13 "); }), 32, "prefix as text");
    same_on_both(tls, tls_with([](RawParams& r) { r.integer("label", 3); }), 32, "label as an integer");
    same_on_both(tls, tls_with([](RawParams& r) { r.utf8("data", "context"); }), 32, "data as text");
}

// A salt param with no data and no length is refused, and leaves no salt:
// HKDF then extracts as with none (not refused, as after a length).
TEST(KdfParams, SaltWithNoDataAndNoLength) {
    const KdfPair kdf("HKDF");
    for (int mode : {EVP_KDF_HKDF_MODE_EXTRACT_ONLY, EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND}) {
        KdfParamSet p = hkdf_params(mode);
        p.salt.reset();
        p.null_salt_len = 0;
        const DeriveResult s = run_kdf(kdf.stitch, {p, KdfParamSet{}}, 32), d = run_kdf(kdf.dflt, {p, KdfParamSet{}}, 32);
        EXPECT_EQ(s.rc, 1);
        EXPECT_EQ(s, d);
        p.null_salt_len.reset();
        EXPECT_EQ(s, run_kdf(kdf.dflt, {p}, 32)) << "as with no salt";
    }
}

// The "NULL" digest has no size: `size` in EXTRACT_ONLY and every derive are
// refused, on both providers.
TEST(KdfParams, DigestOfNoSizeIsRefusedAtUse) {
    for (const char* name : {"HKDF", "TLS13-KDF"}) {
        SCOPED_TRACE(name);
        const KdfPair kdf(name);
        KdfParamSet p = hkdf_params(EVP_KDF_HKDF_MODE_EXTRACT_ONLY);
        p.digest = "NULL";
        for (const bool stitch : {true, false}) {
            KdfCtxPtr c = new_kdf_ctx(stitch ? kdf.stitch : kdf.dflt);
            ParamArray a(p);
            EXPECT_EQ(EVP_KDF_CTX_set_params(c.get(), a.get()), 1);
            EXPECT_EQ(EVP_KDF_CTX_get_kdf_size(c.get()), 0u);
            ERR_clear_error();
            EXPECT_EQ(run_kdf(c.get(), {}, 32, false).rc, 0);
            if (stitch) {
                uint8_t out[32];
                EXPECT_EQ(EVP_KDF_derive(c.get(), out, sizeof(out), nullptr), 0);
                expect_stitch_error(prov::R_DIGEST_NOT_USABLE);
            }
        }
    }
}

// `size` into a param narrower than size_t: SIZE_MAX does not fit (refused),
// a HashLen does; alike on both.
TEST(KdfParams, SizeIntoANarrowParam) {
    const KdfPair kdf("HKDF");
    for (int mode : {EVP_KDF_HKDF_MODE_EXPAND_ONLY, EVP_KDF_HKDF_MODE_EXTRACT_ONLY}) {
        int rc[2];
        unsigned v[2] = {};
        for (int i = 0; i < 2; ++i) {
            KdfCtxPtr c = new_kdf_ctx(i ? kdf.dflt : kdf.stitch);
            KdfParamSet p = hkdf_params(mode);
            ParamArray a(p);
            ASSERT_EQ(EVP_KDF_CTX_set_params(c.get(), a.get()), 1);
            OSSL_PARAM get[] = {OSSL_PARAM_construct_uint(OSSL_KDF_PARAM_SIZE, &v[i]), OSSL_PARAM_construct_end()};
            rc[i] = EVP_KDF_CTX_get_params(c.get(), get);
            ERR_clear_error();
        }
        EXPECT_EQ(rc[0], rc[1]) << "mode " << mode;
        EXPECT_EQ(rc[0], mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY ? 1 : 0);
        EXPECT_EQ(v[0], v[1]);
    }
}

// Every input longer than stitch keeps inline (so on the heap), in every
// mode of both KDFs, on its kernels and its fetched-digest path; info read
// back from the heap; a copy of such a context.
TEST(KdfParams, EveryInputOnTheHeapInEveryMode) {
    for (const char* digest : {"SHA2-256", "SHA2-512", "SHA1"}) {
        for (const char* name : {"HKDF", "TLS13-KDF"}) {
            const KdfPair kdf(name);
            const bool tls = std::string(name) == "TLS13-KDF";
            for (int mode : {0, 1, 2}) {
                if (tls && mode == 0) continue;
                SCOPED_TRACE(std::string(name) + " " + digest + " mode " + std::to_string(mode));
                KdfParamSet p;
                p.mode = mode;
                p.digest = digest;
                p.key = Bytes(100, 0x4b);
                p.salt = Bytes(100, 0x53);
                if (!tls) p.infos = {Bytes(200, 0x49)};
                if (tls) {
                    p.prefix = Bytes(20, 0x50);
                    p.label = Bytes(100, 0x4c);
                    p.data = Bytes(100, 0x44);
                }
                const size_t hash_len = std::string(digest) == "SHA1" ? 20 : std::string(digest) == "SHA2-512" ? 64 : 32;
                const size_t len = mode == 1 ? hash_len : 70;
                const DeriveResult want = run_kdf(kdf.dflt, {p}, len);
                ASSERT_EQ(want.rc, 1);
                KdfCtxPtr c = new_kdf_ctx(kdf.stitch);
                ParamArray a(p);
                ASSERT_EQ(EVP_KDF_CTX_set_params(c.get(), a.get()), 1);
                KdfCtxPtr copy(EVP_KDF_CTX_dup(c.get()));
                ASSERT_NE(copy, nullptr);
                EXPECT_EQ(run_kdf(c.get(), {}, len, false), want);
                EXPECT_EQ(run_kdf(copy.get(), {}, len, false), want) << "the copy";
                if (!tls) {
                    uint8_t buf[256];
                    OSSL_PARAM get[] = {OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, buf, sizeof(buf)),
                                        OSSL_PARAM_construct_end()};
                    ASSERT_EQ(EVP_KDF_CTX_get_params(c.get(), get), 1);
                    EXPECT_EQ(to_hex(buf, get[0].return_size), to_hex(p.infos[0]));
                }
            }
        }
    }
}

}  // namespace
}  // namespace stitch::test
