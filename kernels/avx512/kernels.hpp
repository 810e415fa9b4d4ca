// Entry points of one variant of the AVX-512 kernel set (kernels/avx512/,
// one .cpp per kernel, built once per variant: isa.hpp). impl.cpp gathers
// them into the variant's Impl; nothing else should call them without
// checking cpu_features_raw() first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"
#include "kernels/isa_avx512.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern {
struct Impl;
}

namespace stitch::kern::STITCH_AVX512_NS {

// Whether five to twelve blocks of keystream run as two or three zmm row
// sets (chacha20.hpp's keystream_row_sets) rather than a word-per-register
// batch of eight (ymm) or sixteen (zmm): raw ChaCha20's, and a record's
// first call of four to eleven text blocks with block 0 (chacha20.cpp,
// aead_pass.hpp). avx512::row_sets, or STITCH_AVX512_ROW_SETS=on|off; read
// once, at load.
extern const bool kRowSets;

// Whether raw ChaCha20 and the AEAD chunks' rounds run two sixteen-block
// batches in flight (pair_run.hpp), and a record's first chunk of an even
// number of whole batches takes block 0 alone (aead_pass.hpp):
// avx512::chacha_two_batches, or STITCH_AVX512_BATCHES=1|2; read once, at
// load.
extern const bool kTwoBatches;

// Contract of chacha20_blocks_portable.
STITCH_TARGET_AVX512 void chacha20_blocks(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept;

// out = (in ^ keystream) & keep for len bytes from st's counter (keep 0xff
// or 0 in every byte, a partial last block included), st advanced past
// them: the decryption of a whole record after its verdict, all zeros for
// a refused one, in one pass with no branch on keep.
STITCH_TARGET_AVX512 void chacha20_xor_kept(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len,
                                            uint8_t keep) noexcept;

// Contract of Impl::chacha20_xor_last.
STITCH_TARGET_AVX512 void chacha20_xor_last(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len,
                                            uint8_t kept[kChaChaBlock]) noexcept;

// Whether a seal's first call of len text bytes takes block 0 and the text
// in one pair cut short (chacha20_xor_keyed): 17..31 text blocks, where
// the CPU table runs two batches and the asm statements run.
bool keyed_pair_fits(size_t len) noexcept;

// A seal's first call of len bytes where keyed_pair_fits: out = in ^
// keystream from block 1 on, block 0's key words r ‖ s in key, the last
// block's whole keystream in kept where the text ends in a partial block,
// st advanced past block 0 and every text block begun. Block 0 runs in the
// lane of the pair's second batch that the text leaves free.
STITCH_TARGET_AVX512 void chacha20_xor_keyed(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len,
                                             uint8_t kept[kChaChaBlock], uint64_t key[4]) noexcept;

// Contract of Impl::chacha20_two_keys: first's block and rest's first three
// as one zmm row set, rest's fourth and fifth as a second beside it.
STITCH_TARGET_AVX512 void chacha20_two_keys(const ChaChaState& first, const ChaChaState& rest, size_t n,
                                            uint8_t* out) noexcept;

// Contract of poly1305_blocks_portable: MULX for short runs; long ones on
// IFMA lanes (avx512-ifma) or the AVX2 set's four-lane code (avx512).
STITCH_TARGET_AVX512 void poly1305_blocks(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept;

// Where poly1305_blocks changes method. Measured on Zen 4 (EPYC, family
// 0x19 model 0x11), each method forced in turn in one process: core cycles
// per init, blocks and final (the powers of r made for each call, as the
// POLY1305 MAC needs them for each key):
//   blocks               4     8    12    16    24    32    48    96   192   256  1024
//   MULX               141   206   273   341   446   584   856  1693  3261  4311 17854
//   IFMA 1 set of 4    184   205   240   268   256   305   416   735  1393  1800  6884
//   IFMA 2 sets of 4     -     -     -   279   243   278   338   550   970  1225  4457
//   IFMA 2 sets of 8     -     -     -   340   329   329   395   585   987  1231  4275
// (IFMA rows with the first nblocks % 4 blocks through MULX, and the blocks
// past a two-set run's last whole group on one set of four first.) Without
// IFMA the AVX2 set's four-lane code breaks even near 20 blocks.
#if STITCH_AVX512_IFMA
inline constexpr size_t kIfmaMinBlocks = 8;
inline constexpr size_t kIfmaTwoSetsMinBlocks = 24;
// Two sets of eight zmm lanes from 192 blocks on Zen 4, whose zmm IFMA runs
// at half rate; from how many elsewhere is a column of the CPU table
// (avx512/set.cpp: 48 on Emerald Rapids and 32 on Zen 5, measured there).
static_assert(kIfmaTwoSetsMinBlocks >= 8, "a two-set run needs one whole group");
#else
inline constexpr size_t kVectorPolyMinBlocks = 20;
#endif

// Contract of aead_text_portable: the stitched one pass.
STITCH_TARGET_AVX512 void stitched_text(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out,
                                    size_t len) noexcept;

// Contract of aead_open_record_portable.
STITCH_TARGET_AVX512 bool open_record(AeadState& st, const uint8_t* in, uint8_t* out, size_t len,
                                           const uint8_t tag[16]) noexcept;

// The variant's Impl table ("avx512-ifma" or "avx512").
const Impl& impl() noexcept;

}  // namespace stitch::kern::STITCH_AVX512_NS
