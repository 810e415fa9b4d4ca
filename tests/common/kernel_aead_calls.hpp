// RFC 8439 AEAD through the kernel API (kernels/aead.hpp) the way a caller
// drives it: key, nonce, AAD and text in chunks, tag. Shared by the vector
// tests so that every vector runs through the same few call shapes.
#pragma once

#include <algorithm>
#include <vector>

#include "common/test_util.hpp"
#include "kernels/aead.hpp"
#include "kernels/dispatch.hpp"

namespace stitch::test {

// How a message is cut into calls.
enum class Split { whole, bytewise, irregular };

inline const char* split_name(Split s) {
    return s == Split::whole ? "whole" : s == Split::bytewise ? "bytewise" : "irregular";
}

// Chunk lengths summing to len. The irregular pattern straddles the 16-byte
// Poly1305 and 64-byte ChaCha20 block edges.
inline std::vector<size_t> chunk_lengths(size_t len, Split split) {
    static constexpr size_t kPattern[] = {1, 15, 16, 17, 63, 64, 65, 3, 128, 31, 2, 191, 193};
    std::vector<size_t> out;
    for (size_t done = 0, i = 0; done < len; ++i) {
        size_t want = split == Split::whole ? len : split == Split::bytewise ? 1 : kPattern[i % std::size(kPattern)];
        size_t n = std::min(want, len - done);
        out.push_back(n);
        done += n;
    }
    return out;
}

// A message state as aead_text and aead_open_record find it: key, nonce (or
// OpenSSH sequence number), the AAD held back, and `len` bytes of text
// announced (what aead.cpp does before it calls the kernel). Shared by the
// tests that call a kernel set's entries directly (tests/wipe).
inline kern::AeadState announced_message(const kern::Impl& impl, kern::Grid grid, const Bytes& key, const Bytes& aad,
                                         size_t len) {
    kern::AeadState st;
    kern::aead_init(st, impl, grid);
    kern::aead_set_key(st, key.data());
    if (grid == kern::Grid::rfc8439) {
        const uint8_t nonce[12] = {7, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};
        kern::aead_set_nonce(st, nonce);
    } else {
        kern::aead_set_seqnr(st, 42);
    }
    kern::aead_aad(st, aad.data(), aad.size());
    st.text_started = true;
    st.text_len = len;
    return st;
}

struct Sealed {
    Bytes ct;
    Bytes tag;
};

struct Opened {
    bool ok = false;
    Bytes pt;
};

class KernelAead {
public:
    KernelAead(const kern::Impl& impl, const Bytes& key, const Bytes& nonce) {
        kern::aead_init(st_, impl, kern::Grid::rfc8439);
        kern::aead_set_key(st_, key.data());
        kern::aead_set_nonce(st_, nonce.data());
    }
    ~KernelAead() { kern::aead_wipe(st_); }
    KernelAead(const KernelAead&) = delete;
    KernelAead& operator=(const KernelAead&) = delete;

    bool aad(const Bytes& aad, Split split) {
        size_t off = 0;
        for (size_t n : chunk_lengths(aad.size(), split)) {
            if (!kern::aead_aad(st_, aad.data() + off, n)) return false;
            off += n;
        }
        return true;
    }

    // in == out when in_place; returns false if any chunk is refused.
    bool text(kern::Direction dir, const uint8_t* in, uint8_t* out, size_t len, Split split) {
        size_t off = 0;
        for (size_t n : chunk_lengths(len, split)) {
            if (!kern::aead_text(st_, dir, in + off, out + off, n)) return false;
            off += n;
        }
        return true;
    }

    Bytes final_tag() {
        Bytes tag(16);
        kern::aead_final(st_, tag.data());
        return tag;
    }

    kern::AeadState& state() { return st_; }

private:
    kern::AeadState st_;
};

inline Sealed kernel_seal(const kern::Impl& impl, const Bytes& key, const Bytes& nonce, const Bytes& aad,
                          const Bytes& pt, Split split, bool in_place) {
    KernelAead a(impl, key, nonce);
    Sealed s;
    if (!a.aad(aad, split)) return s;
    s.ct = in_place ? pt : Bytes(pt.size(), 0xa5);
    const uint8_t* in = in_place ? s.ct.data() : pt.data();
    if (!a.text(kern::Direction::seal, in, s.ct.data(), pt.size(), split)) return s;
    s.tag = a.final_tag();
    return s;
}

// Streaming open: decrypt in chunks, then compare the final tag.
inline Opened kernel_open_stream(const kern::Impl& impl, const Bytes& key, const Bytes& nonce, const Bytes& aad,
                                 const Bytes& ct, const Bytes& tag, Split split, bool in_place) {
    KernelAead a(impl, key, nonce);
    Opened o;
    if (!a.aad(aad, split)) return o;
    o.pt = in_place ? ct : Bytes(ct.size(), 0xa5);
    const uint8_t* in = in_place ? o.pt.data() : ct.data();
    if (!a.text(kern::Direction::open, in, o.pt.data(), ct.size(), split)) return o;
    o.ok = a.final_tag() == tag;
    return o;
}

// Whole-record open (aead_open_record): on a refusal the output must hold
// zeros, so it starts as 0xa5 to show what was written.
inline Opened kernel_open_record(const kern::Impl& impl, const Bytes& key, const Bytes& nonce, const Bytes& aad,
                                 const Bytes& ct, const Bytes& tag, bool in_place) {
    KernelAead a(impl, key, nonce);
    Opened o;
    if (!a.aad(aad, Split::whole)) return o;
    o.pt = in_place ? ct : Bytes(ct.size(), 0xa5);
    const uint8_t* in = in_place ? o.pt.data() : ct.data();
    o.ok = kern::aead_open_record(a.state(), in, o.pt.data(), ct.size(), tag.data());
    return o;
}

}  // namespace stitch::test
