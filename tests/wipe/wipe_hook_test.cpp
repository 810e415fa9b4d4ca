// Free and re-key wipe every secret a context holds (issue 5 item 7).
//
// The provider's own sources are linked into this binary (CMakeLists.txt) and
// registered as a built-in provider, so the test drives the real code through
// EVP and can set prov::wipe_observer. The provider calls the observer after
// it wipes each secret region and before that memory is freed or takes the
// new key; the observer records the region's name and whether it was all
// zeros. Each scenario uses a context for real first (mid-message, so the
// keystream buffer, Poly1305 state or held-back AAD hold something), then
// frees or re-keys it and requires every expected region reported, all zero.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "provider/ciphers/cipher_common.hpp"

extern "C" int OSSL_provider_init(const OSSL_CORE_HANDLE*, const OSSL_DISPATCH*, const OSSL_DISPATCH**, void**);

namespace stitch::test {
namespace {

namespace region = prov::region;

// --- the observer -------------------------------------------------------------

struct Report {
    const char* what;
    const uint8_t* at;
    size_t len;
    bool zero;
};

// Fixed storage: the observer runs inside noexcept provider code.
struct Recorder {
    std::array<Report, 64> reports;
    size_t count = 0;
    bool overflow = false;
};
Recorder recorder;

void observe(const void* p, size_t len, const char* what) noexcept {
    const auto* b = static_cast<const uint8_t*>(p);
    const bool zero = std::all_of(b, b + len, [](uint8_t x) { return x == 0; });
    if (recorder.count == recorder.reports.size()) {
        recorder.overflow = true;
        return;
    }
    recorder.reports[recorder.count++] = {what, b, len, zero};
}

// Records what one action wiped; the observer is set only for its duration.
template <class F>
std::vector<Report> record(F&& action) {
    recorder = Recorder{};
    prov::wipe_observer = observe;
    action();
    prov::wipe_observer = nullptr;
    EXPECT_FALSE(recorder.overflow);
    return {recorder.reports.begin(), recorder.reports.begin() + recorder.count};
}

// --- the provider, linked in ------------------------------------------------

class LinkedProvider {
public:
    LinkedProvider() {
        ctx_ = OSSL_LIB_CTX_new();
        if (!ctx_ || !OSSL_PROVIDER_add_builtin(ctx_, "stitch-linked", OSSL_provider_init))
            throw std::runtime_error("add_builtin");
        linked_ = OSSL_PROVIDER_load(ctx_, "stitch-linked");
        if (!linked_) throw std::runtime_error("load stitch-linked");
    }
    ~LinkedProvider() {
        OSSL_PROVIDER_unload(linked_);
        OSSL_LIB_CTX_free(ctx_);
    }
    // The algorithms keep their "provider=stitch" property; only the linked copy is loaded here.
    CipherPtr fetch(const char* name) const {
        CipherPtr c(EVP_CIPHER_fetch(ctx_, name, "provider=stitch"));
        if (!c || EVP_CIPHER_get0_provider(c.get()) != linked_) throw std::runtime_error(std::string("fetch ") + name);
        return c;
    }

private:
    OSSL_LIB_CTX* ctx_ = nullptr;
    OSSL_PROVIDER* linked_ = nullptr;
};

// OpenSSL is initialised first, so its atexit cleanup runs after the
// provider is unloaded, not before.
LinkedProvider& linked() {
    [[maybe_unused]] static const int first = OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, nullptr);
    static LinkedProvider p;
    return p;
}

// --- scenarios ----------------------------------------------------------------

struct Scenario {
    const char* name;
    const char* cipher;
    size_t keylen, ivlen;
    int enc;
    bool rekey_with_iv;  // raw ChaCha20 re-keys with its IV, to compare against a fresh context
    void (*use)(EVP_CIPHER_CTX* ctx, const Bytes& in);
    std::vector<const char*> secrets;  // what free and re-key must wipe, by name
};

void update(EVP_CIPHER_CTX* ctx, uint8_t* out, const uint8_t* in, size_t n) {
    int outl = 0;
    ASSERT_EQ(EVP_CipherUpdate(ctx, out, &outl, in, int(n)), 1);
}

// 5 bytes of AAD, then 100 bytes of text: a partly used keystream block, the MAC keyed and running.
void aead_mid_text(EVP_CIPHER_CTX* ctx, const Bytes& in) {
    Bytes out(100);
    update(ctx, nullptr, in.data(), 5);
    update(ctx, out.data(), in.data(), 100);
}

// 20 bytes of AAD and no text: held back for the first text batch.
void aead_aad_held_back(EVP_CIPHER_CTX* ctx, const Bytes& in) { update(ctx, nullptr, in.data(), 20); }

// A TLS 1.2 record header set and the record not yet sent: the TLS AAD copy is held back.
void aead_tls_aad_set(EVP_CIPHER_CTX* ctx, const Bytes&) {
    uint8_t aad[13] = {0, 0, 0, 0, 0, 0, 0, 7, 0x17, 3, 3, 0, 100};
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad), 16);
}

