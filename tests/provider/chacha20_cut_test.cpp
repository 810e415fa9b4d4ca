// Raw ChaCha20 through EVP, generated rather than sampled: every cut of a
// stream into two or three updates whose lengths land 0, 1, 63, 64 or 65
// bytes into a block (and one that runs past an AVX2 batch), then no
// re-init, a key-only or an IV-only re-init (same or new key or IV), alone
// or followed at once by a key-only or IV-only one, then more data; IV counter words at the wrap (word 0 0xffffffff, 0xfffffffe,
// 0x7fffffff, 0; word 1 all ones too, so the carry into it wraps). stitch's
// bytes and return values must equal the default provider's for each one.
//
// What this guards: OpenSSL keeps its counter on the block a partly used
// keystream came from (and on a block an update has just used up exactly,
// until the next byte), so a key-only re-init restarts that block; stitch's
// stream has already stepped past it and must step back, borrowing from
// word 1 when word 0 has just wrapped (provider/ciphers/chacha20.cpp).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/seeded_rng.hpp"
#include "evp_support.hpp"

namespace stitch::test {
namespace {

Bytes iv_words(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) {
    Bytes iv(16);
    const uint32_t w[4] = {w0, w1, w2, w3};
    for (int i = 0; i < 16; ++i) iv[i] = uint8_t(w[i / 4] >> (8 * (i % 4)));
    return iv;
}

// Update lengths: block edges, and 9 blocks + 1 (a whole AVX2 batch and more).
constexpr size_t kPieces[] = {0, 1, 63, 64, 65, 9 * 64 + 1};

enum class Reinit { none, key_new, key_same, iv_new, iv_same, both_new };
constexpr Reinit kReinits[] = {Reinit::none, Reinit::key_new, Reinit::key_same, Reinit::iv_new, Reinit::iv_same, Reinit::both_new};
const char* name(Reinit r) {
    static const char* const names[] = {"none", "key-only (new key)", "key-only (same key)", "iv-only (new iv)",
                                        "iv-only (same iv)", "key and iv (new)"};
    return names[int(r)];
}

struct Case {
    Bytes key1, key2, iv1, iv2;
    std::vector<size_t> before;  // updates before the re-init
    std::vector<Reinit> reinits;  // one, or two in a row (what the first leaves must not leak into the second)
    int reinit_enc;               // 1, 0 or -1 (keep): the keystream is the same either way
    bool via_evp_cipher;
};

// Every call's return value and the bytes out, in one string to compare.
std::string transcript(const EVP_CIPHER* cipher, const Case& c, const Bytes& in) {
    std::ostringstream t;
    CipherCtxPtr ctx = new_cipher_ctx();
    t << EVP_EncryptInit_ex(ctx.get(), cipher, nullptr, c.key1.data(), c.iv1.data()) << ' ';
    size_t off = 0;
    auto update = [&](size_t n) {
        Bytes out(n, 0xee);
        int outl = -1;
        if (c.via_evp_cipher) {
            t << EVP_Cipher(ctx.get(), out.data(), in.data() + off, unsigned(n)) << ' ';
        } else {
            t << EVP_CipherUpdate(ctx.get(), out.data(), &outl, in.data() + off, int(n)) << '/' << outl << ' ';
        }
        t << to_hex(out) << '\n';
        off += n;
    };
    for (size_t n : c.before) update(n);
    for (Reinit r : c.reinits) {
        const uint8_t* key = nullptr;
        const uint8_t* iv = nullptr;
        switch (r) {
            case Reinit::none: continue;
            case Reinit::key_new: key = c.key2.data(); break;
            case Reinit::key_same: key = c.key1.data(); break;
            case Reinit::iv_new: iv = c.iv2.data(); break;
            case Reinit::iv_same: iv = c.iv1.data(); break;
            case Reinit::both_new: key = c.key2.data(), iv = c.iv2.data(); break;
        }
        t << "reinit " << EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, key, iv, c.reinit_enc) << '\n';
    }
    // After it: a byte (a block started), then across two block edges.
    for (size_t n : {size_t(1), size_t(129)}) update(n);
    int outl = -1;
    uint8_t spare[16];
    t << "final " << EVP_CipherFinal_ex(ctx.get(), spare, &outl) << '/' << outl;
    return t.str();
}

// The first line where two transcripts differ, numbered.
std::string first_difference(const std::string& a, const std::string& b) {
    std::istringstream sa(a), sb(b);
    std::string la, lb;
    for (int line = 0;; ++line) {
        const bool more_a = bool(std::getline(sa, la)), more_b = bool(std::getline(sb, lb));
        if (!more_a && !more_b) return "equal";
        if (la != lb || more_a != more_b)
            return "call " + std::to_string(line) + ":\n  stitch:  " + la + "\n  default: " + lb;
    }
}

std::string describe(const Case& c) {
    std::ostringstream s;
    s << "iv " << to_hex(c.iv1) << ", updates";
    for (size_t n : c.before) s << ' ' << n;
    s << ", re-init";
    for (Reinit r : c.reinits) s << ' ' << name(r) << ';';
    s << " (enc " << c.reinit_enc << "), new iv " << to_hex(c.iv2)
      << (c.via_evp_cipher ? ", EVP_Cipher" : ", EVP_CipherUpdate");
    return s.str();
}

TEST(Chacha20Cuts, EveryCutAndReinitAtTheCounterWrapMatchesDefault) {
    Rng rng = seeded_rng(0xc47c0001);
    const CipherPair cp = fetch_both("ChaCha20");
    const Bytes in = rng.bytes(4 * (9 * 64 + 1) + 256);
    // Word 0 at the wrap, one before it, at 2^31 - 1, and at 0; word 1 random
    // or all ones (the carry wraps it). Nonce words random.
    const uint32_t n2 = uint32_t(rng.next()), n3 = uint32_t(rng.next());
    const std::vector<Bytes> ivs = {iv_words(0xffffffffu, uint32_t(rng.next()), n2, n3),
                                    iv_words(0xffffffffu, 0xffffffffu, n2, n3),
                                    iv_words(0xfffffffeu, uint32_t(rng.next()), n2, n3),
                                    iv_words(0x7fffffffu, uint32_t(rng.next()), n2, n3),
                                    iv_words(0, uint32_t(rng.next()), n2, n3)};
    std::vector<std::vector<size_t>> cuts;
    for (size_t a : kPieces)
        for (size_t b : kPieces) {
            cuts.push_back({a, b});
            for (size_t d : kPieces) cuts.push_back({a, b, d});
        }
    int failures = 0, cases = 0;
    for (size_t v = 0; v < ivs.size(); ++v) {
        for (size_t i = 0; i < cuts.size(); ++i) {
            std::vector<std::vector<Reinit>> reinits;
            for (Reinit r : kReinits) {
                reinits.push_back({r});
                for (Reinit second : {Reinit::key_new, Reinit::iv_new}) reinits.push_back({r, second});
            }
            for (const auto& r : reinits) {
                Case c{rng.bytes(32), rng.bytes(32), ivs[v], ivs[(v + 1) % ivs.size()], cuts[i], r,
                       int(rng.below(3)) - 1, (i + v) % 4 == 0};
                ++cases;
                const std::string got = transcript(cp.stitch.get(), c, in);
                const std::string want = transcript(cp.reference.get(), c, in);
                if (got != want && failures++ < 5)
                    ADD_FAILURE() << describe(c) << "\n" << first_difference(got, want);
            }
        }
    }
    EXPECT_EQ(failures, 0) << "of " << cases << " cases";
}

}  // namespace
}  // namespace stitch::test
