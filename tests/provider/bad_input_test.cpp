// Every bad input stitch refuses, one table row each: which cipher, through
// which door (EVP or the provider's dispatch table), the call, and the error
// stitch must raise. bad_input_table.hpp holds what every row must satisfy:
// refused, stitch's error with that reason, nothing written, and the context
// good again after a re-init.
#include <openssl/core_names.h>

#include "bad_input_table.hpp"

namespace stitch::test {
namespace {

using namespace prov;

// A TLS 1.2 AAD whose length field says `length`.
Bytes tls_aad(size_t length) { return {0, 0, 0, 0, 0, 0, 0, 1, 0x17, 3, 3, uint8_t(length >> 8), uint8_t(length)}; }

std::string label(const char* base, size_t n) { return std::string(base) + "_" + std::to_string(n); }

// Rows every cipher shares, reached without EVP.
void add_direct_rows(std::vector<Row>& t, Kind k, const std::string& p, size_t n) {
    t.push_back({p + "_update_before_init", k, Via::Direct, 1, R_NOT_INITIALISED, [n](Scene& s) {
                     size_t outl;
                     return s.direct.update(s.out.data(), &outl, s.out.size(), s.in.data(), n) == 1;
                 }});
    t.push_back({p + "_init_with_16_byte_key", k, Via::Direct, 1, R_INVALID_KEY_LENGTH,
                 [](Scene& s) { return s.direct.init(1, s.key.data(), 16, s.iv.data(), s.iv.size()) == 1; }});
    t.push_back({p + "_init_with_long_key", k, Via::Direct, 1, R_INVALID_KEY_LENGTH, [](Scene& s) {
                     Bytes longer = concat(s.key, Bytes(1, 0));
                     return s.direct.init(1, longer.data(), longer.size(), s.iv.data(), s.iv.size()) == 1;
                 }});
    for (size_t ivlen : {size_t(0), size_t(4), size_t(8), size_t(12), size_t(16)}) {
        if (ivlen == iv_len(k)) continue;
        t.push_back({label((p + "_init_with_iv_length").c_str(), ivlen), k, Via::Direct, 0, R_INVALID_IV_LENGTH,
                     [ivlen](Scene& s) {
                         Bytes iv(16, 1);
                         return s.direct.init(0, s.key.data(), s.key.size(), iv.data(), ivlen) == 1;
                     }});
    }
    t.push_back({p + "_output_buffer_one_byte_short", k, Via::Direct, 1, R_OUTPUT_BUFFER_TOO_SMALL, [n](Scene& s) {
                     s.direct_init(1);
                     size_t outl;
                     return s.direct.update(s.out.data(), &outl, n - 1, s.in.data(), n) == 1;
                 }});
    t.push_back({p + "_cipher_entry_output_buffer_short", k, Via::Direct, 1, R_OUTPUT_BUFFER_TOO_SMALL, [n](Scene& s) {
                     s.direct_init(1);
                     size_t outl;
                     return s.direct.cipher(s.out.data(), &outl, n / 2, s.in.data(), n) == 1;
                 }});
    t.push_back({p + "_null_input_with_length", k, Via::Direct, 1, R_NULL_BUFFER, [n](Scene& s) {
                     s.direct_init(1);
                     size_t outl;
                     return s.direct.update(s.out.data(), &outl, s.out.size(), nullptr, n) == 1;
                 }});
    t.push_back({p + "_null_input_and_output_with_length", k, Via::Direct, 1, R_NULL_BUFFER, [n](Scene& s) {
                     s.direct_init(1);
                     size_t outl;
                     return s.direct.update(nullptr, &outl, s.out.size(), nullptr, n) == 1;
                 }});
    t.push_back({p + "_output_one_byte_after_input", k, Via::Direct, 0, R_OVERLAPPING_BUFFERS, [n](Scene& s) {
                     s.direct_init(0);
                     size_t outl;
                     return s.direct.update(s.out.data() + 1, &outl, n, s.out.data(), n) == 1;
                 }});
    t.push_back({p + "_output_one_byte_before_input", k, Via::Direct, 1, R_OVERLAPPING_BUFFERS, [n](Scene& s) {
                     s.direct_init(1);
                     size_t outl;
                     return s.direct.update(s.out.data(), &outl, n, s.out.data() + 1, n) == 1;
                 }});
}

std::vector<Row> aead_rows() {
    std::vector<Row> t;
    const Kind k = Kind::Aead;
    for (size_t n : {size_t(0), size_t(16), size_t(31), size_t(33), size_t(64)})
        t.push_back({label("aead_set_key_length", n), k, Via::Evp, 1, R_INVALID_KEY_LENGTH, [n](Scene& s) {
                         s.init(1);
                         return EVP_CIPHER_CTX_set_key_length(s.ctx.get(), int(n)) == 1;
                     }});
    t.push_back({"aead_keylen_param_16", k, Via::Evp, 1, R_INVALID_KEY_LENGTH, [](Scene& s) {
                     s.init(1);
                     return s.set_size_param(OSSL_CIPHER_PARAM_KEYLEN, 16);
                 }});
    for (size_t n : {size_t(0), size_t(1), size_t(8), size_t(11), size_t(13), size_t(16)})
        t.push_back({label("aead_ctrl_set_ivlen", n), k, Via::Evp, 0, R_INVALID_IV_LENGTH, [n](Scene& s) {
                         s.init(0);
                         return s.ctrl(EVP_CTRL_AEAD_SET_IVLEN, int(n), nullptr);
                     }});
    t.push_back({"aead_ivlen_param_8", k, Via::Evp, 1, R_INVALID_IV_LENGTH, [](Scene& s) {
                     s.init(1);
                     return s.set_size_param(OSSL_CIPHER_PARAM_IVLEN, 8);
                 }});
    for (size_t n : {size_t(0), size_t(1), size_t(8), size_t(15), size_t(17)})
        t.push_back({label("aead_decrypt_tag_length", n), k, Via::Evp, 0, R_INVALID_TAG_LENGTH, [n](Scene& s) {
                         s.init(0);
                         return s.ctrl(EVP_CTRL_AEAD_SET_TAG, int(n), s.in.data());
                     }});
    t.push_back({"aead_set_tag_when_encrypting", k, Via::Evp, 1, R_TAG_NOT_NEEDED, [](Scene& s) {
                     s.init(1);
                     return s.ctrl(EVP_CTRL_AEAD_SET_TAG, 16, s.in.data());
                 }});
    t.push_back({"aead_get_tag_right_after_init", k, Via::Evp, 1, R_TAG_NOT_READY, [](Scene& s) {
                     s.init(1);
                     return s.ctrl(EVP_CTRL_AEAD_GET_TAG, 16, s.out.data());
                 }});
    t.push_back({"aead_get_tag_before_final", k, Via::Evp, 1, R_TAG_NOT_READY, [](Scene& s) {
                     s.init(1);
                     s.aad(5);
                     s.data(50);
                     return s.ctrl(EVP_CTRL_AEAD_GET_TAG, 16, s.out.data());
                 }});
    t.push_back({"aead_get_tag_when_decrypting", k, Via::Evp, 0, R_TAG_NOT_READY, [](Scene& s) {
                     s.init(0);
                     s.data(50);
                     return s.ctrl(EVP_CTRL_AEAD_GET_TAG, 16, s.out.data());
                 }});
    t.push_back({"aead_decrypt_final_without_tag", k, Via::Evp, 0, R_TAG_NOT_SET, [](Scene& s) {
                     s.init(0);
                     s.aad(5);
                     s.data(50);
                     int outl;
                     return EVP_DecryptFinal_ex(s.ctx.get(), s.out.data(), &outl) == 1;
                 }});
    t.push_back({"aead_decrypt_final_without_tag_empty_message", k, Via::Evp, 0, R_TAG_NOT_SET, [](Scene& s) {
                     s.init(0);
                     int outl;
                     return EVP_DecryptFinal_ex(s.ctx.get(), s.out.data(), &outl) == 1;
                 }});
    t.push_back({"aead_evp_cipher_final_without_tag", k, Via::Evp, 0, R_TAG_NOT_SET, [](Scene& s) {
                     s.init(0);
                     s.aad(3);
                     s.data(20);
                     return EVP_Cipher(s.ctx.get(), nullptr, nullptr, 0) >= 0;
                 }});
    for (int enc : {1, 0})
        t.push_back({enc ? "aead_aad_after_data_encrypt" : "aead_aad_after_data_decrypt", k, Via::Evp, enc,
                     R_AAD_AFTER_DATA, [enc](Scene& s) {
                         s.init(enc);
                         s.aad(4);
                         s.data(10);
                         int outl;
                         return EVP_CipherUpdate(s.ctx.get(), nullptr, &outl, s.in.data(), 5) == 1;
                     }});
    t.push_back({"aead_final_twice_encrypt", k, Via::Evp, 1, R_ALREADY_FINAL, [](Scene& s) {
                     s.init(1);
                     s.data(10);
                     int outl;
                     EXPECT_EQ(EVP_EncryptFinal_ex(s.ctx.get(), s.scratch.data(), &outl), 1);
                     return EVP_EncryptFinal_ex(s.ctx.get(), s.out.data(), &outl) == 1;
                 }});
    t.push_back({"aead_final_twice_decrypt", k, Via::Evp, 0, R_ALREADY_FINAL, [](Scene& s) {
                     const CipherPtr ref(providers().fetch("ChaCha20-Poly1305", "default"));
                     const AeadMessage m{s.key, s.iv, {}, Bytes(s.in.begin(), s.in.begin() + 10)};
                     const AeadResult sealed = seal(ref.get(), m, one_shot_plan(m));
                     s.init(0);
                     int outl;
                     EXPECT_TRUE(s.ctrl(EVP_CTRL_AEAD_SET_TAG, 16, const_cast<uint8_t*>(sealed.tag.data())));
                     EXPECT_EQ(EVP_DecryptUpdate(s.ctx.get(), s.scratch.data(), &outl, sealed.text.data(), 10), 1);
                     EXPECT_EQ(EVP_DecryptFinal_ex(s.ctx.get(), s.scratch.data(), &outl), 1);
                     return EVP_DecryptFinal_ex(s.ctx.get(), s.out.data(), &outl) == 1;
                 }});
    t.push_back({"aead_update_after_final", k, Via::Evp, 1, R_ALREADY_FINAL, [](Scene& s) {
                     s.init(1);
                     s.data(10);
                     int outl;
                     EXPECT_EQ(EVP_EncryptFinal_ex(s.ctx.get(), s.scratch.data(), &outl), 1);
                     return s.update_into_out(10);
                 }});
    t.push_back({"aead_update_without_key", k, Via::Evp, 1, R_KEY_NOT_SET, [](Scene& s) {
                     s.init(1, false, true);
                     return s.update_into_out(10);
                 }});
    t.push_back({"aead_aad_without_key", k, Via::Evp, 1, R_KEY_NOT_SET, [](Scene& s) {
                     s.init(1, false, true);
                     int outl;
                     return EVP_CipherUpdate(s.ctx.get(), nullptr, &outl, s.in.data(), 5) == 1;
                 }});
    t.push_back({"aead_update_without_iv", k, Via::Evp, 0, R_IV_NOT_SET, [](Scene& s) {
                     s.init(0, true, false);
                     return s.update_into_out(10);
                 }});
    for (size_t n : {size_t(0), size_t(12), size_t(14)})
        t.push_back({label("aead_tls_aad_of_length", n), k, Via::Evp, 1, R_INVALID_TLS_AAD, [n](Scene& s) {
                         s.init(1);
                         Bytes a = concat(tls_aad(100), Bytes(1, 0));
                         return s.ctrl(EVP_CTRL_AEAD_TLS1_AAD, int(n), a.data());
                     }});
    for (size_t n : {size_t(0), size_t(1), size_t(15)})
        t.push_back(
            {label("aead_tls_decrypt_record_of_length", n), k, Via::Evp, 0, R_TLS_RECORD_TOO_SHORT, [n](Scene& s) {
                 s.init(0);
                 return s.ctrl(EVP_CTRL_AEAD_TLS1_AAD, 13, tls_aad(n).data());
             }});
    for (int enc : {1, 0})
        for (int delta : {-1, 1, 16}) {
            // The AAD says 100 payload bytes (enc) or a 116-byte record (dec).
            std::string name = std::string("aead_tls_") + (enc ? "encrypt" : "decrypt") + "_update_length_off_by_" +
                               (delta < 0 ? "minus_" : "plus_") + std::to_string(std::abs(delta));
            t.push_back({name, k, Via::Evp, enc, R_TLS_LENGTH_MISMATCH, [enc, delta](Scene& s) {
                             s.init(enc);
                             EXPECT_EQ(EVP_CIPHER_CTX_ctrl(s.ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13,
                                                           tls_aad(enc ? 100 : 116).data()),
                                       16);
                             return s.update_into_out(size_t(116 + delta));
                         }});
        }
    t.push_back({"aead_tls_encrypt_output_buffer_short", k, Via::Direct, 1, R_OUTPUT_BUFFER_TOO_SMALL, [](Scene& s) {
                     s.direct_init(1);
                     Bytes a = tls_aad(100);
                     OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, a.data(), 13),
                                       OSSL_PARAM_END};
                     EXPECT_EQ(s.direct.set_params(p), 1);
                     size_t outl;
                     return s.direct.update(s.out.data(), &outl, 115, s.in.data(), 116) == 1;
                 }});
    add_direct_rows(t, k, "aead", 100);
    return t;
}

