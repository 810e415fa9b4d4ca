// The table of empty and zero-length calls (docs/openssl-3.0-semantics.md
// #empty-calls), one test per row: every call with no data, no input or no
// output that ChaCha20-Poly1305, ChaCha20 and chacha20-poly1305@openssh.com
// take through EVP_CipherUpdate, EVP_Cipher and EVP_CipherFinal_ex.
//
// Each row is a short call sequence on one fresh context, answered as a line
// of text (return values, then what the message came to). stitch must give
// the row's answer exactly and raise the row's reason. The default provider
// must give the answer measured for its release (openssl_release.hpp): the
// 3.0.19 column for 3.0.17 to 3.0.21, the 3.0.22 column for 3.0.22. A release
// not measured is held to the answer where both columns agree, and where they
// differ its answer is printed for the table, not judged.
//
// The RFC 8439 §2.8.2 vector is the message throughout: "tag rfc" is its tag
// (or, for a part of it, the tag the default provider gives that part in one
// plain AAD call, one text call and final, which the first test pins).
#include <gtest/gtest.h>
#include <openssl/core_names.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <functional>
#include <string>
#include <vector>

#include "common/openssl_release.hpp"
#include "common/rfc8439_vectors.hpp"
#include "common/stitch_errors.hpp"
#include "evp_support.hpp"

namespace stitch::test {
namespace {

using prov::Reason;

enum class Alg { aead, chacha20, openssh };

const char* alg_name(Alg a) {
    switch (a) {
        case Alg::aead: return "ChaCha20-Poly1305";
        case Alg::chacha20: return "ChaCha20";
        case Alg::openssh: return "chacha20-poly1305@openssh.com";
    }
    return "";
}

struct Message {
    Bytes key, nonce, aad, pt, ct, tag;
};

const Message& rfc() {
    static const Message m = [] {
        const Rfc8439File file = load_rfc8439_vectors();
        for (const Rfc8439Vector* v : file.of_kind("aead"))
            if (v->section == "2.8.2")
                return Message{v->bytes("key"),        v->bytes("nonce"),      v->bytes("aad"),
                               v->bytes("plaintext"), v->bytes("ciphertext"), v->bytes("tag")};
        throw std::runtime_error("no RFC 8439 §2.8.2 vector");
    }();
    return m;
}

const EVP_CIPHER* default_aead() {
    static const CipherPtr c = providers().fetch("ChaCha20-Poly1305", "default");
    return c.get();
}

// The tag of (aad, text) under the vector's key and nonce: one AAD call, one
// text call, final, on the default provider; every release gets this right.
Bytes plain_tag(const Bytes& aad, const Bytes& pt) {
    CipherCtxPtr ctx = new_cipher_ctx();
    int outl = 0;
    Bytes out(pt.size() + 1), tag(16);
    EVP_EncryptInit_ex(ctx.get(), default_aead(), nullptr, rfc().key.data(), rfc().nonce.data());
    if (!aad.empty()) EVP_EncryptUpdate(ctx.get(), nullptr, &outl, aad.data(), int(aad.size()));
    if (!pt.empty()) EVP_EncryptUpdate(ctx.get(), out.data(), &outl, pt.data(), int(pt.size()));
    EVP_EncryptFinal_ex(ctx.get(), out.data(), &outl);
    EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data());
    return tag;
}

std::string rc(int r) { return std::to_string(r); }

bool all_equal(const uint8_t* p, size_t n, uint8_t v) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != v) return false;
    return true;
}

// A context of `alg` on `c`, keyed with the vector (the OpenSSH cipher: a
// 64-byte key and sequence number 7).
CipherCtxPtr keyed(const EVP_CIPHER* c, Alg alg, int enc) {
    CipherCtxPtr ctx = new_cipher_ctx();
    const Message& m = rfc();
    Bytes key = m.key, iv = m.nonce;
    if (alg == Alg::chacha20) iv = concat({1, 0, 0, 0}, m.nonce);
    if (alg == Alg::openssh) key = concat(m.key, m.key), iv = {0, 0, 0, 0, 0, 0, 0, 7};
    EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), c, nullptr, key.data(), iv.data(), enc), 1);
    return ctx;
}

// What the tag read after an encrypt came to.
std::string tag_after(EVP_CIPHER_CTX* ctx, const Bytes& aad, const Bytes& pt) {
    Bytes tag(16);
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) <= 0) return "no tag";
    if (tag == plain_tag(aad, pt)) return "tag rfc";
    if (tag == plain_tag({}, {})) return "tag of the empty message";
    return "tag other";
}

uint8_t g_scratch[64];
const uint8_t g_one[1] = {0x42};

