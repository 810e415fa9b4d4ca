// stitch's chacha20-poly1305@openssh.com against the same construction
// composed from the default provider's ChaCha20 and POLY1305 MAC
// (openssh_reference.hpp). The API: 64-byte key K_2 ‖ K_1, 8-byte IV = the
// packet sequence number, big-endian; per packet an iv-only init, then the
// whole packet in one call:
//   seal: length(4) ‖ payload ‖ 16 spare → encrypted length ‖ ciphertext ‖ tag
//   open: encrypted length ‖ ciphertext ‖ tag → length ‖ payload (outl − 16)
// and a 4-byte decrypt that yields the length alone without using up the IV.
#include <gtest/gtest.h>

#include "openssh_reference.hpp"

namespace stitch::test {
namespace {

Bytes seq_iv(uint64_t seq) {
    Bytes iv(8);
    for (int i = 0; i < 8; ++i) iv[i] = uint8_t(seq >> (56 - 8 * i));
    return iv;
}

Bytes plain_packet(Rng& rng, size_t payload_len) {
    Bytes p = {uint8_t(payload_len >> 24), uint8_t(payload_len >> 16), uint8_t(payload_len >> 8), uint8_t(payload_len)};
    const Bytes payload = rng.bytes(payload_len);
    p.insert(p.end(), payload.begin(), payload.end());
    return p;
}

struct SshCipher {
    CipherPtr cipher{providers().fetch("chacha20-poly1305@openssh.com", "stitch")};
    CipherCtxPtr seal_ctx = new_cipher_ctx(), open_ctx = new_cipher_ctx();

    explicit SshCipher(const Bytes& key) {
        const Bytes zero_seq(8, 0);
        EXPECT_EQ(EVP_CipherInit_ex(seal_ctx.get(), cipher.get(), nullptr, key.data(), zero_seq.data(), 1), 1);
        EXPECT_EQ(EVP_CipherInit_ex(open_ctx.get(), cipher.get(), nullptr, key.data(), zero_seq.data(), 0), 1);
    }

