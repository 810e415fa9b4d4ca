// Provider load, use and unload, 100 times in one process: a library
// context is made, stitch.so and the default provider loaded into it, every
// algorithm stitch offers used once (seal and open, a refused open, dupctx),
// then everything freed, the providers unloaded and the context freed.
//
// Two checks:
// - OpenSSL's allocations (stitch's contexts and its provider context are
//   OPENSSL_malloc'ed too) are counted through CRYPTO_set_mem_functions: after
//   warm-up cycles, 100 more cycles must leave the live count where it was.
// - In the sanitizer build (scripts/test-sanitizers.sh) LeakSanitizer checks
//   every allocation of the process at exit, stitch.so's included.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/test_util.hpp"

namespace stitch::test {
namespace {

// ---- OpenSSL's live allocations ---------------------------------------------

std::atomic<long> g_live_blocks{0};
std::atomic<long> g_live_bytes{0};

void* counted_malloc(size_t n, const char*, int) {
    void* p = std::malloc(n);
    if (p) {
        ++g_live_blocks;
        g_live_bytes += long(malloc_usable_size(p));
    }
    return p;
}

void counted_free(void* p, const char*, int) {
    if (!p) return;
    --g_live_blocks;
    g_live_bytes -= long(malloc_usable_size(p));
    std::free(p);
}

void* counted_realloc(void* p, size_t n, const char* file, int line) {
    if (!p) return counted_malloc(n, file, line);
    if (n == 0) {
        counted_free(p, file, line);
        return nullptr;
    }
    const long before = long(malloc_usable_size(p));
    void* q = std::realloc(p, n);
    if (q) g_live_bytes += long(malloc_usable_size(q)) - before;
    return q;
}

// Before main, so before OpenSSL's first allocation (after it, the call fails).
const bool g_counting = CRYPTO_set_mem_functions(counted_malloc, counted_realloc, counted_free) == 1;

// ---- one cycle ------------------------------------------------------------------

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void check(bool ok, const std::string& what) {
    if (!ok) {
        ERR_print_errors_fp(stderr);
        throw Failure(what);
    }
}

// Seals and opens one message with an AEAD cipher of stitch's: ivlen from
// the cipher, tag through params, then the same open with a flipped tag.
void use_aead(EVP_CIPHER* c, Rng& rng) {
    const Bytes key = rng.bytes(size_t(EVP_CIPHER_get_key_length(c)));
    const Bytes iv = rng.bytes(size_t(EVP_CIPHER_get_iv_length(c)));
    const Bytes aad = rng.bytes(13), pt = rng.bytes(300);
    const bool openssh = std::strcmp(EVP_CIPHER_get0_name(c), "chacha20-poly1305@openssh.com") == 0;
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    int outl = 0;
    if (openssh) {  // one call per packet: length ‖ payload ‖ 16 spare → sealed ‖ tag
        Bytes packet = pt;
        packet.resize(pt.size() + 16);
        Bytes sealed(packet.size()), opened(packet.size());
        check(EVP_EncryptInit_ex(ctx, c, nullptr, key.data(), iv.data()) == 1 &&
                  EVP_EncryptUpdate(ctx, sealed.data(), &outl, packet.data(), int(packet.size())) == 1,
              "openssh seal");
        EVP_CIPHER_CTX* dup = EVP_CIPHER_CTX_new();
        check(EVP_CIPHER_CTX_copy(dup, ctx) == 1, "openssh dupctx");
        EVP_CIPHER_CTX_free(dup);
        check(EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, iv.data()) == 1 &&
                  EVP_DecryptUpdate(ctx, opened.data(), &outl, sealed.data(), int(sealed.size())) == 1 &&
                  std::memcmp(opened.data(), pt.data(), pt.size()) == 0,
              "openssh open");
        sealed.back() ^= 1;
        check(EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, iv.data()) == 1 &&
                  EVP_DecryptUpdate(ctx, opened.data(), &outl, sealed.data(), int(sealed.size())) == 0,
              "openssh forged packet accepted");
        EVP_CIPHER_CTX_free(ctx);
        return;
    }
    Bytes ct(pt.size()), back(pt.size()), tag(16);
    check(EVP_EncryptInit_ex(ctx, c, nullptr, key.data(), iv.data()) == 1 &&
              EVP_EncryptUpdate(ctx, nullptr, &outl, aad.data(), int(aad.size())) == 1 &&
              EVP_EncryptUpdate(ctx, ct.data(), &outl, pt.data(), int(pt.size())) == 1,
          "seal");
    EVP_CIPHER_CTX* dup = EVP_CIPHER_CTX_new();
    check(EVP_CIPHER_CTX_copy(dup, ctx) == 1, "dupctx");
    EVP_CIPHER_CTX_free(dup);
    check(EVP_EncryptFinal_ex(ctx, nullptr, &outl) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1,
          "seal final");
    for (int forged = 0; forged < 2; ++forged) {
        tag[0] ^= uint8_t(forged);
        check(EVP_DecryptInit_ex(ctx, nullptr, nullptr, key.data(), iv.data()) == 1 &&
                  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag.data()) == 1 &&
                  EVP_DecryptUpdate(ctx, nullptr, &outl, aad.data(), int(aad.size())) == 1 &&
                  EVP_DecryptUpdate(ctx, back.data(), &outl, ct.data(), int(ct.size())) == 1,
              "open");
        check(EVP_DecryptFinal_ex(ctx, nullptr, &outl) == (forged ? 0 : 1), forged ? "forgery accepted" : "open final");
    }
    check(back == pt, "round trip");
    EVP_CIPHER_CTX_free(ctx);
}

