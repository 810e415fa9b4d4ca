// ChaCha20 (RFC 8439 §2.3) for the AVX-512 kernels, in two layouts.
//
// Word per register: register w holds state word w of 16 blocks (zmm) or 8
// (ymm with AVX512VL), so a round is lane-wise arithmetic with no diagonal
// shuffles and every rotation is one VPROLD. Sixteen state words plus the
// temporaries fit the 32 registers: nothing spills in the rounds.
//
// Rows: a register holds one row (four words) of four blocks (zmm), one per
// 128-bit lane; a diagonal round is a rotation of three rows. Four registers,
// no transpose, the shortest critical path: the short records' keystream.
//
// Both take a `beside(step, steps)` callback run between the lines of the
// quarter rounds, where the AEAD kernels put their Poly1305 work.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/simd/u32x16.hpp"
#include "kernels/x86/zero_vectors.hpp"

namespace stitch::kern::STITCH_AVX512_NS {

using simd::U32x16;
using simd::U32x8;
using simd::U32xN;

// Four quarter rounds of one half round: four independent chains.
template <class V>
struct Quad {
    V v[4];
};

// One line of RFC 8439 §2.1's quarter round: a += b; d ^= a; d <<<= R.
template <int R, class V>
STITCH_INLINE_AVX512 void line(V& a, const V& b, V& d) {
    a += b; d ^= a; d = simd::rotl<R>(d);
}

// The same line of four quarter rounds, each chain's three ops in turn.
// Written op by op across the chains instead (four adds, four xors, four
// rotations), clang 14 kept that order and g++ 12 regrouped it chain by
// chain; on Intel Emerald Rapids the 16-block double round then took 55-57
// cycles from clang's build against 52-54 from g++'s (the loop alone,
// December 2026). In this order both builds run it in 48-54. (On Zen 4
// the two builds of the old order had run level.)
template <int R, class V>
STITCH_INLINE_AVX512 void line(Quad<V>& a, const Quad<V>& b, Quad<V>& d) {
    #pragma GCC unroll 16
    for (int i = 0; i < 4; ++i) line<R>(a.v[i], b.v[i], d.v[i]);
}

// RFC 8439 §2.1, the same lines as quarter_round in chacha20.hpp, with
// after(line) run after each line: the AEAD kernels absorb Poly1305 blocks
// there, so scalar and vector work alternate in small pieces (a larger piece
// of scalar work fills the integer scheduler and stalls the vector ops
// queued behind it).
template <class V, class After>
STITCH_INLINE_AVX512 void quarter_round(V& a, V& b, V& c, V& d, After&& after) {
    line<16>(a, b, d); after(0);
    line<12>(c, d, b); after(1);
    line<8>(a, b, d); after(2);
    line<7>(c, d, b); after(3);
}

// Quarter rounds (A+i, B+(i+S)%4, C+(i+2S)%4, D+(i+3S)%4), i = 0..3: the
// columns for S = 0, the diagonals for S = 1; after(line) as above.
template <int S, class V, class After>
STITCH_INLINE_AVX512 void half_round(V x[16], After&& after) {
    Quad<V> a, b, c, d;
    #pragma GCC unroll 16
    for (int i = 0; i < 4; ++i) {
        a.v[i] = x[i];
        b.v[i] = x[4 + (i + S) % 4];
        c.v[i] = x[8 + (i + 2 * S) % 4];
        d.v[i] = x[12 + (i + 3 * S) % 4];
    }
    quarter_round(a, b, c, d, after);
    #pragma GCC unroll 16
    for (int i = 0; i < 4; ++i) {
        x[i] = a.v[i];
        x[4 + (i + S) % 4] = b.v[i];
        x[8 + (i + 2 * S) % 4] = c.v[i];
        x[12 + (i + 3 * S) % 4] = d.v[i];
    }
}

// Input words of a batch of N blocks whose first has counter ctr + first,
// each lane's 64-bit counter over words 12-13 carrying on its own.
template <size_t N>
STITCH_INLINE_AVX512 void load_state(const ChaChaState& st, uint32_t first, U32xN<N> x[16]) {
    using V = U32xN<N>;
    #pragma GCC unroll 16
    for (int i = 0; i < 4; ++i) x[i] = V::splat(kSigma[i]);
    #pragma GCC unroll 16
    for (int i = 0; i < 8; ++i) x[4 + i] = V::splat(st.key[i]);
    const V ctr0 = V::splat(st.ctr[0]);
    x[12] = ctr0 + V::iota() + V::splat(first);
    x[13] = V::splat(st.ctr[1]) + V::carry_if_below(x[12], ctr0);
    x[14] = V::splat(st.ctr[2]);
    x[15] = V::splat(st.ctr[3]);
}

// x += the input words of the same batch, built from st again. The key's
// words are read through a pointer passed through an empty asm, so the
// compiler cannot reuse the broadcasts it made before the rounds: g++ 12
// did, kept them live through the rounds (more registers than there are),
// spilled them, and left the key on the stack when the kernel returned
// (avx512_stack_test). The public words (constants, counter, nonce) it may
// keep or rebuild as it likes. (A volatile asm, or all sixteen words
// through it, cost the eight-block batch 6-8 ns on Zen 4.)
template <size_t N>
STITCH_INLINE_AVX512 void add_input(const ChaChaState& st, uint32_t first, U32xN<N> x[16]) {
    using V = U32xN<N>;
    U32xN<N> in[16];
    load_state(st, first, in);
    const uint32_t* key = st.key;
    __asm__("" : "+r"(key));
    #pragma GCC unroll 16
    for (int i = 0; i < 8; ++i) in[4 + i] = V::splat(key[i]);
    #pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) x[i] += in[i];
}

// Steps of a keystream call at which `beside` runs: after every line of
// every quarter round, 80 in all (four lines, two half rounds, ten double
// rounds).
inline constexpr int kBesideSteps = 80;

// beside(first + line, kBesideSteps) for the lines of one half round: a
// named functor, not a lambda, because a lambda does not inherit the
// enclosing function's target attribute and could not inline AVX-512 code.
template <class Beside>
struct LinesFrom {
    Beside& beside;
    int first;
    STITCH_INLINE_AVX512 void operator()(int line) const { beside(first + line, kBesideSteps); }
};
template <class Beside>
LinesFrom(Beside&, int) -> LinesFrom<Beside>;

// Runs nothing beside the rounds.
struct Nothing {
    STITCH_INLINE_AVX512 void operator()(int, int) const {}
};

// The keystream of N blocks from st.ctr + first, in the block layout of
// simd::transpose, without advancing st. beside(i, 80) runs after line i.
//
// The rounds work on a local copy: the caller's array is memory the MAC's
// block loads might alias, which made GCC store the state before every
// `beside` step and reload it after. The input words are rebuilt from st
// for the final addition rather than kept (add_input): sixteen more live
// registers through the rounds made the compiler spill state words at
// every step.
template <size_t N, class Beside>
STITCH_INLINE_AVX512 void keystream(const ChaChaState& st, uint32_t first, U32xN<N> out[16], Beside&& beside) {
    U32xN<N> x[16];
    load_state(st, first, x);
    for (int i = 0; i < 10; ++i) {
        half_round<0>(x, LinesFrom{beside, 8 * i});
        half_round<1>(x, LinesFrom{beside, 8 * i + 4});
    }
    add_input(st, first, x);
    simd::transpose(x);
    #pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) out[i] = x[i];
}

template <size_t N>
STITCH_INLINE_AVX512 void keystream(const ChaChaState& st, uint32_t first, U32xN<N> x[16]) {
    Nothing nothing;
    keystream(st, first, x, nothing);
}

// after(line) that does nothing, for the rounds of keystream2.
struct NoLines {
    STITCH_INLINE_AVX512 void operator()(int) const {}
};

// Two batches of N blocks, from st.ctr + first and st.ctr + first + N, their
// half rounds one after the other so the out-of-order core runs eight
// quarter-round chains at once where one batch gives it four. Thirty-two
// words fit the thirty-two registers, and VPROLD needs no temporary. For
// cores whose vector ops take more than a cycle (Zen 5: two), where one
// batch's chains leave the pipes idle (the CPU table, avx512/set.cpp,
// says where). The compilers spill some words all the same (g++ 12 and
// clang 14: the state after the rounds, and keystream), so it runs in a
// frame of its own that is scrubbed after (chacha20.cpp's pairs).
template <size_t N>
STITCH_INLINE_AVX512 void keystream2(const ChaChaState& st, uint32_t first, U32xN<N> out0[16], U32xN<N> out1[16]) {
    U32xN<N> x[16], y[16];
    load_state(st, first, x);
    load_state(st, first + uint32_t(N), y);
    for (int i = 0; i < 10; ++i) {
        half_round<0>(x, NoLines{});
        half_round<0>(y, NoLines{});
        half_round<1>(x, NoLines{});
        half_round<1>(y, NoLines{});
    }
    add_input(st, first, x);
    add_input(st, first + uint32_t(N), y);
    simd::transpose(x);
    simd::transpose(y);
    #pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) out0[i] = x[i], out1[i] = y[i];
}

// How deep the frame of the function this is inlined into reaches, from
// its frame pointer down to the stack pointer, and the red zone below it
// (a function that calls nothing may keep values there).
STITCH_INLINE_AVX512 size_t frame_depth() {
    uintptr_t sp;
    __asm__ __volatile__("mov %%rsp, %0" : "=r"(sp));
    return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) - sp + 128;
}

