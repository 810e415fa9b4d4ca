// Every one-bit change to a sealed ChaCha20-Poly1305 message (tag, ciphertext
// or AAD) is refused by stitch, both when streamed through update/final and in
// the TLS 1.2 one-shot, where the refused plaintext must read as zeros.
#include <gtest/gtest.h>

#include "aead_driver.hpp"

namespace stitch::test {
namespace {

constexpr size_t kSizes[] = {0, 1, 63, 64, 65, 200, 1300};

void flip(Bytes& b, size_t bit) { b[bit / 8] ^= uint8_t(1 << (bit % 8)); }

TEST(AeadBitFlip, EveryBitOfTagCiphertextAndAadIsRefused) {
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    Rng rng = seeded_rng(0xb17f0001);
    for (size_t len : kSizes) {
        for (size_t aad_len : {size_t(0), size_t(13), size_t(64)}) {
            const AeadMessage m = random_message(rng, aad_len, len);
            const AeadResult sealed = seal(cp.stitch.get(), m, one_shot_plan(m));
            ASSERT_TRUE(sealed.ok);
            AeadMessage c = m;
            c.text = sealed.text;
            ASSERT_TRUE(open(cp.stitch.get(), c, sealed.tag, one_shot_plan(c)).ok) << "len " << len;

            auto refused = [&](const AeadMessage& msg, const Bytes& tag) {
                return !open(cp.stitch.get(), msg, tag, one_shot_plan(msg)).ok;
            };
            for (size_t bit = 0; bit < 128; ++bit) {
                Bytes tag = sealed.tag;
                flip(tag, bit);
                ASSERT_TRUE(refused(c, tag)) << "tag bit " << bit << " len " << len << " aad " << aad_len;
            }
            for (size_t bit = 0; bit < 8 * len; ++bit) {
                AeadMessage bad = c;
                flip(bad.text, bit);
                ASSERT_TRUE(refused(bad, sealed.tag)) << "ciphertext bit " << bit << " len " << len;
            }
            for (size_t bit = 0; bit < 8 * aad_len; ++bit) {
                AeadMessage bad = c;
                flip(bad.aad, bit);
                ASSERT_TRUE(refused(bad, sealed.tag)) << "aad bit " << bit << " len " << len;
            }
        }
    }
}

// TLS 1.2 records: every bit of seq/type/version, ciphertext and tag. The
// length bytes are left alone: a changed length is a different refusal
// (R_TLS_LENGTH_MISMATCH, bad_input_test).
TEST(AeadBitFlip, EveryBitOfATls12RecordIsRefusedAndZeroed) {
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    Rng rng = seeded_rng(0xb17f0002);
    const Bytes key = rng.bytes(32), iv = rng.bytes(12);
    CipherCtxPtr sealer = new_cipher_ctx(), opener = new_cipher_ctx();
    ASSERT_EQ(EVP_EncryptInit_ex(sealer.get(), cp.stitch.get(), nullptr, key.data(), iv.data()), 1);
    ASSERT_EQ(EVP_DecryptInit_ex(opener.get(), cp.stitch.get(), nullptr, key.data(), iv.data()), 1);
    uint64_t seq = 0;
    for (size_t plen : kSizes) {
        auto aad = [&](size_t length) {
            Bytes a = {0, 0, 0, 0, 0, 0, 0, uint8_t(seq), 0x17, 0x03, 0x03, uint8_t(length >> 8), uint8_t(length)};
            return a;
        };
        const Bytes payload = rng.bytes(plen);
        Bytes rec = concat(payload, Bytes(16, 0));
        int outl;
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(sealer.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad(plen).data()), 16);
        ASSERT_EQ(EVP_CipherUpdate(sealer.get(), rec.data(), &outl, rec.data(), int(rec.size())), 1);
        const Bytes good_aad = aad(plen + 16);
        for (size_t bit = 0; bit < 8 * (11 + rec.size()); ++bit) {
            Bytes a = good_aad, r = rec;
            if (bit < 88)
                flip(a, bit);
            else
                flip(r, bit - 88);
            ASSERT_EQ(EVP_CIPHER_CTX_ctrl(opener.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, a.data()), 16);
            ASSERT_EQ(EVP_CipherUpdate(opener.get(), r.data(), &outl, r.data(), int(r.size())), 0)
                << "bit " << bit << " plen " << plen;
            ASSERT_TRUE(all_zero(r.data(), plen)) << "bit " << bit << " plen " << plen;
        }
        Bytes a = good_aad, r = rec;
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(opener.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, a.data()), 16);
        ASSERT_EQ(EVP_CipherUpdate(opener.get(), r.data(), &outl, r.data(), int(r.size())), 1);
        ASSERT_EQ(to_hex(r.data(), plen), to_hex(payload));
        ++seq;
    }
}

}  // namespace
}  // namespace stitch::test
