// Portable Poly1305 (RFC 8439 §2.5) in 64-bit limbs with unsigned __int128
// products; the buffering and the final reduction are shared with the MULX
// kernel, which only replaces poly1305_blocks.
#include "kernels/poly1305.hpp"

#include <x86intrin.h>

#include <algorithm>

#include "kernels/bytes.hpp"
#include "kernels/impl.hpp"

namespace stitch::kern {

using u128 = unsigned __int128;

void poly1305_init(Poly1305State& st, const uint8_t key[32]) noexcept {
    st.h[0] = st.h[1] = st.h[2] = 0;
    st.r[0] = load_le64(key) & 0x0ffffffc0fffffffull;
    st.r[1] = load_le64(key + 8) & 0x0ffffffc0ffffffcull;
    st.s1 = st.r[1] + (st.r[1] >> 2);
    st.pad[0] = load_le64(key + 16);
    st.pad[1] = load_le64(key + 24);
    wipe(st.buf, sizeof(st.buf));
    st.buf_len = 0;
}

// One block: h = (h + m + hibit·2^128) · r mod 2^130 − 5, partially reduced.
static inline void block(uint64_t h[3], uint64_t r0, uint64_t r1, uint64_t s1, const uint8_t* m,
                         uint64_t hibit) noexcept {
    u128 t = u128(h[0]) + load_le64(m);
    uint64_t h0 = uint64_t(t);
    t = u128(h[1]) + load_le64(m + 8) + uint64_t(t >> 64);
    uint64_t h1 = uint64_t(t);
    uint64_t h2 = h[2] + hibit + uint64_t(t >> 64);

    u128 d0 = u128(h0) * r0 + u128(h1) * s1;
    u128 d1 = u128(h0) * r1 + u128(h1) * r0 + u128(h2) * s1;
    uint64_t d2 = h2 * r0;

    d1 += uint64_t(d0 >> 64);
    d2 += uint64_t(d1 >> 64);
    h0 = uint64_t(d0);
    h1 = uint64_t(d1);
    // Bits 130 and up fold back times 5: c = 4·(d2>>2) + (d2>>2).
    uint64_t c = (d2 & ~uint64_t(3)) + (d2 >> 2);
    h2 = d2 & 3;
    t = u128(h0) + c;
    h[0] = uint64_t(t);
    t = u128(h1) + uint64_t(t >> 64);
    h[1] = uint64_t(t);
    h[2] = h2 + uint64_t(t >> 64);
}

void poly1305_blocks_portable(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept {
    for (size_t i = 0; i < nblocks; ++i) block(st.h, st.r[0], st.r[1], st.s1, in + i * kPolyBlock, 1);
}

// Everything but whole blocks with nothing buffered: fills the buffer,
// absorbs it once full, takes the whole blocks after it and keeps the rest.
[[gnu::noinline]] static void update_buffered(const Impl& impl, Poly1305State& st, const uint8_t* in,
                                              size_t len) noexcept {
    if (st.buf_len > 0) {
        size_t take = std::min(len, kPolyBlock - st.buf_len);
        set_block_bytes(st.buf, st.buf_len, in, take);
        st.buf_len += uint32_t(take);
        in += take;
        len -= take;
        if (st.buf_len < kPolyBlock) return;
        impl.poly1305_blocks(st, st.buf, 1);
        st.buf_len = 0;
    }
    size_t whole = len / kPolyBlock;
    if (whole > 0) impl.poly1305_blocks(st, in, whole);
    in += whole * kPolyBlock;
    len -= whole * kPolyBlock;
    set_block_bytes(st.buf, 0, in, len);
    st.buf_len = uint32_t(len);
}

// Whole blocks with nothing buffered (a MAC over whole blocks, the usual
// call) go to the set by a tail call: no frame and no saved registers, so
// g++ 12 and clang 14 emit the same few instructions. Before, both built one
// frame for both paths (six and five pushes), and a 16-byte POLY1305 kernel
// call read 6% apart between the two builds on Zen 4.
void poly1305_update(const Impl& impl, Poly1305State& st, const uint8_t* in, size_t len) noexcept {
    if (st.buf_len != 0 || len % kPolyBlock != 0) return update_buffered(impl, st, in, len);
    if (len != 0) impl.poly1305_blocks(st, in, len / kPolyBlock);
}

void poly1305_pad16(const Impl& impl, Poly1305State& st) noexcept {
    if (st.buf_len == 0) return;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(st.buf), first_bytes(st.buf, st.buf_len));
    impl.poly1305_blocks(st, st.buf, 1);
    st.buf_len = 0;
}

// Carry h once more so h < 2^130 + small; g = h + 5 is at least 2^130
// exactly when h >= p, and then h − p is g's low 128 bits, chosen by a mask
// made of g's top bit, not by a branch; then the pad, and the tag as two
// 8-byte stores. One asm statement: g++ 12 kept _addcarry_u64's outputs in
// stack slots and joined the tag's halves in an xmm register, where clang
// 14 did neither (a 64-byte POLY1305 took ~10 cycles more from g++ on Zen 4).
[[gnu::always_inline]] static inline void finish(Poly1305State& st, uint8_t tag[16]) noexcept {
    uint64_t h0 = st.h[0], h1 = st.h[1], h2 = st.h[2], g0, g1, use_g;
    __asm__("movq %[h2], %[use_g]\n\t"
            "shrq $2, %[use_g]\n\t"
            "leaq (%[use_g],%[use_g],4), %[use_g]\n\t"  // (h2 >> 2)·5
            "andq $3, %[h2]\n\t"
            "addq %[use_g], %[h0]\n\t"
            "adcq $0, %[h1]\n\t"
            "adcq $0, %[h2]\n\t"
            "movq %[h0], %[g0]\n\t"
            "addq $5, %[g0]\n\t"
            "movq %[h1], %[g1]\n\t"
            "adcq $0, %[g1]\n\t"
            "adcq $0, %[h2]\n\t"                          // now g's top limb: 4 or more iff h >= p
            "shrq $2, %[h2]\n\t"
            "movq %[h2], %[use_g]\n\t"
            "negq %[use_g]\n\t"                           // all ones iff h >= p
            "xorq %[h0], %[g0]\n\t"
            "xorq %[h1], %[g1]\n\t"
            "andq %[use_g], %[g0]\n\t"
            "andq %[use_g], %[g1]\n\t"
            "xorq %[g0], %[h0]\n\t"
            "xorq %[g1], %[h1]\n\t"
            "addq %[pad0], %[h0]\n\t"
            "adcq %[pad1], %[h1]\n\t"
            "movq %[h0], 0(%[tag])\n\t"
            "movq %[h1], 8(%[tag])"
            : [h0] "+&r"(h0), [h1] "+&r"(h1), [h2] "+&r"(h2), [g0] "=&r"(g0), [g1] "=&r"(g1),
              [use_g] "=&r"(use_g), "=m"(*reinterpret_cast<uint8_t(*)[16]>(tag))
            : [pad0] "m"(st.pad[0]), [pad1] "m"(st.pad[1]), [tag] "r"(tag)
            : "cc");
    wipe_object(st);
}

// A message that ends in a buffered short block: that block, ended by a 1
// byte and without the 2^128 bit (§2.5.1), then the tag. Out of line, and
// reached by a tail call, so that the common ending (whole blocks) is a leaf
// that needs no callee-saved register (g++ 12 pushed six for every tag).
[[gnu::noinline]] static void finish_after_short_block(Poly1305State& st, uint8_t tag[16]) noexcept {
    const __m128i one_at_end = _mm_and_si128(
        _mm_cmpeq_epi8(byte_index(), _mm_set1_epi8(static_cast<char>(st.buf_len))), _mm_set1_epi8(1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(st.buf), _mm_or_si128(first_bytes(st.buf, st.buf_len), one_at_end));
    block(st.h, st.r[0], st.r[1], st.s1, st.buf, 0);
    finish(st, tag);
}

void poly1305_final(const Impl&, Poly1305State& st, uint8_t tag[16]) noexcept {
    if (st.buf_len > 0) return finish_after_short_block(st, tag);
    finish(st, tag);
}

}  // namespace stitch::kern