void chacha20_mid_block(EVP_CIPHER_CTX* ctx, const Bytes& in) {
    Bytes out(100);
    update(ctx, out.data(), in.data(), 100);
}

// One whole packet sealed, then the next packet's length decrypted alone.
void openssh_packet(EVP_CIPHER_CTX* ctx, const Bytes& in) {
    Bytes out(4 + 60 + 16);
    update(ctx, out.data(), in.data(), out.size());
    update(ctx, out.data(), in.data(), 4);
}

const std::vector<const char*> kAeadSecrets = {region::kKeySchedule, region::kKeystream, region::kPoly1305,
                                               region::kPendingAad};
const std::vector<const char*> kOpensshSecrets = {region::kKeySchedule, region::kKeystream, region::kPoly1305,
                                                  region::kPendingAad, region::kHeaderKey};

const Scenario kScenarios[] = {
    {"aead_mid_text", "ChaCha20-Poly1305", 32, 12, 1, false, aead_mid_text, kAeadSecrets},
    {"aead_aad_held_back", "ChaCha20-Poly1305", 32, 12, 0, false, aead_aad_held_back, kAeadSecrets},
    {"aead_tls_aad_set", "ChaCha20-Poly1305", 32, 12, 1, false, aead_tls_aad_set, kAeadSecrets},
    {"chacha20_mid_block", "ChaCha20", 32, 16, 1, true, chacha20_mid_block, {region::kKeySchedule, region::kKeystream}},
    {"openssh_packet", "chacha20-poly1305@openssh.com", 64, 8, 1, false, openssh_packet, kOpensshSecrets},
};

// A context of `s`'s cipher after real use under key1.
CipherCtxPtr used_context(const Scenario& s, const Bytes& key1, const Bytes& iv, const Bytes& in) {
    CipherPtr cipher = linked().fetch(s.cipher);
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), cipher.get(), nullptr, key1.data(), iv.data(), s.enc), 1);
    s.use(ctx.get(), in);
    return ctx;
}

bool is(const Report& r, const char* what) { return std::strcmp(r.what, what) == 0; }

std::string names(const std::vector<Report>& rs) {
    std::string out;
    for (const auto& r : rs) out += std::string(out.empty() ? "" : ", ") + r.what + (r.zero ? "" : " (NOT ZERO)");
    return out.empty() ? "(nothing)" : out;
}

// Every expected secret reported exactly once, all zero, and nothing else.
void expect_wiped(const std::vector<Report>& rs, const std::vector<const char*>& want) {
    for (const char* w : want) {
        const auto n = std::count_if(rs.begin(), rs.end(), [w](const Report& r) { return is(r, w); });
        EXPECT_EQ(n, 1) << "\"" << w << "\" reported " << n << " times; reported: " << names(rs);
    }
    for (const auto& r : rs) {
        EXPECT_TRUE(r.zero) << "\"" << r.what << "\" (" << r.len << " bytes) was not all zero at the hook";
        EXPECT_GT(r.len, 0u) << r.what;
        const bool expected = std::any_of(want.begin(), want.end(), [&r](const char* w) { return is(r, w); });
        EXPECT_TRUE(expected) << "unexpected region \"" << r.what << "\"";
    }
}

