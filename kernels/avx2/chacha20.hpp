// ChaCha20 (RFC 8439 §2.3) in batches of eight blocks for the AVX2 kernels,
// in the word-per-register layout: ymm register i holds state word i of all
// eight blocks, so a round is plain lane-wise arithmetic with no diagonal
// shuffles. Shared by avx2/chacha20.cpp and the AEAD kernels, which run
// Poly1305 "beside" the rounds through a callback.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/avx2/shapes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/isa.hpp"
#include "kernels/simd/u32x8.hpp"

namespace stitch::kern::avx2 {

using simd::U32x8;

inline constexpr size_t kBatchBlocks = 8;

// Batches in flight (Shape::chacha_batches, aead_batches): every op of a
// quarter round waits for the one before, so one batch (four chains) may
// leave the vector ports idle; more batches multiply the chains at the
// price of more words in memory.

// Two ymm registers side by side: two quarter rounds in one instruction
// stream.
struct U32x8x2 {
    U32x8 v[2];

    STITCH_INLINE_AVX2_BMI2 U32x8x2& operator+=(const U32x8x2& o) {
        v[0] += o.v[0];
        v[1] += o.v[1];
        return *this;
    }
    STITCH_INLINE_AVX2_BMI2 U32x8x2& operator^=(const U32x8x2& o) {
        v[0] ^= o.v[0];
        v[1] ^= o.v[1];
        return *this;
    }
};

template <int N>
STITCH_INLINE_AVX2_BMI2 U32x8x2 rotl(const U32x8x2& w) {
    return U32x8x2{{simd::rotl<N>(w.v[0]), simd::rotl<N>(w.v[1])}};
}
using simd::rotl;

// RFC 8439 §2.1, the same lines as quarter_round in chacha20.hpp, on eight
// blocks (U32x8) or on two quarter rounds of eight blocks (U32x8x2).
template <class V>
STITCH_INLINE_AVX2_BMI2 void quarter_round(V& a, V& b, V& c, V& d) {
    a += b; d ^= a; d = rotl<16>(d);
    c += d; b ^= c; b = rotl<12>(b);
    a += b; d ^= a; d = rotl<8>(d);
    c += d; b ^= c; b = rotl<7>(b);
}

// Quarter rounds (a0, b0, c0, d0) and (a1, b1, c1, d1) of state x, the two
// interleaved op by op. Every op of a quarter round depends on the one
// before and vector integer ops take two cycles on this core, so four chains
// cannot fill the vector ports; pairing them in the instruction stream keeps
// the scheduler's window short enough to overlap more of them.
template <int A0, int B0, int C0, int D0, int A1, int B1, int C1, int D1>
STITCH_INLINE_AVX2_BMI2 void quarter_rounds(U32x8 x[16]) {
    U32x8x2 a{{x[A0], x[A1]}}, b{{x[B0], x[B1]}}, c{{x[C0], x[C1]}}, d{{x[D0], x[D1]}};
    quarter_round(a, b, c, d);
    x[A0] = a.v[0], x[A1] = a.v[1];
    x[B0] = b.v[0], x[B1] = b.v[1];
    x[C0] = c.v[0], x[C1] = c.v[1];
    x[D0] = d.v[0], x[D1] = d.v[1];
}

// Input words of a batch whose first block has counter ctr + first (each
// lane's 64-bit counter over words 12-13 carrying on its own).
STITCH_INLINE_AVX2_BMI2 void load_state(const ChaChaState& st, uint32_t first, U32x8 x[16]) {
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) x[i] = U32x8::splat(kSigma[i]);
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) x[4 + i] = U32x8::splat(st.key[i]);
    const U32x8 ctr0 = U32x8::splat(st.ctr[0]);
    x[12] = ctr0 + U32x8::iota() + U32x8::splat(first);
    x[13] = U32x8::splat(st.ctr[1]);
    x[13] -= U32x8::unsigned_lt(x[12], ctr0);  // a wrapped lane carries one (the mask is -1)
    x[14] = U32x8::splat(st.ctr[2]);
    x[15] = U32x8::splat(st.ctr[3]);
}

