// SHA-512's compression function (FIPS 180-4 §6.4.2) in plain C++; SHA-384
// is the same function from another IV, truncated.
#include "kernels/bytes.hpp"
#include "kernels/sha2.hpp"

namespace stitch::kern {

namespace {

constexpr uint64_t kK[80] = {
    0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc, 0x3956c25bf348b538,
    0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118, 0xd807aa98a3030242, 0x12835b0145706fbe,
    0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2, 0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235,
    0xc19bf174cf692694, 0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
    0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5, 0x983e5152ee66dfab,
    0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4, 0xc6e00bf33da88fc2, 0xd5a79147930aa725,
    0x06ca6351e003826f, 0x142929670a0e6e70, 0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed,
    0x53380d139d95b3df, 0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
    0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30, 0xd192e819d6ef5218,
    0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8, 0x19a4c116b8d2d0c8, 0x1e376c085141ab53,
    0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8, 0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373,
    0x682e6ff3d6b2b8a3, 0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
    0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b, 0xca273eceea26619c,
    0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178, 0x06f067aa72176fba, 0x0a637dc5a2c898a6,
    0x113f9804bef90dae, 0x1b710b35131c471b, 0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc,
    0x431d67c49c100d4c, 0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
};

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
            STITCH_SHA512_ROUND(a, b, c, d, e, f, g, hh, kK[t + 0], w[j + 0]);
            STITCH_SHA512_ROUND(hh, a, b, c, d, e, f, g, kK[t + 1], w[j + 1]);
            STITCH_SHA512_ROUND(g, hh, a, b, c, d, e, f, kK[t + 2], w[j + 2]);
            STITCH_SHA512_ROUND(f, g, hh, a, b, c, d, e, kK[t + 3], w[j + 3]);
            STITCH_SHA512_ROUND(e, f, g, hh, a, b, c, d, kK[t + 4], w[j + 4]);
            STITCH_SHA512_ROUND(d, e, f, g, hh, a, b, c, kK[t + 5], w[j + 5]);
            STITCH_SHA512_ROUND(c, d, e, f, g, hh, a, b, kK[t + 6], w[j + 6]);
            STITCH_SHA512_ROUND(b, c, d, e, f, g, hh, a, kK[t + 7], w[j + 7]);
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
