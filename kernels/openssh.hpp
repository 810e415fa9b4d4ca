// chacha20-poly1305@openssh.com (PROTOCOL.chacha20poly1305): K_1 encrypts the
// 4-byte packet length with counter 0; K_2's block 0 keys Poly1305 and its
// blocks 1.. encrypt the payload; the MAC covers the encrypted length and the
// encrypted payload, unpadded. A packet here is length(4) ‖ payload.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"
#include "kernels/chacha20.hpp"

namespace stitch::kern {

inline constexpr size_t kOpensshKeyLen = 64;    // K_2 ‖ K_1, as OpenSSH orders the key material
inline constexpr size_t kOpensshLengthLen = 4;  // the encrypted packet length field
inline constexpr size_t kTagLen = 16;

struct OpensshState {
    AeadState main;      // K_2, openssh grid
    ChaChaState header;  // K_1
};

void openssh_init(OpensshState& st, const Impl& impl) noexcept;
void openssh_set_key(OpensshState& st, const uint8_t key[kOpensshKeyLen]) noexcept;

// Seals a whole packet: in[0..len) = length ‖ payload, len >= 4; out gets the
// same length, tag the 16-byte MAC. in == out allowed.
void openssh_seal(OpensshState& st, uint64_t seqnr, const uint8_t* in, uint8_t* out, size_t len,
                  uint8_t tag[kTagLen]) noexcept;

// Opens a whole packet. On a refusal out[0..len) is all zeros, length included.
bool openssh_open(OpensshState& st, uint64_t seqnr, const uint8_t* in, uint8_t* out, size_t len,
                  const uint8_t tag[kTagLen]) noexcept;

// Decrypts the 4-byte length alone, before the rest of the packet arrives:
// one K_1 block.
void openssh_length(const OpensshState& st, uint64_t seqnr, const uint8_t in[kOpensshLengthLen],
                    uint8_t out[kOpensshLengthLen]) noexcept;

void openssh_wipe(OpensshState& st) noexcept;

}  // namespace stitch::kern
