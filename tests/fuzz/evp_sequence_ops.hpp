// The op byte of the EVP sequence fuzzer. Data and AAD calls get more of the
// 256 values than the rest, since messages are made of them. ChaCha20 has no
// tag, AAD or TLS record: those values become data calls there (an AAD call,
// out == NULL, would make 3.0's raw ChaCha20 write through NULL).
#pragma once

#include <cstdint>

#include "evp_sequence_model.hpp"

namespace stitch::fuzz {

enum class Op : uint8_t {
    fresh,         // new contexts for a pair: EVP_CipherInit_ex(ctx, cipher, NULL, NULL, NULL, enc)
    init,          // EVP_CipherInit_ex with key and/or IV, enc 0 / 1 / -1, the cipher again or not
    set_tag,       // `tag` param: 0..17 bytes, with data or a length alone
    get_tag,       // `tag` param read: 0..17 bytes
    get_lengths,   // taglen, ivlen, keylen read
    set_lengths,   // ivlen, keylen set, right or wrong
    aad,           // EVP_CipherUpdate(ctx, NULL, &outl, aad, n)
    data,          // EVP_CipherUpdate or EVP_Cipher, in place or not
    final,         // EVP_CipherFinal_ex
    cipher_final,  // EVP_Cipher(ctx, NULL, NULL, 0)
    tls_aad,       // EVP_CTRL_AEAD_TLS1_AAD: 13 bytes (or 12/14)
    tls_iv_fixed,  // `tlsivfixed` param
    dup,           // EVP_CIPHER_CTX_copy from one pair to the other
    flip,          // a bit flipped in a transcript
    overlap,       // stitch alone: partially overlapping in and out
    replay,        // the last sealed message opened whole, cut as the input says
};

inline Op decode_op(uint8_t b, Kind k) {
    static constexpr Op kTable[32] = {
        Op::fresh,   Op::init,    Op::init,      Op::init,         Op::set_tag, Op::set_tag, Op::get_tag,
        Op::get_lengths, Op::set_lengths, Op::aad, Op::aad,        Op::aad,     Op::data,    Op::data,
        Op::data,    Op::data,    Op::data,      Op::data,         Op::final,   Op::final,   Op::cipher_final,
        Op::tls_aad, Op::tls_aad, Op::tls_iv_fixed, Op::dup,       Op::dup,     Op::flip,    Op::flip,
        Op::overlap, Op::replay,  Op::aad,       Op::final,
    };
    const Op op = kTable[b % 32];
    if (k == Kind::chacha &&
        (op == Op::set_tag || op == Op::get_tag || op == Op::aad || op == Op::tls_aad || op == Op::tls_iv_fixed ||
         op == Op::flip || op == Op::replay))
        return Op::data;
    return op;
}

inline const char* op_name(Op op) {
    static constexpr const char* kNames[] = {"fresh", "init", "set_tag", "get_tag", "get_len", "set_len", "aad", "data",
                                             "final", "cipher_final", "tlsaad", "tlsivfixed", "dup", "flip", "overlap",
                                             "replay"};
    return kNames[static_cast<int>(op)];
}

}  // namespace stitch::fuzz
