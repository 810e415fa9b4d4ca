// OpenSSL's 16-byte raw ChaCha20 IV as OpenSSH (and libssh) fill it:
// LE64 block counter ‖ BE64 packet sequence number.
#pragma once

#include <cstdint>

#include "common/test_util.hpp"

namespace stitch::test {

inline Bytes openssh_chacha_iv(uint64_t counter, uint64_t seq) {
    Bytes iv(16);
    for (int i = 0; i < 8; ++i) iv[i] = uint8_t(counter >> (8 * i));
    for (int i = 0; i < 8; ++i) iv[8 + i] = uint8_t(seq >> (56 - 8 * i));
    return iv;
}

}  // namespace stitch::test