void use_stream(EVP_CIPHER* c, Rng& rng) {
    const Bytes key = rng.bytes(32), iv = rng.bytes(16), pt = rng.bytes(300);
    Bytes ct(pt.size()), back(pt.size());
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    int outl = 0;
    check(EVP_EncryptInit_ex(ctx, c, nullptr, key.data(), iv.data()) == 1 &&
              EVP_EncryptUpdate(ctx, ct.data(), &outl, pt.data(), 100) == 1 &&
              EVP_EncryptUpdate(ctx, ct.data() + 100, &outl, pt.data() + 100, 200) == 1 &&
              EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, iv.data()) == 1 &&
              EVP_DecryptUpdate(ctx, back.data(), &outl, ct.data(), int(ct.size())) == 1 && back == pt,
          "stream round trip");
    EVP_CIPHER_CTX_free(ctx);
}

void use_mac(EVP_MAC* m, Rng& rng) {
    const Bytes key = rng.bytes(32), msg = rng.bytes(200);
    EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(m);
    uint8_t out[64];
    size_t outl = 0;
    check(ctx && EVP_MAC_init(ctx, key.data(), key.size(), nullptr) == 1 &&
              EVP_MAC_update(ctx, msg.data(), 77) == 1 && EVP_MAC_update(ctx, msg.data() + 77, 123) == 1,
          "mac");
    EVP_MAC_CTX* dup = EVP_MAC_CTX_dup(ctx);
    check(dup != nullptr, "mac dup");
    EVP_MAC_CTX_free(dup);
    check(EVP_MAC_final(ctx, out, &outl, sizeof(out)) == 1 && outl > 0, "mac final");
    EVP_MAC_CTX_free(ctx);
}

bool from_stitch(const OSSL_PROVIDER* p) { return std::strcmp(OSSL_PROVIDER_get0_name(p), "stitch") == 0; }

// Names of every cipher and MAC stitch offers in `libctx`: a cycle uses them
// all, so an algorithm added later is covered without an edit here.
struct Offered {
    std::vector<std::string> ciphers, macs;
};

Offered offered(OSSL_LIB_CTX* libctx) {
    Offered o;
    EVP_CIPHER_do_all_provided(
        libctx,
        [](EVP_CIPHER* c, void* arg) {
            if (from_stitch(EVP_CIPHER_get0_provider(c)))
                static_cast<Offered*>(arg)->ciphers.push_back(EVP_CIPHER_get0_name(c));
        },
        &o);
    EVP_MAC_do_all_provided(
        libctx,
        [](EVP_MAC* m, void* arg) {
            if (from_stitch(EVP_MAC_get0_provider(m))) static_cast<Offered*>(arg)->macs.push_back(EVP_MAC_get0_name(m));
        },
        &o);
    return o;
}

// One whole cycle; returns what stitch offered.
Offered cycle(Rng& rng) {
    OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
    check(libctx && OSSL_PROVIDER_set_default_search_path(libctx, module_dir()) == 1, "library context");
    OSSL_PROVIDER* stitch = OSSL_PROVIDER_load(libctx, "stitch");
    OSSL_PROVIDER* deflt = OSSL_PROVIDER_load(libctx, "default");
    check(stitch && deflt, std::string("load stitch from ") + module_dir());
    const Offered o = offered(libctx);
    for (const std::string& name : o.ciphers) {
        EVP_CIPHER* c = EVP_CIPHER_fetch(libctx, name.c_str(), "provider=stitch");
        check(c != nullptr, "fetch " + name);
        if (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER) use_aead(c, rng);
        else use_stream(c, rng);
        EVP_CIPHER_free(c);
    }
    for (const std::string& name : o.macs) {
        EVP_MAC* m = EVP_MAC_fetch(libctx, name.c_str(), "provider=stitch");
        check(m != nullptr, "fetch " + name);
        use_mac(m, rng);
        EVP_MAC_free(m);
    }
    ERR_clear_error();
    check(OSSL_PROVIDER_unload(stitch) == 1 && OSSL_PROVIDER_unload(deflt) == 1, "unload");
    OSSL_LIB_CTX_free(libctx);
    return o;
}

TEST(ProviderCycle, LoadUseUnloadHundredTimesLeavesNothingBehind) {
    ASSERT_TRUE(g_counting) << "CRYPTO_set_mem_functions came after OpenSSL's first allocation";
    Rng rng(0x1eaf);
    const Offered o = cycle(rng);
    for (const char* name : {"ChaCha20-Poly1305", "ChaCha20", "chacha20-poly1305@openssh.com"})
        EXPECT_NE(std::find(o.ciphers.begin(), o.ciphers.end(), name), o.ciphers.end()) << name << " not offered";
    // Warm-up: per-thread error state, the error string table, the core's
    // name map and dlopen bookkeeping are made once per process.
    for (int i = 0; i < 4; ++i) cycle(rng);
    const long blocks = g_live_blocks, bytes = g_live_bytes;
    for (int i = 0; i < 100; ++i) cycle(rng);
    EXPECT_EQ(g_live_blocks - blocks, 0) << "OpenSSL allocations still live after 100 cycles";
    EXPECT_EQ(g_live_bytes - bytes, 0) << "OpenSSL bytes still live after 100 cycles";
    std::printf("ciphers %zu, MACs %zu; live OpenSSL allocations: %ld blocks, %ld bytes\n", o.ciphers.size(),
                o.macs.size(), long(g_live_blocks), long(g_live_bytes));
}

}  // namespace
}  // namespace stitch::test
