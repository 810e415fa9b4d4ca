// Constant time over the provider layer: stitch.so loaded into OpenSSL and
// driven through EVP, as applications drive it, with the key, the nonce
// (IV), the plaintext and the tag marked undefined for memcheck (the
// ctgrind method, ctgrind.hpp). ct.provider runs this under valgrind and
// fails on any branch or address computed from them inside stitch.so
// (run_valgrind_provider.py attributes each report to the first frame
// outside the C library). OpenSSL's own frames may branch on what stitch
// returns (a decrypt's verdict is public by design: EVP_DecryptFinal_ex
// tests it, as every caller must).
//
// Every cipher and the MAC: ChaCha20-Poly1305 (updates in pieces,
// EVP_Cipher, the TLS 1.2 record path, TLS 1.3's per-record IV, opens that
// pass and opens that are refused), raw ChaCha20 (pieces, key-only and
// IV-only re-init), chacha20-poly1305@openssh.com (seal, the length alone,
// open, forged open) and POLY1305. Outputs are declassified and compared
// with the default provider's, computed on plain copies of the inputs.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "ct/ctgrind.hpp"

namespace {

using stitch::ct::declassify;
using stitch::ct::secret;
using stitch::test::Bytes;
using stitch::test::CipherCtxPtr;
using stitch::test::CipherPtr;
using stitch::test::MacCtxPtr;
using stitch::test::MacPtr;
using stitch::test::providers;
using stitch::test::Rng;

int g_checks = 0, g_failures = 0;

void expect(bool ok, const std::string& what) {
    ++g_checks;
    if (ok) return;
    ++g_failures;
    std::printf("FAIL %s\n", what.c_str());
}

// A copy of b that memcheck treats as secret.
Bytes hidden(const Bytes& b) {
    Bytes s = b;
    secret(s.data(), s.size());
    return s;
}

// A result computed from secrets, made public to compare it.
Bytes shown(Bytes b) {
    declassify(b.data(), b.size());
    return b;
}

bool shown(int verdict) {
    declassify(&verdict, sizeof(verdict));
    return verdict == 1;
}

constexpr size_t kLengths[] = {0, 1, 16, 63, 64, 65, 191, 192, 193, 512, 1300, 4100};
const std::vector<std::vector<size_t>> kSplits = {{}, {1, 63, 129}, {7, 64}};  // {} = one call

struct Aead {
    bool ok = true;
    Bytes out, tag;
};

// ChaCha20-Poly1305 through EVP updates (text cut per split), then the tag.
Aead aead_updates(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& in,
                  const std::vector<size_t>& split, const Bytes& tag, bool cipher_final) {
    CipherCtxPtr ctx = stitch::test::new_cipher_ctx();
    Aead r;
    r.out.assign(in.size(), 0);
    r.tag.assign(16, 0);
    int outl = 0;
    r.ok &= EVP_CipherInit_ex(ctx.get(), c, nullptr, key.data(), iv.data(), enc) == 1;
    if (!enc) r.ok &= EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, const_cast<uint8_t*>(tag.data())) == 1;
    if (!aad.empty()) r.ok &= EVP_CipherUpdate(ctx.get(), nullptr, &outl, aad.data(), int(aad.size())) == 1;
    for (size_t pos = 0, i = 0; pos < in.size(); ++i) {
        const size_t n = split.empty() ? in.size() : std::min(split[i % split.size()], in.size() - pos);
        r.ok &= EVP_CipherUpdate(ctx.get(), r.out.data() + pos, &outl, in.data() + pos, int(n)) == 1;
        pos += n;
    }
    // The verdict of an open comes back through OpenSSL, which branches on
    // it; only stitch.so's own frames are judged (see the file comment).
    const int fin = cipher_final ? (EVP_Cipher(ctx.get(), nullptr, nullptr, 0) >= 0) : EVP_CipherFinal_ex(ctx.get(), nullptr, &outl);
    r.ok &= shown(fin);
    if (enc) r.ok &= EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, r.tag.data()) == 1;
    return r;
}

