// Every bad input stitch refuses, one row each (issue 5 item 6): the cipher,
// the door (EVP, or the provider's dispatch table for what EVP stops or never
// passes), the bad call, and the OpenSSL error stitch raises.
// bad_input_harness.hpp holds what every row must satisfy.
//
// Counter exhaustion is not a row here: through the provider it needs an
// RFC 8439 message of 2^32 − 1 blocks (256 GiB), too long for a test.
// counter_limit_test.cpp checks it through the kernel API with the counter
// started near the end.
#include "bad_input_harness.hpp"

namespace stitch::test {
namespace {

using namespace prov;

std::string numbered(const std::string& base, size_t n) { return base + "_" + std::to_string(n); }

// A TLS 1.2 record header whose length field says `length`.
Bytes tls_aad(size_t length) { return {0, 0, 0, 0, 0, 0, 0, 1, 0x17, 3, 3, uint8_t(length >> 8), uint8_t(length)}; }

bool set_tls_aad_direct(Scene& s, const Bytes& aad) {
    OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD,
                                                        const_cast<uint8_t*>(aad.data()), aad.size()),
                      OSSL_PARAM_END};
    return s.direct.set_params(p) == 1;
}

// --- rows every cipher has ------------------------------------------------------

// `n`: a good whole-call length for the cipher (an OpenSSH packet of n bytes);
// wrong_iv_*: IV lengths the cipher must refuse, besides 0.
void add_shared_rows(std::vector<Row>& t, Alg alg, const std::string& p, size_t n, size_t wrong_iv_a,
                     size_t wrong_iv_b) {
    const size_t keylen = info(alg).keylen;
    t.push_back({p + "_update_before_init", alg, Door::dispatch, R_NOT_INITIALISED, Outl::zero,
                 [n](Scene& s) { return s.direct_update(s.out.size(), s.in.data(), n); }});
    t.push_back({p + "_final_before_init", alg, Door::dispatch, R_NOT_INITIALISED, Outl::zero,
                 [](Scene& s) { return s.direct.final(s.out.data(), &s.outl, s.out.size()) == 1; }});
    for (size_t bad : {size_t(0), size_t(16), keylen - 1, keylen + 1})
        if (bad != keylen)
            t.push_back(
                {numbered(p + "_init_key_length", bad), alg, Door::dispatch, R_INVALID_KEY_LENGTH, Outl::none,
                 [bad](Scene& s) { return s.direct.init(1, s.in.data(), bad, s.iv.data(), s.iv.size()) == 1; }});
    for (size_t bad : {size_t(0), wrong_iv_a, wrong_iv_b})
        t.push_back({numbered(p + "_init_iv_length", bad), alg, Door::dispatch, R_INVALID_IV_LENGTH, Outl::none,
                     [bad](Scene& s) { return s.direct.init(0, s.key.data(), s.key.size(), s.in.data(), bad) == 1; }});
    t.push_back({p + "_output_buffer_one_byte_short", alg, Door::dispatch, R_OUTPUT_BUFFER_TOO_SMALL, Outl::zero,
                 [n](Scene& s) {
                     s.direct_init(1);
                     return s.direct_update(n - 1, s.in.data(), n);
                 }});
    t.push_back({p + "_cipher_entry_output_buffer_short", alg, Door::dispatch, R_OUTPUT_BUFFER_TOO_SMALL, Outl::zero,
                 [n](Scene& s) {
                     s.direct_init(1);
                     return s.direct.cipher(s.out.data(), &s.outl, n / 2, s.in.data(), n) == 1;
                 }});
    t.push_back({p + "_null_input_with_length", alg, Door::dispatch, R_NULL_BUFFER, Outl::zero, [n](Scene& s) {
                     s.direct_init(1);
                     return s.direct_update(s.out.size(), nullptr, n);
                 }});
    t.push_back(
        {p + "_cipher_entry_null_input_with_length", alg, Door::dispatch, R_NULL_BUFFER, Outl::zero, [n](Scene& s) {
             s.direct_init(0);
             return s.direct.cipher(s.out.data(), &s.outl, s.out.size(), nullptr, n) == 1;
         }});
    // in == out is in place and fine; one byte apart either way is not.
    t.push_back(
        {p + "_output_one_byte_past_input", alg, Door::dispatch, R_OVERLAPPING_BUFFERS, Outl::zero, [n](Scene& s) {
             s.direct_init(1);
             return s.direct.update(s.out.data() + 1, &s.outl, n, s.out.data(), n) == 1;
         }});
    t.push_back(
        {p + "_output_one_byte_before_input", alg, Door::dispatch, R_OVERLAPPING_BUFFERS, Outl::zero, [n](Scene& s) {
             s.direct_init(0);
             return s.direct.update(s.out.data(), &s.outl, n, s.out.data() + 1, n) == 1;
         }});
    t.push_back({p + "_set_key_length", alg, Door::evp, R_INVALID_KEY_LENGTH, Outl::none, [keylen](Scene& s) {
                     s.init(1);
                     return EVP_CIPHER_CTX_set_key_length(s.evp(), int(keylen / 2)) == 1;
                 }});
    t.push_back({p + "_ivlen_param", alg, Door::evp, R_INVALID_IV_LENGTH, Outl::none, [wrong_iv_a](Scene& s) {
                     s.init(1);
                     return s.set_size_param(OSSL_CIPHER_PARAM_IVLEN, wrong_iv_a);
                 }});
    t.push_back({p + "_update_without_key", alg, Door::evp, R_KEY_NOT_SET, Outl::untouched, [n](Scene& s) {
                     s.init(1, false, true);
                     return s.evp_update(n);
                 }});
    t.push_back({p + "_update_without_iv", alg, Door::evp, R_IV_NOT_SET, Outl::untouched, [n](Scene& s) {
                     s.init(0, true, false);
                     return s.evp_update(n);
                 }});
}

