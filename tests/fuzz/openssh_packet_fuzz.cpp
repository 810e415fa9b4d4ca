// libFuzzer target: random keys, sequence numbers, packets and bit flips
// through stitch's chacha20-poly1305@openssh.com, each call held to the
// composition of the default provider's ChaCha20 and POLY1305
// (openssh_composed.hpp). The API (provider/ciphers/openssh.cpp):
//   key 64 B = K_2 ‖ K_1; IV 8 B = BE64 seqnr, set per packet with
//   EVP_CipherInit_ex(ctx, NULL, NULL, NULL, seq, -1); one update (or
//   EVP_Cipher) of inl = 4 + payload + 16 per packet:
//     seal: length ‖ payload ‖ 16 spare → enc length ‖ ciphertext ‖ tag
//     open: → length ‖ payload, outl = inl − 16; a bad tag answers 0
//   inl == 4 decrypts the length alone; inl 1..3 and 5..19 are refused; a
//   second packet on one sequence number is refused. Misuse is refused with
//   nothing written; a packet refused by its tag leaves zeros where its
//   plaintext would have been.
//
// Two contexts (they start as sealer and opener; ops may turn, re-key or copy
// them). The last packet sealed is kept, to be opened as it is or with a bit
// flipped, at its own sequence number or another.
#include <openssl/err.h>
#include <openssl/evp.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "fuzz_input.hpp"
#include "fuzz_providers.hpp"
#include "openssh_composed.hpp"

namespace stitch::fuzz {

namespace {

constexpr size_t kLengthLen = 4, kTagLen = 16, kMinPacket = kLengthLen + kTagLen;
constexpr size_t kMaxPayload = 35000;  // OpenSSH's largest packets are 32 KiB + a little

struct Side {
    CipherCtxPtr ctx;
    bool enc = true;
    bool key = false, iv = false;
    bool used = false;  // a whole packet used this sequence number
    Bytes key_bytes;
    uint64_t seq = 0;
};

struct Sealed {
    bool ok = false;
    Bytes key;
    uint64_t seq = 0;
    Bytes bytes;  // encrypted length ‖ ciphertext ‖ tag
};

void be64(uint64_t v, uint8_t out[8]) {
    for (int i = 0; i < 8; ++i) out[i] = uint8_t(v >> (56 - 8 * i));
}

class PacketRun {
public:
    PacketRun(const FuzzProviders& prov, FuzzInput& in) : prov_(prov), ref_(prov), in_(in) {
        const Bytes key = in_.stream(64);
        const uint64_t seq = in_.flag() ? in_.u64() : in_.u8();
        for (int i = 0; i < 2; ++i) {
            sides_[i].ctx.reset(EVP_CIPHER_CTX_new());
            if (!sides_[i].ctx) fail("EVP_CIPHER_CTX_new");
            fresh(sides_[i], i == 0, &key, seq);
        }
    }

    void run() {
        while (!in_.empty()) step();
        ERR_clear_error();
    }

private:
    [[noreturn]] void fail(const std::string& what) { fuzz_fail("%s\n  ops: %s", what.c_str(), trace_.c_str()); }

    void expect(bool cond, const std::string& what) {
        if (!cond) fail(what);
    }

    void fresh(Side& s, bool enc, const Bytes* key, uint64_t seq) {
        uint8_t iv[8];
        be64(seq, iv);
        expect(EVP_CipherInit_ex(s.ctx.get(), prov_.stitch_openssh, nullptr, key ? key->data() : nullptr,
                                 key ? iv : nullptr, enc) == 1,
               "init refused");
        s.enc = enc;
        s.key = s.iv = key != nullptr;
        s.used = false;
        if (key) s.key_bytes = *key;
        s.seq = seq;
    }

    Side& pick() {
        const int i = in_.u8() & 1;
        trace_ += i ? "s1 " : "s0 ";
        return sides_[i];
    }

    void step() {
        const uint8_t op = in_.u8() % 13;
        static constexpr const char* kNames[] = {"packet", "packet", "packet", "open_last", "open_last", "length",
                                                 "bad_length", "seq", "rekey", "turn", "final", "copy_or_fresh",
                                                 "empty"};
        trace_ += '\n';
        trace_ += kNames[op];
        trace_ += ' ';
        switch (op) {
            case 0:
            case 1:
            case 2: packet(pick()); break;
            case 3:
            case 4: open_last(pick()); break;
            case 5: length_only(pick()); break;
            case 6: bad_length(pick()); break;
            case 7: set_seq(pick()); break;
            case 8: rekey(pick()); break;
            case 9: turn(pick()); break;
            case 10: final(pick()); break;
            case 11: copy_or_fresh(); break;
            case 12: empty(pick()); break;
        }
        ERR_clear_error();
    }

