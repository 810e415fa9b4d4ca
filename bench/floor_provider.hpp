// The EVP floor: a built-in provider whose ChaCha20-Poly1305 does nothing
// (every call succeeds, no byte is read or written, the tag is zeros), under
// "provider=stitch-floor". What a record costs through it is what EVP itself
// costs in that call sequence, whoever provides the cipher: the floor under
// stitch's small-record rows (the "floor" table of stitch_bench).
#pragma once

#include <openssl/provider.h>

namespace stitch::bench {

// Registers and loads it into libctx; nullptr if OpenSSL refuses.
OSSL_PROVIDER* load_floor_provider(OSSL_LIB_CTX* libctx);

}  // namespace stitch::bench