// Zeroes `depth` bytes below where this call's frame begins: a function the
// caller called just before, from the same stack depth, had its frame
// there (what frame_depth returned). libgcrypt scrubs its ChaCha20's stack
// the same way (its burn_stack).
STITCH_TARGET_AVX512 __attribute__((noinline)) void scrub_below(size_t depth);

// Block b of a transposed batch: one zmm, or two ymm halves.
STITCH_INLINE_AVX512 void xor_block(const U32x16 ks[16], size_t b, const uint8_t* in, uint8_t* out) {
    (U32x16::load_le(in) ^ ks[b]).store_le(out);
}
STITCH_INLINE_AVX512 void xor_block(const U32x8 ks[16], size_t b, const uint8_t* in, uint8_t* out) {
    (U32x8::load_le(in) ^ ks[b]).store_le(out);
    (U32x8::load_le(in + 32) ^ ks[8 + b]).store_le(out + 32);
}
// The first n < 64 bytes of block b, by masked loads and stores.
STITCH_INLINE_AVX512 void xor_partial(const U32x16 ks[16], size_t b, const uint8_t* in, uint8_t* out, size_t n) {
    (U32x16::load_le(in, n) ^ ks[b]).store_le(out, n);
}
STITCH_INLINE_AVX512 void xor_partial(const U32x8 ks[16], size_t b, const uint8_t* in, uint8_t* out, size_t n) {
    const size_t lo = n < 32 ? n : 32;
    (U32x8::load_le(in, lo) ^ ks[b]).store_le(out, lo);
    (U32x8::load_le(in + 32, n - lo) ^ ks[8 + b]).store_le(out + 32, n - lo);
}
STITCH_INLINE_AVX512 void store_block(const U32x16 ks[16], size_t b, uint8_t* out) { ks[b].store_le(out); }
STITCH_INLINE_AVX512 void store_block(const U32x8 ks[16], size_t b, uint8_t* out) {
    ks[b].store_le(out);
    ks[8 + b].store_le(out + 32);
}