    // One call of inl bytes, checked against the composition.
    void call(Side& s, const Bytes& in) {
        const size_t inl = in.size();
        const uint8_t how = in_.u8();
        const bool in_place = how & 1, via_cipher = how & 2;
        Bytes out = in_place ? in : Bytes(inl, 0xa5);
        const Bytes before = out;
        const uint8_t* src = in_place ? out.data() : in.data();
        int outl = 0, rs;
        if (via_cipher) {
            const int r = EVP_Cipher(s.ctx.get(), out.data(), src, unsigned(inl));
            rs = r >= 0;
            outl = r < 0 ? 0 : r;
        } else {
            rs = EVP_CipherUpdate(s.ctx.get(), out.data(), &outl, src, int(inl));
        }
        const bool whole = inl >= kMinPacket;
        const bool ready = s.key && s.iv;
        const bool must_refuse = (inl != kLengthLen && !whole) || !ready || (whole && s.used);
        const std::string what = std::to_string(inl) + "-byte " + (s.enc ? "seal" : "open");
        trace_ += what + (in_place ? " in-place" : "") + (via_cipher ? " EVP_Cipher" : "") + " seq " +
                  std::to_string(s.seq) + " ";
        if (whole && ready) s.used = true;  // even a refused open uses up its sequence number
        if (must_refuse) {
            fuzz_count("call refused by rule");
            expect(!rs, what + " accepted where it must be refused");
            expect(out == before, what + ": a refused misuse wrote to the output");
            return;
        }
        if (inl == kLengthLen) {
            fuzz_count("length decrypted");
            expect(rs && outl == 4, what + ": length-only decrypt refused");
            expect(Bytes(out.begin(), out.begin() + 4) == ref_.length(s.key_bytes, s.seq, in.data()),
                   "length-only decrypt differs");
            return;
        }
        const size_t len = inl - kTagLen;
        if (s.enc) {
            expect(rs && size_t(outl) == inl, what + " refused");
            Bytes want = ref_.encrypt(s.key_bytes, s.seq, in.data(), len);
            const Bytes tag = ref_.tag(s.key_bytes, s.seq, want.data(), len);
            want.insert(want.end(), tag.begin(), tag.end());
            expect(out == want, what + " differs from the composition");
            last_ = {true, s.key_bytes, s.seq, out};
            fuzz_count("packet sealed");
            return;
        }
        const Bytes tag = ref_.tag(s.key_bytes, s.seq, in.data(), len);
        const bool authentic = std::memcmp(tag.data(), in.data() + len, kTagLen) == 0;
        if (!authentic) {
            fuzz_count("packet refused");
            expect(!rs, what + " accepted a forged packet");
            expect(Bytes(out.begin(), out.begin() + long(len)) == Bytes(len, 0), what + " refused without zeros");
            return;
        }
        fuzz_count("packet opened");
        expect(rs && size_t(outl) == len, what + " refused an authentic packet");
        expect(Bytes(out.begin(), out.begin() + long(len)) == ref_.decrypt(s.key_bytes, s.seq, in.data(), len),
               what + " differs from the composition");
    }

    void packet(Side& s) {
        const size_t payload = in_.length(kMaxPayload);
        Bytes in = in_.stream(kLengthLen + payload + kTagLen);
        if (in_.flag()) {  // a real length field, as SSH sends it
            for (int i = 0; i < 4; ++i) in[i] = uint8_t(payload >> (24 - 8 * i));
        }
        call(s, in);
    }

    // The last sealed packet, opened at its own sequence number and key or
    // not, with one bit flipped or not.
    void open_last(Side& s) {
        const uint8_t how = in_.u8();
        const uint16_t bit = in_.u16();
        if (!last_.ok) return;
        uint8_t iv[8];
        be64((how & 2) ? last_.seq : last_.seq + 1 + (how >> 4), iv);
        const bool rekey = how & 4;
        expect(EVP_CipherInit_ex(s.ctx.get(), nullptr, nullptr, rekey ? last_.key.data() : nullptr, iv, 0) == 1,
               "init for open refused");
        s.enc = false;
        s.iv = true;
        s.used = false;
        s.seq = (how & 2) ? last_.seq : last_.seq + 1 + (how >> 4);
        if (rekey) {
            s.key = true;
            s.key_bytes = last_.key;
        }
        Bytes in = last_.bytes;
        if (how & 1) in[bit % in.size()] ^= uint8_t(1 << (bit % 8));
        call(s, in);
    }

