// 2–8 threads at once, each fetching, encrypting, decrypting and freeing,
// many times, through stitch's three ciphers: on EVP_CIPHER objects shared by
// all threads, on objects each thread fetches and frees itself, on contexts
// copied (dupctx) from one shared keyed template, and with a library context
// and provider load per thread. Every output must equal what the same job
// gave single-threaded before the threads started. scripts/test-tsan.sh runs
// this binary under ThreadSanitizer, where it must also give zero reports.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <latch>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/test_util.hpp"

namespace stitch::test {
namespace {

constexpr const char* kNames[] = {"ChaCha20-Poly1305", "ChaCha20", "chacha20-poly1305@openssh.com"};
enum Alg { aead, chacha, openssh };

struct Job {
    Alg alg;
    Bytes key, iv, aad, pt;
    Bytes sealed;  // ciphertext ‖ tag (AEAD and OpenSSH), ciphertext (ChaCha20)
};

// Seals a job's plaintext on `ctx`, which may already hold the key (then
// `key` is NULL): the way each cipher is called in real use. Empty: refused.
std::optional<Bytes> seal(EVP_CIPHER_CTX* ctx, const EVP_CIPHER* c, const Job& j, const uint8_t* key) {
    int outl = 0, fin = 0;
    if (EVP_EncryptInit_ex(ctx, c, nullptr, key, j.iv.data()) != 1) return std::nullopt;
    if (j.alg == openssh) {  // length ‖ payload ‖ 16 spare → sealed ‖ tag, one call
        Bytes buf = j.pt;
        buf.resize(j.pt.size() + 16);
        if (EVP_EncryptUpdate(ctx, buf.data(), &outl, buf.data(), int(buf.size())) != 1) return std::nullopt;
        return buf;
    }
    Bytes out(j.pt.size() + (j.alg == aead ? 16 : 0));
    if (j.alg == aead && EVP_EncryptUpdate(ctx, nullptr, &outl, j.aad.data(), int(j.aad.size())) != 1) return std::nullopt;
    const size_t half = j.pt.size() / 2;  // two updates, so streaming state is exercised
    if (EVP_EncryptUpdate(ctx, out.data(), &outl, j.pt.data(), int(half)) != 1 ||
        EVP_EncryptUpdate(ctx, out.data() + half, &outl, j.pt.data() + half, int(j.pt.size() - half)) != 1 ||
        EVP_EncryptFinal_ex(ctx, nullptr, &fin) != 1)
        return std::nullopt;
    if (j.alg == aead && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out.data() + j.pt.size()) != 1) return std::nullopt;
    return out;
}

// Opens a job's sealed bytes; true when the plaintext comes back.
bool open(EVP_CIPHER_CTX* ctx, const EVP_CIPHER* c, const Job& j, const uint8_t* key) {
    int outl = 0, fin = 0;
    if (EVP_DecryptInit_ex(ctx, c, nullptr, key, j.iv.data()) != 1) return false;
    Bytes out(j.sealed.size());
    if (j.alg == openssh)
        return EVP_DecryptUpdate(ctx, out.data(), &outl, j.sealed.data(), int(j.sealed.size())) == 1 &&
               std::equal(j.pt.begin(), j.pt.end(), out.begin());
    const size_t n = j.pt.size();
    if (j.alg == aead && (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, const_cast<uint8_t*>(j.sealed.data() + n)) != 1 ||
                          EVP_DecryptUpdate(ctx, nullptr, &outl, j.aad.data(), int(j.aad.size())) != 1))
        return false;
    return EVP_DecryptUpdate(ctx, out.data(), &outl, j.sealed.data(), int(n)) == 1 &&
           EVP_DecryptFinal_ex(ctx, nullptr, &fin) == 1 && std::equal(j.pt.begin(), j.pt.end(), out.begin());
}

// Jobs of every cipher at lengths on both sides of the short path and of
// the AVX2 batch, their results computed single-threaded.
std::vector<Job> make_jobs(const ProviderPair& pp) {
    Rng rng(0x7e4d);
    static constexpr size_t kLengths[] = {0, 1, 63, 64, 65, 191, 192, 193, 300, 511, 512, 513, 1300, 4096, 16384};
    std::vector<Job> jobs;
    for (Alg alg : {aead, chacha, openssh}) {
        const CipherPtr c = pp.fetch(kNames[alg], "stitch");
        for (size_t n : kLengths) {
            Job j{alg, rng.bytes(alg == openssh ? 64 : 32), rng.bytes(alg == aead ? 12 : alg == chacha ? 16 : 8),
                  rng.bytes(alg == aead ? 13 : 0), rng.bytes(alg == openssh ? 4 + n : n), {}};
            CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
            const std::optional<Bytes> sealed = seal(ctx.get(), c.get(), j, j.key.data());
            if (!sealed) throw std::runtime_error(std::string("single-threaded seal: ") + kNames[alg]);
            j.sealed = *sealed;
            jobs.push_back(std::move(j));
        }
    }
    return jobs;
}

// The single-threaded results checked once against the default provider.
void check_against_default(const ProviderPair& pp, const std::vector<Job>& jobs) {
    for (const Job& j : jobs) {
        if (j.alg == openssh) continue;  // no default counterpart; tests/provider composes one
        const CipherPtr c = pp.fetch(kNames[j.alg], "default");
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        const std::optional<Bytes> reference = seal(ctx.get(), c.get(), j, j.key.data());
        ASSERT_TRUE(reference && *reference == j.sealed) << kNames[j.alg] << " differs from default at " << j.pt.size();
    }
}

