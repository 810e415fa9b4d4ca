// openssl.cnf's `kernel = ...` in stitch's section, read at OSSL_provider_init
// through the core's get_params. Each case loads stitch into a library
// context of its own with that setting (the section recorded from memory,
// then OSSL_PROVIDER_load, so a refusal stays on the error queue), and checks
// what runs: the `kernel` param, and a ChaCha20-Poly1305 seal against the
// default provider's bytes. A set this CPU cannot run, or an unknown word,
// must stop the load with stitch's reason, never start on another set.
// Registered three times: as dispatch sees this CPU, with AVX-512 hidden,
// and forced to portable (STITCH_CLEAR_CPUID), so every refusal is reached.
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/conf.h>
#include <openssl/err.h>
#include <openssl/provider.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "common/evp_handles.hpp"
#include "kernels/dispatch.hpp"
#include "provider/reasons.hpp"

namespace stitch::test {
namespace {

struct Loaded {
    OSSL_LIB_CTX* libctx = nullptr;
    OSSL_PROVIDER* stitch = nullptr;
    OSSL_PROVIDER* dflt = nullptr;
    ~Loaded() {
        if (stitch) OSSL_PROVIDER_unload(stitch);
        if (dflt) OSSL_PROVIDER_unload(dflt);
        OSSL_LIB_CTX_free(libctx);
    }
};

// Loads stitch with `kernel = value` in its section (no line at all when
// value is null).
std::unique_ptr<Loaded> load(const char* value) {
    static const bool modules = (OPENSSL_load_builtin_modules(), true);
    (void)modules;
    auto l = std::make_unique<Loaded>();
    l->libctx = OSSL_LIB_CTX_new();
    EXPECT_TRUE(OSSL_PROVIDER_set_default_search_path(l->libctx, STITCH_MODULE_DIR));
    l->dflt = OSSL_PROVIDER_load(l->libctx, "default");
    std::string text = "openssl_conf = init\n[init]\nproviders = provs\n[provs]\nstitch = stitch_sect\n[stitch_sect]\n";
    if (value) text += std::string("kernel = ") + value + "\n";
    std::unique_ptr<CONF, decltype(&NCONF_free)> conf(NCONF_new_ex(l->libctx, nullptr), NCONF_free);
    BioPtr bio(BIO_new_mem_buf(text.data(), int(text.size())));
    EXPECT_GT(NCONF_load_bio(conf.get(), bio.get(), nullptr), 0);
    EXPECT_GT(CONF_modules_load(conf.get(), nullptr, 0), 0);
    ERR_clear_error();
    l->stitch = OSSL_PROVIDER_load(l->libctx, "stitch");
    return l;
}

std::string kernel_param(OSSL_PROVIDER* p) {
    char* value = nullptr;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr("kernel", &value, 0), OSSL_PARAM_END};
    return OSSL_PROVIDER_get_params(p, params) == 1 && value ? value : "(not answered)";
}

// Seals a 1000-byte message (8 batches and a tail on every vector set).
std::vector<uint8_t> seal(OSSL_LIB_CTX* libctx, const char* props) {
    CipherPtr c(EVP_CIPHER_fetch(libctx, "ChaCha20-Poly1305", props));
    EXPECT_NE(c, nullptr) << props;
    if (!c) return {};
    std::array<uint8_t, 32> key{};
    std::array<uint8_t, 12> iv{};
    for (size_t i = 0; i < key.size(); ++i) key[i] = uint8_t(3 * i + 1);
    std::vector<uint8_t> out(1000 + 16), in(1000);
    for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(i * 7);
    CipherCtxPtr ctx = new_cipher_ctx();
    int n = 0, f = 0;
    EXPECT_EQ(EVP_EncryptInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), nullptr), 1);
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &n, in.data(), int(in.size())), 1);
    EXPECT_EQ(EVP_EncryptFinal_ex(ctx.get(), out.data() + n, &f), 1);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, out.data() + 1000), 1);
    return out;
}

// The load stopped, with `want` as stitch's reason and the value in the
// error's text (the core shows a provider's reason strings only once it
// has started, so the text carries the explanation).
void expect_refused(const Loaded& l, prov::Reason want, const std::string& value) {
    EXPECT_EQ(l.stitch, nullptr) << "kernel = " << value << " started stitch on " << kernel_param(l.stitch);
    bool found = false;
    unsigned long e;
    const char* data = nullptr;
    int flags = 0;
    while ((e = ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags)) != 0) {
        if (ERR_GET_REASON(e) != int(want) || ERR_GET_LIB(e) == ERR_LIB_CRYPTO) continue;
        found = true;
        ASSERT_TRUE(data && (flags & ERR_TXT_STRING));
        EXPECT_NE(std::string(data).find("kernel = " + value), std::string::npos) << data;
        EXPECT_NE(std::string(data).find("stitch not started"), std::string::npos) << data;
    }
    EXPECT_TRUE(found) << "no stitch error with reason " << int(want) << " for kernel = " << value;
}

// Every name the setting takes, the labels of this build's AVX2 shapes too.
std::vector<std::string> names() {
    std::vector<std::string> n = {"portable", "avx2", "avx512", "avx512-ifma"};
    for (const kern::Impl* impl : kern::runnable_impls())
        if (impl->label) n.push_back(impl->label);
    return n;
}

TEST(KernelConf, NoSettingAndAutoAreDispatchsChoice) {
    for (const char* value : {static_cast<const char*>(nullptr), "auto", ""}) {
        auto l = load(value);
        ASSERT_NE(l->stitch, nullptr) << (value ? value : "(no setting)");
        EXPECT_EQ(kernel_param(l->stitch), kern::active_impl().name);
    }
}

TEST(KernelConf, EachRunnableSetRunsAndReportsItself) {
    const std::vector<uint8_t> want = seal(load(nullptr)->libctx, "provider=default");
    int runnable = 0;
    for (const std::string& name : names()) {
        const kern::Impl* impl = kern::allowed_impl(name.c_str());
        if (!impl) continue;
        ++runnable;
        auto l = load(name.c_str());
        ASSERT_NE(l->stitch, nullptr) << name;
        EXPECT_EQ(kernel_param(l->stitch), impl->name) << name;
        EXPECT_EQ(seal(l->libctx, "provider=stitch"), want) << name;
    }
    EXPECT_GE(runnable, 1);  // portable, at least
}

TEST(KernelConf, SetThisCpuCannotRunIsRefused) {
    for (const std::string& name : names()) {
        if (kern::allowed_impl(name.c_str())) continue;
        auto l = load(name.c_str());
        expect_refused(*l, prov::R_KERNEL_NOT_RUNNABLE, name);
    }
}

TEST(KernelConf, UnknownWordIsRefused) {
    for (const char* value : {"bogus", "AVX2", "avx2/none", "avx1024", "portable,avx2"}) {
        auto l = load(value);
        expect_refused(*l, prov::R_UNKNOWN_KERNEL, value);
    }
}

}  // namespace
}  // namespace stitch::test
