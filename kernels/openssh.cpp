// OpenSSH framing over the shared one pass (PROTOCOL.chacha20poly1305). The
// encrypted length goes in as held-back "AAD" on the openssh grid, so the MAC
// runs 4 bytes ahead of the payload's 16-byte grid and nothing is padded.
#include "kernels/openssh.hpp"

#include "kernels/bytes.hpp"
#include "kernels/impl.hpp"
#include "kernels/verdict.hpp"

namespace stitch::kern {

static_assert(kOpensshLengthLen == 4, "the length is handled as one 32-bit word");

namespace {

// Block 0 under K_1 with the sequence number as the nonce: the length's
// keystream. One block through the kernel set dispatch chose, as a lone
// block runs there (a row pair, or general registers on Zen 5): the
// portable C block took 131 ns under clang 14 and 140 under g++ 12 on Zen 4,
// the AVX2 set's call 106 in either. The counter row goes in as one 16-byte
// store, which the kernel's 16-byte load of it can take straight from the
// store queue: as four 32-bit stores it waited for them to reach the cache,
// 48 of the length's 395 cycles on Zen 4 (both compilers).
void header_keystream(const OpensshState& st, uint64_t seqnr, uint8_t block[kChaChaBlock]) noexcept {
    ChaChaState h = st.header;
    store_seqnr_row(h.ctr, seqnr);
    st.main.impl->chacha20_blocks(h, nullptr, block, 1);
    wipe_object(h);
}

// Payloads up to this long take one keystream call for both keys where the
// kernel set has one (Impl::chacha20_two_keys): the length's block, block 0
// and four payload blocks, six lanes (three AVX2 row pairs, two AVX-512
// row sets).
constexpr size_t kShortPayloadMax = 4 * kChaChaBlock;
constexpr size_t kShortKeystreamBytes = kChaChaBlock + kChaChaBlock + kShortPayloadMax;  // K_1's, block 0, payload's

bool short_packet(const OpensshState& st, size_t payload) {
    return st.main.impl->chacha20_two_keys != nullptr && payload <= kShortPayloadMax;
}

// Starts the packet's message on st.main and puts the length's keystream
// block, block 0 and the payload's blocks in ks, one after another.
// This and the two below are inlined into openssh_seal and openssh_open,
// as clang 14 does on its own: g++ 12 kept each a call with its own frame,
// and its short packets ran 5-8% behind clang's on Ice Lake-SP (AVX-512
// set); inlined, they run 1-3% quicker.
[[gnu::always_inline]] inline void short_keystream(OpensshState& st, uint64_t seqnr, size_t payload,
                                                   uint8_t ks[kShortKeystreamBytes]) noexcept {
    ChaChaState h = st.header;
    store_seqnr_row(h.ctr, seqnr);
    aead_set_seqnr(st.main, seqnr);
    st.main.impl->chacha20_two_keys(h, st.main.chacha, 1 + (payload + kChaChaBlock - 1) / kChaChaBlock, ks);
    wipe_object(h);
}

[[gnu::always_inline]] inline void seal_short(OpensshState& st, uint64_t seqnr, const uint8_t* in, uint8_t* out,
                                              size_t payload, uint8_t tag[kTagLen]) noexcept {
    uint8_t ks[kShortKeystreamBytes];
    short_keystream(st, seqnr, payload, ks);
    store_le32(out, load_le32(in) ^ load_le32(ks));
    aead_aad(st.main, out, kOpensshLengthLen);
    aead_text_with_keystream(st.main, Direction::seal, in + kOpensshLengthLen, out + kOpensshLengthLen, payload,
                             ks + kChaChaBlock);
    aead_final(st.main, tag);
    wipe(ks, sizeof(ks));
}

// The MAC over the encrypted length and payload first, then both
// decrypted and masked by the verdict: zeros for a refused packet.
[[gnu::always_inline]] inline bool open_short(OpensshState& st, uint64_t seqnr, const uint8_t* in, uint8_t* out,
                                              size_t payload, const uint8_t tag[kTagLen]) noexcept {
    uint8_t ks[kShortKeystreamBytes];
    const uint32_t enc_length = load_le32(in);  // in == out overwrites it below
    short_keystream(st, seqnr, payload, ks);
    aead_aad(st.main, in, kOpensshLengthLen);
    aead_text_with_keystream(st.main, Direction::open, in + kOpensshLengthLen, nullptr, payload, ks + kChaChaBlock);
    const uint8_t keep = tag_verdict(st.main, tag);
    xor_short_masked(out + kOpensshLengthLen, in + kOpensshLengthLen, ks + 2 * kChaChaBlock, payload, keep);
    store_le32(out, (enc_length ^ load_le32(ks)) & (0x01010101u * keep));
    wipe(ks, sizeof(ks));
    return keep != 0;
}

}  // namespace

void openssh_init(OpensshState& st, const Impl& impl) noexcept {
    aead_init(st.main, impl, Grid::openssh);
    wipe_object(st.header);
}

void openssh_set_key(OpensshState& st, const uint8_t key[kOpensshKeyLen]) noexcept {
    aead_set_key(st.main, key);
    chacha_load_key(st.header, key + 32);
}

void openssh_length(const OpensshState& st, uint64_t seqnr, const uint8_t in[kOpensshLengthLen],
                    uint8_t out[kOpensshLengthLen]) noexcept {
    uint8_t ks[kChaChaBlock];
    header_keystream(st, seqnr, ks);
    store_le32(out, load_le32(in) ^ load_le32(ks));  // the 4 bytes as one word (g++ 12 made a byte loop)
    wipe(ks, sizeof(ks));
}

void openssh_seal(OpensshState& st, uint64_t seqnr, const uint8_t* in, uint8_t* out, size_t len,
                  uint8_t tag[kTagLen]) noexcept {
    if (short_packet(st, len - kOpensshLengthLen))
        return seal_short(st, seqnr, in, out, len - kOpensshLengthLen, tag);
    openssh_length(st, seqnr, in, out);
    aead_set_seqnr(st.main, seqnr);
    aead_aad(st.main, out, kOpensshLengthLen);
    aead_text(st.main, Direction::seal, in + kOpensshLengthLen, out + kOpensshLengthLen, len - kOpensshLengthLen);
    aead_final(st.main, tag);
}

bool openssh_open(OpensshState& st, uint64_t seqnr, const uint8_t* in, uint8_t* out, size_t len,
                  const uint8_t tag[kTagLen]) noexcept {
    if (short_packet(st, len - kOpensshLengthLen))
        return open_short(st, seqnr, in, out, len - kOpensshLengthLen, tag);
    uint8_t enc_length[kOpensshLengthLen];
    store_le32(enc_length, load_le32(in));  // in == out may overwrite it below
    aead_set_seqnr(st.main, seqnr);
    aead_aad(st.main, enc_length, kOpensshLengthLen);
    bool ok = aead_open_record(st.main, in + kOpensshLengthLen, out + kOpensshLengthLen, len - kOpensshLengthLen, tag);
    uint8_t length[kOpensshLengthLen];
    openssh_length(st, seqnr, enc_length, length);
    // The length is decrypted either way (same work); only an authentic
    // packet gets it, by mask rather than by branch.
    const uint32_t keep = 0u - uint32_t(ok);  // all ones for an authentic packet
    store_le32(out, load_le32(length) & keep);
    wipe(length, sizeof(length));
    return ok;
}

void openssh_wipe(OpensshState& st) noexcept {
    aead_wipe(st.main);
    wipe_object(st.header);
}

}  // namespace stitch::kern