std::vector<Row> chacha20_rows() {
    std::vector<Row> t;
    const Kind k = Kind::Chacha20;
    t.push_back({"chacha20_set_key_length_16", k, Via::Evp, 1, R_INVALID_KEY_LENGTH, [](Scene& s) {
                     s.init(1);
                     return EVP_CIPHER_CTX_set_key_length(s.ctx.get(), 16) == 1;
                 }});
    for (size_t n : {size_t(8), size_t(12)})
        t.push_back({label("chacha20_ivlen_param", n), k, Via::Evp, 1, R_INVALID_IV_LENGTH, [n](Scene& s) {
                         s.init(1);
                         return s.set_size_param(OSSL_CIPHER_PARAM_IVLEN, n);
                     }});
    t.push_back({"chacha20_update_without_key", k, Via::Evp, 1, R_KEY_NOT_SET, [](Scene& s) {
                     s.init(1, false, true);
                     return s.update_into_out(10);
                 }});
    t.push_back({"chacha20_update_without_iv", k, Via::Evp, 1, R_IV_NOT_SET, [](Scene& s) {
                     s.init(1, true, false);
                     return s.update_into_out(10);
                 }});
    t.push_back({"chacha20_null_output_with_length", k, Via::Direct, 1, R_NULL_BUFFER, [](Scene& s) {
                     s.direct_init(1);
                     size_t outl;
                     return s.direct.update(nullptr, &outl, s.out.size(), s.in.data(), 10) == 1;
                 }});
    add_direct_rows(t, k, "chacha20", 100);
    return t;
}

