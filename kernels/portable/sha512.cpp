// SHA-512's compression function (FIPS 180-4 §6.4.2) in plain C++; SHA-384
// is the same function from another IV, truncated.
#include "kernels/bytes.hpp"
#include "kernels/sha2.hpp"

namespace stitch::kern {

namespace {

inline uint64_t rotr(uint64_t x, int n) noexcept { return (x >> n) | (x << (64 - n)); }

inline uint64_t load_be64(const uint8_t* p) noexcept { return __builtin_bswap64(load_le64(p)); }

}  // namespace

// One round with the working variables' roles named, so an unrolled group
// of eight rotates the names instead of moving eight values every round.
#define STITCH_SHA512_ROUND(a, b, c, d, e, f, g, h, k, w)                                                \
    do {                                                                                                 \
        const uint64_t t1 = h + (rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41)) + (g ^ (e & (f ^ g))) + k + w; \
        const uint64_t t2 = (rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)) + ((a & b) | (c & (a | b)));       \
        d += t1;                                                                                         \
        h = t1 + t2;                                                                                     \
    } while (0)

void sha512_blocks_portable(uint64_t h[8], const uint8_t* in, size_t nblocks) noexcept {
    uint64_t w[16];  // the schedule, a window of the last sixteen words
    for (; nblocks; --nblocks, in += 128) {
        uint64_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
#pragma GCC unroll 10
        for (int t = 0; t < 80; t += 8) {
#pragma GCC unroll 8
            for (int i = 0; i < 8; ++i) {
                const int j = (t + i) & 15;
                if (t < 16) {
                    w[j] = load_be64(in + 8 * (t + i));
                } else {
                    const uint64_t x = w[(j + 1) & 15], y = w[(j + 14) & 15];
                    w[j] +=
                        (rotr(x, 1) ^ rotr(x, 8) ^ (x >> 7)) + w[(j + 9) & 15] + (rotr(y, 19) ^ rotr(y, 61) ^ (y >> 6));
                }
            }
            const int j = t & 15;
            STITCH_SHA512_ROUND(a, b, c, d, e, f, g, hh, kSha512K[t + 0], w[j + 0]);
            STITCH_SHA512_ROUND(hh, a, b, c, d, e, f, g, kSha512K[t + 1], w[j + 1]);
            STITCH_SHA512_ROUND(g, hh, a, b, c, d, e, f, kSha512K[t + 2], w[j + 2]);
            STITCH_SHA512_ROUND(f, g, hh, a, b, c, d, e, kSha512K[t + 3], w[j + 3]);
            STITCH_SHA512_ROUND(e, f, g, hh, a, b, c, d, kSha512K[t + 4], w[j + 4]);
            STITCH_SHA512_ROUND(d, e, f, g, hh, a, b, c, kSha512K[t + 5], w[j + 5]);
            STITCH_SHA512_ROUND(c, d, e, f, g, hh, a, b, kSha512K[t + 6], w[j + 6]);
            STITCH_SHA512_ROUND(b, c, d, e, f, g, hh, a, kSha512K[t + 7], w[j + 7]);
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
        h[4] += e;
        h[5] += f;
        h[6] += g;
        h[7] += hh;
    }
    wipe(w, sizeof(w));  // the schedule is the message: HMAC's key pads pass through here
}

#undef STITCH_SHA512_ROUND

}  // namespace stitch::kern
