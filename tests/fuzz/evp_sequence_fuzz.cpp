// libFuzzer target: the input is a sequence of EVP calls on ChaCha20-Poly1305
// or ChaCha20, run call for call on stitch and on the default provider (one
// library context holds both) and required to agree, except where
// allowed_divergences.hpp says the installed release is unsafe, wrong or stale.
//
// Input: the first byte picks the cipher; then ops, each an op byte
// (evp_sequence_ops.hpp) and its operands. There are two context pairs, so a
// message one pair seals alike on both providers (a transcript) can be opened
// on the other, cut differently, with a bit flipped or not, and dupctx copies
// between them.
//
// EVP_Cipher(ctx, NULL, NULL, 0) ends the message in stitch and in 3.0.22 (the
// CVE-2026-75803 fix) and does nothing in 3.0.21 and before, so there stitch's
// result is compared with the default provider's EVP_CipherFinal_ex.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "aead_tag_reference.hpp"
#include "allowed_divergences.hpp"
#include "evp_sequence_model.hpp"
#include "evp_sequence_ops.hpp"
#include "fuzz_input.hpp"
#include "fuzz_providers.hpp"

namespace stitch::fuzz {

namespace {

constexpr size_t kMaxData = 17000;  // a whole TLS record (16 KiB + 256 + tag) and then some

// A buffer's address, never NULL: an empty call must still name its buffers
// (EVP_Cipher(ctx, NULL, NULL, 0) is a different call, cipher_final).
uint8_t* at(Bytes& b) {
    static uint8_t empty[1];
    return b.empty() ? empty : b.data();
}
const uint8_t* at(const Bytes& b) { return at(const_cast<Bytes&>(b)); }

struct Transcript {  // a message both providers sealed alike
    bool ok = false;
    Bytes key, iv, aad, ct, tag;  // a TLS record: aad = its 13-byte header, ct = record ‖ tag
};

struct Pair {
    CipherCtxPtr s, d;  // stitch, default
    Model m;
    bool compared = true;  // false after a divergence: stitch runs on alone
    Transcript building;   // this message so far, while it can become a transcript
    Transcript so_far;     // stitch's message since it last started (any direction): what its tag covers
    size_t cursor_aad = 0, cursor_ct = 0;  // how much of a transcript this pair has been fed
};

class Run {
public:
    Run(const FuzzProviders& prov, FuzzInput& in) : prov_(prov), in_(in) {
        kind_ = in_.flag() ? Kind::chacha : Kind::aead;
        for (Pair& p : pairs_) {
            p.s.reset(EVP_CIPHER_CTX_new());
            p.d.reset(EVP_CIPHER_CTX_new());
            if (!p.s || !p.d) fail("EVP_CIPHER_CTX_new");
            fresh(p, true);
        }
    }

    void run() {
        while (!in_.empty()) step();
        ERR_clear_error();
    }

private:
    // ---- checking ------------------------------------------------------------

    [[noreturn]] void fail(const std::string& what) {
        fuzz_fail("%s\n  cipher %s; ops: %s", what.c_str(), kind_ == Kind::aead ? "ChaCha20-Poly1305" : "ChaCha20",
                  trace_.c_str());
    }

    void expect(bool cond, const char* what) {
        if (!cond) fail(what);
    }

    // Checks stitch's answer `rs` against the verdict. For an allowed
    // divergence, returns false: the caller must not compare with 3.0, and
    // the pair is no longer compared unless the rule keeps both states.
    bool judge(Pair& p, const Verdict& v, int rs, const char* op) {
        if (v.why) {
            const DivergenceRule& r = rule(*v.why);
            if (r.stitch_refuses() && rs) fail(std::string(op) + ": stitch accepted where it must refuse: " + r.name);
            trace_ += std::string("<") + r.name + "> ";
            fuzz_count(r.name);
            if (!r.keeps_state) p.compared = false;
            return false;
        }
        if (v.stitch != Verdict::either && rs != int(v.stitch))
            fail(std::string(op) + (rs ? ": stitch accepted" : ": stitch refused") + " against the model");
        return p.compared;
    }

    void same(int rs, int rd, const char* op) {
        if (rs != rd) fail(std::string(op) + ": stitch answered " + std::to_string(rs) + ", default " + std::to_string(rd));
    }

