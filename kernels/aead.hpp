// ChaCha20-Poly1305 message state shared by both MAC grids:
//   rfc8439  RFC 8439 §2.8: AAD ‖ pad16 ‖ ciphertext ‖ pad16 ‖ LE64 aad_len ‖ LE64 text_len
//   openssh  PROTOCOL.chacha20poly1305: encrypted length (4 B) ‖ ciphertext, no padding, no lengths
// The grid only changes what is absorbed before and after the text; the one
// pass over the text (Impl::aead_text) is the same kernel for both.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern {

struct Impl;

enum class Direction : uint8_t { seal, open };
enum class Grid : uint8_t { rfc8439, openssh };

// AAD is held back (up to this much) until the first text call, so the
// Poly1305 key block can come out of the same batch as the first text blocks.
// TLS uses 5 (1.3) or 13 (1.2) bytes; OpenSSH puts its 4-byte length here.
inline constexpr size_t kPendingMax = 32;

// Records up to this length take the short path: one keystream call of at
// most four blocks (key block plus three), MAC before XOR on a whole-record open.
inline constexpr size_t kShortMax = 192;

struct AeadState {
    const Impl* impl;
    ChaChaState chacha;  // ctr[0] is the next block to generate (0 = the MAC key block)
    Poly1305State mac;
    uint8_t ks[kChaChaBlock];  // keystream of a partly used block
    uint32_t ks_pos;           // bytes of ks used; kChaChaBlock when none is buffered
    uint64_t aad_len;
    uint64_t text_len;
    uint64_t text_room;  // text bytes the 32-bit counter allows this message (rfc8439); unbounded for openssh
    Grid grid;
    bool mac_keyed;     // block 0 has been generated and keys `mac`
    bool text_started;  // no AAD after this
    alignas(16) uint8_t pending[kPendingMax];  // bytes past pending_len are always zero
    uint32_t pending_len;
};

// Binds the kernel set and the grid, and loads the key. The message state is
// not usable until aead_restart / aead_set_nonce.
void aead_init(AeadState& st, const Impl& impl, Grid grid) noexcept;
void aead_set_key(AeadState& st, const uint8_t key[32]) noexcept;

// Starts a message at counter words ctr (ctr[0] = counter of the MAC key block).
void aead_restart(AeadState& st, const uint32_t ctr[4]) noexcept;

// RFC 8439: counter `first_counter` (0 in the standard; tests start near 2^32) ‖ 96-bit nonce.
void aead_set_nonce(AeadState& st, const uint8_t nonce[12], uint32_t first_counter = 0) noexcept;

// OpenSSH: 64-bit counter 0 ‖ big-endian packet sequence number.
void aead_set_seqnr(AeadState& st, uint64_t seqnr) noexcept;

// That counter row, as one 16-byte store (bytes.hpp, store_words4): for
// both of OpenSSH's keys (openssh.cpp's K_1 block takes it too).
inline void store_seqnr_row(uint32_t ctr[4], uint64_t seqnr) noexcept {
    store_words4(ctr, 0, 0, __builtin_bswap32(uint32_t(seqnr >> 32)), __builtin_bswap32(uint32_t(seqnr)));
}

// Absorbs AAD. Refused (false, nothing changes) once text has started.
bool aead_aad(AeadState& st, const uint8_t* aad, size_t len) noexcept;

// Encrypts or decrypts `len` bytes, any split. Refused (false, nothing written)
// when the message would outgrow the 32-bit block counter (RFC 8439 §2.8:
// at most 2^32 − 1 blocks after the key block).
bool aead_text(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept;

// Ends the message and writes the full 16-byte tag.
void aead_final(AeadState& st, uint8_t tag[16]) noexcept;

// A whole record in hand: decrypts in[0..len) to out and checks `tag`. On a
// refusal out[0..len) holds zeros. Refused also on counter exhaustion (then
// nothing is written at all).
bool aead_open_record(AeadState& st, const uint8_t* in, uint8_t* out, size_t len, const uint8_t tag[16]) noexcept;

// Wipes the whole state (key included).
void aead_wipe(AeadState& st) noexcept;

// --- for kernels -----------------------------------------------------------

// Keys the MAC from block 0 and absorbs what was held back; when `for_text`,
// also pads the AAD on the rfc8439 grid, as the first text byte requires.
void aead_key_mac(AeadState& st, const uint8_t block0[kChaChaBlock], bool for_text) noexcept;

// A whole short text whose keystream the caller already has (ks: block 0,
// then blocks_for(len) text blocks): keys the MAC from block 0 and absorbs
// what was held back, then a seal's text is XORed into out and absorbed,
// an open's absorbed only (out unused: the caller decrypts after the
// verdict). Requires a message with no text yet; the counter room is the
// caller's to check (openssh.cpp: the openssh grid has no bound). The text
// is the message's whole: aead_text refuses any more.
void aead_text_with_keystream(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len,
                              const uint8_t* ks) noexcept;

// The portable one pass (contract of Impl::aead_text): st.ks_pos == 64, len > 0,
// the counter room already checked. If the MAC is not keyed yet, the first
// block generated keys it. Absorbs the ciphertext into st.mac at whatever
// offset st.mac.buf_len gives (0 on the rfc8439 grid, 4 on openssh's) and
// leaves the rest of a last partial block in st.ks. Does not touch text_len.
void aead_text_portable(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept;

// The portable whole-record open (contract of Impl::aead_open_record): all AAD
// given, no text yet, room checked. Records up to kShortMax are MAC'd before
// any byte is decrypted.
bool aead_open_record_portable(AeadState& st, const uint8_t* in, uint8_t* out, size_t len,
                               const uint8_t tag[16]) noexcept;

}  // namespace stitch::kern
