// The tag verdict, written once: the constant-time compare of the 16-byte
// tag, the verdict as a byte mask, and the wipe of a refused record. Every
// kernel set's whole-record open (Impl::aead_open_record) and the
// provider's finish take their verdict here, and nothing else in kernels/
// or provider/ compares tags or clears a refused record (docs/security.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/bytes.hpp"

namespace stitch::kern {

struct AeadState;

inline constexpr size_t kTagBytes = 16;

// 1 when the 16-byte tags are equal, else 0, in the same time for every
// input: an OR of XORs, by 8-byte words. tag_verdict's computed tag was
// just written as two 8-byte stores (poly1305_final), and a load the size
// of its store takes the data straight from the store queue, where one
// 16-byte load across both waits for them to reach the cache: with that
// 16-byte load, which both compilers made of the byte loop this replaces,
// TLS 1.2 opens of 0-64 B took 3-4% longer on Ice Lake-SP. The empty asm
// keeps the halves in general registers, so no compiler joins them into
// one load again.
inline int tag_equal(const uint8_t computed[kTagBytes], const uint8_t tag[kTagBytes]) noexcept {
    uint64_t lo = load_le64(computed), hi = load_le64(computed + 8);
    __asm__("" : "+r"(lo), "+r"(hi));
    const uint64_t diff = (lo ^ load_le64(tag)) | (hi ^ load_le64(tag + 8));
    // Branch-free: diff | -diff has bit 63 set exactly when diff != 0.
    return int(((diff | (0 - diff)) >> 63) ^ 1u);
}

// 0xff when ok is 1, 0x00 when ok is 0: selects without a branch.
inline uint8_t ct_mask(int ok) noexcept { return uint8_t(0u - uint32_t(ok)); }

// Ends the message (aead_final), compares the computed tag with `tag`, all
// 16 bytes in constant time, wipes the computed tag (on a forgery it is the
// tag that would have passed) and returns the verdict as a mask: 0xff for an
// authentic message, 0x00 for a refused one. Callers apply the mask; they do
// not branch on it.
uint8_t tag_verdict(AeadState& st, const uint8_t tag[kTagBytes]) noexcept;

// The wipe of a refused record whose output was written before its verdict:
// out[0..len) &= keep, with no branch on keep. Inlined into each set's
// caller, so it runs at that caller's vector width: the 32-byte steps are
// four 8-byte words that the compilers' SLP pass fuses into one ymm AND
// inside an AVX2 function, two xmm ones elsewhere.
[[gnu::always_inline]] inline void wipe_refused(uint8_t* out, size_t len, uint8_t keep) noexcept {
    const uint64_t wide = 0x0101010101010101ull * keep;
    size_t i = 0;
    for (; i + 32 <= len; i += 32) {
        const uint64_t w0 = load_le64(out + i) & wide, w1 = load_le64(out + i + 8) & wide;
        const uint64_t w2 = load_le64(out + i + 16) & wide, w3 = load_le64(out + i + 24) & wide;
        store_le64(out + i, w0);
        store_le64(out + i + 8, w1);
        store_le64(out + i + 16, w2);
        store_le64(out + i + 24, w3);
    }
    for (; i + 8 <= len; i += 8) store_le64(out + i, load_le64(out + i) & wide);
    for (; i < len; ++i) out[i] &= keep;
}

// Both, for a record decrypted before its verdict (the one pass): true when
// authentic; on a refusal out[0..len) holds zeros.
bool verdict_and_wipe(AeadState& st, uint8_t* out, size_t len, const uint8_t tag[kTagBytes]) noexcept;

}  // namespace stitch::kern