// A TLS 1.2 record in place through EVP_Cipher: header, then payload ‖ tag.
Aead tls12(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv, uint64_t seq, const Bytes& record) {
    CipherCtxPtr ctx = stitch::test::new_cipher_ctx();
    Aead r;
    r.ok &= EVP_CipherInit_ex(ctx.get(), c, nullptr, key.data(), iv.data(), enc) == 1;
    const size_t payload = enc ? record.size() - 16 : record.size();
    uint8_t header[13];
    for (int i = 0; i < 8; ++i) header[i] = uint8_t(seq >> (56 - 8 * i));
    header[8] = 0x17, header[9] = 0x03, header[10] = 0x03;
    header[11] = uint8_t(payload >> 8), header[12] = uint8_t(payload);
    r.ok &= EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, header) == 16;
    r.out = record;
    const int n = EVP_Cipher(ctx.get(), r.out.data(), r.out.data(), unsigned(r.out.size()));
    r.ok &= shown(int(n >= 0));  // the bytes written (0 for an empty payload), or -1
    return r;
}

Bytes chacha20(const EVP_CIPHER* c, const Bytes& key1, const Bytes& key2, const Bytes& iv1, const Bytes& iv2,
               const Bytes& in) {
    CipherCtxPtr ctx = stitch::test::new_cipher_ctx();
    Bytes out(in.size(), 0);
    int outl = 0;
    bool ok = EVP_EncryptInit_ex(ctx.get(), c, nullptr, key1.data(), iv1.data()) == 1;
    // A partial block, a key-only re-init, a block's end, an IV-only re-init, the rest.
    const size_t cuts[] = {std::min<size_t>(in.size(), 65), std::min<size_t>(in.size(), 65 + 63), in.size()};
    size_t pos = 0;
    for (size_t i = 0; i < 3; ++i) {
        ok &= EVP_EncryptUpdate(ctx.get(), out.data() + pos, &outl, in.data() + pos, int(cuts[i] - pos)) == 1;
        pos = cuts[i];
        if (i == 0) ok &= EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key2.data(), nullptr) == 1;
        if (i == 1) ok &= EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, nullptr, iv2.data()) == 1;
    }
    ok &= EVP_EncryptFinal_ex(ctx.get(), nullptr, &outl) == 1;
    expect(ok, "ChaCha20 calls");
    return out;
}

Bytes poly1305(const EVP_MAC* mac, const Bytes& key, const Bytes& msg) {
    MacCtxPtr ctx(EVP_MAC_CTX_new(const_cast<EVP_MAC*>(mac)));
    Bytes tag(16, 0);
    size_t outl = 0;
    bool ok = EVP_MAC_init(ctx.get(), key.data(), key.size(), nullptr) == 1;
    for (size_t pos = 0; pos < msg.size();) {
        const size_t n = std::min<size_t>(msg.size() - pos, 1 + pos % 37);
        ok &= EVP_MAC_update(ctx.get(), msg.data() + pos, n) == 1;
        pos += n;
    }
    ok &= EVP_MAC_final(ctx.get(), tag.data(), &outl, 16) == 1;
    expect(ok, "POLY1305 calls");
    return tag;
}

// One OpenSSH packet call on a context keyed once: IV-only init with the
// sequence number, then one update. Returns outl, or -1 when refused.
int openssh_call(EVP_CIPHER_CTX* ctx, uint64_t seq, const uint8_t* in, uint8_t* out, size_t inl) {
    uint8_t iv[8];
    for (int i = 0; i < 8; ++i) iv[i] = uint8_t(seq >> (56 - 8 * i));
    if (EVP_CipherInit_ex(ctx, nullptr, nullptr, nullptr, iv, -1) != 1) return -1;
    int outl = 0;
    const int r = EVP_CipherUpdate(ctx, out, &outl, in, int(inl));
    declassify(&outl, sizeof(outl));  // how much came out: public, like the verdict
    return shown(r) ? outl : -1;
}

