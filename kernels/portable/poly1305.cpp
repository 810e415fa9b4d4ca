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

void poly1305_update(const Impl& impl, Poly1305State& st, const uint8_t* in, size_t len) noexcept {
    if (st.buf_len > 0) {
        size_t take = std::min(len, kPolyBlock - st.buf_len);
        std::copy(in, in + take, st.buf + st.buf_len);
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
    std::copy(in, in + len, st.buf);
    st.buf_len = uint32_t(len);
}

void poly1305_pad16(const Impl& impl, Poly1305State& st) noexcept {
    if (st.buf_len == 0) return;
    std::fill(st.buf + st.buf_len, st.buf + kPolyBlock, 0);
    impl.poly1305_blocks(st, st.buf, 1);
    st.buf_len = 0;
}

void poly1305_final(const Impl&, Poly1305State& st, uint8_t tag[16]) noexcept {
    uint64_t* h = st.h;
    if (st.buf_len > 0) {
        // A short last block ends in 0x01 and has no 2^128 bit (§2.5.1).
        const __m128i one_at_end = _mm_and_si128(
            _mm_cmpeq_epi8(byte_index(), _mm_set1_epi8(static_cast<char>(st.buf_len))), _mm_set1_epi8(1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(st.buf), _mm_or_si128(first_bytes(st.buf, st.buf_len), one_at_end));
        block(h, st.r[0], st.r[1], st.s1, st.buf, 0);
    }
    // Carry once more so h < 2^130 + small, then subtract p if h >= p,
    // choosing by mask, not by branch. Add-with-carry intrinsics rather than
    // 128-bit sums: g++ 12 zeroed a register for every carry of those.
    unsigned long long h0, h1, g0, g1, t0, t1;
    const uint64_t c = (h[2] >> 2) * 5;
    unsigned char carry = _addcarry_u64(0, h[0], c, &h0);
    carry = _addcarry_u64(carry, h[1], 0, &h1);
    const uint64_t h2 = (h[2] & 3) + carry;

    carry = _addcarry_u64(0, h0, 5, &g0);
    carry = _addcarry_u64(carry, h1, 0, &g1);
    const uint64_t g2 = h2 + carry;
    const uint64_t use_g = 0 - (g2 >> 2);  // all ones when h + 5 >= 2^130, i.e. h >= p
    h0 = (h0 & ~use_g) | (g0 & use_g);
    h1 = (h1 & ~use_g) | (g1 & use_g);

    carry = _addcarry_u64(0, h0, st.pad[0], &t0);
    _addcarry_u64(carry, h1, st.pad[1], &t1);
    // Two 8-byte stores from general registers: g++ 12 joined the halves in
    // an xmm register (MOVQ, MOVQ, PUNPCKLQDQ) for one 16-byte store, a
    // longer path to the tag than the sum it stores.
    uint64_t lo = t0, hi = t1;
    __asm__("" : "+r"(lo), "+r"(hi));
    store_le64(tag, lo);
    __asm__("" ::: "memory");
    store_le64(tag + 8, hi);
    wipe_object(st);
}

}  // namespace stitch::kern
