// The inputs every implementation is given: one key, nonce and plaintext per
// size, the same for stitch, the default provider and the kernels called
// directly, so their outputs can be compared byte for byte before timing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bench/buffer.hpp"

namespace stitch::bench {

inline constexpr size_t kTagLen = 16;
inline constexpr size_t kSshLengthLen = 4;

struct Inputs {
    uint8_t key[32];
    uint8_t iv12[12];     // ChaCha20-Poly1305 nonce
    uint8_t iv16[16];     // raw ChaCha20: LE32 block counter 0 ‖ 96-bit nonce
    uint8_t ssh_key[64];  // K_2 ‖ K_1, as OpenSSH orders them
    uint64_t ssh_seqnr;
    uint8_t poly_key[32];
};

const Inputs& inputs();

Buffer plaintext(size_t len);

// TLS 1.3 record header, the AAD: opaque type 23, legacy version 3.3 and the
// length of the encrypted record, tag included.
void tls13_header(uint8_t aad[5], size_t len);

// TLS 1.2 header: sequence number, type, version, then a length field that
// libssl sets to the payload when sealing and to payload + tag when opening.
void tls12_header(uint8_t aad[13], size_t length_field);

// An SSH packet before sealing: BE32 length ‖ payload, plus `spare` zero bytes.
Buffer ssh_packet(size_t payload, size_t spare);

}  // namespace stitch::bench