void check_aead(Rng& rng) {
    CipherPtr s = providers().fetch("ChaCha20-Poly1305", "stitch"), d = providers().fetch("ChaCha20-Poly1305", "default");
    for (size_t i = 0; i < std::size(kLengths); ++i) {
        const size_t len = kLengths[i];
        const Bytes key = rng.bytes(32), iv = rng.bytes(12), pt = rng.bytes(len), aad = rng.bytes(i % 3 == 0 ? 0 : i % 3 == 1 ? 13 : 40);
        const Aead want = aead_updates(d.get(), true, key, iv, aad, pt, {}, {}, false);
        for (const auto& split : kSplits) {
            const std::string at = " (" + std::to_string(len) + " bytes, split " + std::to_string(split.size()) + ")";
            const Aead seal = aead_updates(s.get(), true, hidden(key), hidden(iv), aad, hidden(pt), split, {}, false);
            expect(seal.ok && shown(seal.out) == want.out && shown(seal.tag) == want.tag, "AEAD seal" + at);
            for (bool cipher_final : {false, true}) {
                const Aead open = aead_updates(s.get(), false, hidden(key), hidden(iv), aad, want.out, split, hidden(want.tag), cipher_final);
                expect(open.ok && shown(open.out) == pt, "AEAD open" + at);
                Bytes forged = want.tag;
                forged[len % 16] ^= 4;
                const Aead refused = aead_updates(s.get(), false, hidden(key), hidden(iv), aad, want.out, split, hidden(forged), cipher_final);
                expect(!refused.ok, "AEAD forged open refused" + at);
            }
        }
        // TLS 1.2 records in place, seal and open (the tag inside the record is secret), and a forged one.
        if (len <= 16384) {
            const uint64_t seq = rng.next();
            Bytes plain = pt;
            plain.resize(len + 16, 0);
            const Aead want_rec = tls12(d.get(), true, key, iv, seq, plain);
            const Aead seal = tls12(s.get(), true, hidden(key), hidden(iv), seq, hidden(plain));
            expect(seal.ok && shown(seal.out) == want_rec.out, "TLS 1.2 seal (" + std::to_string(len) + ")");
            Bytes record = want_rec.out;
            secret(record.data() + len, 16);
            const Aead open = tls12(s.get(), false, hidden(key), hidden(iv), seq, record);
            const Bytes opened = shown(open.out);
            expect(open.ok && Bytes(opened.begin(), opened.begin() + long(len)) == pt, "TLS 1.2 open (" + std::to_string(len) + ")");
            declassify(record.data() + len, 16);
            record[len] ^= 1;
            secret(record.data() + len, 16);
            expect(!tls12(s.get(), false, hidden(key), hidden(iv), seq, record).ok, "TLS 1.2 forged record refused");
        }
    }
}

void check_chacha20(Rng& rng) {
    CipherPtr s = providers().fetch("ChaCha20", "stitch"), d = providers().fetch("ChaCha20", "default");
    for (size_t len : kLengths) {
        const Bytes k1 = rng.bytes(32), k2 = rng.bytes(32), in = rng.bytes(len);
        Bytes iv1 = rng.bytes(16), iv2 = rng.bytes(16);
        iv1[0] = iv1[1] = iv1[2] = iv1[3] = 0xff;  // the counter carries into word 1 at once
        const Bytes want = chacha20(d.get(), k1, k2, iv1, iv2, in);
        expect(shown(chacha20(s.get(), hidden(k1), hidden(k2), hidden(iv1), hidden(iv2), hidden(in))) == want,
               "ChaCha20 (" + std::to_string(len) + " bytes)");
    }
}