// The vector's AAD in two pieces (5 and 7 bytes: the first ends inside a
// 16-byte block) with `between` run between them, then its text and final.
// Encrypt: "between; final; tag"; decrypt (right tag set): "between; final".
std::string aad_split(const EVP_CIPHER* c, int enc, const std::function<std::string(EVP_CIPHER_CTX*)>& between) {
    const Message& m = rfc();
    CipherCtxPtr ctx = keyed(c, Alg::aead, enc);
    int outl = 0;
    if (!enc) EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, const_cast<uint8_t*>(m.tag.data()));
    EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), 5);
    const std::string mid = between(ctx.get());
    EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data() + 5, int(m.aad.size() - 5));
    Bytes out(m.pt.size());
    EVP_CipherUpdate(ctx.get(), out.data(), &outl, enc ? m.pt.data() : m.ct.data(), int(m.pt.size()));
    const int fin = EVP_CipherFinal_ex(ctx.get(), g_scratch, &outl);
    std::string s = mid + "; final " + rc(fin);
    if (enc) s += "; " + tag_after(ctx.get(), m.aad, m.pt);
    return s;
}

// An empty message (the vector's AAD or none) opened with the right tag, a
// wrong one, or none, ended by `end`.
enum class TagGiven { right, wrong, none };
std::string open_empty(const EVP_CIPHER* c, bool with_aad, TagGiven given,
                       const std::function<std::string(EVP_CIPHER_CTX*)>& end) {
    const Message& m = rfc();
    CipherCtxPtr ctx = keyed(c, Alg::aead, 0);
    int outl = 0;
    Bytes tag = plain_tag(with_aad ? m.aad : Bytes{}, {});
    if (given == TagGiven::wrong) tag[3] ^= 0x10;
    if (given != TagGiven::none) EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data());
    if (with_aad) EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), int(m.aad.size()));
    return end(ctx.get());
}

std::string cipher_final(EVP_CIPHER_CTX* ctx) { return rc(EVP_Cipher(ctx, nullptr, nullptr, 0)); }
std::string decrypt_final(EVP_CIPHER_CTX* ctx) {
    int outl = 0;
    return rc(EVP_DecryptFinal_ex(ctx, g_scratch, &outl));
}

// A TLS 1.2 record of 20 payload bytes, sequence number 7.
Bytes tls_header(size_t length) { return {0, 0, 0, 0, 0, 0, 0, 7, 0x17, 3, 3, 0, uint8_t(length)}; }
constexpr size_t kPayload = 20, kRecord = kPayload + 16;

Bytes payload() {
    Bytes p(kPayload);
    for (size_t i = 0; i < p.size(); ++i) p[i] = uint8_t(i);
    return p;
}

// The record the default provider seals on a clean context.
const Bytes& good_record() {
    static const Bytes r = [] {
        CipherCtxPtr ctx = keyed(default_aead(), Alg::aead, 1);
        Bytes h = tls_header(kPayload), rec = concat(payload(), Bytes(16, 0));
        int outl = 0;
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, h.data());
        EVP_CipherUpdate(ctx.get(), rec.data(), &outl, rec.data(), int(rec.size()));
        return rec;
    }();
    return r;
}

// The record announced with EVP_CTRL_AEAD_TLS1_AAD, `between` run, then the
// record in one in-place update: "between; what the record came to". Decrypt
// opens good_record(), or a copy with one tag bit flipped when `forged`.
std::string tls_record(const EVP_CIPHER* c, int enc, const std::function<std::string(EVP_CIPHER_CTX*)>& between,
                       bool forged = false) {
    CipherCtxPtr ctx = keyed(c, Alg::aead, enc);
    Bytes h = tls_header(enc ? kPayload : kRecord);
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, h.data()) != 16) return "tlsaad refused";
    const std::string mid = between(ctx.get());
    Bytes rec = enc ? concat(payload(), Bytes(16, 0)) : good_record();
    if (forged) rec[kRecord - 1] ^= 1;
    int outl = -1;
    const int r = EVP_CipherUpdate(ctx.get(), rec.data(), &outl, rec.data(), int(rec.size()));
    std::string what;
    if (enc) what = r == 1 && outl == int(kRecord) && rec == good_record() ? "record sealed" : "record wrong";
    else if (r == 1 && outl == int(kPayload) && Bytes(rec.begin(), rec.begin() + kPayload) == payload())
        what = "record opened";
    else if (r == 0) what = "record refused";
    else what = "record accepted untagged, outl " + rc(outl);
    return mid + "; " + what;
}

