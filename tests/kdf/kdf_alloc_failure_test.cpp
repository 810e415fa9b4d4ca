// HKDF and TLS13-KDF when allocations fail, as tests/badinput/alloc_failure_test
// does it for the ciphers: OpenSSL's allocator hooks (CRYPTO_set_mem_functions,
// installed before anything is allocated) fail either stitch's own
// allocations (call site in provider/kdfs/: the context, inputs too long to
// live inline, a copy) or the n-th allocation of any origin (libcrypto's,
// under stitch's fetched-digest HMAC: EVP_MD_CTX_new, digest contexts, the
// child library context, the fetch). Every call then fails cleanly: 0 and an
// error, nothing written to the output but zeros, the context still usable;
// with memory back the same context derives the default provider's bytes.
// And the SHA-2 path allocates nothing at all in a derive.
#include <gtest/gtest.h>
#include <openssl/crypto.h>
#include <openssl/provider.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/stitch_errors.hpp"
#include "kdf/kdf_support.hpp"

namespace stitch::test {
namespace {

enum class Fail { none, stitch_all, stitch_nth, any_nth };
std::atomic<Fail> g_fail{Fail::none};
std::atomic<long> g_countdown{0};
std::atomic<int> g_failed{0};
std::atomic<long> g_seen{0}, g_seen_stitch{0};

bool from_stitch_kdfs(const char* file) { return file && std::strstr(file, "provider/kdfs/") != nullptr; }

bool should_fail(const char* file) {
    const bool ours = from_stitch_kdfs(file);
    ++g_seen;
    if (ours) ++g_seen_stitch;
    switch (g_fail.load()) {
        case Fail::stitch_all:
            return ours;
        case Fail::stitch_nth:
            return ours && --g_countdown == 0;
        case Fail::any_nth:
            return --g_countdown == 0;
        case Fail::none:
            break;
    }
    return false;
}

void* test_malloc(size_t n, const char* file, int) {
    if (should_fail(file)) return ++g_failed, nullptr;
    return std::malloc(n);
}
void* test_realloc(void* p, size_t n, const char* file, int) {
    if (should_fail(file)) return ++g_failed, nullptr;
    return std::realloc(p, n);
}
void test_free(void* p, const char*, int) { std::free(p); }

// Before main: OpenSSL takes new hooks only until its first allocation.
const bool g_hooked = CRYPTO_set_mem_functions(test_malloc, test_realloc, test_free) == 1;

// Fails allocations as `mode` says while it lives (n: which one, for the _nth modes).
struct Failing {
    explicit Failing(Fail mode, long n = 0) {
        g_countdown = n;
        g_failed = 0;
        g_fail = mode;
    }
    ~Failing() { g_fail = Fail::none; }
};

// Counts allocations while it lives.
struct Counting {
    long any0 = g_seen, stitch0 = g_seen_stitch;
    long any() const { return g_seen - any0; }
    long stitch() const { return g_seen_stitch - stitch0; }
};

Bytes text(const char* s) { return Bytes(s, s + std::strlen(s)); }

KdfParamSet hkdf(int mode, const char* digest) {
    KdfParamSet p;
    p.mode = mode;
    p.digest = digest;
    p.key = Bytes(32, 0x0b);
    p.salt = Bytes(16, 0x5a);
    p.infos = {text("alloc failure")};
    return p;
}

KdfParamSet tls13(int mode, const char* digest) {
    KdfParamSet p;
    p.mode = mode;
    p.digest = digest;
    p.key = Bytes(20, 0x0b);
    p.salt = Bytes(20, 0x5a);
    p.prefix = text("tls13 ");
    p.label = text("derived");
    return p;  // no data: it would last one call only
}

class KdfAllocFailure : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(g_hooked) << "CRYPTO_set_mem_functions came too late: something allocated before main";
        // stitch's allocations must be recognisable, or the stitch_* modes test nothing.
        const KdfPtr k = fetch_kdf("HKDF", "stitch");
        Counting c;
        KdfCtxPtr ctx = new_kdf_ctx(k);
        ASSERT_GT(c.stitch(), 0) << "no allocation named provider/kdfs/ as its call site (libcrypto without file names?)";
    }
};

