// Raw ChaCha20 from stitch: 32-byte key, 16-byte IV = four LE32 words, word 0
// the block counter carrying into word 1 exactly as OpenSSL's does (so
// OpenSSH's LE64 counter ‖ BE64 seqnr layout works), against the default
// provider: RFC 8439 §2.4.2, every length with random splits, the counter
// edge, and the call sequences OpenSSH and libssh make
// (docs/openssl-3.0-semantics.md#callers).
#include <gtest/gtest.h>

#include "common/openssh_iv.hpp"
#include "common/rfc8439_vectors.hpp"
#include "evp_support.hpp"

namespace stitch::test {
namespace {

Bytes iv_words(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) {
    Bytes iv(16);
    const uint32_t w[4] = {w0, w1, w2, w3};
    for (int i = 0; i < 16; ++i) iv[i] = uint8_t(w[i / 4] >> (8 * (i % 4)));
    return iv;
}

// Encrypts `in` on a fresh context, cut into calls per `parts`, in place or
// not, through EVP_CipherUpdate or EVP_Cipher.
Bytes stream(const EVP_CIPHER* c, const Bytes& key, const Bytes& iv, const Bytes& in, const std::vector<size_t>& parts,
             bool in_place, bool via_evp_cipher) {
    CipherCtxPtr ctx = new_cipher_ctx();
    EXPECT_EQ(EVP_EncryptInit_ex(ctx.get(), c, nullptr, key.data(), iv.data()), 1);
    Bytes out = in_place ? in : Bytes(in.size(), 0xee);
    size_t off = 0;
    for (size_t n : parts) {
        const uint8_t* src = in_place ? out.data() + off : in.data() + off;
        if (via_evp_cipher) {
            EXPECT_EQ(EVP_Cipher(ctx.get(), out.data() + off, src, unsigned(n)), int(n))
                << "EVP_Cipher on a provided cipher returns the bytes written";
        } else {
            int outl = -1;
            EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data() + off, &outl, src, int(n)), 1);
            EXPECT_EQ(outl, int(n));
        }
        off += n;
    }
    int outl = -1;
    uint8_t spare[16];
    EXPECT_EQ(EVP_EncryptFinal_ex(ctx.get(), spare, &outl), 1);
    EXPECT_EQ(outl, 0);
    return out;
}

Bytes one_shot(const EVP_CIPHER* c, const Bytes& key, const Bytes& iv, const Bytes& in) {
    return stream(c, key, iv, in, in.empty() ? std::vector<size_t>{} : std::vector<size_t>{in.size()}, false, false);
}

// Every test holds stitch's ChaCha20 to the default provider's.
class Chacha20 : public ::testing::Test {
protected:
    // stitch's output over update calls per `parts`; the default provider's in one call.
    Bytes of_stitch(const Bytes& key, const Bytes& iv, const Bytes& in, const std::vector<size_t>& parts, bool in_place,
                    bool via_evp_cipher) const {
        return stream(cp_.stitch.get(), key, iv, in, parts, in_place, via_evp_cipher);
    }
    Bytes of_default(const Bytes& key, const Bytes& iv, const Bytes& in) const {
        return one_shot(cp_.reference.get(), key, iv, in);
    }

    const CipherPair cp_ = fetch_both("ChaCha20");
};

TEST_F(Chacha20, Rfc8439Vectors) {
    const Rfc8439File file = load_rfc8439_vectors();
    const auto vectors = file.of_kind("chacha20_encrypt");
    ASSERT_FALSE(vectors.empty());
    for (const Rfc8439Vector* v : vectors) {
        const Bytes nonce = v->bytes("nonce");
        Bytes iv = iv_words(v->u32_decimal("counter"), 0, 0, 0);
        std::copy(nonce.begin(), nonce.end(), iv.begin() + 4);
        EXPECT_EQ(to_hex(one_shot(cp_.stitch.get(), v->bytes("key"), iv, v->bytes("plaintext"))), v->text("ciphertext"))
            << v->title;
    }
}