// Adds the input back (rebuilt from st: cheaper than holding sixteen more
// registers through the rounds) and turns word rows into block rows: ks[b]
// holds bytes 0..31 of block b, ks[8 + b] bytes 32..63.
STITCH_INLINE_AVX2_BMI2 void finish_state(const ChaChaState& st, uint32_t first, U32x8 x[16], U32x8 ks[16]) {
    U32x8 in[16];
    load_state(st, first, in);
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) x[i] += in[i];
    U32x8::transpose8(x);
    U32x8::transpose8(x + 8);
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) ks[i] = x[i];
}

// Quarter rounds (A0..D0) and (A1..D1) in every batch of x. One batch runs
// them one after the other, which measured quicker than pairing them there
// (Zen 5); with more batches each batch pairs them (quarter_rounds).
template <int A0, int B0, int C0, int D0, int A1, int B1, int C1, int D1, size_t B>
STITCH_INLINE_AVX2_BMI2 void two_quarter_rounds(U32x8 (&x)[B][16]) {
    if constexpr (B == 1) {
        quarter_round(x[0][A0], x[0][B0], x[0][C0], x[0][D0]);
        quarter_round(x[0][A1], x[0][B1], x[0][C1], x[0][D1]);
    } else {
#pragma GCC unroll 4
        for (size_t k = 0; k < B; ++k) quarter_rounds<A0, B0, C0, D0, A1, B1, C1, D1>(x[k]);
    }
}

// Rounds::spill_c: the empty asm says the rows may have changed in memory,
// so the compiler must have stored them before it and reload them after it:
// row c stays in its stack slots between quarter rounds instead of
// competing for registers with rows a, b and d.
STITCH_INLINE_AVX2_BMI2 void keep_in_memory(U32x8 (&c)[4]) { __asm__("" : "+m"(c)); }

// two_quarter_rounds with row c of batch k in c[k] (every quarter round's
// C word is one of 8..11).
template <int A0, int B0, int C0, int D0, int A1, int B1, int C1, int D1, size_t B>
STITCH_INLINE_AVX2_BMI2 void two_quarter_rounds(U32x8 (&x)[B][16], U32x8 (&c)[B][4]) {
    static_assert(C0 >= 8 && C0 < 12 && C1 >= 8 && C1 < 12);
#pragma GCC unroll 4
    for (size_t k = 0; k < B; ++k) {
        if constexpr (B == 1) {
            U32x8 c0 = c[k][C0 - 8], c1 = c[k][C1 - 8];
            quarter_round(x[k][A0], x[k][B0], c0, x[k][D0]);
            quarter_round(x[k][A1], x[k][B1], c1, x[k][D1]);
            c[k][C0 - 8] = c0, c[k][C1 - 8] = c1;
        } else {
            U32x8x2 a{{x[k][A0], x[k][A1]}}, b{{x[k][B0], x[k][B1]}}, cc{{c[k][C0 - 8], c[k][C1 - 8]}},
                d{{x[k][D0], x[k][D1]}};
            quarter_round(a, b, cc, d);
            x[k][A0] = a.v[0], x[k][A1] = a.v[1];
            x[k][B0] = b.v[0], x[k][B1] = b.v[1];
            c[k][C0 - 8] = cc.v[0], c[k][C1 - 8] = cc.v[1];
            x[k][D0] = d.v[0], x[k][D1] = d.v[1];
        }
        keep_in_memory(c[k]);
    }
}