void check_poly1305(Rng& rng) {
    MacPtr s = providers().fetch_mac("POLY1305", "stitch"), d = providers().fetch_mac("POLY1305", "default");
    for (size_t len : kLengths) {
        const Bytes key = rng.bytes(32), msg = rng.bytes(len);
        expect(shown(poly1305(s.get(), hidden(key), hidden(msg))) == poly1305(d.get(), key, msg),
               "POLY1305 (" + std::to_string(len) + " bytes)");
    }
}

// stitch's OpenSSH cipher has no counterpart in the default provider: a
// packet sealed on secrets must open (on plain inputs), and the reverse.
void check_openssh(Rng& rng) {
    CipherPtr c = providers().fetch("chacha20-poly1305@openssh.com", "stitch");
    for (size_t payload : kLengths) {
        const Bytes key = rng.bytes(64), packet = rng.bytes(4 + payload);
        const uint64_t seq = rng.next();
        CipherCtxPtr enc = stitch::test::new_cipher_ctx(), dec = stitch::test::new_cipher_ctx(),
                     senc = stitch::test::new_cipher_ctx(), sdec = stitch::test::new_cipher_ctx();
        const Bytes skey = hidden(key);
        const uint8_t seq0[8] = {};
        bool ok = EVP_CipherInit_ex(enc.get(), c.get(), nullptr, key.data(), seq0, 1) == 1 &&
                  EVP_CipherInit_ex(dec.get(), c.get(), nullptr, key.data(), seq0, 0) == 1 &&
                  EVP_CipherInit_ex(senc.get(), c.get(), nullptr, skey.data(), seq0, 1) == 1 &&
                  EVP_CipherInit_ex(sdec.get(), c.get(), nullptr, skey.data(), seq0, 0) == 1;
        const std::string at = " (" + std::to_string(payload) + " bytes)";
        // Seal on secrets; the wire is public once sealed.
        Bytes wire = hidden(packet);
        wire.resize(packet.size() + 16, 0);
        ok &= openssh_call(senc.get(), seq, wire.data(), wire.data(), wire.size()) == int(wire.size());
        wire = shown(wire);
        Bytes plain_wire = packet;
        plain_wire.resize(packet.size() + 16, 0);
        ok &= openssh_call(enc.get(), seq, plain_wire.data(), plain_wire.data(), plain_wire.size()) == int(wire.size());
        expect(ok && wire == plain_wire, "OpenSSH seal" + at);
        // The length alone, then the packet, on secret keys with the tag secret.
        Bytes len4(4), in = wire;
        secret(in.data() + in.size() - 16, 16);
        expect(openssh_call(sdec.get(), seq, in.data(), len4.data(), 4) == 4 &&
                   shown(len4) == Bytes(packet.begin(), packet.begin() + 4), "OpenSSH length" + at);
        Bytes out(in.size(), 0);
        const bool opened = openssh_call(sdec.get(), seq, in.data(), out.data(), in.size()) == int(packet.size());
        out = shown(out);
        expect(opened && Bytes(out.begin(), out.begin() + long(packet.size())) == packet, "OpenSSH open" + at);
        declassify(in.data() + in.size() - 16, 16);
        in[in.size() - 1] ^= 0x20;
        secret(in.data() + in.size() - 16, 16);
        expect(openssh_call(sdec.get(), seq, in.data(), out.data(), in.size()) == -1, "OpenSSH forged open refused" + at);
    }
}

}  // namespace

int main() {
    // Which kernel set stitch chose in this process (valgrind's CPU has AVX2
    // and BMI2 but no AVX-512; ct.provider.portable forces portable).
    char* kernel = nullptr;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_ptr("kernel", &kernel, 0), OSSL_PARAM_END};
    if (OSSL_PROVIDER_get_params(providers().stitch(), p) == 1 && kernel) std::printf("stitch kernel set: %s\n", kernel);
    Rng rng(0xc7b40001);
    check_aead(rng);
    check_chacha20(rng);
    check_poly1305(rng);
    check_openssh(rng);
    std::printf("%d checks, %d failures\n", g_checks, g_failures);
    return g_failures == 0 ? 0 : 1;
}