TEST_F(Chacha20, EveryLengthMatchesDefault) {
    Rng rng = seeded_rng(0xc4a0001);
    for (size_t len = 0; len <= 1600; ++len) {
        const Bytes key = rng.bytes(32), in = rng.bytes(len);
        Bytes iv = rng.bytes(16);
        if (rng.below(3) == 0) iv[0] = 0xf0, iv[1] = iv[2] = iv[3] = 0xff;  // a carry inside the message
        const std::vector<size_t> parts = random_split(rng, len);
        const bool in_place = rng.below(2), via_evp_cipher = rng.below(3) == 0;
        ASSERT_EQ(to_hex(of_stitch(key, iv, in, parts, in_place, via_evp_cipher)), to_hex(of_default(key, iv, in)))
            << "len " << len << " iv " << to_hex(iv) << " parts " << parts.size() << " in_place " << in_place
            << " EVP_Cipher " << via_evp_cipher;
    }
    for (size_t len : {size_t(16384), size_t(65536), size_t(1 << 20) + 7}) {
        const Bytes key = rng.bytes(32), iv = rng.bytes(16), in = rng.bytes(len);
        ASSERT_EQ(to_hex(of_stitch(key, iv, in, random_split(rng, len), rng.below(2), false)),
                  to_hex(of_default(key, iv, in)))
            << "len " << len;
    }
}

// Word 0 is the block counter; after 0xffffffff it wraps to 0 and word 1 goes
// up by one (and word 1 itself wraps without touching word 2), as OpenSSL's
// cipher_chacha20_hw.c does.
TEST_F(Chacha20, CounterCarriesIntoWordOneAsOpensslDoes) {
    Rng rng = seeded_rng(0xc4a0002);
    const Bytes key = rng.bytes(32);
    const uint32_t n1 = uint32_t(rng.next()), n2 = uint32_t(rng.next()), n3 = uint32_t(rng.next());
    for (uint32_t w0 : {0xfffffffeu, 0xffffffffu})
        for (uint32_t w1 : {n1, 0xffffffffu}) {
            const Bytes iv = iv_words(w0, w1, n2, n3), in = rng.bytes(64 * 5 + 17);
            const Bytes got = of_stitch(key, iv, in, random_split(rng, in.size()), false, false);
            ASSERT_EQ(to_hex(got), to_hex(of_default(key, iv, in))) << "w0 " << std::hex << w0 << " w1 " << w1;
            // The block after counter 0xffffffff is the block of (0, w1 + 1).
            const size_t wrap = 64 * size_t(0x100000000ull - w0);
            const Bytes next =
                of_default(key, iv_words(0, w1 + 1, n2, n3), Bytes(in.begin() + wrap, in.begin() + wrap + 64));
            ASSERT_EQ(to_hex(got.data() + wrap, 64), to_hex(next));
        }
}

// OpenSSH's IV: LE64 block counter ‖ BE64 sequence number, across the point
// where the low counter word wraps.
TEST_F(Chacha20, OpensshIvLayoutAcrossTheCarry) {
    Rng rng = seeded_rng(0xc4a0003);
    for (uint64_t ctr : {uint64_t(0), uint64_t(1), uint64_t(0xfffffffe), uint64_t(0xffffffff), uint64_t(0x1fffffffe)}) {
        const Bytes key = rng.bytes(32), in = rng.bytes(64 * 4 + 9);
        const Bytes iv = openssh_chacha_iv(ctr, rng.next());
        ASSERT_EQ(to_hex(of_stitch(key, iv, in, random_split(rng, in.size()), rng.below(2), true)),
                  to_hex(of_default(key, iv, in)))
            << "counter " << ctr;
    }
}