// --- ChaCha20-Poly1305 ----------------------------------------------------------

std::vector<Row> aead_rows() {
    std::vector<Row> t;
    const Alg a = Alg::aead;
    add_shared_rows(t, a, "aead", 100, 8, 16);
    for (size_t n : {size_t(0), size_t(15), size_t(17)})
        t.push_back(
            {numbered("aead_decrypt_tag_length", n), a, Door::evp, R_INVALID_TAG_LENGTH, Outl::none, [n](Scene& s) {
                 s.init(0);
                 return s.ctrl(EVP_CTRL_AEAD_SET_TAG, int(n), s.in.data());
             }});
    t.push_back({"aead_get_tag_length_17", a, Door::evp, R_INVALID_TAG_LENGTH, Outl::none, [](Scene& s) {
                     s.init(1);
                     s.text(10);
                     s.good_final(1, 10);
                     return s.ctrl(EVP_CTRL_AEAD_GET_TAG, 17, s.out.data());
                 }});
    t.push_back({"aead_set_tag_when_encrypting", a, Door::evp, R_TAG_NOT_NEEDED, Outl::none, [](Scene& s) {
                     s.init(1);
                     return s.ctrl(EVP_CTRL_AEAD_SET_TAG, 16, s.in.data());
                 }});
    t.push_back({"aead_get_tag_before_final", a, Door::evp, R_TAG_NOT_READY, Outl::none, [](Scene& s) {
                     s.init(1);
                     s.aad(5);
                     s.text(50);
                     return s.ctrl(EVP_CTRL_AEAD_GET_TAG, 16, s.out.data());
                 }});
    t.push_back({"aead_decrypt_final_without_tag", a, Door::evp, R_TAG_NOT_SET, Outl::untouched, [](Scene& s) {
                     s.init(0);
                     s.aad(5);
                     s.text(50);
                     return s.evp_final();
                 }});
    t.push_back({"aead_evp_cipher_null_without_tag", a, Door::evp, R_TAG_NOT_SET, Outl::none, [](Scene& s) {
                     s.init(0);
                     s.text(20);
                     return EVP_Cipher(s.evp(), nullptr, nullptr, 0) >= 0;
                 }});
    t.push_back({"aead_final_without_key", a, Door::evp, R_KEY_NOT_SET, Outl::untouched, [](Scene& s) {
                     s.init(1, false, true);
                     return s.evp_final();
                 }});
    t.push_back({"aead_aad_without_iv", a, Door::evp, R_IV_NOT_SET, Outl::untouched, [](Scene& s) {
                     s.init(1, true, false);
                     return EVP_CipherUpdate(s.evp(), nullptr, &s.evp_outl, s.in.data(), 5) == 1;
                 }});
    for (int enc : {1, 0}) {
        const std::string dir = enc ? "encrypt" : "decrypt";
        t.push_back({"aead_final_twice_" + dir, a, Door::evp, R_ALREADY_FINAL, Outl::untouched, [enc](Scene& s) {
                         s.init(enc);
                         s.text(10);
                         s.good_final(enc, 10);
                         return s.evp_final();
                     }});
        t.push_back({"aead_update_after_final_" + dir, a, Door::evp, R_ALREADY_FINAL, Outl::untouched, [enc](Scene& s) {
                         s.init(enc);
                         s.text(10);
                         s.good_final(enc, 10);
                         return s.evp_update(10);
                     }});
        t.push_back({"aead_aad_after_data_" + dir, a, Door::evp, R_AAD_AFTER_DATA, Outl::untouched, [enc](Scene& s) {
                         s.init(enc);
                         s.aad(4);
                         s.text(10);
                         return EVP_CipherUpdate(s.evp(), nullptr, &s.evp_outl, s.in.data(), 5) == 1;
                     }});
    }
    for (size_t n : {size_t(0), size_t(12), size_t(14)})
        t.push_back({numbered("aead_tls_aad_of_length", n), a, Door::evp, R_INVALID_TLS_AAD, Outl::none, [n](Scene& s) {
                         s.init(1);
                         Bytes aad = tls_aad(100);
                         aad.resize(14, 0);
                         return s.ctrl(EVP_CTRL_AEAD_TLS1_AAD, int(n), aad.data());
                     }});
    for (size_t len : {size_t(0), size_t(1), size_t(15)})
        t.push_back({numbered("aead_tls_decrypt_record_of_length", len), a, Door::evp, R_TLS_RECORD_TOO_SHORT,
                     Outl::none, [len](Scene& s) {
                         s.init(0);
                         Bytes aad = tls_aad(len);
                         return s.ctrl(EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data());
                     }});
    t.push_back({"aead_tls_aad_without_key", a, Door::evp, R_KEY_NOT_SET, Outl::none, [](Scene& s) {
                     s.init(1, false, true);
                     Bytes aad = tls_aad(100);
                     return s.ctrl(EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data());
                 }});
    for (int enc : {1, 0})
        for (int delta : {-1, 1}) {
            // The header announces 100 payload bytes (encrypt) or a 116-byte record (decrypt).
            t.push_back({std::string("aead_tls_") + (enc ? "encrypt" : "decrypt") + "_record_" +
                             (delta < 0 ? "one_short" : "one_long"),
                         a, Door::evp, R_TLS_LENGTH_MISMATCH, Outl::untouched, [enc, delta](Scene& s) {
                             s.init(enc);
                             Bytes aad = tls_aad(enc ? 100 : 116);
                             EXPECT_EQ(EVP_CIPHER_CTX_ctrl(s.evp(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()), 16);
                             return s.evp_update(size_t(116 + delta));
                         }});
        }
    // A zero-length EVP_Cipher while a record is announced, with and without
    // an output buffer (3.0.22 refuses the first; docs: #unsafe-tls-empty-call).
    for (int enc : {1, 0})
        for (bool with_out : {true, false})
            t.push_back({std::string("aead_tls_") + (enc ? "encrypt" : "decrypt") + "_empty_evp_cipher" +
                             (with_out ? "" : "_without_output"),
                         a, Door::evp, R_TLS_EMPTY_CALL, Outl::untouched, [enc, with_out](Scene& s) {
                             s.init(enc);
                             Bytes aad = tls_aad(enc ? 100 : 116);
                             EXPECT_EQ(EVP_CIPHER_CTX_ctrl(s.evp(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()), 16);
                             return EVP_Cipher(s.evp(), with_out ? s.out.data() : nullptr, s.in.data(), 0) >= 0;
                         }});
    t.push_back({"aead_tls_empty_cipher_entry", a, Door::dispatch, R_TLS_EMPTY_CALL, Outl::zero, [](Scene& s) {
                     s.direct_init(0);
                     EXPECT_TRUE(set_tls_aad_direct(s, tls_aad(116)));
                     return s.direct.cipher(s.out.data(), &s.outl, s.out.size(), s.in.data(), 0) == 1;
                 }});
    for (int enc : {1, 0})
        t.push_back({std::string("aead_tls_") + (enc ? "encrypt" : "decrypt") + "_output_buffer_short", a,
                     Door::dispatch, R_OUTPUT_BUFFER_TOO_SMALL, Outl::zero, [enc](Scene& s) {
                         s.direct_init(enc);
                         EXPECT_TRUE(set_tls_aad_direct(s, tls_aad(enc ? 100 : 116)));
                         // A sealed record is 116 bytes out, an opened one 100.
                         return s.direct_update(enc ? 115 : 99, s.in.data(), 116);
                     }});
    return t;
}

// --- ChaCha20 -------------------------------------------------------------------

std::vector<Row> chacha20_rows() {
    std::vector<Row> t;
    const Alg a = Alg::chacha20;
    add_shared_rows(t, a, "chacha20", 100, 8, 12);
    t.push_back({"chacha20_null_output_with_length", a, Door::dispatch, R_NULL_BUFFER, Outl::zero, [](Scene& s) {
                     s.direct_init(1);
                     return s.direct.update(nullptr, &s.outl, s.out.size(), s.in.data(), 10) == 1;
                 }});
    return t;
}

// --- chacha20-poly1305@openssh.com ---------------------------------------------

std::vector<Row> openssh_rows() {
    std::vector<Row> t;
    const Alg a = Alg::openssh;
    add_shared_rows(t, a, "openssh", 120, 12, 16);
    // Too short for its length field (1..3), or for length ‖ tag (5..19; 4 alone is the length-only decrypt).
    for (int enc : {1, 0})
        for (size_t n : {1, 2, 3, 5, 12, 19})
            t.push_back({numbered(std::string("openssh_") + (enc ? "seal" : "open") + "_packet_of", n), a, Door::evp,
                         R_INVALID_PACKET_LENGTH, Outl::untouched, [enc, n](Scene& s) {
                             s.init(enc);
                             return s.evp_update(n);
                         }});
    t.push_back(
        {"openssh_second_packet_same_sequence_number", a, Door::evp, R_ALREADY_FINAL, Outl::untouched, [](Scene& s) {
             s.init(1);
             s.text(120);
             return s.evp_update(120);
         }});
    t.push_back(
        {"openssh_open_output_buffer_short", a, Door::dispatch, R_OUTPUT_BUFFER_TOO_SMALL, Outl::zero, [](Scene& s) {
             s.direct_init(0);
             return s.direct_update(103, s.in.data(), 120);  // opens to 104 bytes
         }});
    t.push_back({"openssh_length_only_output_buffer_short", a, Door::dispatch, R_OUTPUT_BUFFER_TOO_SMALL, Outl::zero,
                 [](Scene& s) {
                     s.direct_init(0);
                     return s.direct_update(3, s.in.data(), 4);
                 }});
    t.push_back({"openssh_null_output_with_length", a, Door::dispatch, R_NULL_BUFFER, Outl::zero, [](Scene& s) {
                     s.direct_init(1);
                     return s.direct.update(nullptr, &s.outl, s.out.size(), s.in.data(), 120) == 1;
                 }});
    return t;
}

std::vector<Row> all_rows() {
    std::vector<Row> t;
    for (auto* rows : {aead_rows, chacha20_rows, openssh_rows}) {
        auto more = rows();
        t.insert(t.end(), more.begin(), more.end());
    }
    return t;
}

class BadInput : public ::testing::TestWithParam<Row> {};

TEST_P(BadInput, RefusedWithItsErrorNothingWrittenAndTheContextRecovers) { run_row(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Stitch, BadInput, ::testing::ValuesIn(all_rows()),
                         [](const ::testing::TestParamInfo<Row>& i) { return i.param.name; });

}  // namespace
}  // namespace stitch::test