    void length_only(Side& s) {
        Bytes in = last_.ok && in_.flag() ? Bytes(last_.bytes.begin(), last_.bytes.begin() + 4) : in_.stream(4);
        call(s, in);
    }

    void bad_length(Side& s) {
        const uint8_t b = in_.u8();
        const size_t inl = b & 1 ? 1 + (b >> 1) % 3 : 5 + (b >> 1) % 15;  // 1..3 or 5..19
        call(s, in_.stream(inl));
    }

    void set_seq(Side& s) {
        const uint8_t how = in_.u8();
        const uint64_t seq = how & 1 ? in_.u64() : how & 2 ? s.seq + 1 : s.seq;
        uint8_t iv[8];
        be64(seq, iv);
        expect(EVP_CipherInit_ex(s.ctx.get(), nullptr, nullptr, nullptr, iv, -1) == 1, "IV-only init refused");
        s.iv = true;
        s.seq = seq;
        s.used = false;
    }

    void rekey(Side& s) {
        const Bytes key = last_.ok && in_.flag() ? last_.key : in_.stream(64);
        expect(EVP_CipherInit_ex(s.ctx.get(), nullptr, nullptr, key.data(), nullptr, -1) == 1, "key-only init refused");
        s.key = true;
        s.key_bytes = key;
        s.used = false;
    }

    void turn(Side& s) {
        const bool enc = in_.flag();
        expect(EVP_CipherInit_ex(s.ctx.get(), nullptr, nullptr, nullptr, nullptr, enc) == 1, "bare init refused");
        s.enc = enc;
        s.used = false;
    }

    void final(Side& s) {
        int outl = -1;
        expect(EVP_CipherFinal_ex(s.ctx.get(), nullptr, &outl) == 1 && outl == 0, "final is not a no-op");
    }

    // A zero-length call, through each door: a no-op anywhere, before a key
    // too (docs/openssl-3.0-semantics.md#empty-calls); it uses up nothing.
    void empty(Side& s) {
        const uint8_t how = in_.u8() % 4;
        static constexpr const char* kDoors[] = {"update(out, in, 0)", "update(NULL, in, 0)", "EVP_Cipher(out, in, 0)",
                                                 "EVP_Cipher(NULL, NULL, 0)"};
        trace_ += kDoors[how];
        trace_ += ' ';
        uint8_t out[1] = {0xa5}, in[1] = {0x42};
        int outl = -1, r;
        if (how < 2) r = EVP_CipherUpdate(s.ctx.get(), how ? nullptr : out, &outl, in, 0);
        else r = EVP_Cipher(s.ctx.get(), how == 2 ? out : nullptr, how == 2 ? in : nullptr, 0);
        expect(how < 2 ? r == 1 && outl == 0 : r == 0, std::string(kDoors[how]) + " is not a no-op");
        expect(out[0] == 0xa5, std::string(kDoors[how]) + " wrote");
        fuzz_count("empty call");
    }

    // EVP_CIPHER_CTX_copy one side onto the other, or a side anew with no key
    // or IV (every packet call then must be refused).
    void copy_or_fresh() {
        const uint8_t b = in_.u8();
        Side& dst = sides_[b & 1];
        if (b & 2) {
            fresh(dst, b & 4, nullptr, 0);
            return;
        }
        const Side& src = sides_[(b & 1) ^ 1];
        expect(EVP_CIPHER_CTX_copy(dst.ctx.get(), src.ctx.get()) == 1, "EVP_CIPHER_CTX_copy refused");
        dst.enc = src.enc;
        dst.key = src.key;
        dst.iv = src.iv;
        dst.used = src.used;
        dst.key_bytes = src.key_bytes;
        dst.seq = src.seq;
    }

    const FuzzProviders& prov_;
    OpensshComposed ref_;
    FuzzInput& in_;
    Side sides_[2];
    Sealed last_;
    std::string trace_;
};

}  // namespace

}  // namespace stitch::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    stitch::fuzz::fuzz_set_input("openssh_packet", data, size);
    stitch::fuzz::FuzzInput in(data, size);
    stitch::fuzz::PacketRun(stitch::fuzz::fuzz_providers(), in).run();
    return 0;
}
