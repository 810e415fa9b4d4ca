// HMAC on the compression functions directly: a MAC is the saved inner state,
// the message and its padding in one or two blocks on the stack, then the
// saved outer state and one block. HKDF's messages are short, so this is
// where the time goes besides the compressions themselves.
#include "kernels/hmac.hpp"

#include <cstring>

#include "kernels/bytes.hpp"

namespace stitch::kern {

namespace {

void compress(const Sha2Impl& impl, Sha2 alg, Sha2State& st, const uint8_t* in, size_t nblocks) noexcept {
    if (alg == Sha2::sha256)
        impl.sha256_blocks(st.w32, in, nblocks);
    else
        impl.sha512_blocks(st.w64, in, nblocks);
}

// The digest: the first HashLen bytes of the state, big-endian.
void store_digest(Sha2 alg, const Sha2State& st, uint8_t* out) noexcept {
    if (alg == Sha2::sha256) {
        for (int i = 0; i < 8; ++i) {
            const uint32_t be = __builtin_bswap32(st.w32[i]);
            std::memcpy(out + 4 * i, &be, 4);
        }
        return;
    }
    const size_t words = sha2_digest_len(alg) / 8;
    for (size_t i = 0; i < words; ++i) {
        const uint64_t be = __builtin_bswap64(st.w64[i]);
        std::memcpy(out + 8 * i, &be, 8);
    }
}

// Pads the n buffered bytes of buf (FIPS 180-4 §5.1: 0x80, zeros, the
// message length in bits) and compresses the last one or two blocks.
// buf has room for two blocks.
// Returns how many blocks of buf it wrote.
size_t finish(const Sha2Impl& impl, Sha2 alg, Sha2State& st, uint8_t* buf, size_t n, uint64_t total) noexcept {
    const size_t block = sha2_block_len(alg);
    const size_t len_field = alg == Sha2::sha256 ? 8 : 16;
    const size_t blocks = n + 1 + len_field <= block ? 1 : 2;
    buf[n] = 0x80;
    std::memset(buf + n + 1, 0, blocks * block - n - 1);
    const uint64_t be_bits = __builtin_bswap64(total * 8);
    std::memcpy(buf + blocks * block - 8, &be_bits, 8);
    compress(impl, alg, st, buf, blocks);
    return blocks;
}

}  // namespace

void Sha2Hmac::load_key(const uint8_t* key, size_t len) noexcept {
    // The pads are built a word at a time: byte stores followed by the
    // kernel's word loads would stall store-to-load forwarding. ipad holds
    // the key (or its hash) first.
    const size_t block = sha2_block_len(alg_);
    alignas(32) uint64_t ipad[kSha2MaxBlock / 8], opad[kSha2MaxBlock / 8];
    std::memset(ipad, 0, block);
    if (len > block)
        sha2_digest(*impl_, alg_, key, len, reinterpret_cast<uint8_t*>(ipad));
    else if (len)
        std::memcpy(ipad, key, len);
    for (size_t i = 0; i < block / 8; ++i) {
        opad[i] = ipad[i] ^ 0x5c5c5c5c5c5c5c5cull;
        ipad[i] ^= 0x3636363636363636ull;
    }
    // The two pad blocks are independent: the kernel may compress them side by side.
    inner_ = sha2_iv(alg_);
    outer_ = sha2_iv(alg_);
    const auto* i_bytes = reinterpret_cast<const uint8_t*>(ipad);
    const auto* o_bytes = reinterpret_cast<const uint8_t*>(opad);
    if (alg_ == Sha2::sha256)
        impl_->sha256_pair(inner_.w32, i_bytes, outer_.w32, o_bytes);
    else
        impl_->sha512_pair(inner_.w64, i_bytes, outer_.w64, o_bytes);

    wipe(ipad, block);
    wipe(opad, block);
}

void Sha2Hmac::compute(std::initializer_list<ByteView> pieces, uint8_t* out) noexcept {
    const size_t block = sha2_block_len(alg_);
    alignas(16) uint8_t buf[2 * kSha2MaxBlock];
    Sha2State st = inner_;
    uint64_t total = block;  // the inner pad block is already in st
    size_t n = 0;            // bytes waiting in buf
    for (const ByteView& p : pieces) {
        const uint8_t* in = p.data;
        size_t len = p.len;
        total += len;
        while (len) {
            if (n == 0 && len >= block) {
                const size_t whole = len / block;
                compress(*impl_, alg_, st, in, whole);
                in += whole * block;
                len -= whole * block;
                continue;
            }
            const size_t take = len < block - n ? len : block - n;
            std::memcpy(buf + n, in, take);
            n += take;
            in += take;
            len -= take;
            if (n == block) {
                compress(*impl_, alg_, st, buf, 1);
                n = 0;
            }
        }
    }
    const size_t used = finish(*impl_, alg_, st, buf, n, total) * block;

    // The outer hash: its pad block is in outer_, then the inner digest.
    const size_t hash_len = size();
    store_digest(alg_, st, buf);
    st = outer_;
    finish(*impl_, alg_, st, buf, hash_len, block + hash_len);
    store_digest(alg_, st, out);

    wipe(buf, used);  // the outer block lies within it
    wipe(&st, sizeof(st));
}

// Hash("") of each algorithm: a constant, so TLS 1.3's Derive-Secret(., "derived", "")
// costs no compression for it.
constexpr uint8_t kEmpty256[32] = {
    0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
    0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
};
constexpr uint8_t kEmpty384[48] = {
    0x38, 0xb0, 0x60, 0xa7, 0x51, 0xac, 0x96, 0x38, 0x4c, 0xd9, 0x32, 0x7e, 0xb1, 0xb1, 0xe3, 0x6a,
    0x21, 0xfd, 0xb7, 0x11, 0x14, 0xbe, 0x07, 0x43, 0x4c, 0x0c, 0xc7, 0xbf, 0x63, 0xf6, 0xe1, 0xda,
    0x27, 0x4e, 0xde, 0xbf, 0xe7, 0x6f, 0x65, 0xfb, 0xd5, 0x1a, 0xd2, 0xf1, 0x48, 0x98, 0xb9, 0x5b,
};
constexpr uint8_t kEmpty512[64] = {
    0xcf, 0x83, 0xe1, 0x35, 0x7e, 0xef, 0xb8, 0xbd, 0xf1, 0x54, 0x28, 0x50, 0xd6, 0x6d, 0x80, 0x07,
    0xd6, 0x20, 0xe4, 0x05, 0x0b, 0x57, 0x15, 0xdc, 0x83, 0xf4, 0xa9, 0x21, 0xd3, 0x6c, 0xe9, 0xce,
    0x47, 0xd0, 0xd1, 0x3c, 0x5d, 0x85, 0xf2, 0xb0, 0xff, 0x83, 0x18, 0xd2, 0x87, 0x7e, 0xec, 0x2f,
    0x63, 0xb9, 0x31, 0xbd, 0x47, 0x41, 0x7a, 0x81, 0xa5, 0x38, 0x32, 0x7a, 0xf9, 0x27, 0xda, 0x3e,
};

void Sha2Hmac::copy_empty_hash(uint8_t* out) noexcept {
    const uint8_t* h = alg_ == Sha2::sha256 ? kEmpty256 : alg_ == Sha2::sha384 ? kEmpty384 : kEmpty512;
    std::memcpy(out, h, size());
}

void Sha2Hmac::wipe_key() noexcept {
    wipe(&inner_, sizeof(inner_));
    wipe(&outer_, sizeof(outer_));
}

}  // namespace stitch::kern