    // ---- contexts and sources ------------------------------------------------

    const EVP_CIPHER* cipher(bool stitch) const {
        if (kind_ == Kind::aead) return stitch ? prov_.stitch_aead : prov_.default_aead;
        return stitch ? prov_.stitch_chacha : prov_.default_chacha;
    }

    // New provider contexts on both sides: they agree again.
    void fresh(Pair& p, bool enc) {
        const int rs = EVP_CipherInit_ex(p.s.get(), cipher(true), nullptr, nullptr, nullptr, enc);
        const int rd = EVP_CipherInit_ex(p.d.get(), cipher(false), nullptr, nullptr, nullptr, enc);
        expect(rs == 1 && rd == 1, "init with the cipher alone refused");
        p.m.fresh(enc);
        p.compared = true;
        p.building = Transcript{};
        p.so_far = Transcript{};
    }

    Pair& pick() {
        const int i = in_.u8() & 1;
        note("p%d", i);
        return pairs_[i];
    }

    // The trace a finding prints: each op with what it was given.
    void note(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
        char buf[96];
        va_list args;
        va_start(args, fmt);
        std::vsnprintf(buf, sizeof(buf), fmt, args);
        va_end(args);
        trace_ += buf;
        trace_ += ' ';
    }

    // Seeded bytes, or the next bytes of a transcript (a TLS record whole).
    Bytes feed(Pair& p, size_t n, uint8_t src, bool is_aad) {
        if (!(src & 1)) return in_.stream(n);
        const bool record = src & 2;
        const Transcript& t = record ? record_ : message_;
        if (!t.ok) return in_.stream(n);
        const Bytes& from = is_aad ? t.aad : t.ct;
        if (record) return from;
        size_t& at = is_aad ? p.cursor_aad : p.cursor_ct;
        at = std::min(at, from.size());
        n = std::min(n, from.size() - at);
        Bytes b(from.begin() + long(at), from.begin() + long(at + n));
        at += n;
        return b;
    }

    void start_building(Pair& p) {
        p.building = Transcript{};
        p.cursor_aad = p.cursor_ct = 0;
        if (kind_ == Kind::aead && p.m.enc && p.m.ready() && p.compared)
            p.building = {true, p.m.key_bytes, p.m.iv_bytes, {}, {}, {}};
    }

    // ---- ops -------------------------------------------------------------------

    void step() {
        const Op op = decode_op(in_.u8(), kind_);
        trace_ += '\n';
        note("%s", op_name(op));
        switch (op) {
            case Op::fresh: {
                Pair& p = pick();
                fresh(p, in_.flag());
                break;
            }
            case Op::init: init(pick()); break;
            case Op::set_tag: set_tag(pick()); break;
            case Op::get_tag: get_tag(pick()); break;
            case Op::get_lengths: get_lengths(pick()); break;
            case Op::set_lengths: set_lengths(pick()); break;
            case Op::aad: aad(pick()); break;
            case Op::data: data(pick()); break;
            case Op::final: final(pick(), false); break;
            case Op::cipher_final: final(pick(), true); break;
            case Op::tls_aad: tls_aad(pick()); break;
            case Op::tls_iv_fixed: tls_iv_fixed(pick()); break;
            case Op::dup: dup(); break;
            case Op::flip: flip(); break;
            case Op::overlap: overlap(pick()); break;
            case Op::replay: replay(pick()); break;
        }
        ERR_clear_error();
    }

    void init(Pair& p) {
        const uint8_t mode = in_.u8();
        const int enc = int(mode % 3) - 1;  // -1 keeps the direction
        const bool with_cipher = mode & 0x80;
        const uint8_t src = in_.u8();
        const bool with_key = src & 1, with_iv = src & 2;
        const size_t ivlen = kind_ == Kind::aead ? 12 : 16;
        Bytes key = in_.stream(32), iv = in_.stream(ivlen);
        const Transcript& t = src & 8 ? record_ : message_;
        if ((src & 4) && t.ok) {
            key = t.key;
            iv = t.iv;
        } else if (kind_ == Kind::chacha && (src & 8)) {  // block counter just below 2^32: the carry
            iv[0] = uint8_t(0xff - (src >> 4));
            iv[1] = iv[2] = iv[3] = 0xff;
        }
        note("enc=%d%s%s%s key=%s iv=%s", enc, with_cipher ? " cipher" : "", with_key ? " key" : "", with_iv ? " iv" : "",
             test::to_hex(key).substr(0, 8).c_str(), test::to_hex(iv).c_str());
        do_init(p, enc, with_cipher, with_key ? &key : nullptr, with_iv ? &iv : nullptr);
    }