// ChaCha20: 130 bytes in pieces of 7, 57 and 66 with `between` after each of
// the first two, against one call of 130.
std::string chacha_pieces(const EVP_CIPHER* c, const std::function<std::string(EVP_CIPHER_CTX*)>& between) {
    const Bytes in(130, 0x3c);
    Bytes whole(130), cut(130);
    int outl = 0;
    CipherCtxPtr a = keyed(c, Alg::chacha20, 1), b = keyed(c, Alg::chacha20, 1);
    EVP_CipherUpdate(a.get(), whole.data(), &outl, in.data(), 130);
    EVP_CipherUpdate(b.get(), cut.data(), &outl, in.data(), 7);
    std::string mid = between(b.get());
    EVP_CipherUpdate(b.get(), cut.data() + 7, &outl, in.data() + 7, 57);
    mid += ", " + between(b.get());
    EVP_CipherUpdate(b.get(), cut.data() + 64, &outl, in.data() + 64, 66);
    return mid + "; " + (cut == whole ? "keystream unchanged" : "keystream moved");
}

// The OpenSSH cipher: the length field alone, `between`, then the whole
// 4 + 20 + 16-byte packet, against the packet sealed on a clean context.
std::string openssh_packet(const EVP_CIPHER* c, const std::function<std::string(EVP_CIPHER_CTX*)>& between) {
    Bytes pkt = concat({0, 0, 0, 20}, concat(payload(), Bytes(16, 0))), want = pkt, len(4);
    int outl = 0;
    CipherCtxPtr clean = keyed(c, Alg::openssh, 1), ctx = keyed(c, Alg::openssh, 1);
    EVP_CipherUpdate(clean.get(), want.data(), &outl, want.data(), int(want.size()));
    EVP_CipherUpdate(ctx.get(), len.data(), &outl, pkt.data(), 4);
    const std::string mid = between(ctx.get());
    const int r = EVP_CipherUpdate(ctx.get(), pkt.data(), &outl, pkt.data(), int(pkt.size()));
    return mid + "; " + (r == 1 && pkt == want ? "packet sealed" : "packet wrong");
}

// The three zero-length calls with buffers.
std::string update_empty(EVP_CIPHER_CTX* ctx) {
    int outl = -1;
    return rc(EVP_CipherUpdate(ctx, g_scratch, &outl, g_one, 0));
}
std::string update_empty_aad(EVP_CIPHER_CTX* ctx) {
    int outl = -1;
    return rc(EVP_CipherUpdate(ctx, nullptr, &outl, g_one, 0));
}
std::string cipher_empty(EVP_CIPHER_CTX* ctx) { return rc(EVP_Cipher(ctx, g_scratch, g_one, 0)); }
std::string cipher_empty_no_out(EVP_CIPHER_CTX* ctx) { return rc(EVP_Cipher(ctx, nullptr, g_one, 0)); }

constexpr const char* kCrash = "SIGSEGV";  // 3.0 reads or writes through NULL: a death test

struct Row {
    std::string name;
    Alg alg;
    std::function<std::string(const EVP_CIPHER*)> run;
    std::string stitch;
    Reason reason;         // stitch's last error after the row; 0: none wanted
    std::string v3_0_19;   // the default provider, 3.0.17 to 3.0.21 (measured on 3.0.17, 3.0.19, 3.0.20)
    std::string v3_0_22;   // the default provider, 3.0.22
    std::string upstream = "";  // where a release answers otherwise than stitch: why (set below)
};

// gtest prints a failing row by its name, not its bytes.
void PrintTo(const Row& r, std::ostream* os) { *os << r.name; }

constexpr Reason kNone = Reason(0);