// The ten double rounds over B batches in the layout R, beside(i, 40) after
// every pair of quarter rounds.
template <Rounds R, size_t B, class Beside>
STITCH_INLINE_AVX2_BMI2 void double_rounds(U32x8 (&x)[B][16], Beside& beside) {
    constexpr int kSteps = 40;
    if constexpr (R == Rounds::paired) {
        for (int i = 0; i < 10; ++i) {
            two_quarter_rounds<0, 4, 8, 12, 1, 5, 9, 13>(x);  // columns
            beside(4 * i, kSteps);
            two_quarter_rounds<2, 6, 10, 14, 3, 7, 11, 15>(x);
            beside(4 * i + 1, kSteps);
            two_quarter_rounds<0, 5, 10, 15, 1, 6, 11, 12>(x);  // diagonals
            beside(4 * i + 2, kSteps);
            two_quarter_rounds<2, 7, 8, 13, 3, 4, 9, 14>(x);
            beside(4 * i + 3, kSteps);
        }
    } else {
        U32x8 c[B][4];
#pragma GCC unroll 4
        for (size_t k = 0; k < B; ++k) {
            for (int j = 0; j < 4; ++j) c[k][j] = x[k][8 + j];
            keep_in_memory(c[k]);
        }
        for (int i = 0; i < 10; ++i) {
            two_quarter_rounds<0, 4, 8, 12, 1, 5, 9, 13>(x, c);
            beside(4 * i, kSteps);
            two_quarter_rounds<2, 6, 10, 14, 3, 7, 11, 15>(x, c);
            beside(4 * i + 1, kSteps);
            two_quarter_rounds<0, 5, 10, 15, 1, 6, 11, 12>(x, c);
            beside(4 * i + 2, kSteps);
            two_quarter_rounds<2, 7, 8, 13, 3, 4, 9, 14>(x, c);
            beside(4 * i + 3, kSteps);
        }
#pragma GCC unroll 4
        for (size_t k = 0; k < B; ++k)
            for (int j = 0; j < 4; ++j) x[k][8 + j] = c[k][j];
    }
}

// The keystream of B batches (8·B blocks from st.ctr), without advancing st;
// ks[k] is batch k in finish_state's layout.
//
// beside(i, 40) runs 40 times, i = 0..39, after every pair of quarter rounds.
// The AEAD kernels absorb Poly1305 blocks there: scalar integer work the
// out-of-order core overlaps with these latency-bound vector rounds. Steps
// this fine keep each step's scalar work near the vector work it runs
// beside, within the reorder window (one step per half round measured 30%
// slower with three batches).
//
// Register budget: sixteen state words plus a shift temporary already exceed
// the sixteen ymm registers, so some words live in stack slots used as
// memory operands (rot16/rot8 stay one VPSHUFB each, the two masks held in
// registers through the loop: checked with objdump). Rounds::paired lets the
// compiler choose them, Rounds::spill_c puts row c there. More batches
// (B > 1) multiply the independent chains at the price of more such slots.
template <Rounds R, size_t B, class Beside>
STITCH_INLINE_AVX2_BMI2 void keystream(const ChaChaState& st, U32x8 (&ks)[B][16], Beside&& beside) {
    U32x8 x[B][16];
#pragma GCC unroll 4
    for (size_t k = 0; k < B; ++k) load_state(st, uint32_t(kBatchBlocks * k), x[k]);
    double_rounds<R>(x, beside);
#pragma GCC unroll 4
    for (size_t k = 0; k < B; ++k) finish_state(st, uint32_t(kBatchBlocks * k), x[k], ks[k]);
}

template <Rounds R, size_t B>
STITCH_INLINE_AVX2_BMI2 void keystream(const ChaChaState& st, U32x8 (&ks)[B][16]) {
    keystream<R>(st, ks, [](int, int) {});
}

// Up to four blocks in the row layout instead: each register holds one row
// (four words) of two blocks, so a block pair is four registers and the
// diagonal round is a rotation of three rows. No spills and no transpose,
// and a shorter critical path than a batch: the short path's keystream.
template <int N>
STITCH_INLINE_AVX2_BMI2 U32x8 rotate_words(const U32x8& w) {
    return w.template rotate_words<N>();
}
template <int N>
STITCH_INLINE_AVX2_BMI2 U32x8x2 rotate_words(const U32x8x2& w) {
    return U32x8x2{{w.v[0].template rotate_words<N>(), w.v[1].template rotate_words<N>()}};
}

// Row register of block pair p.
STITCH_INLINE_AVX2_BMI2 U32x8& pair(U32x8& w, size_t) { return w; }
STITCH_INLINE_AVX2_BMI2 U32x8& pair(U32x8x2& w, size_t p) { return w.v[p]; }