// The sizes the kernel states give each region, so a partial wipe is caught.
size_t expected_len(const char* what) {
    if (!std::strcmp(what, region::kKeySchedule) || !std::strcmp(what, region::kHeaderKey))
        return sizeof(kern::ChaChaState::key);
    if (!std::strcmp(what, region::kKeystream)) return kern::kChaChaBlock;
    if (!std::strcmp(what, region::kPoly1305)) return sizeof(kern::Poly1305State);
    if (!std::strcmp(what, region::kPendingAad)) return kern::kPendingMax;
    return 0;  // the context: its size is the provider's own
}

void PrintTo(const Scenario& s, std::ostream* os) { *os << s.name; }

class WipeHook : public ::testing::TestWithParam<Scenario> {};

TEST_P(WipeHook, FreeWipesEverySecretThenTheWholeContext) {
    const Scenario& s = GetParam();
    Rng rng(0x3b1e);
    const Bytes key1 = rng.bytes(s.keylen), iv = rng.bytes(s.ivlen), in = rng.bytes(128);
    CipherCtxPtr ctx = used_context(s, key1, iv, in);
    ASSERT_FALSE(::testing::Test::HasFailure());

    const auto rs = record([&] { ctx.reset(); });  // EVP_CIPHER_CTX_free → the provider's freectx
    auto want = s.secrets;
    want.push_back(region::kContext);
    expect_wiped(rs, want);
    // Each named region lies inside the context that was wiped and freed.
    const auto whole = std::find_if(rs.begin(), rs.end(), [](const Report& r) { return is(r, region::kContext); });
    ASSERT_NE(whole, rs.end());
    for (const auto& r : rs) {
        if (is(r, region::kContext)) continue;
        EXPECT_TRUE(r.at >= whole->at && r.at + r.len <= whole->at + whole->len) << r.what << " is outside the context";
        EXPECT_EQ(r.len, expected_len(r.what)) << r.what;
    }
}

TEST_P(WipeHook, ReKeyWipesEverySecretBeforeTheNewKeyAndStillWorks) {
    const Scenario& s = GetParam();
    Rng rng(0x7e4e);
    const Bytes key1 = rng.bytes(s.keylen), key2 = rng.bytes(s.keylen), iv = rng.bytes(s.ivlen), in = rng.bytes(128);
    CipherCtxPtr ctx = used_context(s, key1, iv, in);
    ASSERT_FALSE(::testing::Test::HasFailure());

    const uint8_t* new_iv = s.rekey_with_iv ? iv.data() : nullptr;
    const auto rs =
        record([&] { ASSERT_EQ(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, key2.data(), new_iv, -1), 1); });
    expect_wiped(rs, s.secrets);
    for (const auto& r : rs) EXPECT_EQ(r.len, expected_len(r.what)) << r.what;

    // The re-keyed context matches a fresh one under key2 and the same IV:
    // nothing of key1's message survives the wipe, and the new key took.
    const Scenario fresh_use{s.name, s.cipher, s.keylen, s.ivlen, s.enc, false, [](EVP_CIPHER_CTX*, const Bytes&) {},
                             {}};
    CipherCtxPtr fresh = used_context(fresh_use, key2, iv, in);
    const size_t n = std::string_view(s.cipher) == "chacha20-poly1305@openssh.com" ? 4 + 60 + 16 : 77;
    Bytes a(n), b(n);
    if (std::string_view(s.cipher) == "ChaCha20-Poly1305") {
        update(ctx.get(), nullptr, in.data(), 3);
        update(fresh.get(), nullptr, in.data(), 3);
    }
    update(ctx.get(), a.data(), in.data(), n);
    update(fresh.get(), b.data(), in.data(), n);
    EXPECT_EQ(to_hex(a), to_hex(b));
}

INSTANTIATE_TEST_SUITE_P(Ciphers, WipeHook, ::testing::ValuesIn(kScenarios),
                         [](const ::testing::TestParamInfo<Scenario>& info) { return std::string(info.param.name); });

// In production nobody watches: the hook is off unless a test sets it.
TEST(WipeObserver, IsNullByDefault) { EXPECT_EQ(prov::wipe_observer, nullptr); }

}  // namespace
}  // namespace stitch::test
