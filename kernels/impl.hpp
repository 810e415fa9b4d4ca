// The contract every kernel set fills: one table of function pointers per
// set (and per tuning, where a set has several). The message state machines
// (aead.cpp, poly1305's buffering in portable/poly1305.cpp) call through it;
// which table a process uses is dispatch's business (dispatch.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/aead.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::kern {

struct Impl {
    const char* name;  // "portable", "avx2", "avx512-ifma", "avx512": reported by the provider's `kernel` param

    // ChaCha20 over whole blocks; see chacha20_blocks_portable for the contract.
    void (*chacha20_blocks)(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept;

    // Poly1305 over whole 16-byte blocks.
    void (*poly1305_blocks)(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept;

    // The one pass over AEAD text; see aead_text_portable for the contract.
    void (*aead_text)(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept;

    // Whole-record open: verifies before it decrypts where the record is short.
    // See aead_open_record_portable. Every implementation takes its verdict
    // from kernels/verdict.hpp.
    bool (*aead_open_record)(AeadState& st, const uint8_t* in, uint8_t* out, size_t len,
                             const uint8_t tag[16]) noexcept;

    // A name of its own where a set offers several Impls under one name
    // (the AVX-512 set built on SIMDe: "avx512 (SIMDe)"); null where name
    // says it all. See impl_label().
    const char* label = nullptr;

    // Blocks one chacha20_blocks call computes at no more cost than one: the
    // set's batch (8 for AVX2), or two (32 for AVX-512: one pair of batches
    // where the CPU table runs pairs, Zen 5, and no dearer than two calls
    // elsewhere). A raw ChaCha20 update that
    // ends in a partial block takes that block's keystream in the same call
    // as the whole blocks of the last such run (chacha_stream_xor), not in a
    // call of its own.
    uint32_t keystream_run = 1;

    // That last run in the set's own registers: out = in ^ keystream for len
    // bytes (len % 64 != 0, at most xor_last_blocks blocks begun), st advanced
    // past every block begun, and the last block's whole keystream in kept
    // (the stream's buffer, for the next update). Null: chacha_stream_xor
    // takes the run's keystream into a buffer through chacha20_blocks and
    // XORs it from there.
    void (*chacha20_xor_last)(ChaChaState& st, const uint8_t* in, uint8_t* out, size_t len,
                              uint8_t kept[kChaChaBlock]) noexcept = nullptr;

    // The most blocks begun chacha20_xor_last takes: keystream_run (0 says
    // the same), or keystream_run + 1 where the set's last run takes a
    // whole run and the partial block after it in one go (the AVX2 set's
    // nine-block statement); chacha_stream_xor then hands it an update's
    // last run of keystream_run whole blocks with the partial one.
    uint32_t xor_last_blocks = 0;

    // One block under `first` and n (1..5) under `rest`, each from its own
    // counter words as they are, in one call: out[0..64) = first's block,
    // then rest's blocks in order; neither state advances. OpenSSH's short
    // packets (openssh.cpp): their length block (K_1) and their block 0 and
    // payload blocks (K_2) are independent chains that one set of row
    // rounds runs side by side, where two calls ran them one after the
    // other. Null: the packet takes the two calls.
    void (*chacha20_two_keys)(const ChaChaState& first, const ChaChaState& rest, size_t n,
                              uint8_t* out) noexcept = nullptr;
};

// What tests and benchmarks call an Impl: its label, else its name. Labels
// are unique among the Impls of a build.
inline const char* impl_label(const Impl& impl) noexcept { return impl.label ? impl.label : impl.name; }

}  // namespace stitch::kern
