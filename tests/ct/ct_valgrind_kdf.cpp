// Constant time for the KDF kernels, by memcheck (the ctgrind method, see
// ctgrind.hpp): SHA-256/384/512, HMAC key setup and MACs, HKDF extract and
// expand, TLS 1.3's expand-label and extract step, with every key, salt,
// IKM, PRK and message byte marked undefined. A branch or table index on
// any of them is a memcheck error and fails ct.valgrind_kdf.
//
// Every SHA-2 set valgrind's CPU runs is checked: the portable one and the
// AVX2 + BMI2 SHA-512 kernel (kernels/sha512_avx2; valgrind executes AVX2,
// BMI2's RORX and ANDN), the main binary failing if the AVX2 set is missing
// where the host has it. Valgrind 3.19 cannot execute the SHA extensions
// (SHA256RNDS2 is an illegal instruction to it) and its CPUID hides them, so
// the SHA-NI kernel is not run here: it is straight-line code with no branch
// or table lookup on its data (kernels/shani/sha256.cpp), and is compared
// with the portable one on every run of sha2_kernel_test.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdio>
#include <vector>

#include "common/test_util.hpp"
#include "ct/ctgrind.hpp"
#include "kernels/hkdf.hpp"
#include "kernels/hmac.hpp"
#include "kernels/sha2.hpp"

namespace {

using namespace stitch::kern;
using stitch::ct::declassify;
using stitch::ct::secret;
using stitch::test::Bytes;
using stitch::test::Rng;

int g_failures = 0;
int g_checks = 0;

void expect(bool ok, const char* impl, const char* what, size_t len) {
    ++g_checks;
    if (ok) return;
    ++g_failures;
    std::printf("FAIL [%s] %s (len %zu)\n", impl, what, len);
}

const EVP_MD* md_of(Sha2 a) {
    return a == Sha2::sha256 ? EVP_sha256() : a == Sha2::sha384 ? EVP_sha384() : EVP_sha512();
}

// A secret buffer and a public copy of the same bytes for the reference.
struct SecretBytes {
    Bytes value, reference;
    SecretBytes(Rng& rng, size_t n) : value(rng.bytes(n)), reference(value) { secret(value.data(), value.size()); }
};

bool same_as(Bytes got, const Bytes& want) {
    declassify(got.data(), got.size());  // a computed output, compared in the open
    return got == want;
}

Bytes hmac_ref(Sha2 a, const Bytes& key, const Bytes& msg) {
    Bytes out(size_t(EVP_MD_get_size(md_of(a))));
    unsigned n = 0;
    static const uint8_t none[1] = {0};  // HMAC() refuses a NULL key even of length 0
    HMAC(md_of(a), key.empty() ? none : key.data(), int(key.size()), msg.data(), msg.size(), out.data(), &n);
    return out;
}

void check(const Sha2Impl& impl, Rng& rng) {
    for (Sha2 a : {Sha2::sha256, Sha2::sha384, Sha2::sha512}) {
        const size_t h = sha2_digest_len(a);
        // The hash over secret bytes, every block edge.
        for (size_t len : {0u, 1u, 55u, 56u, 64u, 111u, 112u, 128u, 200u, 256u, 600u}) {
            SecretBytes m(rng, len);
            Bytes got(h), want(h);
            sha2_digest(impl, a, m.value.data(), len, got.data());
            unsigned n = 0;
            EVP_Digest(m.reference.data(), len, want.data(), &n, md_of(a), nullptr);
            expect(same_as(got, want), impl.name, "digest", len);
        }
        // HMAC: secret keys of every size class (short, a block, hashed) and secret messages.
        for (size_t key_len : {0u, 16u, 32u, 64u, 127u, 128u, 129u, 200u}) {
            SecretBytes key(rng, key_len), msg(rng, 1 + rng.below(150));
            Sha2Hmac mac(impl, a);
            mac.set_key(key.value.data(), key_len);
            Bytes got(h);
            mac.mac({{msg.value.data(), msg.value.size()}}, got.data());
            expect(same_as(got, hmac_ref(a, key.reference, msg.reference)), impl.name, "hmac", key_len);
        }
        // HKDF: extract with secret IKM (and salt), expand with a secret PRK.
        {
            SecretBytes salt(rng, 32), ikm(rng, 48), prk(rng, h);
            const Bytes info = rng.bytes(30);
            Sha2Hmac mac(impl, a);
            Bytes got(h);
            expect(hkdf_extract(mac, salt.value.data(), 32, ikm.value.data(), 48, got.data()) == KdfStatus::ok &&
                       same_as(got, hmac_ref(a, salt.reference, ikm.reference)),
                   impl.name, "hkdf extract", 48);
            for (size_t len : {size_t(1), h - 1, h, h + 1, 3 * h}) {
                Bytes out(len), want;
                expect(
                    hkdf_expand(mac, prk.value.data(), h, info.data(), info.size(), out.data(), len) == KdfStatus::ok,
                    impl.name, "hkdf expand status", len);
                Bytes prev;
                for (uint8_t i = 1; want.size() < len; ++i) {
                    Bytes m = stitch::test::concat(prev, info);
                    m.push_back(i);
                    prev = hmac_ref(a, prk.reference, m);
                    want = stitch::test::concat(want, prev);
                }
                want.resize(len);
                expect(same_as(out, want), impl.name, "hkdf expand", len);
            }
        }
        // TLS 1.3: expand-label with a secret key; the extract step with a
        // secret previous secret (salt) and IKM. Labels and contexts are public.
        {
            SecretBytes key(rng, h), salt(rng, h), ikm(rng, h);
            const Bytes label = {'t', 'l', 's', '1', '3', ' ', 'k', 'e', 'y'}, context = rng.bytes(h);
            Sha2Hmac mac(impl, a);
            Bytes out(16), step(h);
            const bool ok = tls13_expand_label(mac, key.value.data(), h, label.data(), 6, label.data() + 6, 3,
                                               context.data(), h, out.data(), 16) == KdfStatus::ok &&
                            tls13_extract_step(mac, true, salt.value.data(), h, true, ikm.value.data(), h, label.data(),
                                               6, label.data() + 6, 3, step.data()) == KdfStatus::ok;
            declassify(out.data(), out.size());
            declassify(step.data(), step.size());
            expect(ok, impl.name, "tls13 steps", h);
        }
    }
}

}  // namespace

int main() {
    bool avx2 = false;
    std::printf("SHA-2 sets runnable in this process:");
    for (const Sha2Impl* impl : sha2_runnable_impls()) {
        std::printf(" %s", impl->name);
        avx2 = avx2 || impl->sha512_blocks == sha512_blocks_avx2;
    }
    std::printf(" (SHA-NI is hidden by valgrind)\n");
    // Valgrind reports AVX2 and BMI2 where the host has them: the AVX2 kernel
    // must have been checked then, or this run proves less than it says.
    if (!avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) {
        std::printf("FAIL: the host has AVX2 + BMI2 but no SHA-2 set with the AVX2 SHA-512 kernel ran\n");
        return 1;
    }
    Rng rng(0xc7c7);
    for (const Sha2Impl* impl : sha2_runnable_impls()) check(*impl, rng);
    std::printf("%d checks, %d failures\n", g_checks, g_failures);
    return g_failures == 0 ? 0 : 1;
}