// --- the row layout: up to four blocks in four zmm, or two in four ymm ------

// Rows of blocks ctr + first .. ctr + first + lanes - 1, block first + k in
// 128-bit lane k.
template <class V>
STITCH_INLINE_AVX512 void load_rows(const ChaChaState& st, V r[4], uint32_t first = 0) {
    r[0] = V::row(kSigma);
    r[1] = V::row(st.key);
    r[2] = V::row(st.key + 4);
    // Row 3 is (ctr0 + first + k, ctr1 + carry, ctr2, ctr3) in lane k.
    const V base = V::row(st.ctr);
    const int f = int(first);
    V d;
    if constexpr (V::kLanes == 16)
        d = base + V(_mm512_setr_epi32(f, 0, 0, 0, f + 1, 0, 0, 0, f + 2, 0, 0, 0, f + 3, 0, 0, 0));
    else
        d = base + V(_mm256_setr_epi32(f, 0, 0, 0, f + 1, 0, 0, 0));
    // A lane whose word 0 wrapped carries one into its word 1 (only word 0
    // can wrap: the others add nothing).
    r[3] = d + V::carry_if_below(d, base).template rotate_words<3>();
}

// With g++, the row shuffles after b's last rotation in program order, as
// clang 14 places them by itself. g++ 12 put them among the quarter round's
// last steps, where each can take a vector pipe a step of the chain is
// waiting for (issue picks the oldest ready op): a 192-byte seal's kernel
// ~7% slower than clang's build on Zen 4 (December 2026). The asm emits
// nothing. Not for clang, which then picked VPERMILPD for d's shuffle and
// ran 4% slower.
template <class V>
STITCH_INLINE_AVX512 void shuffles_after(const V& b, V& a, V& c, V& d) {
#if defined(STITCH_AVX512_EMULATED) || defined(__clang__)
    (void)b, (void)a, (void)c, (void)d;
#else
    auto ra = a.raw(), rc = c.raw(), rd = d.raw();
    __asm__("" : "+v"(ra), "+v"(rc), "+v"(rd) : "v"(b.raw()));
    a = V(ra), c = V(rc), d = V(rd);
#endif
}

