// ChaCha20-Poly1305 in the two shapes libssl 3.0 drives it
// (docs/openssl-3.0-semantics.md#tls12-record, #callers), stitch against the
// default provider:
// - TLS 1.2: EVP_CTRL_AEAD_TLS1_AAD (returns 16), then one in-place update of
//   payload + 16 bytes; encrypt appends the tag, decrypt strips it, and a bad
//   record returns 0 with its plaintext zeroed.
// - TLS 1.3: iv-only init per record, tag set first on decrypt, 5-byte AAD
//   update, in-place data update, final, tag read on encrypt.
#include <gtest/gtest.h>
#include <openssl/core_names.h>

#include "aead_driver.hpp"
#include "common/openssl_release.hpp"
#include "common/stitch_errors.hpp"

namespace stitch::test {
namespace {

// seq ‖ type ‖ version ‖ length, as libssl builds it; `length` is the payload
// length when sealing and the record length (payload + tag) when opening.
Bytes tls12_aad(uint64_t seq, size_t length) {
    Bytes a(13);
    for (int i = 0; i < 8; ++i) a[i] = uint8_t(seq >> (56 - 8 * i));
    a[8] = 0x17, a[9] = 0x03, a[10] = 0x03;
    a[11] = uint8_t(length >> 8), a[12] = uint8_t(length);
    return a;
}

// A TLS 1.2 context as ssl/t1_enc.c sets it up: key and 12-byte IV in one init,
// then the two params libssl sends, which a cipher must accept and ignore.
CipherCtxPtr tls12_ctx(const EVP_CIPHER* c, const Bytes& key, const Bytes& iv, int enc) {
    CipherCtxPtr ctx = new_cipher_ctx();
    EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), c, nullptr, key.data(), iv.data(), enc), 1);
    int version = 0x0303;
    size_t mac_size = 0;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
                           OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &mac_size), OSSL_PARAM_END};
    EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx.get(), params), 1) << "libssl's tls-version/tls-mac-size must be accepted";
    return ctx;
}

struct RecordResult {
    int ctrl = -1, update = -1, outl = -1;
};

// One record, as ssl3_record.c does it: the record is `buf`, payload + 16.
RecordResult tls12_record(EVP_CIPHER_CTX* ctx, Bytes aad, const uint8_t* in, uint8_t* out, size_t record_len) {
    RecordResult r;
    r.ctrl = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data());
    if (r.ctrl != 16) return r;
    r.update = EVP_CipherUpdate(ctx, out, &r.outl, in, int(record_len));
    return r;
}

// Every payload a TLS record can carry, 0..16384, in a shuffled order so
// that long and short records follow each other on one context.
std::vector<size_t> tls12_payload_sizes(Rng& rng) {
    std::vector<size_t> sizes;
    for (size_t n = 0; n <= 16384; ++n) sizes.push_back(n);
    for (size_t i = sizes.size() - 1; i > 0; --i) std::swap(sizes[i], sizes[rng.below(i + 1)]);
    return sizes;
}

TEST(AeadTls12, RecordsMatchDefaultBothWays) {
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    Rng rng = seeded_rng(0x7150001);
    const Bytes key = rng.bytes(32), iv = rng.bytes(12);
    CipherCtxPtr seal_s = tls12_ctx(cp.stitch.get(), key, iv, 1), seal_d = tls12_ctx(cp.reference.get(), key, iv, 1);
    CipherCtxPtr open_s = tls12_ctx(cp.stitch.get(), key, iv, 0);
    uint64_t seq = rng.below(2) ? rng.next() : 0;
    for (size_t plen : tls12_payload_sizes(rng)) {
        ++seq;
        const Bytes payload = rng.bytes(plen);
        Bytes rec_s = concat(payload, Bytes(16, 0)), rec_d = rec_s;
        const bool in_place = rng.below(4) != 0;
        Bytes out_s(plen + 16, 0xcc);
        RecordResult s = tls12_record(seal_s.get(), tls12_aad(seq, plen), rec_s.data(),
                                      in_place ? rec_s.data() : out_s.data(), plen + 16);
        RecordResult d = tls12_record(seal_d.get(), tls12_aad(seq, plen), rec_d.data(), rec_d.data(), plen + 16);
        if (!in_place) rec_s = out_s;
        ASSERT_EQ(s.ctrl, 16) << "EVP_CTRL_AEAD_TLS1_AAD returns the tag length, plen " << plen;
        ASSERT_EQ(s.update, 1) << "plen " << plen;
        ASSERT_EQ(s.outl, int(plen + 16)) << "encrypt outl = payload + tag, plen " << plen;
        ASSERT_EQ(d.update, 1);
        ASSERT_EQ(to_hex(rec_s), to_hex(rec_d)) << "record, plen " << plen << " seq " << seq;

        Bytes opened(plen + 16, 0xcc);
        RecordResult o = tls12_record(open_s.get(), tls12_aad(seq, plen + 16), rec_s.data(),
                                      in_place ? rec_s.data() : opened.data(), plen + 16);
        if (in_place) opened = rec_s;
        ASSERT_EQ(o.ctrl, 16);
        ASSERT_EQ(o.update, 1) << "open refused a good record, plen " << plen;
        ASSERT_EQ(o.outl, int(plen)) << "decrypt outl = payload, tag stripped";
        ASSERT_EQ(to_hex(opened.data(), plen), to_hex(payload)) << "plen " << plen;
    }
}