enum class Sharing { shared_cipher, own_fetch, dup_template, own_libctx };

const char* sharing_name(Sharing s) {
    switch (s) {
        case Sharing::shared_cipher: return "SharedCipher";
        case Sharing::own_fetch: return "OwnFetch";
        case Sharing::dup_template: return "DupTemplate";
        case Sharing::own_libctx: return "OwnLibctx";
    }
    return "?";
}

class ConcurrentCipher : public ::testing::TestWithParam<std::tuple<int, Sharing>> {
protected:
    static void SetUpTestSuite() {
        pp_ = new ProviderPair;
        jobs_ = new std::vector<Job>(make_jobs(*pp_));
    }
    static void TearDownTestSuite() {
        delete jobs_;
        delete pp_;
    }

    // Records a worker's failure; gtest assertions stay on the main thread.
    void failed(const std::string& what) {
        ++failures_;
        std::lock_guard<std::mutex> lock(mutex_);
        if (first_failure_.empty()) first_failure_ = what;
    }

    void run_job(EVP_CIPHER_CTX* ctx, const EVP_CIPHER* c, const Job& j, const uint8_t* key) {
        ++jobs_run_;
        const std::optional<Bytes> got = seal(ctx, c, j, key);
        if (got != j.sealed) failed(std::string(kNames[j.alg]) + " seal differs at " + std::to_string(j.pt.size()));
        if (!open(ctx, c, j, key)) failed(std::string(kNames[j.alg]) + " open failed at " + std::to_string(j.pt.size()));
    }

    void worker(int t, Sharing sharing, int iterations, const CipherPtr* shared, const std::vector<CipherCtxPtr>& templates) {
        const std::vector<Job>& jobs = *jobs_;
        OSSL_LIB_CTX* libctx = pp_->libctx();
        OSSL_LIB_CTX* own = nullptr;
        OSSL_PROVIDER* own_stitch = nullptr;
        if (sharing == Sharing::own_libctx) {
            own = OSSL_LIB_CTX_new();
            if (own && OSSL_PROVIDER_set_default_search_path(own, module_dir()))
                own_stitch = OSSL_PROVIDER_load(own, "stitch");
            if (!own_stitch) {
                OSSL_LIB_CTX_free(own);
                return failed("load stitch in a thread's own library context");
            }
            libctx = own;
        }
        for (int i = 0; i < iterations; ++i) {
            const size_t k = size_t(t * 7 + i * 13) % jobs.size();
            const Job& j = jobs[k];
            CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
            if (sharing == Sharing::shared_cipher) {
                run_job(ctx.get(), shared[j.alg].get(), j, j.key.data());
            } else if (sharing == Sharing::dup_template) {
                // pyca's way with OpenSSL >= 3.2: copy a keyed context, then set the IV.
                if (EVP_CIPHER_CTX_copy(ctx.get(), templates[k].get()) != 1) failed("EVP_CIPHER_CTX_copy");
                else run_job(ctx.get(), nullptr, j, nullptr);
            } else {
                EVP_CIPHER* c = EVP_CIPHER_fetch(libctx, kNames[j.alg], "provider=stitch");
                if (!c) failed(std::string("fetch ") + kNames[j.alg]);
                else run_job(ctx.get(), c, j, j.key.data());
                EVP_CIPHER_free(c);
            }
        }
        if (own) {
            OSSL_PROVIDER_unload(own_stitch);
            OSSL_LIB_CTX_free(own);
        }
    }

    static ProviderPair* pp_;
    static std::vector<Job>* jobs_;
    std::atomic<int> failures_{0};
    std::atomic<int> jobs_run_{0};
    std::mutex mutex_;
    std::string first_failure_;
};

ProviderPair* ConcurrentCipher::pp_ = nullptr;
std::vector<Job>* ConcurrentCipher::jobs_ = nullptr;

TEST_P(ConcurrentCipher, OutputsMatchSingleThreaded) {
    const auto [threads, sharing] = GetParam();
    const std::vector<Job>& jobs = *jobs_;
    check_against_default(*pp_, jobs);

    CipherPtr shared[3];
    for (int a = 0; a < 3; ++a) shared[a] = pp_->fetch(kNames[a], "stitch");
    std::vector<CipherCtxPtr> templates;  // one keyed context per job, read by every thread at once
    for (const Job& j : jobs) {
        templates.emplace_back(EVP_CIPHER_CTX_new());
        ASSERT_EQ(EVP_EncryptInit_ex(templates.back().get(), shared[j.alg].get(), nullptr, j.key.data(), nullptr), 1);
    }

    const int iterations = sharing == Sharing::own_libctx ? 30 : 4000 / threads;
    std::latch start(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        // `mode` is captured by copy: clang 14 cannot capture a structured binding.
        pool.emplace_back([&, t, mode = sharing] {
            start.arrive_and_wait();  // all threads begin together
            worker(t, mode, iterations, shared, templates);
        });
    for (std::thread& th : pool) th.join();

    EXPECT_EQ(failures_.load(), 0) << "first failure: " << first_failure_;
    EXPECT_EQ(jobs_run_.load(), threads * iterations);
}

INSTANTIATE_TEST_SUITE_P(Threads, ConcurrentCipher,
                         ::testing::Combine(::testing::Values(2, 4, 8),
                                            ::testing::Values(Sharing::shared_cipher, Sharing::own_fetch,
                                                              Sharing::dup_template, Sharing::own_libctx)),
                         [](const auto& info) {
                             return std::to_string(std::get<0>(info.param)) + "Threads" +
                                    sharing_name(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace stitch::test