// What OpenSSH's cipher-chachapoly-libcrypto.c does per packet: iv-only
// init and EVP_Cipher, three times, on two long-lived contexts.
TEST_F(Chacha20, OpensshCallSequence) {
    Rng rng = seeded_rng(0xc4a0004);
    const Bytes key = rng.bytes(64);
    auto run = [&](const EVP_CIPHER* c, Rng r) {
        CipherCtxPtr main_ctx = new_cipher_ctx(), header_ctx = new_cipher_ctx();
        EXPECT_EQ(EVP_CipherInit(main_ctx.get(), c, key.data(), nullptr, 1), 1);
        EXPECT_EQ(EVP_CipherInit(header_ctx.get(), c, key.data() + 32, nullptr, 1), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_get_iv_length(main_ctx.get()), 16);
        std::string transcript;
        for (uint64_t seq = 0; seq < 100; ++seq) {
            Bytes seqbuf = openssh_chacha_iv(0, seq), poly_key(64, 0), len4 = r.bytes(4),
                  payload = r.bytes(r.below(2000));
            int rc[6];
            rc[0] = EVP_CipherInit(main_ctx.get(), nullptr, nullptr, seqbuf.data(), 1);
            rc[1] = EVP_Cipher(main_ctx.get(), poly_key.data(), poly_key.data(), 64);
            rc[2] = EVP_CipherInit(header_ctx.get(), nullptr, nullptr, seqbuf.data(), 1);
            rc[3] = EVP_Cipher(header_ctx.get(), len4.data(), len4.data(), 4);
            seqbuf[0] = 1;
            rc[4] = EVP_CipherInit(main_ctx.get(), nullptr, nullptr, seqbuf.data(), 1);
            rc[5] = EVP_Cipher(main_ctx.get(), payload.data(), payload.data(), unsigned(payload.size()));
            for (int x : rc) transcript += std::to_string(x) + " ";
            transcript += to_hex(poly_key) + " " + to_hex(len4) + " " + to_hex(payload) + "\n";
        }
        return transcript;
    };
    EXPECT_EQ(run(cp_.stitch.get(), rng), run(cp_.reference.get(), rng));
}

// libssh 0.10.6 (src/libcrypto.c): iv-only init, 64 zero bytes for the
// Poly1305 key, then the payload on the same stream, a no-op final.
TEST_F(Chacha20, LibsshCallSequence) {
    Rng rng = seeded_rng(0xc4a0005);
    const Bytes key = rng.bytes(32);
    auto run = [&](const EVP_CIPHER* c, Rng r) {
        CipherCtxPtr ctx = new_cipher_ctx();
        EXPECT_EQ(EVP_EncryptInit_ex(ctx.get(), c, nullptr, key.data(), nullptr), 1);
        std::string transcript;
        for (uint64_t seq = 0; seq < 100; ++seq) {
            const Bytes seqbuf = openssh_chacha_iv(0, seq);
            Bytes block0(64), zeros(64, 0), payload = r.bytes(r.below(3000)), out(payload.size());
            int outl = -1;
            EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, nullptr, seqbuf.data(), 1), 1);
            EXPECT_EQ(EVP_CipherUpdate(ctx.get(), block0.data(), &outl, zeros.data(), 64), 1);
            EXPECT_EQ(EVP_CipherUpdate(ctx.get(), out.data(), &outl, payload.data(), int(payload.size())), 1);
            EXPECT_EQ(outl, int(payload.size()));
            EXPECT_EQ(EVP_CipherFinal_ex(ctx.get(), zeros.data(), &outl), 1);
            transcript += to_hex(block0) + " " + to_hex(out) + "\n";
        }
        return transcript;
    };
    EXPECT_EQ(run(cp_.stitch.get(), rng), run(cp_.reference.get(), rng));
}

