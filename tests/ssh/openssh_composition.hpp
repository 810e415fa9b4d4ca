// chacha20-poly1305@openssh.com composed from a provider's raw `ChaCha20`
// and the default provider's POLY1305 EVP_MAC, the way OpenSSH's
// cipher-chachapoly-libcrypto.c and libssh 0.10 build it from libcrypto
// (PROTOCOL.chacha20poly1305):
//   ChaCha20 IV (OpenSSL's 16 bytes) = LE64 block counter ‖ BE64 seqnr;
//   K_1 = key[32..64) encrypts the 4-byte length from counter 0;
//   K_2 = key[0..32): its block 0 gives the Poly1305 key, the payload starts
//   at counter 1;
//   tag = Poly1305(encrypted length ‖ ciphertext), no padding, no lengths.
// A packet here is plain length(4) ‖ payload; a wire packet is encrypted
// length ‖ ciphertext ‖ tag.
#pragma once

#include <openssl/evp.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "common/evp_handles.hpp"
#include "common/openssh_iv.hpp"
#include "mac/mac_support.hpp"

namespace stitch::test {

inline constexpr size_t kSshKeyLen = 64;
inline constexpr size_t kSshLengthLen = 4;
inline constexpr size_t kSshTagLen = 16;

// Raw ChaCha20 from `cipher` over in[0..n) with the given IV, in update calls
// of the given sizes (one call when `parts` is empty).
inline Bytes raw_chacha20(const EVP_CIPHER* cipher, const uint8_t* key32, const Bytes& iv, const uint8_t* in, size_t n,
                          const std::vector<size_t>& parts = {}) {
    CipherCtxPtr ctx = new_cipher_ctx();
    Bytes out(n);
    if (EVP_EncryptInit_ex(ctx.get(), cipher, nullptr, key32, iv.data()) != 1) throw std::runtime_error("ChaCha20 init");
    const std::vector<size_t> calls = parts.empty() ? std::vector<size_t>{n} : parts;
    size_t off = 0;
    for (size_t len : calls) {
        int outl = 0;
        if (EVP_EncryptUpdate(ctx.get(), out.data() + off, &outl, in + off, int(len)) != 1 || size_t(outl) != len)
            throw std::runtime_error("ChaCha20 update");
        off += len;
    }
    return out;
}

class DefaultComposition {
public:
    Bytes seal(const Bytes& key, uint64_t seq, const Bytes& packet) const {
        Bytes wire = chacha(key.data() + 32, 0, seq, packet.data(), kSshLengthLen);
        const Bytes body = chacha(key.data(), 1, seq, packet.data() + kSshLengthLen, packet.size() - kSshLengthLen);
        wire.insert(wire.end(), body.begin(), body.end());
        const Bytes tag = from_hex(one_shot_hex(mac_, poly_key(key, seq), wire));
        wire.insert(wire.end(), tag.begin(), tag.end());
        return wire;
    }

    // The packet, or nothing when the tag does not match (checked first).
    std::optional<Bytes> open(const Bytes& key, uint64_t seq, const Bytes& wire) const {
        const size_t body = wire.size() - kSshTagLen;
        const Bytes authed(wire.begin(), wire.begin() + body);
        if (one_shot_hex(mac_, poly_key(key, seq), authed) != to_hex(wire.data() + body, kSshTagLen)) return std::nullopt;
        Bytes packet = chacha(key.data() + 32, 0, seq, wire.data(), kSshLengthLen);
        const Bytes payload = chacha(key.data(), 1, seq, wire.data() + kSshLengthLen, body - kSshLengthLen);
        packet.insert(packet.end(), payload.begin(), payload.end());
        return packet;
    }

    Bytes poly_key(const Bytes& key, uint64_t seq) const {
        const Bytes zeros(32, 0);
        return chacha(key.data(), 0, seq, zeros.data(), zeros.size());
    }

private:
    Bytes chacha(const uint8_t* key32, uint64_t counter, uint64_t seq, const uint8_t* in, size_t n) const {
        return raw_chacha20(chacha_.get(), key32, openssh_chacha_iv(counter, seq), in, n);
    }

    CipherPtr chacha_ = providers().fetch("ChaCha20", "default");
    MacPtr mac_ = fetch_poly1305("default");
};

// A plain packet: the BE32 length field (of the payload here; the
// construction does not read it) ‖ random payload.
inline Bytes plain_packet(Rng& rng, size_t payload_len) {
    Bytes p = {uint8_t(payload_len >> 24), uint8_t(payload_len >> 16), uint8_t(payload_len >> 8), uint8_t(payload_len)};
    const Bytes payload = rng.bytes(payload_len);
    p.insert(p.end(), payload.begin(), payload.end());
    return p;
}

// stitch's `chacha20-poly1305@openssh.com` through EVP, one packet a call:
// key K_2 ‖ K_1, IV = BE64 seqnr set per packet with an iv-only init.
class StitchSshCipher {
public:
    StitchSshCipher(const Bytes& key, bool enc) : enc_(enc) {
        const Bytes seq0(8, 0);
        if (EVP_CipherInit_ex(ctx_.get(), cipher_.get(), nullptr, key.data(), seq0.data(), enc) != 1)
            throw std::runtime_error("chacha20-poly1305@openssh.com init");
    }

    // Runs one call of inl bytes at seq; returns outl, or -1 when refused.
    int packet(uint64_t seq, const uint8_t* in, uint8_t* out, size_t inl) {
        Bytes iv(8);
        for (int i = 0; i < 8; ++i) iv[i] = uint8_t(seq >> (56 - 8 * i));
        if (EVP_CipherInit_ex(ctx_.get(), nullptr, nullptr, nullptr, iv.data(), -1) != 1) return -1;
        int outl = -2;
        return EVP_CipherUpdate(ctx_.get(), out, &outl, in, int(inl)) == 1 ? outl : -1;
    }

    // Seal: packet ‖ 16 spare → wire. Open: wire → packet (nullopt if refused;
    // then `refused_output` holds what the call left in its output).
    std::optional<Bytes> run(uint64_t seq, const Bytes& in, Bytes* refused_output = nullptr) {
        Bytes buf = in;
        if (enc_) buf.resize(in.size() + kSshTagLen, 0);
        Bytes out(buf.size(), 0xee);
        const int outl = packet(seq, buf.data(), out.data(), buf.size());
        if (outl < 0) {
            if (refused_output) *refused_output = out;
            return std::nullopt;
        }
        out.resize(size_t(outl));
        return out;
    }

private:
    bool enc_;
    CipherPtr cipher_ = providers().fetch("chacha20-poly1305@openssh.com", "stitch");
    CipherCtxPtr ctx_ = new_cipher_ctx();
};

}  // namespace stitch::test
