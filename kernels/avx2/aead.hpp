// Pieces both AVX2 AEAD kernels (the one pass and the short path) share:
// the MAC's bookkeeping from x86/aead_mac.hpp (MULX blocks kept in
// registers), the keying of the MAC from a batch's lane, and the emission of
// keystream batches with the partial last block parked in st.ks. AVX2-only;
// everything is inlined.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/aead.hpp"
#include "kernels/avx2/chacha20.hpp"
#include "kernels/avx2/set.hpp"
#include "kernels/x86/aead_mac.hpp"
#include "kernels/x86/keep_block.hpp"
#include "kernels/x86/scalar_block.hpp"
#include "kernels/x86/poly1305_mulx.hpp"

namespace stitch::kern::avx2 {

// The MAC bookkeeping and the keying of the MAC the x86 sets share.
using x86::absorb_head;
using x86::blocks_for;
using x86::buffer_last;
using x86::key_mac;
using x86::mac_update;
using x86::whole_blocks;

// key_mac with block 0 from lane `b` of a batch (bytes 0..31: r ‖ s).
STITCH_INLINE_AVX2_BMI2 void key_mac(AeadState& st, mulx::PolyAcc& acc, const U32x8 ks[16], size_t b) {
    uint8_t key[32];
    ks[b].store_le(key);
    const uint64_t k[4] = {load_le64(key), load_le64(key + 8), load_le64(key + 16), load_le64(key + 24)};
    wipe(key, sizeof(key));
    key_mac(st, acc, k);
}

// key_mac with block 0 computed alone (no text block beside it), in
// general-purpose registers or as a row pair, whichever the CPU rule says
// is quicker (avx2/tuning.hpp); the counter advanced past it.
STITCH_INLINE_AVX2_BMI2 void key_mac_alone(AeadState& st, mulx::PolyAcc& acc) {
    if (kLoneBlockInGpr) {
        x86::ScalarBlock block0(st.chacha);
        block0.rounds();
        key_mac(st, acc, block0);
        wipe_object(block0);
    } else {
        U32x8 ks[1][16];
        keystream_rows<1>(st.chacha, ks);
        key_mac(st, acc, ks[0], 0);
        wipe_upto(ks, 1);  // block 0, and block 1's keystream
    }
    chacha_advance(st.chacha.ctr, 1);
}

// out = in ^ keystream for `bytes` bytes (0 < bytes <= 64·(8B - first)),
// starting at block `first` of B batches. A partial last block leaves its
// keystream in st.ks for the next aead_text call, as aead_text_portable does.
template <size_t B>
STITCH_INLINE_AVX2_BMI2 void emit(AeadState& st, const U32x8 (&ks)[B][16], size_t first, const uint8_t* in,
                                  uint8_t* out, size_t bytes) {
    size_t b = first;
    for (; bytes >= kChaChaBlock; ++b, bytes -= kChaChaBlock) {
        xor_block(ks[b / kBatchBlocks], b % kBatchBlocks, in, out);
        in += kChaChaBlock;
        out += kChaChaBlock;
    }
    if (bytes > 0) {
        const U32x8* batch = ks[b / kBatchBlocks];
        x86::keep_block(st.ks, batch[b % kBatchBlocks].raw(), batch[8 + b % kBatchBlocks].raw());
        xor_short(out, in, st.ks, bytes);
        st.ks_pos = uint32_t(bytes);
    }
}

}  // namespace stitch::kern::avx2