// An iv-only init in the middle of a block starts the new stream at its own
// counter; a copy taken mid-block continues independently of its original.
TEST_F(Chacha20, ReinitAndCopyMidBlock) {
    Rng rng = seeded_rng(0xc4a0006);
    for (int i = 0; i < 50; ++i) {
        const Bytes key = rng.bytes(32), iv1 = rng.bytes(16), iv2 = rng.bytes(16), in = rng.bytes(300);
        const size_t cut = 1 + rng.below(150);
        CipherCtxPtr ctx = new_cipher_ctx();
        Bytes out(in.size());
        int outl;
        ASSERT_EQ(EVP_EncryptInit_ex(ctx.get(), cp_.stitch.get(), nullptr, key.data(), iv1.data()), 1);
        ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in.data(), int(cut)), 1);
        CipherCtxPtr copy = new_cipher_ctx();
        ASSERT_EQ(EVP_CIPHER_CTX_copy(copy.get(), ctx.get()), 1);
        // The original restarts with iv2; the copy carries on with iv1's stream.
        ASSERT_EQ(EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, nullptr, iv2.data()), 1);
        Bytes restarted(in.size());
        ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), restarted.data(), &outl, in.data(), int(in.size())), 1);
        ctx.reset();
        ASSERT_EQ(EVP_EncryptUpdate(copy.get(), out.data() + cut, &outl, in.data() + cut, int(in.size() - cut)), 1);
        ASSERT_EQ(to_hex(restarted), to_hex(of_default(key, iv2, in))) << "cut " << cut;
        ASSERT_EQ(to_hex(out), to_hex(of_default(key, iv1, in))) << "cut " << cut;
    }
}

// A key-only init keeps the counter where OpenSSL keeps it: on the block a
// partly used keystream came from (cipher_chacha20_hw.c), for any cut.
TEST_F(Chacha20, KeyOnlyReinitMidStreamMatchesDefault) {
    Rng rng = seeded_rng(0xc4a0007);
    const Bytes key1 = rng.bytes(32), key2 = rng.bytes(32), iv = rng.bytes(16), in = rng.bytes(400);
    auto run = [&](const EVP_CIPHER* c, size_t cut) {
        CipherCtxPtr ctx = new_cipher_ctx();
        Bytes out(in.size());
        int outl;
        EXPECT_EQ(EVP_EncryptInit_ex(ctx.get(), c, nullptr, key1.data(), iv.data()), 1);
        EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in.data(), int(cut)), 1);
        EXPECT_EQ(EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key2.data(), nullptr), 1);
        EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data() + cut, &outl, in.data() + cut, int(in.size() - cut)), 1);
        return to_hex(out);
    };
    for (size_t cut : {0, 1, 7, 63, 64, 65, 128, 200})
        EXPECT_EQ(run(cp_.stitch.get(), cut), run(cp_.reference.get(), cut)) << "cut " << cut;
}

// The same when the call before the re-init used up a partly used block
// exactly (65 + 63 bytes): OpenSSL advances past that block only when the
// next byte arrives, so the new key starts on it again. Found by the fuzzer.
TEST_F(Chacha20, KeyOnlyReinitAfterABlockRanOutMatchesDefault) {
    Rng rng = seeded_rng(0xc4a0008);
    const Bytes key1 = rng.bytes(32), key2 = rng.bytes(32), iv = rng.bytes(16), in = rng.bytes(300);
    auto run = [&](const EVP_CIPHER* c, size_t first, size_t second) {
        CipherCtxPtr ctx = new_cipher_ctx();
        Bytes out(in.size());
        int outl;
        const size_t cut = first + second;
        EXPECT_EQ(EVP_EncryptInit_ex(ctx.get(), c, nullptr, key1.data(), iv.data()), 1);
        EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in.data(), int(first)), 1);
        EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data() + first, &outl, in.data() + first, int(second)), 1);
        EXPECT_EQ(EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key2.data(), nullptr), 1);
        EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out.data() + cut, &outl, in.data() + cut, int(in.size() - cut)), 1);
        return to_hex(out);
    };
    const std::pair<size_t, size_t> cuts[] = {{65, 63}, {1, 63}, {130, 62}, {63, 1}, {64, 64}, {70, 60}};
    for (auto [first, second] : cuts)
        EXPECT_EQ(run(cp_.stitch.get(), first, second), run(cp_.reference.get(), first, second))
            << "cuts " << first << " + " << second;
}

}  // namespace
}  // namespace stitch::test
