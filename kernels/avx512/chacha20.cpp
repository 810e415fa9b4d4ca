// ChaCha20 over whole blocks (RFC 8439 §2.4) with AVX-512: sixteen-block
// zmm batches while they last (whole batches of text in one asm statement,
// batch_run.hpp, or two at a time in another, pair_run.hpp, where the CPU
// table says so), then the quickest shape for what is left.
// (Scalar blocks beside the batch, on the idle integer units, measured
// slower on Zen 4: two of them took a batch from ~700 to ~940 cycles.)
// Raw ChaCha20, OpenSSH's 64-bit counter layout and every keystream use of
// the AVX-512 set go through here.
#include "kernels/avx512/chacha20.hpp"

#include <cstdlib>
#include <cstring>

#include "kernels/avx512/batch_run.hpp"
#include "kernels/avx512/kernels.hpp"
#include "kernels/avx512/pair_run.hpp"
#include "kernels/avx512/set.hpp"
#include "kernels/bytes.hpp"
#include "kernels/x86/keep_block.hpp"
#include "kernels/x86/scalar_block.hpp"

namespace stitch::kern::STITCH_AVX512_NS {

namespace {

// Where keystream block b goes: out = in ^ ks, or the keystream itself when
// in is null (Plain), or Kept (chacha20.hpp).
struct Plain {
    template <class V>
    STITCH_INLINE_AVX512 void block(const V ks[], size_t b, const uint8_t* in, uint8_t* out) const {
        if (in)
            xor_block(ks, b, in, out);
        else
            store_block(ks, b, out);
    }
};

// Blocks 0..n-1 of ks to `to` (n <= Max, the blocks ks holds), each index
// a constant. The test of `in` is made once a batch, outside the loop: with
// it inside, clang 14 kept the batch's keystream in a stack array, which
// stayed there after the kernel returned (avx512_stack_test).
template <size_t Max, class V, class Out>
STITCH_INLINE_AVX512 void emit_blocks(const V ks[], size_t n, const uint8_t* in, uint8_t* out, const Out& to) {
    if (in) {
#pragma GCC unroll 16
        for (size_t b = 0; b < Max; ++b)
            if (b < n) to.block(ks, b, in + b * kChaChaBlock, out + b * kChaChaBlock);
    } else {
#pragma GCC unroll 16
        for (size_t b = 0; b < Max; ++b)
            if (b < n) to.block(ks, b, nullptr, out + b * kChaChaBlock);
    }
}

// n blocks (n <= N) of one word-per-register batch. Its keystream, the
// lanes a batch cut short leaves unused too, stays in registers, which
// zero_registers clears: no wipe. (A wipe of the array for n < N put it in
// memory for every n, and there it stayed where n = N skipped the wipe:
// clang 14 at 8 blocks, g++ 12 at 4, avx512_stack_test.)
template <size_t N, class Out>
STITCH_INLINE_AVX512 void batch(ChaChaState& st, const uint8_t*& in, uint8_t*& out, size_t n, const Out& to) {
    U32xN<N> ks[16];
    keystream<N>(st, 0, ks);
    emit_blocks<N>(ks, n, in, out, to);
    chacha_advance(st.ctr, n);
    if (in) in += n * kChaChaBlock;
    out += n * kChaChaBlock;
}

// Two whole batches of 16 (keystream2): where the CPU table says so.
template <class Out>
STITCH_INLINE_AVX512 void batches2(ChaChaState& st, const uint8_t*& in, uint8_t*& out, const Out& to) {
    U32x16 ks0[16], ks1[16];
    keystream2<16>(st, 0, ks0, ks1);
    emit_blocks<16>(ks0, 16, in, out, to);
    emit_blocks<16>(ks1, 16, in ? in + 16 * kChaChaBlock : nullptr, out + 16 * kChaChaBlock, to);
    chacha_advance(st.ctr, 32);
    if (in) in += 32 * kChaChaBlock;
    out += 32 * kChaChaBlock;
}

// `count` pairs of batches in a frame of their own; returns its depth, for
// the caller's scrub_below. The frame holds what the compilers spilled of
// the two batches (avx512_stack_test with STITCH_AVX512_BATCHES=2 found the
// state after the rounds and keystream there), at ~50 zmm stores a call of
// at least 2 KiB.
template <class Out>
STITCH_TARGET_AVX512 __attribute__((noinline)) size_t pairs(ChaChaState& st, const uint8_t*& in, uint8_t*& out,
                                                            size_t count, const Out& to) {
    for (size_t i = 0; i < count; ++i) batches2(st, in, out, to);
    return frame_depth();
}

// Whether a single block runs in general-purpose registers (the CPU table,
// avx512/set.cpp) or as a row pair: read once, at load, or from
// STITCH_AVX512_LONE_BLOCK=gpr|rows, which tests use to run either anywhere.
const bool kLoneBlockInGpr = [] {
    const char* env = std::getenv("STITCH_AVX512_LONE_BLOCK");
    if (env && std::strcmp(env, "gpr") == 0) return true;
    if (env && std::strcmp(env, "rows") == 0) return false;
    return avx512::lone_block_in_gpr(cpu_features_raw());
}();

// Whether whole batches of raw text run in one asm statement
// (batch_run.hpp): everywhere the set runs natively, unless
// STITCH_AVX512_BATCH_RUN=off (read once, at load) asks for the intrinsic
// batches, which the SIMDe build always runs; measurements compare the two.
#if defined(STITCH_AVX512_EMULATED)
const bool kBatchRun = false;
#else
const bool kBatchRun = [] {
    const char* env = std::getenv("STITCH_AVX512_BATCH_RUN");
    return !(env && std::strcmp(env, "off") == 0);
}();
#endif

// `batches` whole batches from st.ctr on, out = (in ^ keystream) & keep, st
// advanced past them.
template <bool Keep>
STITCH_INLINE_AVX512 void whole_batches(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t batches,
                                        const U32x16& keep) {
#if defined(STITCH_AVX512_EMULATED)
    (void)st, (void)in, (void)out, (void)batches, (void)keep;
    __builtin_trap();
#else
    RunWords w;
    U32x16 x[16];
    load_state(st, 0, x);
    for (int i = 0; i < 4; ++i) w.words[i] = x[12 + i];
    w.keep = keep;
    batch_run<Keep>(st, w, in, out, batches);
    chacha_advance(st.ctr, 16 * batches);
#endif
}

#if !defined(STITCH_AVX512_EMULATED)
// A pair's words block from st's counter on; Keyed: from block 1 on, with
// B's last lane on block 0 (st's own counter words).
template <bool Keyed>
STITCH_INLINE_AVX512 void pair_words(const ChaChaState& st, PairWords& w) {
    U32x16 x[16];
    load_state(st, Keyed ? 1 : 0, x);
    for (int i = 0; i < 4; ++i) w.words[i] = x[12 + i];
    load_state(st, Keyed ? 17 : 16, x);
    w.b_ctr[0] = x[12];
    w.b_ctr[1] = x[13];
    if constexpr (Keyed) {
        constexpr __mmask16 kLane15 = 0x8000;
        for (int i = 0; i < 2; ++i)
            w.b_ctr[i] = U32x16(_mm512_mask_mov_epi32(w.b_ctr[i].raw(), kLane15, _mm512_set1_epi32(int(st.ctr[i]))));
    }
}
#endif

// `pairs` whole pairs of batches from st.ctr on, out = (in ^ keystream) &
// keep, st advanced past them; the keystream words the statement left in
// memory wiped.
template <bool Keep>
STITCH_INLINE_AVX512 void whole_pairs(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t pairs,
                                      const U32x16& keep) {
#if defined(STITCH_AVX512_EMULATED)
    (void)st, (void)in, (void)out, (void)pairs, (void)keep;
    __builtin_trap();
#else
    PairWords w;
    pair_words<false>(st, w);
    w.keep = keep;
    pair_run<Keep>(st, w, in, out, pairs);
    wipe(w.spill, sizeof(w.spill));
    chacha_advance(st.ctr, 32 * pairs);
#endif
}

// The last len bytes (16 < blocks begun <= 32) as one pair cut short
// (pair_cut): blocks 0..15 straight from the statement, the rest XORed from
// B's keystream in a buffer, which is wiped (it holds the keystream of
// blocks to come too). out = (in ^ keystream) & keep; with kept, the last
// block's whole keystream there (last_run's contract); st advanced past
// every block begun. Where the CPU table runs two batches (Zen 5), 17..31
// blocks took a lone batch and then the shapes for under a batch, a chain
// of rounds twice as long: raw ChaCha20 at 1088..1984 B 249..323 ns
// against 203 for 2048 B (EPYC model 0x02, docs/benchmarks.md).
//
// Keyed (a seal's first call, at most 31 blocks): the text starts at
// block 1, and B's last lane, which no text block needs, runs block 0,
// whose key words r ‖ s go to key.
template <bool Keep, bool Keyed = false>
STITCH_INLINE_AVX512 void cut_pair(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len, const U32x16& keep,
                                   uint8_t* kept, uint64_t* key = nullptr) {
#if defined(STITCH_AVX512_EMULATED)
    (void)st, (void)in, (void)out, (void)len, (void)keep, (void)kept, (void)key;
    __builtin_trap();
#else
    constexpr uint32_t first = Keyed ? 1 : 0;
    PairWords w;
    pair_words<Keyed>(st, w);
    w.keep = keep;
    constexpr size_t kBatchBytes = 16 * kChaChaBlock;
    alignas(64) uint8_t ks[kBatchBytes];
    pair_cut<Keep>(st, w, ks, in, out);
    wipe(w.spill, sizeof(w.spill));
    const size_t left = len - kBatchBytes, whole = left / kChaChaBlock * kChaChaBlock;
    in += kBatchBytes;
    out += kBatchBytes;
    for (size_t i = 0; i < whole; i += kChaChaBlock)
        ((U32x16::load_le(in + i) ^ U32x16::load_le(ks + i)) & keep).store_le(out + i);
    if (left > whole)
        ((U32x16::load_le(in + whole, left - whole) ^ U32x16::load_le(ks + whole)) & keep)
            .store_le(out + whole, left - whole);
    const size_t blocks = (len + kChaChaBlock - 1) / kChaChaBlock;
    // The kept block copied in an asm statement, its register cleared there:
    // g++ 12 took the copy's value for the partial block's load of the same
    // bytes and spilled it to a stack slot no wipe reaches (a memcpy and an
    // intrinsic load and store alike; avx512_stack_test, a 1300-byte stream
    // with Zen 5's two batches, December 2026).
    if (kept)
        __asm__ __volatile__(
            "vmovdqu64 (%[from]), %%zmm16\n\t"
            "vmovdqu64 %%zmm16, (%[to])\n\t"
            "vpxord %%zmm16, %%zmm16, %%zmm16"
            :
            : [from] "r"(ks + (blocks - 17) * kChaChaBlock), [to] "r"(kept)
            : "xmm16", "memory");
    if constexpr (Keyed)
        for (int i = 0; i < 4; ++i) key[i] = load_le64(ks + 15 * kChaChaBlock + 8 * i);
    wipe_blocks(ks, 16);
    chacha_advance(st.ctr, first + blocks);
#endif
}

// n <= 4·K blocks as K zmm row sets (keystream_row_sets), in registers as
// batch.
template <size_t K>
STITCH_INLINE_AVX512 void row_sets(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t n, const Plain& to) {
    U32x16 r[4 * K];
    keystream_row_sets<K>(st, r);
    emit_blocks<4 * K>(r, n, in, out, to);
    chacha_advance(st.ctr, n);
}

// n <= 2 blocks in the row layout on ymm: on Zen 4 a lone block in ~360
// cycles, against ~440 on zmm (the zmm shuffles of the diagonal steps are
// slower).
STITCH_INLINE_AVX512 void rows2(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t n, const Plain& to) {
    U32x8 r[4], ks[16];
    keystream_rows(st, r, Nothing{});
    rows_to_blocks(r, ks);
    emit_blocks<2>(ks, n, in, out, to);
    wipe_vectors(r);
    wipe_rows2(ks);
    chacha_advance(st.ctr, n);
}

// n <= 4 blocks in the row layout (in registers, as batch).
STITCH_INLINE_AVX512 void rows(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t n, const Plain& to) {
    U32x16 r[4];
    keystream_rows(st, r, Nothing{});
    rows_to_blocks(r);
    emit_blocks<4>(r, n, in, out, to);
    chacha_advance(st.ctr, n);
}

// The last len bytes (4·K blocks at most, more than 4·(K - 1)) as K row
// sets; last_run's contract.
template <size_t K, class Out>
STITCH_INLINE_AVX512 void last_in_row_sets(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len,
                                           const Out& to, uint8_t* kept) {
    const size_t n = (len + kChaChaBlock - 1) / kChaChaBlock;
    U32x16 r[4 * K];
    keystream_row_sets<K>(st, r);
    to.last(r, in, out, len);
    if (kept) x86::keep_block(kept, _mm512_castsi512_si256(r[n - 1].raw()),
                              _mm512_extracti64x4_epi64(r[n - 1].raw(), 1));
    wipe_vectors(r);
}

// The last len (1..1023) bytes in the quickest shape for their blocks, as
// chacha20_blocks chooses it; with kept, the last block's whole keystream
// there too (a raw update's partial block, for the next update). The block
// indices here are run-time values, so the keystream is in memory: wiped.
template <class Out>
STITCH_INLINE_AVX512 void last_run(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len, const Out& to,
                                   uint8_t* kept) {
    const size_t n = (len + kChaChaBlock - 1) / kChaChaBlock;
    if (kRowSets && n > 4 && n <= 8) {
        last_in_row_sets<2>(st, in, out, len, to, kept);
    } else if (kRowSets && n > 8 && n <= 12) {
        last_in_row_sets<3>(st, in, out, len, to, kept);
    } else if (n > 8) {
        U32x16 ks[16];
        keystream<16>(st, 0, ks);
        to.last(ks, in, out, len);
        if (kept) x86::keep_block(kept, _mm512_castsi512_si256(ks[n - 1].raw()),
                                  _mm512_extracti64x4_epi64(ks[n - 1].raw(), 1));
        wipe_vectors(ks);
    } else if (n > 4) {
        U32x8 ks[16];
        keystream<8>(st, 0, ks);
        to.last(ks, in, out, len);
        if (kept) x86::keep_block(kept, ks[n - 1].raw(), ks[8 + n - 1].raw());
        wipe_vectors(ks);
    } else if (n > 2) {
        U32x16 r[4];
        keystream_rows(st, r, Nothing{});
        rows_to_blocks(r);
        to.last(r, in, out, len);
        if (kept) x86::keep_block(kept, _mm512_castsi512_si256(r[n - 1].raw()),
                                  _mm512_extracti64x4_epi64(r[n - 1].raw(), 1));
        wipe_vectors(r);
    } else {
        U32x8 r[4], ks[16];  // rows2's ymm rows: the quicker for one or two blocks
        keystream_rows(st, r, Nothing{});
        rows_to_blocks(r, ks);
        to.last(ks, in, out, len);
        if (kept) x86::keep_block(kept, ks[n - 1].raw(), ks[8 + n - 1].raw());
        wipe_vectors(r);
        wipe_rows2(ks);
    }
    chacha_advance(st.ctr, n);
}

}  // namespace

// Read once, at load, from the CPU table, or from
// STITCH_AVX512_ROW_SETS=on|off, which tests and measurements use to run
// either way on any CPU.
const bool kRowSets = [] {
    const char* env = std::getenv("STITCH_AVX512_ROW_SETS");
    if (env && std::strcmp(env, "on") == 0) return true;
    if (env && std::strcmp(env, "off") == 0) return false;
    return avx512::row_sets(cpu_features_raw());
}();

// Whether this CPU runs two batches in flight: read once, at load, from the
// CPU table (CPUID is an instruction; reading it here is safe wherever the
// set is linked), or from STITCH_AVX512_BATCHES=1|2, which tests and
// measurements use to run either on any CPU.
const bool kTwoBatches = [] {
    const char* env = std::getenv("STITCH_AVX512_BATCHES");
    if (env && (env[0] == '1' || env[0] == '2') && env[1] == 0) return env[0] == '2';
    return avx512::chacha_two_batches(cpu_features_raw());
}();

void scrub_below(size_t depth) {
    // The frame begins a few words above this array (the return address,
    // saved registers): 64 bytes more cover them.
    const size_t blocks = (depth + 64 + kChaChaBlock - 1) / kChaChaBlock;
    wipe_blocks(static_cast<uint8_t*>(__builtin_alloca(blocks * kChaChaBlock)), blocks);
}

void chacha20_blocks(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept {
    clean_upper();
    const Plain to;
    if (kTwoBatches && nblocks >= 32) {
        if (in && kBatchRun) {
            whole_pairs<false>(st, in, out, nblocks / 32, U32x16::splat(0xffffffffu));
            in += nblocks / 32 * 32 * kChaChaBlock;
            out += nblocks / 32 * 32 * kChaChaBlock;
        } else {
            scrub_below(pairs(st, in, out, nblocks / 32, to));
        }
        nblocks %= 32;
    }
    if (kTwoBatches && in && nblocks > 16 && kBatchRun) {
        cut_pair<false>(st, in, out, nblocks * kChaChaBlock, U32x16::splat(0xffffffffu), nullptr);
        nblocks = 0;
    }
    if (in && nblocks >= 16 && kBatchRun) {
        whole_batches<false>(st, in, out, nblocks / 16, U32x16::splat(0xffffffffu));
        in += nblocks / 16 * 16 * kChaChaBlock;
        out += nblocks / 16 * 16 * kChaChaBlock;
        nblocks %= 16;
    }
    for (; nblocks >= 16; nblocks -= 16) batch<16>(st, in, out, 16, to);
    if (nblocks > 12 || (nblocks > 8 && !kRowSets))
        batch<16>(st, in, out, nblocks, to);
    else if (nblocks > 8)
        row_sets<3>(st, in, out, nblocks, to);
    else if (nblocks > 4 && kRowSets)
        row_sets<2>(st, in, out, nblocks, to);
    else if (nblocks > 4)
        batch<8>(st, in, out, nblocks, to);
    else if (nblocks > 2)
        rows(st, in, out, nblocks, to);
    else if (nblocks == 2 || (nblocks == 1 && !kLoneBlockInGpr))
        rows2(st, in, out, nblocks, to);
    else if (nblocks == 1)
        x86::lone_block<x86::Rounds::compiled>(st, in, out);  // general-purpose registers: x86/scalar_block.hpp
    zero_registers();
}

void chacha20_xor_kept(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len, uint8_t keep) noexcept {
    clean_upper();
    const Kept to{U32x16::splat(0x01010101u * keep)};
    if (kTwoBatches && len >= 32 * kChaChaBlock) {
        const size_t count = len / (32 * kChaChaBlock);
        if (kBatchRun) {
            whole_pairs<true>(st, in, out, count, to.keep);
            in += count * 32 * kChaChaBlock;
            out += count * 32 * kChaChaBlock;
        } else {
            scrub_below(pairs(st, in, out, count, to));
        }
        len %= 32 * kChaChaBlock;
    }
    if (kTwoBatches && len > 16 * kChaChaBlock && kBatchRun) {
        cut_pair<true>(st, in, out, len, to.keep, nullptr);
        len = 0;
    }
    if (len >= 16 * kChaChaBlock && kBatchRun) {
        const size_t batches = len / (16 * kChaChaBlock);
        whole_batches<true>(st, in, out, batches, to.keep);
        in += batches * 16 * kChaChaBlock;
        out += batches * 16 * kChaChaBlock;
        len %= 16 * kChaChaBlock;
    }
    for (; len >= 16 * kChaChaBlock; len -= 16 * kChaChaBlock) batch<16>(st, in, out, 16, to);
    if (len > 0) last_run(st, in, out, len, to, nullptr);
    zero_registers();
}

void chacha20_xor_last(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len,
                       uint8_t kept[kChaChaBlock]) noexcept {
    clean_upper();
    if (len < kChaChaBlock && kLoneBlockInGpr) {
        x86::lone_block<x86::Rounds::compiled>(st, nullptr, kept);  // where the CPU table says so, as chacha20_blocks; advances st
        xor_short(out, in, kept, len);
    } else if (len > 16 * kChaChaBlock && kTwoBatches && kBatchRun) {
        cut_pair<false>(st, in, out, len, U32x16::splat(0xffffffffu), kept);
    } else {
        // The last run chacha_stream_xor hands over is up to two batches long
        // (Impl::keystream_run), for the cut pair; elsewhere a whole batch
        // first, then the rest.
        if (len > 16 * kChaChaBlock && kBatchRun) {
            whole_batches<false>(st, in, out, 1, U32x16::splat(0xffffffffu));
            in += 16 * kChaChaBlock;
            out += 16 * kChaChaBlock;
            len -= 16 * kChaChaBlock;
        } else if (len > 16 * kChaChaBlock) {
            batch<16>(st, in, out, 16, Plain{});  // moves in and out on
            len -= 16 * kChaChaBlock;
        }
        last_run(st, in, out, len, Kept{U32x16::splat(0xffffffffu)}, kept);
    }
    zero_registers();
}

bool keyed_pair_fits(size_t len) noexcept {
    return kTwoBatches && kBatchRun && len > 16 * kChaChaBlock && len <= 31 * kChaChaBlock;
}

void chacha20_xor_keyed(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len, uint8_t kept[kChaChaBlock],
                        uint64_t key[4]) noexcept {
    clean_upper();
    cut_pair<false, true>(st, in, out, len, U32x16::splat(0xffffffffu), len % kChaChaBlock ? kept : nullptr, key);
    zero_registers();
}

}  // namespace stitch::kern::STITCH_AVX512_NS