// A record with any one bit wrong (header, ciphertext or tag) returns 0 and
// leaves zeros where its plaintext would be; the next good record still opens.
TEST(AeadTls12, BadRecordReturnsZeroAndZeroesThePlaintext) {
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    Rng rng = seeded_rng(0x7150002);
    const Bytes key = rng.bytes(32), iv = rng.bytes(12);
    for (const EVP_CIPHER* c : {cp.stitch.get(), cp.reference.get()}) {
        SCOPED_TRACE(c == cp.stitch.get() ? "stitch" : "default");
        CipherCtxPtr sealer = tls12_ctx(c, key, iv, 1), opener = tls12_ctx(c, key, iv, 0);
        for (int i = 0; i < 400; ++i) {
            const size_t plen = i < 200 ? size_t(i) : rng.below(16385);
            const uint64_t seq = uint64_t(i) * 7919;
            Bytes rec = concat(rng.bytes(plen), Bytes(16, 0));
            ASSERT_EQ(tls12_record(sealer.get(), tls12_aad(seq, plen), rec.data(), rec.data(), rec.size()).update, 1);
            Bytes aad = tls12_aad(seq, plen + 16);
            // Flip a bit of the sequence number, type or version, or of the record itself.
            const size_t bit = rng.below(8 * (11 + rec.size()));
            if (bit < 8 * 11)
                aad[bit / 8] ^= uint8_t(1 << (bit % 8));
            else
                rec[bit / 8 - 11] ^= uint8_t(1 << (bit % 8));
            const bool in_place = rng.below(2);
            Bytes out(rec.size(), 0xcc);
            uint8_t* dst = in_place ? rec.data() : out.data();
            RecordResult r = tls12_record(opener.get(), aad, rec.data(), dst, rec.size());
            ASSERT_EQ(r.ctrl, 16);
            ASSERT_EQ(r.update, 0) << "bad record accepted: plen " << plen << " bit " << bit;
            ASSERT_TRUE(all_zero(dst, plen)) << "plaintext of a refused record not zeroed: plen " << plen;

            Bytes good = concat(rng.bytes(plen), Bytes(16, 0)), want = good;
            ASSERT_EQ(
                tls12_record(sealer.get(), tls12_aad(seq + 1, plen), good.data(), good.data(), good.size()).update, 1);
            RecordResult g =
                tls12_record(opener.get(), tls12_aad(seq + 1, plen + 16), good.data(), good.data(), good.size());
            ASSERT_EQ(g.update, 1) << "context unusable after a refused record";
            ASSERT_EQ(to_hex(good.data(), plen), to_hex(want.data(), plen));
        }
    }
}

// Issue 19's fuzz finding (corpus/evp_sequence/issue19_tls_empty_evp_cipher),
// replayed as plain EVP calls: a record announced for 1 payload byte, the
// taglen and the tag read, then EVP_Cipher(ctx, out, in, 0). 3.0.22 refuses
// that call (-1), 3.0.19 took it as a no-op (0); stitch refuses it on every
// release, and the announced record is then sealed as if it had not happened.
TEST(AeadTls12, Issue19EmptyEvpCipherOnAnAnnouncedRecordIsRefused) {
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    const Bytes key = concat(from_hex("71ffc364"), Bytes(28, 0x5a)), iv = from_hex("35687e9ffc46f602055e679d");
    const bool refused_by_default = column_of(installed_release()) == Column::like_3_0_22;
    Bytes sealed[2];
    for (int i = 0; i < 2; ++i) {
        const bool stitch = i == 0;
        SCOPED_TRACE(stitch ? "stitch" : "default " + installed_release().name());
        CipherCtxPtr ctx = tls12_ctx(stitch ? cp.stitch.get() : cp.reference.get(), key, iv, 1);
        Bytes aad = tls12_aad(1, 1), tag(16), rec = {0x42};
        rec.resize(17, 0);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()), 16);
        size_t taglen = 0;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, &taglen), OSSL_PARAM_END};
        ASSERT_EQ(EVP_CIPHER_CTX_get_params(ctx.get(), p), 1);
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data());  // stitch refuses, 3.0 gives stale bytes
        ERR_clear_error();
        uint8_t out[1];
        const int r = EVP_Cipher(ctx.get(), out, rec.data(), 0);
        if (stitch) {
            EXPECT_EQ(r, -1);
            expect_stitch_error(prov::R_TLS_EMPTY_CALL);
        } else if (column_of(installed_release()) != Column::not_measured) {
            EXPECT_EQ(r, refused_by_default ? -1 : 0);
        }
        ERR_clear_error();
        int outl = -1;
        ASSERT_EQ(EVP_CipherUpdate(ctx.get(), rec.data(), &outl, rec.data(), int(rec.size())), 1);
        ASSERT_EQ(outl, 17);
        sealed[i] = rec;
    }
    EXPECT_EQ(to_hex(sealed[0]), to_hex(sealed[1])) << "the record after the refused call";
}