    void do_init(Pair& p, int enc, bool with_cipher, const Bytes* key, const Bytes* iv) {
        const uint8_t* k = key ? key->data() : nullptr;
        const uint8_t* v = iv ? iv->data() : nullptr;
        if (with_cipher) {
            // New provider contexts: the pair agrees again. The default side is
            // told its direction outright, in case it missed an init.
            const bool dir = enc == -1 ? p.m.evp_enc : enc == 1;
            const int rs = EVP_CipherInit_ex(p.s.get(), cipher(true), nullptr, k, v, enc);
            const int rd = EVP_CipherInit_ex(p.d.get(), cipher(false), nullptr, k, v, dir);
            expect(rs == 1 && rd == 1, "init with the cipher refused");
            p.m.fresh(dir);
            p.compared = true;
        } else {
            const Verdict verdict = p.m.init(kind_, key != nullptr, iv != nullptr);
            const int rs = EVP_CipherInit_ex(p.s.get(), nullptr, nullptr, k, v, enc);
            if (judge(p, verdict, rs, "init")) same(rs, EVP_CipherInit_ex(p.d.get(), nullptr, nullptr, k, v, enc), "init");
            expect(rs == 1, "init refused");
        }
        p.m.did_init(enc, key, iv);
        start_building(p);
        start_message(p);
    }

    // Every init (and tlsivfixed) starts stitch's message afresh at the key and IV as set.
    void start_message(Pair& p) {
        p.so_far = Transcript{};
        if (kind_ == Kind::aead && p.m.ready()) p.so_far = {true, p.m.key_bytes, p.m.iv_bytes, {}, {}, {}};
    }

    // src bits: 1 with data, 2 a transcript's tag (4: the TLS record's), 8 the
    // tag of the message so far, as the default provider's ChaCha20 and
    // POLY1305 compute it: right for a final now, and stale for any other.
    void set_tag(Pair& p) {
        const size_t len = in_.u8() % 18;
        const uint8_t src = in_.u8();
        const bool with_data = src & 1;
        Bytes tag = in_.stream(17);
        note("len=%zu%s%s", len, with_data ? " data" : "", src & 2 ? " transcript" : "");
        const Transcript& t = src & 4 ? record_ : message_;
        if ((src & 2) && t.ok && t.tag.size() == 16) std::memcpy(tag.data(), t.tag.data(), 16);
        else if ((src & 8) && p.so_far.ok) {
            const Bytes right = aead_reference_tag(prov_, p.so_far.key, p.so_far.iv, p.so_far.aad, p.so_far.ct);
            std::memcpy(tag.data(), right.data(), 16);
        }
        do_set_tag(p, len, with_data ? tag.data() : nullptr);
    }

    void do_set_tag(Pair& p, size_t len, const uint8_t* tag) {
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, const_cast<uint8_t*>(tag), len),
            OSSL_PARAM_construct_end()};
        const Verdict verdict = p.m.set_tag(len, tag != nullptr);
        const int rs = EVP_CIPHER_CTX_set_params(p.s.get(), params);
        if (judge(p, verdict, rs, "set tag")) same(rs, EVP_CIPHER_CTX_set_params(p.d.get(), params), "set tag");
        if (rs) p.m.did_set_tag(tag != nullptr);
    }