// The rounds of the rows in[0..4) plus their input; beside(i, 80) after
// line i.
template <class V, class Beside>
STITCH_INLINE_AVX512 void rows_keystream(const V in[4], V r[4], Beside&& beside) {
    V a = in[0], b = in[1], c = in[2], d = in[3];
    for (int i = 0; i < 10; ++i) {
        quarter_round(a, b, c, d, LinesFrom{beside, 8 * i});  // columns
        // Diagonals: lane j takes (a[j-1], b[j], c[j+1], d[j+2]); b stays put
        // because it is the last word a quarter round finishes and the first
        // the next one reads.
        shuffles_after(b, a, c, d);
        a = a.template rotate_words<3>(), c = c.template rotate_words<1>(), d = d.template rotate_words<2>();
        quarter_round(a, b, c, d, LinesFrom{beside, 8 * i + 4});
        shuffles_after(b, a, c, d);
        a = a.template rotate_words<1>(), c = c.template rotate_words<3>(), d = d.template rotate_words<2>();
    }
    r[0] = a + in[0], r[1] = b + in[1], r[2] = c + in[2], r[3] = d + in[3];
}

// The blocks' keystream rows; beside(i, 80) after line i.
template <class V, class Beside>
STITCH_INLINE_AVX512 void keystream_rows(const ChaChaState& st, V r[4], Beside&& beside) {
    V in[4];
    load_rows(st, in);
    rows_keystream(in, r, beside);
}

// Rows to blocks: afterwards r[k] holds block k whole (a 4x4 transpose of
// 128-bit lanes).
STITCH_INLINE_AVX512 void rows_to_blocks(U32x16 r[4]) {
    const __m512i u0 = _mm512_shuffle_i32x4(r[0].raw(), r[1].raw(), 0x44);  // a0 a1 b0 b1
    const __m512i u1 = _mm512_shuffle_i32x4(r[0].raw(), r[1].raw(), 0xee);  // a2 a3 b2 b3
    const __m512i u2 = _mm512_shuffle_i32x4(r[2].raw(), r[3].raw(), 0x44);  // c0 c1 d0 d1
    const __m512i u3 = _mm512_shuffle_i32x4(r[2].raw(), r[3].raw(), 0xee);  // c2 c3 d2 d3
    r[0] = U32x16(_mm512_shuffle_i32x4(u0, u2, 0x88));  // a0 b0 c0 d0
    r[1] = U32x16(_mm512_shuffle_i32x4(u0, u2, 0xdd));
    r[2] = U32x16(_mm512_shuffle_i32x4(u1, u3, 0x88));
    r[3] = U32x16(_mm512_shuffle_i32x4(u1, u3, 0xdd));
}

// One line of K row sets' quarter rounds, each step across the sets in turn.
template <int R, size_t K>
STITCH_INLINE_AVX512 void line_sets(U32x16 (&a)[K], const U32x16 (&b)[K], U32x16 (&d)[K]) {
    #pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) a[k] += b[k];
    #pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) d[k] ^= a[k];
    #pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) d[k] = simd::rotl<R>(d[k]);
}