// TLS 1.3 (ssl/tls13_enc.c): per-key setup, then per record an iv-only init.
struct Tls13Side {
    CipherCtxPtr ctx;
    Tls13Side(const EVP_CIPHER* c, const Bytes& key, int enc) : ctx(new_cipher_ctx()) {
        EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), c, nullptr, nullptr, nullptr, enc), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr), 1);
        EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, key.data(), nullptr, enc), 1);
    }
    // Seals or opens `rec` in place; returns final's result, fills/reads `tag`.
    int record(const Bytes& static_iv, uint64_t seq, const Bytes& header, Bytes& rec, Bytes& tag, int enc) {
        Bytes iv = static_iv;
        for (int i = 0; i < 8; ++i) iv[4 + i] ^= uint8_t(seq >> (56 - 8 * i));
        EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, nullptr, iv.data(), enc), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_get_iv_length(ctx.get()), 12);
        if (!enc) {
            EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data()), 1);
        }
        int lenu = -1, lenf = -1;
        EXPECT_EQ(EVP_CipherUpdate(ctx.get(), nullptr, &lenu, header.data(), int(header.size())), 1);
        EXPECT_EQ(EVP_CipherUpdate(ctx.get(), rec.data(), &lenu, rec.data(), int(rec.size())), 1);
        int fin = EVP_CipherFinal_ex(ctx.get(), rec.data() + lenu, &lenf);
        if (fin == 1) {
            EXPECT_EQ(size_t(lenu + lenf), rec.size()) << "libssl checks lenu + lenf == record length";
        }
        if (enc) {
            EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
        }
        return fin;
    }
};

TEST(AeadTls13, RecordsMatchDefaultBothWays) {
    const CipherPair cp = fetch_both("ChaCha20-Poly1305");
    Rng rng = seeded_rng(0x7130001);
    const Bytes key = rng.bytes(32), static_iv = rng.bytes(12);
    Tls13Side seal_s(cp.stitch.get(), key, 1), seal_d(cp.reference.get(), key, 1), open_s(cp.stitch.get(), key, 0);
    for (uint64_t seq = 0; seq < 600; ++seq) {
        const size_t len = seq < 300 ? size_t(seq) : (seq % 50 == 0 ? 16385 : rng.below(16386));
        const Bytes header = {0x17, 0x03, 0x03, uint8_t((len + 16) >> 8), uint8_t(len + 16)};
        const Bytes pt = rng.bytes(len);
        Bytes rec_s = pt, rec_d = pt, tag_s(16), tag_d(16);
        ASSERT_EQ(seal_s.record(static_iv, seq, header, rec_s, tag_s, 1), 1);
        ASSERT_EQ(seal_d.record(static_iv, seq, header, rec_d, tag_d, 1), 1);
        ASSERT_EQ(to_hex(rec_s), to_hex(rec_d)) << "len " << len;
        ASSERT_EQ(to_hex(tag_s), to_hex(tag_d)) << "len " << len;

        Bytes opened = rec_s;
        ASSERT_EQ(open_s.record(static_iv, seq, header, opened, tag_s, 0), 1) << "len " << len;
        ASSERT_EQ(to_hex(opened), to_hex(pt));
        if (seq % 3 == 0) {  // a forged record on the same context, then carry on
            Bytes forged = rec_s, bad_tag = tag_s;
            bad_tag[seq % 16] ^= 0x80;
            ASSERT_EQ(open_s.record(static_iv, seq, header, forged, bad_tag, 0), 0) << "len " << len;
        }
    }
}

}  // namespace
}  // namespace stitch::test