TEST_F(KdfAllocFailure, NewContextFailsCleanlyThenRecovers) {
    for (const char* name : {"HKDF", "TLS13-KDF"}) {
        const KdfPtr k = fetch_kdf(name, "stitch");
        {
            Failing f(Fail::stitch_all);
            EXPECT_EQ(EVP_KDF_CTX_new(k.get()), nullptr) << name;
            EXPECT_GT(g_failed, 0) << name;
        }
        ERR_clear_error();
        KdfCtxPtr ok(EVP_KDF_CTX_new(k.get()));
        EXPECT_NE(ok, nullptr) << name;
    }
}

// An input too long to live inside the context goes to the heap: when that
// fails the param is refused with the field left unset (as a refused param
// leaves it), and the same param later, with memory back, is taken.
TEST_F(KdfAllocFailure, HeapInputFailsCleanlyThenRecovers) {
    struct Case {
        const char* kdf;
        const char* field;
        KdfParamSet base;
        void (*grow)(KdfParamSet&);
    };
    const Case cases[] = {
        {"HKDF", "key", hkdf(EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, "SHA2-256"),
         [](KdfParamSet& p) { p.key = Bytes(100, 0x4b); }},
        {"HKDF", "salt", hkdf(EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, "SHA2-256"),
         [](KdfParamSet& p) { p.salt = Bytes(100, 0x53); }},
        {"HKDF", "info", hkdf(EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA2-384"),
         [](KdfParamSet& p) { p.infos = {Bytes(200, 0x49)}; }},
        {"TLS13-KDF", "prefix", tls13(EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA2-256"),
         [](KdfParamSet& p) { p.prefix = Bytes(20, 0x50); }},
        {"TLS13-KDF", "label", tls13(EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA2-256"),
         [](KdfParamSet& p) { p.label = Bytes(100, 0x4c); }},
        {"TLS13-KDF", "data", tls13(EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA2-256"),
         [](KdfParamSet& p) { p.data = Bytes(100, 0x44); }},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.kdf) + " " + c.field);
        const KdfPair kdf(c.kdf);
        KdfParamSet grown = c.base;
        c.grow(grown);
        KdfParamSet only;  // the grown field alone
        c.grow(only);
        KdfCtxPtr ctx = new_kdf_ctx(kdf.stitch);
        KdfParamSet base_set = c.base;
        ParamArray base(base_set);
        ASSERT_EQ(EVP_KDF_CTX_set_params(ctx.get(), base.get()), 1);
        {
            ParamArray a(only);
            Failing f(Fail::stitch_all);
            EXPECT_EQ(EVP_KDF_CTX_set_params(ctx.get(), a.get()), 0);
            EXPECT_EQ(g_failed, 1);
        }
        expect_stitch_error(prov::R_OUT_OF_MEMORY);
        // The field is unset now: the derive is the default's without it.
        KdfParamSet without = c.base;
        if (std::string(c.field) == "key") without.key.reset();
        if (std::string(c.field) == "salt") without.salt.reset();
        if (std::string(c.field) == "info") without.infos.clear();
        if (std::string(c.field) == "prefix") without.prefix.reset();
        if (std::string(c.field) == "label") without.label.reset();
        const DeriveResult after_fail = run_kdf(ctx.get(), {}, 32, false);
        EXPECT_EQ(after_fail, run_kdf(kdf.dflt, {without}, 32)) << "the field should read as unset";
        // Memory back: the same param is taken.
        const DeriveResult recovered = run_kdf(ctx.get(), {only}, 32);
        const DeriveResult want = run_kdf(kdf.dflt, {grown}, 32);
        ASSERT_EQ(want.rc, 1);
        EXPECT_EQ(recovered, want);
    }
}

// dupctx: its context, then each heap-held input, may fail; the copy is then
// NULL (nothing leaked: the sanitizer build's leak check runs this too) and
// the original derives on.
TEST_F(KdfAllocFailure, DupFailsCleanlyAtEveryAllocation) {
    for (const char* name : {"HKDF", "TLS13-KDF"}) {
        SCOPED_TRACE(name);
        const KdfPair kdf(name);
        KdfParamSet p = std::string(name) == "HKDF" ? hkdf(EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA1")
                                                    : tls13(EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA1");
        p.key = Bytes(100, 1);  // every input on the heap
        p.salt = Bytes(100, 4);
        if (std::string(name) == "HKDF") {
            p.infos = {Bytes(300, 2)};
        } else {
            p.prefix = Bytes(20, 5);
            p.label = Bytes(100, 3);
            p.data = Bytes(100, 6);
        }
        KdfCtxPtr ctx = new_kdf_ctx(kdf.stitch);
        ParamArray a(p);
        ASSERT_EQ(EVP_KDF_CTX_set_params(ctx.get(), a.get()), 1);
        long allocations = 0;
        {
            Counting c;
            KdfCtxPtr copy(EVP_KDF_CTX_dup(ctx.get()));
            ASSERT_NE(copy, nullptr);
            allocations = c.stitch();
        }
        ASSERT_GE(allocations, 4) << "the context and each heap input";
        for (long n = 1; n <= allocations; ++n) {
            SCOPED_TRACE("stitch allocation " + std::to_string(n) + " of " + std::to_string(allocations) + " fails");
            {
                Failing f(Fail::stitch_nth, n);
                EXPECT_EQ(EVP_KDF_CTX_dup(ctx.get()), nullptr);
                EXPECT_EQ(g_failed, 1);
            }
            ERR_clear_error();
        }
        EXPECT_EQ(run_kdf(ctx.get(), {}, 40, false), run_kdf(kdf.dflt, {p}, 40)) << "the original after failed dups";
    }
}

// The fetched-digest path (SHA1 here) allocates in libcrypto: digest
// contexts for the HMAC, their copies, the empty hash. Each of those
// allocations in turn fails, in every mode: the derive is refused (stitch's
// R_HMAC_FAILED, or the output written only as zeros) or, where the failure
// fell on something recoverable, derives the right bytes; never anything else.
TEST_F(KdfAllocFailure, FetchedDigestDeriveFailsCleanlyAtEveryAllocation) {
    struct Case {
        const char* kdf;
        KdfParamSet p;
        size_t len;
    };
    const Case cases[] = {
        {"HKDF", hkdf(EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, "SHA1"), 50},
        {"HKDF", hkdf(EVP_KDF_HKDF_MODE_EXTRACT_ONLY, "SHA1"), 20},
        {"HKDF", hkdf(EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA1"), 50},
        {"HKDF", [] { KdfParamSet p = hkdf(EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA1"); p.key = Bytes(100, 7); return p; }(),
         20},  // a key longer than the block: hashed first
        {"TLS13-KDF", tls13(EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA1"), 20},
        {"TLS13-KDF", tls13(EVP_KDF_HKDF_MODE_EXTRACT_ONLY, "SHA1"), 20},  // Derive-Secret's empty hash too
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.kdf) + " mode " + std::to_string(*c.p.mode));
        const KdfPair kdf(c.kdf);
        KdfParamSet p = c.p;
        const DeriveResult want = run_kdf(kdf.dflt, {p}, c.len);
        ASSERT_EQ(want.rc, 1);
        KdfCtxPtr ctx = new_kdf_ctx(kdf.stitch);
        ParamArray a(p);
        ASSERT_EQ(EVP_KDF_CTX_set_params(ctx.get(), a.get()), 1);
        long allocations = 0;
        {
            Counting count;
            ASSERT_EQ(run_kdf(ctx.get(), {}, c.len, false), want);
            allocations = count.any();
        }
        ASSERT_GT(allocations, 0);
        int refused = 0;
        for (long n = 1; n <= allocations; ++n) {
            SCOPED_TRACE("allocation " + std::to_string(n) + " of " + std::to_string(allocations) + " fails");
            Bytes out(c.len + 8, 0xa5);
            int rc;
            {
                Failing f(Fail::any_nth, n);
                rc = EVP_KDF_derive(ctx.get(), out.data(), c.len, nullptr);
            }
            if (rc == 1) {
                EXPECT_EQ(to_hex(out.data(), c.len), to_hex(want.out));
            } else {
                ++refused;
                const bool untouched = out == Bytes(c.len + 8, 0xa5);
                const bool wiped = Bytes(out.begin(), out.begin() + long(c.len)) == Bytes(c.len, 0) &&
                                   Bytes(out.begin() + long(c.len), out.end()) == Bytes(8, 0xa5);
                EXPECT_TRUE(untouched || wiped) << "a refused derive left " << to_hex(out);
                expect_stitch_error(prov::R_HMAC_FAILED);
            }
            ERR_clear_error();
        }
        EXPECT_GT(refused, 0) << "no failure reached the HMAC";
        EXPECT_EQ(run_kdf(ctx.get(), {}, c.len, false), want) << "with memory back";
    }
}

// Setting a digest stitch fetches: its first one in a library context makes
// the child library context, then the fetch. The child's first allocation
// fails (stitch refuses the digest, R_UNKNOWN_DIGEST, and makes the child on
// a later call); then each allocation of a fetch fails in turn: refused with
// the same error or answered, and a later set works. (Only the child's first allocation is
// failed: OpenSSL 3.0.22's OSSL_LIB_CTX_new_child crashes in
// CRYPTO_free_ex_data when a later one fails, on its own half-made context.)
TEST_F(KdfAllocFailure, FetchingTheDigestFailsCleanlyAtEveryAllocation) {
    OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
    ASSERT_NE(libctx, nullptr);
    ASSERT_EQ(OSSL_PROVIDER_set_default_search_path(libctx, module_dir()), 1);
    OSSL_PROVIDER* s = OSSL_PROVIDER_load(libctx, "stitch");
    OSSL_PROVIDER* d = OSSL_PROVIDER_load(libctx, "default");
    ASSERT_TRUE(s && d);
    EVP_KDF* kdf = EVP_KDF_fetch(libctx, "HKDF", "provider=stitch");
    ASSERT_NE(kdf, nullptr);
    EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
    ASSERT_NE(ctx, nullptr);
    auto set_digest = [&](const char* name, const char* props = nullptr) {
        KdfParamSet p;
        p.digest = name;
        if (props) p.properties = props;
        ParamArray a(p);
        return EVP_KDF_CTX_set_params(ctx, a.get());
    };
    {
        Failing f(Fail::any_nth, 1);
        EXPECT_EQ(set_digest("SHA1"), 0) << "the child library context could not be made";
        EXPECT_EQ(g_failed, 1);
    }
    expect_stitch_error(prov::R_UNKNOWN_DIGEST);
    ASSERT_EQ(set_digest("SHA1"), 1) << "the child, made on a later call";
    int refused = 0;
    for (long n = 1;; ++n) {
        int rc;
        {
            Failing f(Fail::any_nth, n);
            // A query string this library context has not seen: the fetch
            // parses and caches it (its digests were all made by the first fetch).
            rc = set_digest("SHA2-224", "?provider=default");
            if (g_failed == 0) {
                EXPECT_EQ(rc, 1);
                break;  // past the fetch's last allocation
            }
        }
        if (rc != 1) {
            ++refused;
            expect_stitch_error(prov::R_UNKNOWN_DIGEST);
        }
        ERR_clear_error();
        ASSERT_LT(n, 10000);
    }
    // libcrypto absorbs most failures there (a query it cannot cache is
    // still answered), so a refusal is allowed, not required.
    std::printf("[ alloc    ] the fetch's failed allocations: %d of them refused the digest\n", refused);
    KdfParamSet rest = hkdf(EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, "SHA2-224");
    ParamArray b(rest);
    uint8_t out[28];
    EXPECT_EQ(EVP_KDF_derive(ctx, out, sizeof(out), b.get()), 1) << "with memory back";
    EVP_KDF_CTX_free(ctx);
    EVP_KDF_free(kdf);
    OSSL_PROVIDER_unload(s);
    OSSL_PROVIDER_unload(d);
    OSSL_LIB_CTX_free(libctx);
}

// libssl's derives on SHA-256 and SHA-384 (the params in the derive call)
// allocate nothing: not stitch, not libcrypto underneath it.
TEST_F(KdfAllocFailure, Sha2DerivesAllocateNothing) {
    for (const char* digest : {"SHA2-256", "SHA2-384"}) {
        for (const char* name : {"HKDF", "TLS13-KDF"}) {
            SCOPED_TRACE(std::string(name) + " " + digest);
            const KdfPtr k = fetch_kdf(name, "stitch");
            KdfParamSet p = std::string(name) == "HKDF" ? hkdf(EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, digest)
                                                        : tls13(EVP_KDF_HKDF_MODE_EXTRACT_ONLY, digest);
            KdfCtxPtr ctx = new_kdf_ctx(k);
            ParamArray a(p);
            uint8_t out[48];
            const size_t len = std::string(digest) == "SHA2-256" ? 32 : 48;
            Counting c;
            EXPECT_EQ(EVP_KDF_derive(ctx.get(), out, len, a.get()), 1);
            EXPECT_EQ(c.any(), 0) << "allocations in one derive";
        }
    }
}

}  // namespace
}  // namespace stitch::test