    // Returns outl, or -1 when refused. `out` must hold in.size() bytes.
    static int packet(EVP_CIPHER_CTX* ctx, uint64_t seq, const uint8_t* in, uint8_t* out, size_t inl,
                      bool via_evp_cipher) {
        const Bytes iv = seq_iv(seq);
        EXPECT_EQ(EVP_CipherInit_ex(ctx, nullptr, nullptr, nullptr, iv.data(), -1), 1);
        if (via_evp_cipher) return EVP_Cipher(ctx, out, in, unsigned(inl));
        int outl = -2;
        return EVP_CipherUpdate(ctx, out, &outl, in, int(inl)) == 1 ? outl : -1;
    }
};

TEST(OpensshCipher, EveryPayloadLengthMatchesTheComposition) {
    Rng rng = seeded_rng(0x55401);
    const OpensshReference ref;
    const Bytes key = rng.bytes(64);
    SshCipher ssh(key);
    std::vector<size_t> lengths;
    for (size_t n = 0; n <= 1600; ++n) lengths.push_back(n);
    for (size_t n : {2048, 4096, 16384, 32768}) lengths.push_back(n);
    uint64_t seq = rng.below(2) ? 0 : rng.next();
    for (size_t len : lengths) {
        ++seq;
        const Bytes packet = plain_packet(rng, len);
        const Bytes want = ref.seal(key, seq, packet);
        const bool in_place = rng.below(2), via_evp_cipher = rng.below(3) == 0;

        Bytes buf = concat(packet, Bytes(16, 0)), out(buf.size(), 0xee);
        uint8_t* dst = in_place ? buf.data() : out.data();
        ASSERT_EQ(SshCipher::packet(ssh.seal_ctx.get(), seq, buf.data(), dst, buf.size(), via_evp_cipher),
                  int(buf.size()))
            << "seal refused or wrong outl, payload " << len;
        ASSERT_EQ(to_hex(dst, buf.size()), to_hex(want)) << "payload " << len << " seq " << seq;

        // The receiver first decrypts the length alone, then opens the packet under the same IV.
        Bytes sealed = want, opened(sealed.size(), 0xee), len4(4, 0xee);
        int outl = -1;
        const Bytes iv = seq_iv(seq);
        ASSERT_EQ(EVP_CipherInit_ex(ssh.open_ctx.get(), nullptr, nullptr, nullptr, iv.data(), -1), 1);
        ASSERT_EQ(EVP_DecryptUpdate(ssh.open_ctx.get(), len4.data(), &outl, sealed.data(), 4), 1);
        ASSERT_EQ(outl, 4);
        ASSERT_EQ(to_hex(len4), to_hex(packet.data(), 4)) << "length-only decrypt, payload " << len;
        uint8_t* odst = in_place ? sealed.data() : opened.data();
        if (via_evp_cipher) {
            ASSERT_EQ(EVP_Cipher(ssh.open_ctx.get(), odst, sealed.data(), unsigned(sealed.size())), int(packet.size()));
        } else {
            ASSERT_EQ(EVP_DecryptUpdate(ssh.open_ctx.get(), odst, &outl, sealed.data(), int(sealed.size())), 1)
                << "open refused a good packet after the length-only decrypt, payload " << len;
            ASSERT_EQ(outl, int(packet.size()));
        }
        ASSERT_EQ(to_hex(odst, packet.size()), to_hex(packet)) << "payload " << len;
    }
}

TEST(OpensshCipher, LengthOnlyDecryptMatchesTheComposition) {
    Rng rng = seeded_rng(0x55402);
    const OpensshReference ref;
    const Bytes key = rng.bytes(64);
    SshCipher ssh(key);
    for (int i = 0; i < 200; ++i) {
        const uint64_t seq = i < 100 ? uint64_t(i) : rng.next();
        const Bytes enc4 = rng.bytes(4);
        Bytes out(4, 0xee);
        int outl = -1;
        const Bytes iv = seq_iv(seq);
        ASSERT_EQ(EVP_CipherInit_ex(ssh.open_ctx.get(), nullptr, nullptr, nullptr, iv.data(), -1), 1);
        ASSERT_EQ(EVP_DecryptUpdate(ssh.open_ctx.get(), out.data(), &outl, enc4.data(), 4), 1);
        ASSERT_EQ(to_hex(out), to_hex(ref.length(key, seq, enc4.data()))) << "seq " << seq;
    }
}

// Any one wrong bit (length, payload, tag) or a wrong sequence number: the
// open returns an error and the output holds zeros where length and payload
// would be; the context then opens the good packet.
TEST(OpensshCipher, RefusedPacketsLeaveZeros) {
    Rng rng = seeded_rng(0x55403);
    const OpensshReference ref;
    const Bytes key = rng.bytes(64);
    SshCipher ssh(key);
    for (size_t len : {0, 1, 15, 16, 17, 63, 64, 65, 200, 1300}) {
        const uint64_t seq = rng.next();
        const Bytes packet = plain_packet(rng, len);
        const Bytes sealed = ref.seal(key, seq, packet);
        size_t tries = 0;
        auto expect_refused = [&](const Bytes& bad, uint64_t s, const std::string& what) {
            const bool in_place = tries % 2, via_evp_cipher = tries % 3 == 0;
            ++tries;
            Bytes buf = bad, out(bad.size(), 0xa5);
            uint8_t* dst = in_place ? buf.data() : out.data();
            const int r = SshCipher::packet(ssh.open_ctx.get(), s, buf.data(), dst, buf.size(), via_evp_cipher);
            EXPECT_EQ(r, -1) << what << " accepted, payload " << len;
            EXPECT_TRUE(all_zero(dst, packet.size())) << what << ": output not zeroed, payload " << len;
            return r == -1 && all_zero(dst, packet.size());
        };
        for (size_t bit = 0; bit < 8 * sealed.size(); ++bit) {
            Bytes bad = sealed;
            bad[bit / 8] ^= uint8_t(1 << (bit % 8));
            const char* where = bit < 32 ? "length bit" : bit < 8 * packet.size() ? "payload bit" : "tag bit";
            ASSERT_TRUE(expect_refused(bad, seq, std::string(where) + " " + std::to_string(bit)));
        }
        for (uint64_t wrong : {seq + 1, seq - 1, seq ^ (uint64_t(1) << 63), seq ^ 0x100})
            ASSERT_TRUE(expect_refused(sealed, wrong, "wrong sequence number"));

        Bytes out(sealed.size());
        ASSERT_EQ(SshCipher::packet(ssh.open_ctx.get(), seq, sealed.data(), out.data(), sealed.size(), false),
                  int(packet.size()))
            << "context unusable after refusals";
        ASSERT_EQ(to_hex(out.data(), packet.size()), to_hex(packet));
    }
}

// A copy taken after the IV is set seals the same packet as its original,
// and outlives it.
TEST(OpensshCipher, CopyAfterInitSealsTheSamePacket) {
    Rng rng = seeded_rng(0x55404);
    const OpensshReference ref;
    const Bytes key = rng.bytes(64);
    for (size_t len : {0, 1, 100, 1000}) {
        SshCipher ssh(key);
        const uint64_t seq = rng.next();
        const Bytes iv = seq_iv(seq), packet = plain_packet(rng, len), in = concat(packet, Bytes(16, 0));
        ASSERT_EQ(EVP_CipherInit_ex(ssh.seal_ctx.get(), nullptr, nullptr, nullptr, iv.data(), -1), 1);
        CipherCtxPtr copy = new_cipher_ctx();
        ASSERT_EQ(EVP_CIPHER_CTX_copy(copy.get(), ssh.seal_ctx.get()), 1);
        Bytes a(in.size()), b(in.size());
        int outl;
        ASSERT_EQ(EVP_EncryptUpdate(ssh.seal_ctx.get(), a.data(), &outl, in.data(), int(in.size())), 1);
        ssh.seal_ctx.reset();
        ASSERT_EQ(EVP_EncryptUpdate(copy.get(), b.data(), &outl, in.data(), int(in.size())), 1);
        const Bytes want = ref.seal(key, seq, packet);
        EXPECT_EQ(to_hex(a), to_hex(want)) << "payload " << len;
        EXPECT_EQ(to_hex(b), to_hex(want)) << "payload " << len;
    }
}

}  // namespace
}  // namespace stitch::test
