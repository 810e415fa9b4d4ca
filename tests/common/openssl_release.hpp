// Which OpenSSL release the default provider in this process comes from, and
// the patch releases that changed how its ChaCha20-Poly1305 answers a call.
// Tests that compare stitch with the default provider ask this instead of
// assuming one release: a Debian security update moves the reference under a
// test (docs/openssl-3.0-semantics.md#patch-releases).
#pragma once

#include <openssl/crypto.h>

#include <cstdio>
#include <string>

namespace stitch::test {

struct Release {
    unsigned major, minor, patch;

    // OpenSSL_version_num(): 0xMNN00PP0L for 3.x (major, minor, patch).
    static Release from_number(unsigned long n) {
        return {unsigned(n >> 28 & 0xf), unsigned(n >> 20 & 0xff), unsigned(n >> 4 & 0xff)};
    }
    unsigned long key() const { return (unsigned long)major << 16 | minor << 8 | patch; }
    bool at_least(const Release& r) const { return key() >= r.key(); }
    std::string name() const {
        char b[32];
        std::snprintf(b, sizeof(b), "%u.%u.%u", major, minor, patch);
        return b;
    }
};

// The libcrypto actually loaded (LD_LIBRARY_PATH may point at another one
// than the headers came from; scripts/test-openssl-versions.sh does).
inline Release installed_release() { return Release::from_number(OpenSSL_version_num()); }

// Where the default provider's answers changed, each with its upstream
// reference. A release that has one of these answers the new way.
namespace change {

// EVP_Cipher(ctx, out, NULL, 0) ends the message and, on decrypt, checks a
// tag that was set. Before: nothing happened and 0 ("success") came back.
// openssl/openssl#32258 (CVE-2026-75803), fixed by #32173, 3.0 backport #32417.
inline constexpr Release evp_cipher_finalises{3, 0, 22};

// The same backport split update from cipher: a zero-length EVP_Cipher with an
// input goes into the message. Outside TLS record mode it pads the AAD seen so
// far early, so AAD after it gives a tag that is not RFC 8439's
// (openssl/openssl#32752, open; fix proposed in #32753). In TLS record mode,
// with an output buffer, it is refused (−1), which #32753 keeps.
inline constexpr Release empty_cipher_enters_message{3, 0, 22};

}  // namespace change

// The answer columns of docs/openssl-3.0-semantics.md#empty-calls, measured:
// 3.0.17, 3.0.19 and 3.0.20 answer alike (their provider sources differ in
// formatting only) and stand for 3.0.17 to 3.0.21; 3.0.22 as above. Other
// releases are not measured: tests compare them where every measured release
// agrees, and report, not fail, where those differ.
enum class Column { like_3_0_19, like_3_0_22, not_measured };

inline Column column_of(const Release& r) {
    if (r.major != 3 || r.minor != 0 || r.patch < 17) return Column::not_measured;
    if (!r.at_least(change::evp_cipher_finalises)) return Column::like_3_0_19;
    return r.patch == 22 ? Column::like_3_0_22 : Column::not_measured;
}

}  // namespace stitch::test