// K zmm row sets (set k's rows in[4k..4k + 4)) plus their input, their
// lines interleaved: one set's double round is a single chain (each line waits
// for the last), so the others' fill the pipes, where a word-per-register
// batch spends 96 operations a double round and then a transpose of its
// sixteen registers. r[k] holds block k whole afterwards. Where the CPU
// table says so (avx512/set.cpp: Emerald Rapids).
template <size_t K>
STITCH_INLINE_AVX512 void row_sets_keystream(const U32x16 in[4 * K], U32x16 r[4 * K]) {
    U32x16 a[K], b[K], c[K], d[K];
    #pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k)
        a[k] = in[4 * k], b[k] = in[4 * k + 1], c[k] = in[4 * k + 2], d[k] = in[4 * k + 3];
    for (int i = 0; i < 10; ++i) {
        #pragma GCC unroll 2
        for (int half = 0; half < 2; ++half) {
            line_sets<16>(a, b, d);
            line_sets<12>(c, d, b);
            line_sets<8>(a, b, d);
            line_sets<7>(c, d, b);
            #pragma GCC unroll 4
            for (size_t k = 0; k < K; ++k) {
                shuffles_after(b[k], a[k], c[k], d[k]);
                // Columns to diagonals, then back (see keystream_rows).
                if (half == 0)
                    a[k] = a[k].template rotate_words<3>(), c[k] = c[k].template rotate_words<1>();
                else
                    a[k] = a[k].template rotate_words<1>(), c[k] = c[k].template rotate_words<3>();
                d[k] = d[k].template rotate_words<2>();
            }
        }
    }
    #pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) {
        r[4 * k] = a[k] + in[4 * k], r[4 * k + 1] = b[k] + in[4 * k + 1];
        r[4 * k + 2] = c[k] + in[4 * k + 2], r[4 * k + 3] = d[k] + in[4 * k + 3];
        rows_to_blocks(r + 4 * k);
    }
}

// 4·K blocks from st.ctr as K row sets: set k from st.ctr + 4k.
template <size_t K>
STITCH_INLINE_AVX512 void keystream_row_sets(const ChaChaState& st, U32x16 r[4 * K]) {
    U32x16 in[4 * K];
    #pragma GCC unroll 4
    for (size_t k = 0; k < K; ++k) load_rows(st, in + 4 * k, uint32_t(4 * k));
    row_sets_keystream<K>(in, r);
}

// Two blocks' rows into the halves of a ymm batch's block layout (block b
// in ks[b] and ks[8 + b]), so xor_block, emit and key_words take them.
STITCH_INLINE_AVX512 void rows_to_blocks(const U32x8 r[4], U32x8 ks[16]) {
    ks[0] = U32x8(_mm256_permute2x128_si256(r[0].raw(), r[1].raw(), 0x20));  // a0 b0
    ks[8] = U32x8(_mm256_permute2x128_si256(r[2].raw(), r[3].raw(), 0x20));  // c0 d0
    ks[1] = U32x8(_mm256_permute2x128_si256(r[0].raw(), r[1].raw(), 0x31));  // a1 b1
    ks[9] = U32x8(_mm256_permute2x128_si256(r[2].raw(), r[3].raw(), 0x31));  // c1 d1
}

// Zeroes an array of vectors by stores of their own width. wipe() stores 16
// bytes at a time, and past 512 bytes in a loop: a sixteen-block zmm batch's
// keystream (1 KiB) took 64 stores and 64 branches, and the raw ChaCha20 of
// 10-15 blocks ran ~15 ns slower than that of 16 (Zen 4, 2026-12-05).
template <class V, size_t K>
STITCH_INLINE_AVX512 void wipe_vectors(V (&v)[K]) {
#pragma GCC unroll 16
    for (size_t i = 0; i < K; ++i) V::zero().store_le(reinterpret_cast<uint8_t*>(&v[i]));
    __asm__ __volatile__("" : : "r"(v) : "memory");  // the stores are observable: not dead
}

// Zeroes n whole 64-byte blocks at p, a zmm store each. The asm in the
// loop keeps g++ 12 from turning it into a call to memset, across which it
// spilled the vector registers still live, keystream among them.
STITCH_INLINE_AVX512 void wipe_blocks(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        U32x16::zero().store_le(p + i * kChaChaBlock);
        __asm__ __volatile__("" : : "r"(p + i * kChaChaBlock) : "memory");
    }
}

// Wipes what rows_to_blocks wrote (the rest of ks holds nothing).
STITCH_INLINE_AVX512 void wipe_rows2(U32x8 ks[16]) {
    wipe(ks, 2 * sizeof(U32x8));
    wipe(ks + 8, 2 * sizeof(U32x8));
}