// Rows of block pair p (blocks 2p, 2p + 1 from st.ctr).
STITCH_INLINE_AVX2_BMI2 void load_rows(const ChaChaState& st, size_t p, U32x8& a, U32x8& b, U32x8& c, U32x8& d) {
    a = U32x8::words(kSigma[0], kSigma[1], kSigma[2], kSigma[3], kSigma[0], kSigma[1], kSigma[2], kSigma[3]);
    b = U32x8::words(st.key[0], st.key[1], st.key[2], st.key[3], st.key[0], st.key[1], st.key[2], st.key[3]);
    c = U32x8::words(st.key[4], st.key[5], st.key[6], st.key[7], st.key[4], st.key[5], st.key[6], st.key[7]);
    uint32_t lo[4] = {st.ctr[0], st.ctr[1], st.ctr[2], st.ctr[3]};
    uint32_t hi[4] = {st.ctr[0], st.ctr[1], st.ctr[2], st.ctr[3]};
    chacha_advance(lo, 2 * p);
    chacha_advance(hi, 2 * p + 1);
    d = U32x8::words(lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]);
}

// Rows of pair p, after the rounds, into the batch layout of ks.
STITCH_INLINE_AVX2_BMI2 void store_rows(const ChaChaState& st, size_t p, U32x8 a, U32x8 b, U32x8 c, U32x8 d,
                                        U32x8 ks[16]) {
    U32x8 a0, b0, c0, d0;
    load_rows(st, p, a0, b0, c0, d0);
    a += a0, b += b0, c += c0, d += d0;
    ks[2 * p] = U32x8::halves<false>(a, b);
    ks[8 + 2 * p] = U32x8::halves<false>(c, d);
    ks[2 * p + 1] = U32x8::halves<true>(a, b);
    ks[8 + 2 * p + 1] = U32x8::halves<true>(c, d);
}

// Pairs block pairs (two or four blocks from st.ctr) into ks[0..2·Pairs) and
// ks[8..8 + 2·Pairs), without advancing st; beside as for keystream().
template <size_t Pairs, class Beside>
STITCH_INLINE_AVX2_BMI2 void keystream_rows(const ChaChaState& st, U32x8 (&ks)[1][16], Beside&& beside) {
    static_assert(Pairs == 1 || Pairs == 2);
    using V = std::conditional_t<Pairs == 1, U32x8, U32x8x2>;
    V a, b, c, d;
    for (size_t p = 0; p < Pairs; ++p) load_rows(st, p, pair(a, p), pair(b, p), pair(c, p), pair(d, p));
    for (int i = 0; i < 10; ++i) {
        quarter_round(a, b, c, d);  // columns
        beside(2 * i, 20);
        // Diagonals: lane j takes (a[j-1], b[j], c[j+1], d[j+2]). b stays
        // put because it is the last word a quarter round finishes and the
        // first the next one reads (a += b); a, c and d are done earlier, so
        // their rotations run off the serial chain (rotating b, c, d
        // instead put one shuffle on it per half round: ~40 cycles a call
        // with two-cycle vector ops).
        a = rotate_words<3>(a), c = rotate_words<1>(c), d = rotate_words<2>(d);
        quarter_round(a, b, c, d);
        a = rotate_words<1>(a), c = rotate_words<3>(c), d = rotate_words<2>(d);
        beside(2 * i + 1, 20);
    }
    for (size_t p = 0; p < Pairs; ++p) store_rows(st, p, pair(a, p), pair(b, p), pair(c, p), pair(d, p), ks[0]);
}

// The first n (1..8) blocks of one batch in the quickest shape for n:
// measured on Zen 5 (core cycles), one row pair ~490, two ~590, a batch
// ~750.
template <Rounds R, class Beside>
STITCH_INLINE_AVX2_BMI2 void keystream_upto(const ChaChaState& st, U32x8 (&ks)[1][16], size_t n, Beside&& beside) {
    if (n > 4)
        keystream<R>(st, ks, beside);
    else if (n > 2)
        keystream_rows<2>(st, ks, beside);
    else
        keystream_rows<1>(st, ks, beside);
}

// out[0..64) = in ^ block b of ks (in == out allowed).
STITCH_INLINE_AVX2_BMI2 void xor_block(const U32x8 ks[16], size_t b, const uint8_t* in, uint8_t* out) {
    const U32x8 lo = U32x8::load_le(in) ^ ks[b];
    const U32x8 hi = U32x8::load_le(in + 32) ^ ks[8 + b];
    lo.store_le(out);
    hi.store_le(out + 32);
}

STITCH_INLINE_AVX2_BMI2 void store_block(const U32x8 ks[16], size_t b, uint8_t* out) {
    ks[b].store_le(out);
    ks[8 + b].store_le(out + 32);
}

}  // namespace stitch::kern::avx2
