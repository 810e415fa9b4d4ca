// The one library context every fuzz input runs in: stitch and OpenSSL's
// default provider side by side, the algorithms fetched once per process.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>

namespace stitch::fuzz {

struct FuzzProviders {
    OSSL_LIB_CTX* libctx;
    EVP_CIPHER* stitch_aead;     // ChaCha20-Poly1305, provider=stitch
    EVP_CIPHER* default_aead;    //                    provider=default
    EVP_CIPHER* stitch_chacha;   // ChaCha20
    EVP_CIPHER* default_chacha;
    EVP_CIPHER* stitch_openssh;  // chacha20-poly1305@openssh.com (stitch only)
    EVP_MAC* default_poly1305;   // POLY1305, provider=default
};

// Loads on first use. In a libFuzzer build stitch is linked in and added with
// OSSL_PROVIDER_add_builtin (STITCH_FUZZ_BUILTIN); in a replay build it is the
// stitch.so module of the build tree, loaded as users load it.
const FuzzProviders& fuzz_providers();

// Counts an event by name; with STITCH_FUZZ_STATS set the counts are printed
// at exit, to see which states a run reached (e.g. authentic opens).
void fuzz_count(const char* what);

// Also told of every fuzz_count event when set: the sequence enumerator
// (evp_sequence_enumerate.cpp) records which input first reached each rule.
extern void (*fuzz_count_hook)(const char* what);

// The target and the input it is running, so a finding can print them: each
// target's LLVMFuzzerTestOneInput sets them first.
void fuzz_set_input(const char* target, const uint8_t* data, size_t size);

// A finding: prints what differed and the input (base64, and how to replay it
// without libFuzzer), then aborts, which libFuzzer reports as a crash and
// saves the input that caused it. scripts/test-fuzz.sh prints the seed.
[[noreturn]] void fuzz_fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace stitch::fuzz
