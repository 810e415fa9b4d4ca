// SHA-256's compression function (FIPS 180-4 §6.2.2) in plain C++: the
// reference every other SHA-256 kernel is tested against, and the fallback.

#include "kernels/bytes.hpp"
#include "kernels/sha2.hpp"

namespace stitch::kern {

namespace {

inline uint32_t rotr(uint32_t x, int n) noexcept { return (x >> n) | (x << (32 - n)); }

inline uint32_t load_be32(const uint8_t* p) noexcept { return __builtin_bswap32(load_le32(p)); }

}  // namespace

// One round with the working variables' roles named, so an unrolled group
// of eight rotates the names instead of moving eight values every round.
#define STITCH_SHA256_ROUND(a, b, c, d, e, f, g, h, k, w)                                               \
    do {                                                                                                \
        const uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + (g ^ (e & (f ^ g))) + k + w; \
        const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) | (c & (a | b)));       \
        d += t1;                                                                                        \
        h = t1 + t2;                                                                                    \
    } while (0)

void sha256_blocks_portable(uint32_t h[8], const uint8_t* in, size_t nblocks) noexcept {
    uint32_t w[16];  // the schedule, a window of the last sixteen words
    for (; nblocks; --nblocks, in += 64) {
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
#pragma GCC unroll 8
        for (int t = 0; t < 64; t += 8) {
#pragma GCC unroll 8
            for (int i = 0; i < 8; ++i) {
                const int j = (t + i) & 15;
                if (t < 16) {
                    w[j] = load_be32(in + 4 * (t + i));
                } else {
                    const uint32_t x = w[(j + 1) & 15], y = w[(j + 14) & 15];
                    w[j] += (rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)) + w[(j + 9) & 15] +
                            (rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10));
                }
            }
            const int j = t & 15;
            STITCH_SHA256_ROUND(a, b, c, d, e, f, g, hh, kSha256K[t + 0], w[j + 0]);
            STITCH_SHA256_ROUND(hh, a, b, c, d, e, f, g, kSha256K[t + 1], w[j + 1]);
            STITCH_SHA256_ROUND(g, hh, a, b, c, d, e, f, kSha256K[t + 2], w[j + 2]);
            STITCH_SHA256_ROUND(f, g, hh, a, b, c, d, e, kSha256K[t + 3], w[j + 3]);
            STITCH_SHA256_ROUND(e, f, g, hh, a, b, c, d, kSha256K[t + 4], w[j + 4]);
            STITCH_SHA256_ROUND(d, e, f, g, hh, a, b, c, kSha256K[t + 5], w[j + 5]);
            STITCH_SHA256_ROUND(c, d, e, f, g, hh, a, b, kSha256K[t + 6], w[j + 6]);
            STITCH_SHA256_ROUND(b, c, d, e, f, g, hh, a, kSha256K[t + 7], w[j + 7]);
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

#undef STITCH_SHA256_ROUND

}  // namespace stitch::kern