std::vector<Row> openssh_rows() {
    std::vector<Row> t;
    const Kind k = Kind::Openssh;
    // Too short for length ‖ tag: 5..19 bytes (4 alone is the length-only decrypt).
    for (size_t n = 5; n <= 19; ++n)
        t.push_back({label("openssh_decrypt_packet_of", n), k, Via::Evp, 0, R_INVALID_PACKET_LENGTH, [n](Scene& s) {
                         s.init(0);
                         return s.update_into_out(n);
                     }});
    for (size_t n : {size_t(5), size_t(12), size_t(19)})
        t.push_back({label("openssh_encrypt_packet_of", n), k, Via::Evp, 1, R_INVALID_PACKET_LENGTH, [n](Scene& s) {
                         s.init(1);
                         return s.update_into_out(n);
                     }});
    t.push_back({"openssh_second_packet_under_one_sequence_number", k, Via::Evp, 1, R_ALREADY_FINAL, [](Scene& s) {
                     s.init(1);
                     int outl;
                     EXPECT_EQ(EVP_EncryptUpdate(s.ctx.get(), s.scratch.data(), &outl, s.in.data(), 120), 1);
                     return s.update_into_out(120);  // keystream reuse: a new packet needs a new IV
                 }});
    t.push_back({"openssh_set_key_length_32", k, Via::Evp, 1, R_INVALID_KEY_LENGTH, [](Scene& s) {
                     s.init(1);
                     return EVP_CIPHER_CTX_set_key_length(s.ctx.get(), 32) == 1;
                 }});
    for (size_t n : {size_t(12), size_t(16)})
        t.push_back({label("openssh_ivlen_param", n), k, Via::Evp, 0, R_INVALID_IV_LENGTH, [n](Scene& s) {
                         s.init(0);
                         return s.set_size_param(OSSL_CIPHER_PARAM_IVLEN, n);
                     }});
    t.push_back({"openssh_update_without_key", k, Via::Evp, 1, R_KEY_NOT_SET, [](Scene& s) {
                     s.init(1, false, true);
                     return s.update_into_out(120);
                 }});
    t.push_back({"openssh_update_without_iv", k, Via::Evp, 0, R_IV_NOT_SET, [](Scene& s) {
                     s.init(0, true, false);
                     return s.update_into_out(120);
                 }});
    t.push_back({"openssh_decrypt_output_buffer_short", k, Via::Direct, 0, R_OUTPUT_BUFFER_TOO_SMALL, [](Scene& s) {
                     s.direct_init(0);
                     size_t outl;  // 120 in → 104 out; 103 is one short
                     return s.direct.update(s.out.data(), &outl, 103, s.in.data(), 120) == 1;
                 }});
    add_direct_rows(t, k, "openssh", 120);
    return t;
}

std::vector<Row> all_rows() {
    std::vector<Row> t = aead_rows();
    for (auto* more : {chacha20_rows, openssh_rows}) {
        auto r = more();
        t.insert(t.end(), r.begin(), r.end());
    }
    return t;
}

class BadInput : public ::testing::TestWithParam<Row> {};

TEST_P(BadInput, IsRefusedWithItsErrorWritesNothingAndTheContextRecovers) { run_row(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Provider, BadInput, ::testing::ValuesIn(all_rows()),
                         [](const ::testing::TestParamInfo<Row>& info) { return info.param.name; });

}  // namespace
}  // namespace stitch::test