std::vector<Row> rows() {
    std::vector<Row> t;
    // --- ChaCha20-Poly1305: empty calls inside a message -------------------------
    t.push_back({"aead_update_empty_between_aad", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     return aad_split(c, 1, [](EVP_CIPHER_CTX* x) {
                         std::string s = update_empty(x);
                         s += " " + update_empty_aad(x);
                         int outl;
                         return s + " " + rc(EVP_CipherUpdate(x, g_scratch, &outl, nullptr, 0));
                     });
                 },
                 "1 1 1; final 1; tag rfc", kNone, "1 1 1; final 1; tag rfc", "1 1 1; final 1; tag rfc"});
    t.push_back({"aead_cipher_empty_between_aad_encrypt", Alg::aead,
                 [](const EVP_CIPHER* c) { return aad_split(c, 1, cipher_empty); }, "0; final 1; tag rfc", kNone,
                 "0; final 1; tag rfc", "0; final 1; tag other"});
    t.push_back({"aead_cipher_empty_between_aad_decrypt", Alg::aead,
                 [](const EVP_CIPHER* c) { return aad_split(c, 0, cipher_empty); }, "0; final 1", kNone, "0; final 1",
                 "0; final 0"});
    t.push_back({"aead_cipher_empty_no_output_between_aad", Alg::aead,
                 [](const EVP_CIPHER* c) { return aad_split(c, 1, cipher_empty_no_out); }, "0; final 1; tag rfc",
                 kNone, "0; final 1; tag rfc", "0; final 1; tag rfc"});
    // After all the AAD: 3.0.22's early pad is the pad text makes anyway,
    // unless an empty AAD call through EVP_Cipher reopens the AAD.
    t.push_back({"aead_cipher_empty_after_aad", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     const Message& m = rfc();
                     CipherCtxPtr ctx = keyed(c, Alg::aead, 1);
                     int outl = 0;
                     Bytes out(m.pt.size());
                     EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), int(m.aad.size()));
                     std::string s = cipher_empty(ctx.get());
                     EVP_CipherUpdate(ctx.get(), out.data(), &outl, m.pt.data(), int(m.pt.size()));
                     s += "; final " + rc(EVP_CipherFinal_ex(ctx.get(), g_scratch, &outl));
                     return s + "; " + tag_after(ctx.get(), m.aad, m.pt);
                 },
                 "0; final 1; tag rfc", kNone, "0; final 1; tag rfc", "0; final 1; tag rfc"});
    t.push_back({"aead_cipher_empty_then_empty_aad_after_aad", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     const Message& m = rfc();
                     CipherCtxPtr ctx = keyed(c, Alg::aead, 1);
                     int outl = 0;
                     Bytes out(m.pt.size());
                     EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), int(m.aad.size()));
                     std::string s = cipher_empty(ctx.get());
                     s += " " + cipher_empty_no_out(ctx.get());
                     EVP_CipherUpdate(ctx.get(), out.data(), &outl, m.pt.data(), int(m.pt.size()));
                     s += "; final " + rc(EVP_CipherFinal_ex(ctx.get(), g_scratch, &outl));
                     return s + "; " + tag_after(ctx.get(), m.aad, m.pt);
                 },
                 "0 0; final 1; tag rfc", kNone, "0 0; final 1; tag rfc", "0 0; final 1; tag other"});
    // Found by the EVP sequence fuzzer in CI on 3.0.22 (corpus:
    // empty_aad_cipher_after_text*): an empty AAD call after text reopens
    // 3.0.22's AAD, and its next text pads by the AAD's length mod 16 again.
    t.push_back({"aead_cipher_empty_aad_between_text", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     const Message& m = rfc();
                     CipherCtxPtr ctx = keyed(c, Alg::aead, 1);
                     int outl = 0;
                     Bytes out(m.pt.size());
                     EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), int(m.aad.size()));
                     EVP_CipherUpdate(ctx.get(), out.data(), &outl, m.pt.data(), 50);
                     std::string s = cipher_empty_no_out(ctx.get());
                     EVP_CipherUpdate(ctx.get(), out.data() + 50, &outl, m.pt.data() + 50, int(m.pt.size() - 50));
                     s += "; final " + rc(EVP_CipherFinal_ex(ctx.get(), g_scratch, &outl));
                     return s + "; " + tag_after(ctx.get(), m.aad, m.pt);
                 },
                 "0; final 1; tag rfc", kNone, "0; final 1; tag rfc", "0; final 1; tag other"});
    t.push_back({"aead_cipher_empty_between_text", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     const Message& m = rfc();
                     CipherCtxPtr ctx = keyed(c, Alg::aead, 1);
                     int outl = 0;
                     Bytes out(m.pt.size());
                     EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), int(m.aad.size()));
                     EVP_CipherUpdate(ctx.get(), out.data(), &outl, m.pt.data(), 50);
                     std::string s = cipher_empty(ctx.get());
                     s += " " + update_empty(ctx.get());
                     EVP_CipherUpdate(ctx.get(), out.data() + 50, &outl, m.pt.data() + 50, int(m.pt.size() - 50));
                     s += "; final " + rc(EVP_CipherFinal_ex(ctx.get(), g_scratch, &outl));
                     return s + "; " + tag_after(ctx.get(), m.aad, m.pt) + (out == m.ct ? ", ciphertext rfc" : ", ciphertext other");
                 },
                 "0 1; final 1; tag rfc, ciphertext rfc", kNone, "0 1; final 1; tag rfc, ciphertext rfc",
                 "0 1; final 1; tag rfc, ciphertext rfc"});
    t.push_back({"aead_empty_calls_before_key", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = new_cipher_ctx();
                     EVP_CipherInit_ex(ctx.get(), c, nullptr, nullptr, nullptr, 1);
                     std::string s = update_empty(ctx.get());
                     return s + " " + cipher_empty(ctx.get());
                 },
                 "1 0", kNone, "1 0", "1 0"});
    t.push_back({"aead_empty_calls_after_final", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     const Message& m = rfc();
                     CipherCtxPtr ctx = keyed(c, Alg::aead, 1);
                     int outl = 0;
                     EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), int(m.aad.size()));
                     EVP_CipherFinal_ex(ctx.get(), g_scratch, &outl);
                     std::string s = update_empty(ctx.get());
                     s += " " + cipher_empty(ctx.get());
                     return s + "; " + tag_after(ctx.get(), m.aad, {});
                 },
                 "1 0; tag rfc", kNone, "1 0; tag rfc", "1 0; tag rfc"});
    // --- ChaCha20-Poly1305: ending a message --------------------------------------
    t.push_back({"aead_cipher_final_right_tag", Alg::aead,
                 [](const EVP_CIPHER* c) { return open_empty(c, true, TagGiven::right, cipher_final); }, "0", kNone,
                 "0", "0"});
    t.push_back({"aead_cipher_final_wrong_tag", Alg::aead,
                 [](const EVP_CIPHER* c) { return open_empty(c, true, TagGiven::wrong, cipher_final); }, "-1", kNone,
                 "0", "-1"});
    t.push_back({"aead_cipher_final_wrong_tag_no_aad", Alg::aead,
                 [](const EVP_CIPHER* c) { return open_empty(c, false, TagGiven::wrong, cipher_final); }, "-1", kNone,
                 "0", "-1"});
    t.push_back({"aead_cipher_final_wrong_tag_after_text", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     const Message& m = rfc();
                     CipherCtxPtr ctx = keyed(c, Alg::aead, 0);
                     int outl = 0;
                     Bytes tag = m.tag, out(m.pt.size());
                     tag[0] ^= 1;
                     EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data());
                     EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), int(m.aad.size()));
                     EVP_CipherUpdate(ctx.get(), out.data(), &outl, m.ct.data(), int(m.ct.size()));
                     return cipher_final(ctx.get());
                 },
                 "-1", kNone, "0", "-1"});
    t.push_back({"aead_cipher_final_no_tag", Alg::aead,
                 [](const EVP_CIPHER* c) { return open_empty(c, true, TagGiven::none, cipher_final); }, "-1",
                 prov::R_TAG_NOT_SET, "0", "0"});
    t.push_back({"aead_cipher_final_with_output_wrong_tag", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     return open_empty(c, true, TagGiven::wrong,
                                       [](EVP_CIPHER_CTX* x) { return rc(EVP_Cipher(x, g_scratch, nullptr, 0)); });
                 },
                 "-1", kNone, "0", "-1"});
    t.push_back({"aead_decrypt_final_wrong_tag", Alg::aead,
                 [](const EVP_CIPHER* c) { return open_empty(c, true, TagGiven::wrong, decrypt_final); }, "0", kNone,
                 "0", "0"});
    t.push_back({"aead_decrypt_final_no_tag", Alg::aead,
                 [](const EVP_CIPHER* c) { return open_empty(c, true, TagGiven::none, decrypt_final); }, "0",
                 prov::R_TAG_NOT_SET, "1", "1"});
    t.push_back({"aead_cipher_final_encrypt", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     const Message& m = rfc();
                     CipherCtxPtr ctx = keyed(c, Alg::aead, 1);
                     int outl = 0;
                     EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), int(m.aad.size()));
                     const std::string s = cipher_final(ctx.get());
                     return s + "; " + tag_after(ctx.get(), m.aad, {});
                 },
                 "0; tag rfc", kNone, "0; tag other", "0; tag rfc"});
    for (bool via_cipher : {true, false})
        t.push_back({via_cipher ? "aead_cipher_final_twice" : "aead_final_twice", Alg::aead,
                     [via_cipher](const EVP_CIPHER* c) {
                         const Message& m = rfc();
                         CipherCtxPtr ctx = keyed(c, Alg::aead, 1);
                         int outl = 0;
                         EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), int(m.aad.size()));
                         auto end = [&] {
                             return via_cipher ? cipher_final(ctx.get())
                                               : rc(EVP_CipherFinal_ex(ctx.get(), g_scratch, &outl));
                         };
                         std::string s = end();
                         s += " " + end();
                         return s + "; " + tag_after(ctx.get(), m.aad, {});
                     },
                     via_cipher ? "0 -1; tag rfc" : "1 0; tag rfc", prov::R_ALREADY_FINAL,
                     via_cipher ? "0 0; tag other" : "1 1; tag of the empty message",
                     via_cipher ? "0 0; tag of the empty message" : "1 1; tag of the empty message"});
    // --- ChaCha20-Poly1305: NULL input with a length ----------------------------------
    t.push_back({"aead_cipher_null_input_with_length", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = keyed(c, Alg::aead, 1);
                     std::memset(g_scratch, 0xa5, 5);
                     const int r = EVP_Cipher(ctx.get(), g_scratch, nullptr, 5);
                     return rc(r) + (all_equal(g_scratch, 5, 0xa5) ? "; nothing written" : "; written");
                 },
                 "-1; nothing written", prov::R_NULL_BUFFER, "5; nothing written", "5; nothing written"});
    t.push_back({"aead_update_null_input_with_length", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = keyed(c, Alg::aead, 1);
                     int outl = -1;
                     const int r = EVP_CipherUpdate(ctx.get(), g_scratch, &outl, nullptr, 5);
                     return rc(r) + ", outl " + rc(outl);
                 },
                 "0, outl 0", prov::R_NULL_BUFFER, "1, outl 5", "1, outl 5"});
    // --- ChaCha20-Poly1305: TLS record mode (after EVP_CTRL_AEAD_TLS1_AAD) --------------
    for (int enc : {1, 0}) {
        const std::string dir = enc ? "encrypt" : "decrypt";
        const std::string done = enc ? "record sealed" : "record opened";
        t.push_back({"aead_tls_cipher_empty_" + dir, Alg::aead,
                     [enc](const EVP_CIPHER* c) { return tls_record(c, enc, cipher_empty); }, "-1; " + done,
                     prov::R_TLS_EMPTY_CALL, "0; " + done, "-1; " + done});
        t.push_back({"aead_tls_cipher_empty_no_output_" + dir, Alg::aead,
                     [enc](const EVP_CIPHER* c) { return tls_record(c, enc, cipher_empty_no_out); }, "-1; " + done,
                     prov::R_TLS_EMPTY_CALL, "0; " + done, "0; " + done});
        t.push_back({"aead_tls_update_empty_" + dir, Alg::aead,
                     [enc](const EVP_CIPHER* c) {
                         return tls_record(c, enc, [](EVP_CIPHER_CTX* x) {
                             std::string s = update_empty(x);
                             return s + " " + update_empty_aad(x);
                         });
                     },
                     "1 1; " + done, kNone, "1 1; " + done, "1 1; " + done});
        t.push_back({"aead_tls_final_" + dir, Alg::aead,
                     [enc](const EVP_CIPHER* c) {
                         return tls_record(c, enc, [](EVP_CIPHER_CTX* x) {
                             int outl;
                             return rc(EVP_CipherFinal_ex(x, g_scratch, &outl));
                         });
                     },
                     "0; " + done, prov::R_TLS_LENGTH_MISMATCH, "0; " + done, "0; " + done});
    }
    // The two empty EVP_Cipher calls one after the other: 3.0.22 starts a
    // streaming MAC on the first, leaves record mode on the second (which it
    // refuses), and then takes the record's 16 tag bytes for payload.
    t.push_back({"aead_tls_two_empty_ciphers_then_forged_record", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     return tls_record(
                         c, 0,
                         [](EVP_CIPHER_CTX* x) {
                             std::string s = cipher_empty_no_out(x);
                             return s + " " + cipher_empty(x);
                         },
                         true);
                 },
                 "-1 -1; record refused", prov::R_TLS_EMPTY_CALL, "0 0; record refused",
                 "0 -1; record accepted untagged, outl 36"});
    t.push_back({"aead_tls_cipher_final_no_tag", Alg::aead,
                 [](const EVP_CIPHER* c) { return tls_record(c, 0, cipher_final); }, "-1; record opened",
                 prov::R_TLS_LENGTH_MISMATCH, "0; record opened", "0; record opened"});
    t.push_back({"aead_tls_cipher_final_with_output", Alg::aead,
                 [](const EVP_CIPHER* c) {
                     return tls_record(c, 1, [](EVP_CIPHER_CTX* x) { return rc(EVP_Cipher(x, g_scratch, nullptr, 0)); });
                 },
                 "-1; record sealed", prov::R_TLS_LENGTH_MISMATCH, "0; record sealed", "-1; record sealed"});
    // --- ChaCha20 ----------------------------------------------------------------------
    t.push_back({"chacha20_empty_calls_mid_stream", Alg::chacha20,
                 [](const EVP_CIPHER* c) {
                     return chacha_pieces(c, [](EVP_CIPHER_CTX* x) {
                         std::string s = update_empty(x);
                         s += " " + cipher_empty(x);
                         return s + " " + cipher_final(x);
                     });
                 },
                 "1 0 0, 1 0 0; keystream unchanged", kNone, "1 0 0, 1 0 0; keystream unchanged",
                 "1 0 0, 1 0 0; keystream unchanged"});
    t.push_back({"chacha20_empty_update_without_key", Alg::chacha20,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = new_cipher_ctx();
                     EVP_CipherInit_ex(ctx.get(), c, nullptr, nullptr, nullptr, 1);
                     std::string s = update_empty(ctx.get());
                     return s + " " + cipher_empty(ctx.get());
                 },
                 "0 -1", prov::R_KEY_NOT_SET, "0 -1", "0 -1"});
    t.push_back({"chacha20_empty_update_without_iv", Alg::chacha20,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = new_cipher_ctx();
                     EVP_CipherInit_ex(ctx.get(), c, nullptr, rfc().key.data(), nullptr, 1);
                     return update_empty(ctx.get());
                 },
                 "0", prov::R_IV_NOT_SET, "1", "1"});
    t.push_back({"chacha20_final", Alg::chacha20,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = keyed(c, Alg::chacha20, 1);
                     int outl = -1;
                     const int r = EVP_CipherFinal_ex(ctx.get(), g_scratch, &outl);
                     return rc(r) + ", outl " + rc(outl);
                 },
                 "1, outl 0", kNone, "1, outl 0", "1, outl 0"});
    t.push_back({"chacha20_cipher_null_input_with_length", Alg::chacha20,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = keyed(c, Alg::chacha20, 1);
                     return rc(EVP_Cipher(ctx.get(), g_scratch, nullptr, 5));
                 },
                 "-1", prov::R_NULL_BUFFER, kCrash, kCrash});
    t.push_back({"chacha20_update_null_input_with_length", Alg::chacha20,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = keyed(c, Alg::chacha20, 1);
                     int outl = -1;
                     return rc(EVP_CipherUpdate(ctx.get(), g_scratch, &outl, nullptr, 5));
                 },
                 "0", prov::R_NULL_BUFFER, kCrash, kCrash});
    t.push_back({"chacha20_update_null_output_with_length", Alg::chacha20,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = keyed(c, Alg::chacha20, 1);
                     int outl = -1;
                     return rc(EVP_CipherUpdate(ctx.get(), nullptr, &outl, g_one, 1));
                 },
                 "0", prov::R_NULL_BUFFER, kCrash, kCrash});
    // --- chacha20-poly1305@openssh.com (stitch's own: no default to compare) ------------
    t.push_back({"openssh_empty_calls_between_length_and_packet", Alg::openssh,
                 [](const EVP_CIPHER* c) {
                     return openssh_packet(c, [](EVP_CIPHER_CTX* x) {
                         std::string s = update_empty(x);
                         s += " " + cipher_empty(x);
                         return s + " " + cipher_final(x);
                     });
                 },
                 "1 0 0; packet sealed", kNone, "", ""});
    t.push_back({"openssh_cipher_null_input_with_length", Alg::openssh,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = keyed(c, Alg::openssh, 1);
                     return rc(EVP_Cipher(ctx.get(), g_scratch, nullptr, 40));
                 },
                 "-1", prov::R_NULL_BUFFER, "", ""});
    t.push_back({"openssh_final", Alg::openssh,
                 [](const EVP_CIPHER* c) {
                     CipherCtxPtr ctx = keyed(c, Alg::openssh, 0);
                     int outl = -1;
                     const int r = EVP_CipherFinal_ex(ctx.get(), g_scratch, &outl);
                     return rc(r) + ", outl " + rc(outl);
                 },
                 "1, outl 0", kNone, "", ""});

    // Why a release answers otherwise than stitch, upstream. Every row that
    // differs from some release has an entry, every entry names a row.
    const std::pair<const char*, const char*> upstream[] = {
        {"aead_cipher_empty_between_aad_encrypt", "openssl#32752 (fix proposed: #32753)"},
        {"aead_cipher_empty_between_aad_decrypt", "openssl#32752 (fix proposed: #32753)"},
        {"aead_cipher_empty_then_empty_aad_after_aad", "openssl#32752 (fix proposed: #32753)"},
        {"aead_cipher_empty_aad_between_text", "openssl#32752's early pad, mid-text (found by stitch's fuzzer)"},
        {"aead_cipher_final_wrong_tag", "openssl#32258 (CVE-2026-75803), #32173, 3.0 backport #32417"},
        {"aead_cipher_final_wrong_tag_no_aad", "openssl#32258 (CVE-2026-75803), #32173, 3.0 backport #32417"},
        {"aead_cipher_final_wrong_tag_after_text", "openssl#32258 (CVE-2026-75803), #32173, 3.0 backport #32417"},
        {"aead_cipher_final_with_output_wrong_tag", "openssl#32258 (CVE-2026-75803), #32173, 3.0 backport #32417"},
        {"aead_cipher_final_encrypt", "openssl#32258: before 3.0.22 no tag is made, the tag read is stale"},
        {"aead_cipher_final_no_tag", "openssl#28137, #31285: 3.0 compares no bytes (fixed in 3.5+, #28683)"},
        {"aead_decrypt_final_no_tag", "openssl#28137, #31285: 3.0 compares no bytes (fixed in 3.5+, #28683)"},
        {"aead_cipher_final_twice", "3.0 restarts the message at block 0 of the same nonce"},
        {"aead_final_twice", "3.0 restarts the message at block 0 of the same nonce"},
        {"aead_cipher_null_input_with_length", "3.0 takes in == NULL for a final whatever the length"},
        {"aead_update_null_input_with_length", "3.0 takes in == NULL for a final whatever the length"},
        {"aead_tls_cipher_empty_encrypt", "openssl#32417 (3.0.22) refuses it; #32753 keeps that"},
        {"aead_tls_cipher_empty_decrypt", "openssl#32417 (3.0.22) refuses it; #32753 keeps that"},
        {"aead_tls_cipher_empty_no_output_encrypt", "3.0.22 starts a streaming MAC over the record header"},
        {"aead_tls_cipher_empty_no_output_decrypt", "3.0.22 starts a streaming MAC over the record header"},
        {"aead_tls_two_empty_ciphers_then_forged_record", "3.0.22 leaves record mode and skips the tag check"},
        {"aead_tls_cipher_final_no_tag", "3.0.22 ends a header-only message, compares no bytes"},
        {"aead_tls_cipher_final_with_output", "a no-op before 3.0.22 (openssl#32258); 3.0.22 refuses it, as stitch does"},
        {"chacha20_empty_update_without_iv", "3.0 would run on an all-zero nonce"},
        {"chacha20_cipher_null_input_with_length", "3.0 reads through NULL"},
        {"chacha20_update_null_input_with_length", "3.0 reads through NULL"},
        {"chacha20_update_null_output_with_length", "3.0 writes through NULL"},
    };
    for (const auto& entry : upstream) {
        const std::string name = entry.first;
        auto it = std::find_if(t.begin(), t.end(), [&name](const Row& r) { return r.name == name; });
        if (it == t.end()) throw std::logic_error("no row " + name);
        it->upstream = entry.second;
    }
    for (const Row& r : t)
        if (!r.v3_0_19.empty() && (r.stitch != r.v3_0_19 || r.stitch != r.v3_0_22) && r.upstream.empty())
            throw std::logic_error("row " + r.name + " differs from a release and says not why");
    return t;
}

