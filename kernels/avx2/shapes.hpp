// The AVX2 set's tuning choices, one small struct per microarchitecture
// family: how many batches the rounds keep in flight, how the round words sit
// in registers, whether Poly1305 runs beside the rounds or after them, and
// where the cut-offs lie. Every kernel of the set is a template over a Shape
// and is instantiated once per entry of kAllShapes, so each shape is its own
// Impl ("avx2/<name>"): tests run every one of them on any machine, and
// dispatch (avx2/shapes.cpp) picks one for this CPU.
//
// A shape is chosen by measurement on the CPU named in its comment, never by
// argument; a family nobody has measured gets kSafe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"
#include "kernels/cpu.hpp"

namespace stitch::kern::avx2 {

// How the sixteen state words of a batch sit in the sixteen ymm registers
// (they do not fit, so something lives in memory).
enum class Rounds : uint8_t {
    // All sixteen are values; the compiler keeps what it can in registers
    // and the rest in stack slots used as memory operands.
    paired,
    // Row c (words 8..11) of every batch lives in memory: loaded at the
    // start of each quarter round and stored at its end, so the rounds make
    // four stores a double round per batch and nothing else is spilled.
    // OpenSSL's ChaCha20_8x keeps rows a, b and d in registers the same way.
    spill_c,
};

// Where the AEAD's Poly1305 runs.
enum class Mac : uint8_t {
    // Scalar MULX Poly1305 of the ciphertext beside the vector rounds.
    stitched,
    // ChaCha20 over a chunk that stays in L1, then the 4-way vector Poly1305
    // over it (an open MACs the chunk first, then decrypts it): no scalar
    // multiplies share ports with the vector rounds.
    two_pass,
};

struct Shape {
    const char* name;   // STITCH_AVX2_SHAPE value; the Impl's label is "avx2/<name>"
    const char* label;  // "avx2/<name>"
    size_t chacha_batches;   // 8-block batches in flight for ChaCha20 alone (1..4)
    size_t aead_batches;     // the same in the AEAD's bulk (1..4)
    Rounds rounds;
    Mac mac;
    size_t chunk_blocks;     // two_pass: ChaCha20 blocks per chunk (a multiple of 8·aead_batches)
    size_t vector_poly_min;  // Poly1305 runs of at least this many blocks take the 4-way vector code
    size_t short_max;        // opens of at most this many bytes, MAC not keyed, take the short path
    bool lone_block_scalar;  // a lone ChaCha20 block: scalar code (true) or a row pair
    // Past whole batches, 1..4 blocks more: a call of their own as row pairs
    // (true), or one more batch in the same call (false).
    bool rows_tail;
};

// The entries. Each comment gives the measurement that chose it and the CPU
// it was made on; "ns" figures are kernel calls, one message per call
// (stitch_bench's kernel table with the candidates as columns side by side,
// the lowest median of three back-to-back processes).

// Zen 5 (AMD EPYC, family 0x1A, 2 vCPUs): the shape the set was first tuned
// with. Measured there, core cycles per byte: ChaCha20 alone 1.51 with one
// batch, 1.20 two, 1.08 three, 1.04 four; the stitched AEAD at 64 KiB 1.15
// with two, 1.10 three, 1.14 four (more Poly1305 per step than the window
// holds). Vector integer ops take two cycles there, so one batch leaves the
// ports half idle. Vector Poly1305 from 20 blocks (20 cost the same both
// ways, ~300 cycles; 16 were 12% slower on the vector path, 24 9% faster).
// A lone block ~370 cycles scalar against ~490 as a row pair. Short opens
// up to 192 B (~10% quicker than the pass at 192 B).
inline constexpr Shape kZen5 = {
    "zen5", "avx2/zen5",
    /*chacha_batches=*/3, /*aead_batches=*/3, Rounds::paired, Mac::stitched, /*chunk_blocks=*/0,
    /*vector_poly_min=*/20, /*short_max=*/192, /*lone_block_scalar=*/true, /*rows_tail=*/false,
};

// Zen 4 (AMD EPYC, family 0x19 model 0x11, 2 vCPUs, ~3.7 GHz), against
// kZen5 there, ns:
// - batches: ChaCha20 alone at 64 KiB 23281 with one batch, 21160 two,
//   20946 three, 20759 four; the AEAD seal at 64 KiB 26570, 25233, 25082,
//   26773, and 16 KiB 6616, 6596, 6502, 6726: three.
// - rounds: Rounds::spill_c took ChaCha20 at 64 KiB to 20460 (-2%) but the
//   seal to 26243 (+5%): paired.
// - MAC: two-pass (two batches, 4 KiB chunks) sealed 64 KiB in 28318 (+13%;
//   slower than the default provider's AVX2 code, 27693): stitched.
// - a lone block (raw ChaCha20, 64 B): 105 as a row pair, 141 scalar.
// - rows_tail: ChaCha20 of 9 blocks 291 against 370, 17 blocks 431 against
//   514, 1300 B 553 against 636; open 1088 B 625 against 740, seal 576 B 502
//   against 537; 21 blocks (tail 5) stay one call of three batches. The AEAD
//   at 1300 B is within 2% either way.
// - vector Poly1305 from 26 blocks: 25 blocks 113 by MULX against 116
//   vector, 26 117 vector against 119 MULX (20 blocks: 96 MULX, 103 vector).
// - short opens to 192 B: 241 against 257 through the pass at 192 B; at 64
//   and 128 B the two are within 3%.
inline constexpr Shape kZen4 = {
    "zen4", "avx2/zen4",
    /*chacha_batches=*/3, /*aead_batches=*/3, Rounds::paired, Mac::stitched, /*chunk_blocks=*/0,
    /*vector_poly_min=*/26, /*short_max=*/192, /*lone_block_scalar=*/false, /*rows_tail=*/true,
};

// The safest measured shape, for CPUs nobody has measured (Intel's included:
// see avx2/shapes.cpp). Two batches in flight instead of three: a third
// fewer live vectors to spill (the suspected cost on Golden Cove), at a
// price measured on Zen 4 against kZen4 of 1% (ChaCha20 64 KiB, 21506
// against 21220) to 7% (open 1300 B, 862 against 808), 2.5% on the 64 KiB
// seal (25322 against 24713); stitched, as two-pass measured slower than
// the default provider there; row pairs for lone blocks and short tails.
// Through EVP on Zen 4 (one run, against the default provider without
// AVX-512): TLS 1.3 records 0.99-1.71x (0.99 the 16 KiB seal, kZen4 1.08),
// raw ChaCha20 0.88-1.55x; otherwise below 1.0 only where kZen4 is too (raw
// ChaCha20 from 1 KiB, the smallest TLS 1.2 records). Never measured on Intel.
inline constexpr Shape kSafe = {
    "safe", "avx2/safe",
    /*chacha_batches=*/2, /*aead_batches=*/2, Rounds::paired, Mac::stitched, /*chunk_blocks=*/0,
    /*vector_poly_min=*/20, /*short_max=*/192, /*lone_block_scalar=*/false, /*rows_tail=*/true,
};

// Candidates no CPU gets: built and tested like the others, and in the
// bench's kernel table, so that they can be measured on a CPU this project
// has not had (the Intel cores of issue 10) without a rebuild, and forced
// with STITCH_AVX2_SHAPE. On Zen 4 (ns, AEAD seal 64 KiB; ChaCha20 64 KiB):
// twopass 28350 and 21607, spillc 26955 and 21616, against kZen4's 24713
// and 21220.
inline constexpr Shape kTwoPass = {
    "twopass", "avx2/twopass",
    /*chacha_batches=*/2, /*aead_batches=*/2, Rounds::paired, Mac::two_pass, /*chunk_blocks=*/64,
    /*vector_poly_min=*/20, /*short_max=*/192, /*lone_block_scalar=*/false, /*rows_tail=*/true,
};
inline constexpr Shape kSpillC = {
    "spillc", "avx2/spillc",
    /*chacha_batches=*/2, /*aead_batches=*/2, Rounds::spill_c, Mac::stitched, /*chunk_blocks=*/0,
    /*vector_poly_min=*/20, /*short_max=*/192, /*lone_block_scalar=*/false, /*rows_tail=*/true,
};

// The shapes this build has, in Impl order. A kernel .cpp instantiates its
// templates for each with for_each_shape().
template <const Shape&... S>
struct ShapeList {
    static constexpr size_t size = sizeof...(S);
};
using AllShapes = ShapeList<kZen5, kZen4, kSafe, kTwoPass, kSpillC>;
inline constexpr size_t kShapeCount = AllShapes::size;

// {make.operator()<S>() for each shape S}, in kAllShapes order: how each
// kernel .cpp exports its per-shape entry points as one array.
template <class T, class Make, const Shape&... S>
constexpr std::array<T, sizeof...(S)> for_each_shape_impl(Make make, ShapeList<S...>) {
    return {make.template operator()<S>()...};
}
template <class T, class Make>
constexpr std::array<T, kShapeCount> for_each_shape(Make make) {
    return for_each_shape_impl<T>(make, AllShapes{});
}

inline constexpr std::array<const Shape*, kShapeCount> kAllShapes =
    for_each_shape<const Shape*>([]<const Shape& S>() { return &S; });

// Where S sits in kAllShapes (and in every PerShape array).
constexpr size_t shape_index(const Shape& s) {
    for (size_t i = 0; i < kShapeCount; ++i)
        if (kAllShapes[i] == &s) return i;
    return kShapeCount;
}

// The shape the table in avx2/shapes.cpp gives a CPU (kSafe where no entry
// matches), and the shape called `name` ("zen4" or "avx2/zen4"), or null.
const Shape& shape_for(CpuVendor vendor, uint32_t family, uint32_t model) noexcept;
const Shape* shape_named(const char* name) noexcept;

// Checks that hold for every shape.
constexpr bool valid(const Shape& s) {
    const bool batches = s.chacha_batches >= 1 && s.chacha_batches <= 4 && s.aead_batches >= 1 && s.aead_batches <= 4;
    const bool chunk = s.mac == Mac::stitched ||
                       (s.chunk_blocks > 0 && s.chunk_blocks % (8 * s.aead_batches) == 0);
    return batches && chunk && s.short_max <= kShortMax && s.vector_poly_min >= 4;
}
static_assert([] {
    for (const Shape* s : kAllShapes)
        if (!valid(*s)) return false;
    return true;
}());

}  // namespace stitch::kern::avx2
