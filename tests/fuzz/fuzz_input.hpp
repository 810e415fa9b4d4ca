// Reads a fuzz input front to back. Past the end every read yields zeros, so
// any prefix of an input is itself a valid input and libFuzzer's mutations
// (truncate, insert, flip) always decode to some call sequence.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/test_util.hpp"

namespace stitch::fuzz {

using test::Bytes;
using test::CipherCtxPtr;

class FuzzInput {
public:
    FuzzInput(const uint8_t* data, size_t size) : p_(data), left_(size) {}

    bool empty() const { return left_ == 0; }

    uint8_t u8() {
        if (!left_) return 0;
        --left_;
        return *p_++;
    }
    uint16_t u16() { return uint16_t(u8() | u8() << 8); }
    uint64_t u64() {
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= uint64_t(u8()) << (8 * i);
        return v;
    }
    bool flag() { return u8() & 1; }
    size_t below(size_t n) { return n ? u16() % n : 0; }

    // A length that reaches the places kernels branch on: small values
    // directly, values next to the 16-byte MAC block, the 64-byte ChaCha block
    // and the 192/512-byte AVX2 batch edges, or anything up to `max`.
    size_t length(size_t max) {
        static constexpr size_t kEdges[] = {15, 16, 17, 31, 32, 63, 64, 65, 127, 128, 129, 191, 192, 193,
                                            255, 256, 257, 447, 448, 449, 511, 512, 513, 1023, 1024, 1025};
        const uint8_t b = u8();
        size_t n;
        if (b < 96) n = b;
        else if (b < 224) n = kEdges[(b - 96) % std::size(kEdges)];
        else n = u16();
        return n > max ? n % (max + 1) : n;
    }

    // n bytes that cost the input one byte: a seeded stream, so that long
    // messages do not need long inputs.
    Bytes stream(size_t n) { return test::Rng(0x5eed0000u + u8()).bytes(n); }

private:
    const uint8_t* p_;
    size_t left_;
};

}  // namespace stitch::fuzz