class EmptyCalls : public ::testing::TestWithParam<Row> {};

TEST(EmptyCallsSetup, PlainTagIsTheRfcTag) {
    EXPECT_EQ(to_hex(plain_tag(rfc().aad, rfc().pt)), to_hex(rfc().tag));
}

TEST_P(EmptyCalls, StitchAndTheDefaultProviderAnswerAsTheTableSays) {
    const Row& row = GetParam();
    ERR_clear_error();
    {
        CipherPtr c = providers().fetch(alg_name(row.alg), "stitch");
        EXPECT_EQ(row.run(c.get()), row.stitch) << "stitch";
        if (row.reason != kNone) expect_stitch_error(row.reason);
        ERR_clear_error();
    }
    if (row.v3_0_19.empty()) return;  // the OpenSSH cipher is stitch's alone

    const Release rel = installed_release();
    const Column col = column_of(rel);
    std::string want;
    if (col == Column::like_3_0_19) want = row.v3_0_19;
    else if (col == Column::like_3_0_22) want = row.v3_0_22;
    else if (row.v3_0_19 == row.v3_0_22) want = row.v3_0_19;
    CipherPtr d = providers().fetch(alg_name(row.alg), "default");
    if (want == kCrash) {
        // The default provider goes through NULL; in a child, so the test goes on.
        EXPECT_DEATH(row.run(d.get()), "") << "OpenSSL " << rel.name() << " no longer crashes here: re-measure the row";
        return;
    }
    if (row.v3_0_19 == kCrash || row.v3_0_22 == kCrash) {
        std::printf("[ note ] OpenSSL %s, not measured: %s not run on the default provider (3.0.22 crashed)\n",
                    rel.name().c_str(), row.name.c_str());
        return;
    }
    const std::string got = row.run(d.get());
    ERR_clear_error();
    if (want.empty()) {
        std::printf("[ note ] OpenSSL %s, not measured: the default provider answers %s with \"%s\"\n",
                    rel.name().c_str(), row.name.c_str(), got.c_str());
        return;
    }
    EXPECT_EQ(got, want) << "the default provider of OpenSSL " << rel.name()
                         << " answers otherwise than measured; update the table in docs/openssl-3.0-semantics.md"
                         << (row.upstream.empty() ? "" : " (" + row.upstream + ")");
}

// STITCH_PRINT_TABLE=1 prints the rows as the docs table's answer columns,
// so docs/openssl-3.0-semantics.md#empty-calls can be checked against them.
TEST(EmptyCallsSetup, TablePrintedWhenAsked) {
    if (!std::getenv("STITCH_PRINT_TABLE")) return;
    for (const Row& r : rows())
        std::printf("| `%s` | %s | %s | %s | %s |\n", r.name.c_str(), r.stitch.c_str(),
                    r.v3_0_19.empty() ? "(no such cipher)" : r.v3_0_19.c_str(),
                    r.v3_0_22.empty() ? "(no such cipher)" : r.v3_0_22.c_str(), r.upstream.c_str());
}

INSTANTIATE_TEST_SUITE_P(Table, EmptyCalls, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<Row>& i) { return i.param.name; });

}  // namespace
}  // namespace stitch::test
