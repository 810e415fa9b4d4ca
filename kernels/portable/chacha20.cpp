// Portable ChaCha20 block function (RFC 8439 §2.3) and the raw stream on
// top of whichever block kernel dispatch chose. The reference every faster
// path is tested against.
#include "kernels/chacha20.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/bytes.hpp"
#include "kernels/impl.hpp"

namespace stitch::kern {

// The most blocks a partial block's run takes (chacha_stream_xor): the
// AVX-512 set's two batches.
constexpr size_t kMaxKeystreamRun = 32;

void chacha_load_key(ChaChaState& st, const uint8_t key[32]) noexcept {
    for (int i = 0; i < 8; ++i) st.key[i] = load_le32(key + 4 * i);
}

void chacha20_block_portable(const ChaChaState& st, uint8_t out[64]) noexcept {
    uint32_t x[16], in[16];
    for (int i = 0; i < 4; ++i) in[i] = kSigma[i];
    for (int i = 0; i < 8; ++i) in[4 + i] = st.key[i];
    for (int i = 0; i < 4; ++i) in[12 + i] = st.ctr[i];
    for (int i = 0; i < 16; ++i) x[i] = in[i];
    for (int round = 0; round < 10; ++round) {
        quarter_round(x[0], x[4], x[8], x[12]);
        quarter_round(x[1], x[5], x[9], x[13]);
        quarter_round(x[2], x[6], x[10], x[14]);
        quarter_round(x[3], x[7], x[11], x[15]);
        quarter_round(x[0], x[5], x[10], x[15]);
        quarter_round(x[1], x[6], x[11], x[12]);
        quarter_round(x[2], x[7], x[8], x[13]);
        quarter_round(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; ++i) store_le32(out + 4 * i, x[i] + in[i]);
    wipe(x, sizeof(x));
    wipe(in, sizeof(in));
}

void chacha20_blocks_portable(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept {
    uint8_t ks[kChaChaBlock];
    for (size_t b = 0; b < nblocks; ++b) {
        chacha20_block_portable(st, ks);
        chacha_advance(st.ctr, 1);
        if (in) {
            for (size_t i = 0; i < kChaChaBlock; ++i) out[i] = in[i] ^ ks[i];
            in += kChaChaBlock;
        } else {
            std::copy(ks, ks + kChaChaBlock, out);
        }
        out += kChaChaBlock;
    }
    wipe(ks, sizeof(ks));
}

void chacha_stream_reset(ChaChaStream& s) noexcept {
    wipe(s.ks, sizeof(s.ks));
    s.ks_pos = kChaChaBlock;
}

void chacha_stream_xor(const Impl& impl, ChaChaStream& s, const uint8_t* in, uint8_t* out, size_t len) noexcept {
    // Finish the block a previous call left partly used.
    if (len > 0 && s.ks_pos < kChaChaBlock) {
        const size_t take = std::min(len, size_t(kChaChaBlock - s.ks_pos));
        xor_short(out, in, s.ks + s.ks_pos, take);
        s.ks_pos += uint32_t(take);
        in += take;
        out += take;
        len -= take;
    }
    const size_t whole = len / kChaChaBlock, tail = len % kChaChaBlock;
    if (tail == 0) {
        if (whole > 0) impl.chacha20_blocks(s.st, in, out, whole);
        return;
    }
    // A partial last block: its keystream comes in one call with the whole
    // blocks of the last run (at most keystream_run blocks in all), into a
    // buffer, and is kept in s.ks. A call of its own for it cost a 100-byte
    // update a second lone block (~90 ns on Zen 4).
    const size_t run = std::clamp<size_t>(impl.keystream_run, 1, kMaxKeystreamRun);
    size_t near = whole % run, bulk = whole - near;
    // A set whose last run takes one run more (Impl::xor_last_blocks) gets
    // the last whole run with the partial block rather than none.
    if (impl.chacha20_xor_last && near == 0 && bulk > 0 && impl.xor_last_blocks > run) near = run, bulk -= run;
    if (bulk > 0) {
        impl.chacha20_blocks(s.st, in, out, bulk);
        in += bulk * kChaChaBlock;
        out += bulk * kChaChaBlock;
    }
    s.ks_pos = uint32_t(tail);
    if (impl.chacha20_xor_last) {
        impl.chacha20_xor_last(s.st, in, out, near * kChaChaBlock + tail, s.ks);
        return;
    }
    alignas(32) uint8_t ks[kMaxKeystreamRun * kChaChaBlock];
    impl.chacha20_blocks(s.st, nullptr, ks, near + 1);
    const size_t near_bytes = near * kChaChaBlock;
    xor_short(out, in, ks, near_bytes + tail);
    std::memcpy(s.ks, ks + near_bytes, kChaChaBlock);
    wipe(ks, near_bytes + kChaChaBlock);
}

}  // namespace stitch::kern