    void get_tag(Pair& p) {
        const size_t len = in_.u8() % 18;
        uint8_t ts[17] = {}, td[17] = {};
        OSSL_PARAM ps[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, ts, len),
                           OSSL_PARAM_construct_end()};
        OSSL_PARAM pd[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, td, len),
                           OSSL_PARAM_construct_end()};
        const Verdict verdict = p.m.get_tag(len);
        const int rs = EVP_CIPHER_CTX_get_params(p.s.get(), ps);
        if (verdict.why == Divergence::tag_after_tls_record)
            expect(rs == 1 && std::memcmp(ts, p.m.record_tag, len) == 0, "tag after a TLS record is not the record's");
        if (!judge(p, verdict, rs, "get tag")) return;
        const int rd = EVP_CIPHER_CTX_get_params(p.d.get(), pd);
        same(rs, rd, "get tag");
        if (rs && std::memcmp(ts, td, len) != 0) fail("tags differ");
    }

    void get_lengths(Pair& p) {
        static const char* const kKeys[] = {OSSL_CIPHER_PARAM_AEAD_TAGLEN, OSSL_CIPHER_PARAM_IVLEN,
                                            OSSL_CIPHER_PARAM_KEYLEN};
        const char* key = kKeys[in_.u8() % 3];
        size_t s = 99, d = 99;
        OSSL_PARAM ps[] = {OSSL_PARAM_construct_size_t(key, &s), OSSL_PARAM_construct_end()};
        OSSL_PARAM pd[] = {OSSL_PARAM_construct_size_t(key, &d), OSSL_PARAM_construct_end()};
        const int rs = EVP_CIPHER_CTX_get_params(p.s.get(), ps);
        expect(rs == 1, "length read refused");
        if (!p.compared) return;
        same(rs, EVP_CIPHER_CTX_get_params(p.d.get(), pd), "get length");
        if (key == kKeys[0] && kind_ == Kind::aead && !p.m.taglen_set && d == 0) {
            judge(p, {Verdict::accept, Divergence::taglen_before_set}, rs, "taglen");
            expect(s == 16, "taglen before a tag length is set is not 16");
            return;
        }
        if (s != d) fail(std::string(key) + " differs: stitch " + std::to_string(s) + ", default " + std::to_string(d));
    }

    void set_lengths(Pair& p) {
        static constexpr size_t kValues[] = {12, 16, 32, 64, 0, 8, 11, 13, 31, 33};
        size_t v = kValues[in_.u8() % std::size(kValues)];
        const bool keylen = in_.flag();
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_size_t(keylen ? OSSL_CIPHER_PARAM_KEYLEN : OSSL_CIPHER_PARAM_IVLEN, &v),
            OSSL_PARAM_construct_end()};
        const size_t right = keylen ? 32 : kind_ == Kind::aead ? 12 : 16;
        const int rs = EVP_CIPHER_CTX_set_params(p.s.get(), params);
        if (judge(p, Verdict::of(v == right), rs, "set length"))
            same(rs, EVP_CIPHER_CTX_set_params(p.d.get(), params), "set length");
    }

    // src bit 4: through EVP_Cipher(ctx, NULL, in, n) instead of EVP_CipherUpdate.
    void aad(Pair& p) {
        const size_t n = in_.length(kMaxData);
        const uint8_t src = in_.u8();
        const Bytes a = feed(p, n, src, true);
        note("n=%zu%s", a.size(), src & 4 ? " EVP_Cipher" : "");
        do_aad(p, a, src & 4);
    }

    void do_aad(Pair& p, const Bytes& a, bool via_cipher = false) {
        int ls = -1, ld = -1;
        const Verdict verdict = p.m.aad(a.size(), via_cipher);
        const int rs = call(p.s.get(), nullptr, &ls, at(a), a.size(), via_cipher);
        if (judge(p, verdict, rs, "AAD")) {
            same(rs, call(p.d.get(), nullptr, &ld, at(a), a.size(), via_cipher), "AAD");
            if (ls != ld) fail("AAD outl differs");
        }
        if (!rs) return;
        p.m.did_aad(a.size(), via_cipher);
        if (p.building.ok) p.building.aad.insert(p.building.aad.end(), a.begin(), a.end());
        if (p.so_far.ok) p.so_far.aad.insert(p.so_far.aad.end(), a.begin(), a.end());
    }

    // EVP_CipherUpdate or EVP_Cipher, both answered as 1 / 0.
    static int call(EVP_CIPHER_CTX* c, uint8_t* out, int* outl, const uint8_t* in, size_t n, bool via_cipher) {
        if (!via_cipher) return EVP_CipherUpdate(c, out, outl, in, int(n));
        const int r = EVP_Cipher(c, out, in, unsigned(n));
        *outl = r < 0 ? 0 : r;
        return r >= 0;
    }

    void data(Pair& p) {
        const size_t n = in_.length(kMaxData);
        const uint8_t how = in_.u8();
        const bool in_place = how & 1, via_cipher = how & 2;
        const Bytes text = feed(p, n, uint8_t(how >> 2), false);
        note("n=%zu%s%s", text.size(), in_place ? " in-place" : "", via_cipher ? " EVP_Cipher" : "");
        do_data(p, text, in_place, via_cipher);
    }

    void do_data(Pair& p, const Bytes& text, bool in_place, bool via_cipher) {
        // Output buffers start alike, so bytes a provider should leave alone compare too.
        Bytes bs = in_place ? text : Bytes(text.size(), 0xa5), bd = bs;
        const Bytes before = bs;
        const Verdict verdict = p.m.data(kind_, text.size(), via_cipher);
        const bool record = kind_ == Kind::aead && p.m.tls && p.m.ready() && !p.m.ended && text.size() == p.m.tls_len;
        int ls = 0, ld = 0;
        const int rs = call(p.s.get(), at(bs), &ls, in_place ? at(bs) : at(text), text.size(), via_cipher);
        if (judge(p, verdict, rs, record ? "TLS record" : "data")) {
            const int rd = call(p.d.get(), at(bd), &ld, in_place ? at(bd) : at(text), text.size(), via_cipher);
            same(rs, rd, record ? "TLS record" : "data");
            if (ls != ld) fail("outl differs: stitch " + std::to_string(ls) + ", default " + std::to_string(ld));
            if (bs != bd) fail(record ? "TLS record output differs" : "data output differs");
        }
        if (!rs && !record) {
            expect(bs == before, "a refused data call wrote to its output");
            return;
        }
        if (record) {
            // A refused open leaves zeros where the payload would be.
            if (!rs) expect(test::Bytes(bs.begin(), bs.end() - 16) == Bytes(bs.size() - 16, 0), "refused TLS record not zeroed");
            fuzz_count(p.m.enc ? "TLS record sealed" : rs ? "TLS record opened" : "TLS record refused");
            p.m.did_record(rs && p.m.enc ? bs.data() + bs.size() - 16 : nullptr);
            if (rs && p.m.enc && p.compared)
                record_ = {true, p.m.key_bytes, p.m.iv_bytes, Bytes(p.m.tls_header, p.m.tls_header + 13), bs, {}};
            return;
        }
        p.m.did_data(text.size(), via_cipher);
        if (p.building.ok) p.building.ct.insert(p.building.ct.end(), bs.begin(), bs.begin() + ls);
        if (p.so_far.ok) {
            const Bytes& ct = p.m.enc ? bs : text;
            p.so_far.ct.insert(p.so_far.ct.end(), ct.begin(), ct.begin() + ls);
        }
    }

    void final(Pair& p, bool via_cipher) {
        const Verdict verdict = p.m.final(kind_, via_cipher);
        int ls = 0, ld = 0;
        const int rs = via_cipher ? EVP_Cipher(p.s.get(), nullptr, nullptr, 0) >= 0
                                  : EVP_CipherFinal_ex(p.s.get(), nullptr, &ls);
        if (judge(p, verdict, rs, via_cipher ? "EVP_Cipher(NULL, NULL, 0)" : "final")) {
            // For ChaCha20 EVP_Cipher(NULL, NULL, 0) is a plain empty call on both sides; for
            // ChaCha20-Poly1305 a final, except on releases where it does nothing.
            const bool substitute = via_cipher && kind_ == Kind::aead && applies(Divergence::evp_cipher_final_does_nothing);
            if (substitute) fuzz_count(rule(Divergence::evp_cipher_final_does_nothing).name);
            const int rd = via_cipher && !substitute ? EVP_Cipher(p.d.get(), nullptr, nullptr, 0) >= 0
                                                     : EVP_CipherFinal_ex(p.d.get(), nullptr, &ld);
            same(rs, rd, via_cipher ? "EVP_Cipher(NULL, NULL, 0)" : "final");
        }
        if (kind_ == Kind::chacha || verdict.why) return;
        fuzz_count(p.m.enc ? "message sealed" : rs ? "message opened" : "message refused");
        p.m.did_final();
        if (p.m.enc && (p.compared ? p.building.ok : p.so_far.ok)) {
            uint8_t tag[16];
            OSSL_PARAM params[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16),
                                   OSSL_PARAM_construct_end()};
            expect(EVP_CIPHER_CTX_get_params(p.s.get(), params) == 1, "no tag after final");
            if (p.compared) {
                message_ = p.building;
                message_.tag.assign(tag, tag + 16);
            } else {
                // Stitch alone (after a divergence): its tag must still be RFC 8439's.
                const Bytes right = aead_reference_tag(prov_, p.so_far.key, p.so_far.iv, p.so_far.aad, p.so_far.ct);
                if (std::memcmp(tag, right.data(), 16) != 0) fail("stitch's tag is not RFC 8439's for its message");
                fuzz_count("stitch alone: tag checked");
            }
        }
        p.building.ok = false;
    }

    // The last sealed message opened whole on a pair: re-keyed for decrypt,
    // the tag set before or after the text, AAD and text cut into pieces of
    // the input's choosing, ended by final or EVP_Cipher(ctx, NULL, NULL, 0);
    // one bit of ciphertext, AAD or tag flipped, or none.
    void replay(Pair& p) {
        const uint8_t how = in_.u8();
        const uint16_t flip_at = in_.u16();
        if (kind_ != Kind::aead || !message_.ok) return;
        Transcript t = message_;
        if (how & 0x20) {
            Bytes& target = how & 0x40 ? t.tag : how & 0x80 ? t.aad : t.ct;
            if (!target.empty()) target[flip_at / 8 % target.size()] ^= uint8_t(1 << (flip_at % 8));
        }
        note("%s%s%s", how & 2 ? "tag-first" : "tag-last", how & 4 ? " EVP_Cipher-final" : "",
             how & 0x20 ? " flipped" : "");
        do_init(p, 0, false, &t.key, &t.iv);
        if (how & 2) do_set_tag(p, 16, t.tag.data());
        for (const Bytes* whole : {&t.aad, &t.ct}) {
            size_t done = 0;
            for (int piece = 0; done < whole->size() || piece == 0; ++piece) {
                // Pieces of the input's sizes, zero-length ones too; the rest in one after 64.
                size_t n = piece < 64 && !in_.empty() ? in_.length(1024) : whole->size() - done;
                n = std::min(n, whole->size() - done);
                const Bytes b(whole->begin() + long(done), whole->begin() + long(done + n));
                done += n;
                if (whole == &t.aad) {
                    do_aad(p, b);
                } else {
                    const uint8_t way = in_.u8();
                    do_data(p, b, way & 1, way & 2);
                }
            }
        }
        if (!(how & 2)) do_set_tag(p, 16, t.tag.data());
        final(p, how & 4);
    }

    void tls_aad(Pair& p) {
        const uint8_t how = in_.u8();
        const size_t size = how & 0x80 ? 12 + (how & 1) * 2 : 13;  // 12 or 14: wrong sizes
        Bytes header = in_.stream(14);
        if ((how & 2) && record_.ok) {
            std::memcpy(header.data(), record_.aad.data(), 13);
            if (!p.m.enc) {  // the opener is told the record's length with its tag
                const size_t len = (size_t(header[11]) << 8 | header[12]) + 16;
                header[11] = uint8_t(len >> 8);
                header[12] = uint8_t(len);
            }
        } else {
            const size_t len = in_.length(16384 + 256);
            header[8] = 0x17;  // application data, TLS 1.2
            header[9] = 0x03;
            header[10] = 0x03;
            header[11] = uint8_t(len >> 8);
            header[12] = uint8_t(len);
        }
        const size_t len = size_t(header[11]) << 8 | header[12];
        note("size=%zu len=%zu", size, len);
        const Verdict verdict = p.m.tls_aad(size, len);
        const int rs = EVP_CIPHER_CTX_ctrl(p.s.get(), EVP_CTRL_AEAD_TLS1_AAD, int(size), header.data());
        if (judge(p, verdict, rs > 0, "tlsaad"))
            same(rs, EVP_CIPHER_CTX_ctrl(p.d.get(), EVP_CTRL_AEAD_TLS1_AAD, int(size), header.data()), "tlsaad");
        if (rs <= 0) return;
        expect(rs == 16, "tlsaad: the pad is not 16");
        p.m.did_tls_aad(header.data(), len);
        p.building.ok = false;
        p.so_far.ok = false;
    }

    void tls_iv_fixed(Pair& p) {
        const size_t size = in_.flag() ? 12 : in_.u8() % 17;
        Bytes iv = in_.stream(16);
        OSSL_PARAM params[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, iv.data(), size),
                               OSSL_PARAM_construct_end()};
        const Verdict verdict = p.m.fixed_iv(size);
        const int rs = EVP_CIPHER_CTX_set_params(p.s.get(), params);
        if (judge(p, verdict, rs, "tlsivfixed")) same(rs, EVP_CIPHER_CTX_set_params(p.d.get(), params), "tlsivfixed");
        if (!rs) return;
        iv.resize(12);
        p.m.did_fixed_iv(iv);
        start_building(p);
        start_message(p);
    }

    void dup() {
        const uint8_t b = in_.u8();
        Pair& src = pairs_[b & 1];
        Pair& dst = pairs_[(b >> 1) & 1];
        note("p%d->p%d", b & 1, (b >> 1) & 1);
        if (&src == &dst) return;
        const int rs = EVP_CIPHER_CTX_copy(dst.s.get(), src.s.get());
        const int rd = EVP_CIPHER_CTX_copy(dst.d.get(), src.d.get());
        expect(rs == 1 && rd == 1, "EVP_CIPHER_CTX_copy refused");
        dst.m = src.m;
        dst.compared = src.compared;
        dst.building = src.building;
        dst.so_far = src.so_far;
        dst.cursor_aad = src.cursor_aad;
        dst.cursor_ct = src.cursor_ct;
    }

    void flip() {
        const uint8_t b = in_.u8();
        Transcript& t = b & 1 ? record_ : message_;
        Bytes& target = (b & 2) ? t.tag : (b & 4) ? t.aad : t.ct;
        const uint16_t at = in_.u16();
        if (!t.ok || target.empty()) return;
        const size_t bit = at % (target.size() * 8);
        target[bit / 8] ^= uint8_t(1 << (bit % 8));
    }

    // Partially overlapping buffers are outside the API (provider-cipher(7)):
    // stitch must refuse them and write nothing. 3.0 is not asked. What
    // overlaps is the input and the bytes the call would write: a TLS record
    // opened writes its payload only, 16 bytes less than it reads.
    void overlap(Pair& p) {
        const size_t n = 2 + in_.length(4096);
        const bool record = kind_ == Kind::aead && p.m.tls && p.m.ready() && !p.m.ended && n == p.m.tls_len;
        const size_t out_len = record && !p.m.enc ? n - 16 : n;
        const bool out_ahead = in_.flag() || out_len < 2;
        // out ahead: out = in + shift overlaps for any shift < n; out behind:
        // in = out + shift overlaps only while shift < out_len.
        const size_t shift = 1 + in_.below((out_ahead ? n : out_len) - 1);
        Bytes buf = in_.stream(n + shift);
        note("n=%zu shift=%zu%s", n, shift, out_ahead ? " out-ahead" : " in-ahead");
        const Bytes before = buf;
        int outl = 0;
        const uint8_t* in = out_ahead ? buf.data() : buf.data() + shift;
        uint8_t* out = out_ahead ? buf.data() + shift : buf.data();
        expect(EVP_CipherUpdate(p.s.get(), out, &outl, in, int(n)) == 0, "partially overlapping buffers accepted");
        expect(buf == before, "a refused call with overlapping buffers wrote to them");
    }

    const FuzzProviders& prov_;
    FuzzInput& in_;
    Kind kind_;
    Pair pairs_[2];
    Transcript message_, record_;
    std::string trace_;
};

}  // namespace

}  // namespace stitch::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    stitch::fuzz::fuzz_set_input("evp_sequence", data, size);
    stitch::fuzz::FuzzInput in(data, size);
    stitch::fuzz::Run(stitch::fuzz::fuzz_providers(), in).run();
    return 0;
}