// out = (in ^ keystream) & keep, block by block: the decryption of a record
// whose verdict is in keep (every byte 0xff or 0), from a zmm batch or row
// run (block b in ks[b]) or a ymm one (block b in ks[b] and ks[8 + b]).
struct Kept {
    U32x16 keep;
    STITCH_INLINE_AVX512 void block(const U32x16 ks[], size_t b, const uint8_t* in, uint8_t* out) const {
        ((U32x16::load_le(in) ^ ks[b]) & keep).store_le(out);
    }
    STITCH_INLINE_AVX512 void block(const U32x8 ks[], size_t b, const uint8_t* in, uint8_t* out) const {
        const U32x8 k(_mm512_castsi512_si256(keep.raw()));
        ((U32x8::load_le(in) ^ ks[b]) & k).store_le(out);
        ((U32x8::load_le(in + 32) ^ ks[8 + b]) & k).store_le(out + 32);
    }
    // The first n < 64 bytes of block b, by masked loads and stores.
    STITCH_INLINE_AVX512 void partial(const U32x16 ks[], size_t b, const uint8_t* in, uint8_t* out, size_t n) const {
        ((U32x16::load_le(in, n) ^ ks[b]) & keep).store_le(out, n);
    }
    STITCH_INLINE_AVX512 void partial(const U32x8 ks[], size_t b, const uint8_t* in, uint8_t* out, size_t n) const {
        const U32x8 k(_mm512_castsi512_si256(keep.raw()));
        const size_t lo = n < 32 ? n : 32;
        ((U32x8::load_le(in, lo) ^ ks[b]) & k).store_le(out, lo);
        ((U32x8::load_le(in + 32, n - lo) ^ ks[8 + b]) & k).store_le(out + 32, n - lo);
    }
    // The last len < 64·lanes bytes from the keystream of one call.
    template <class V>
    STITCH_INLINE_AVX512 size_t last(const V ks[], const uint8_t* in, uint8_t* out, size_t len) const {
        size_t b = 0;
        for (; len >= kChaChaBlock; ++b, len -= kChaChaBlock, in += kChaChaBlock, out += kChaChaBlock)
            block(ks, b, in, out);
        if (len > 0) partial(ks, b++, in, out, len);
        return b;
    }
};

// Clears zmm0-31 and the opmask registers k0-k7 (a compiler may keep a
// length-derived mask even in k0, as GCC does at -O1): no key, keystream or Poly1305
// state stays behind when a kernel returns (zeroing ymm0-15 alone leaves
// zmm16-31), and the upper halves are clean for SSE code after us.
STITCH_INLINE_AVX512 void zero_registers() {
#if !defined(STITCH_AVX512_EMULATED)
    __asm__ volatile(
        "vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"
        "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"
        "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"
        "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"
        "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n\t"
        "vpxord %%zmm26, %%zmm26, %%zmm26\n\tvpxord %%zmm27, %%zmm27, %%zmm27\n\t"
        "vpxord %%zmm28, %%zmm28, %%zmm28\n\tvpxord %%zmm29, %%zmm29, %%zmm29\n\t"
        "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31\n\t"
        "kxorq %%k0, %%k0, %%k0\n\tkxorq %%k1, %%k1, %%k1\n\tkxorq %%k2, %%k2, %%k2\n\tkxorq %%k3, %%k3, %%k3\n\t"
        "kxorq %%k4, %%k4, %%k4\n\tkxorq %%k5, %%k5, %%k5\n\tkxorq %%k6, %%k6, %%k6\n\t"
        "kxorq %%k7, %%k7, %%k7\n\t"
        STITCH_ZERO_XMM0_TO_15 ::
            : STITCH_XMM0_TO_15_CLOBBERS, "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22",
              "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "k0", "k1", "k2",
              "k3", "k4", "k5", "k6", "k7");
#endif
}

// At kernel entry: marks the upper halves clean whatever ran before (see the
// AVX2 set's clean_upper).
STITCH_INLINE_AVX512 void clean_upper() {
#if !defined(STITCH_AVX512_EMULATED)
    _mm256_zeroupper();
#endif
}

}  // namespace stitch::kern::STITCH_AVX512_NS
