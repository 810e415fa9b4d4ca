// RFC 8439 §2.1.1–§2.8.2 and Appendix A vectors against the kernels directly,
// on every kernel set this process has (common/kernel_sets.hpp), one
// instance of each test per set.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "common/kernel_aead_calls.hpp"
#include "common/kernel_set_param.hpp"
#include "common/rfc8439_vectors.hpp"
#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::test {
namespace {

using kern::ChaChaState;
using kern::Direction;

// Loaded once; a missing or malformed file fails every test that needs it.
const Rfc8439File& vectors() {
    static const Rfc8439File file = load_rfc8439_vectors();
    return file;
}

// The vectors of one kind; fails the test when there are none (a parser
// that dropped a kind must not pass by checking nothing).
std::vector<const Rfc8439Vector*> vectors_of(const std::string& kind) {
    auto list = vectors().of_kind(kind);
    EXPECT_FALSE(list.empty()) << "no '" << kind << "' vectors in " << rfc8439_vectors_path();
    return list;
}

void expect_all_fields_used(const Rfc8439Vector& v) {
    EXPECT_TRUE(v.unused().empty()) << v.title << ": field '" << v.unused().front() << "' not checked";
}

ChaChaState chacha_state(const Bytes& key, const Bytes& nonce, uint32_t counter) {
    ChaChaState st;
    kern::chacha_load_key(st, key.data());
    st.ctr[0] = counter;
    for (int i = 0; i < 3; ++i) st.ctr[1 + i] = kern::load_le32(nonce.data() + 4 * i);
    return st;
}

// Words of a state written as the RFC prints them: 8 hex digits each, MSB first.
std::vector<uint32_t> words(const std::string& hex) {
    std::vector<uint32_t> w;
    for (size_t i = 0; i + 8 <= hex.size(); i += 8) w.push_back(uint32_t(std::stoul(hex.substr(i, 8), nullptr, 16)));
    return w;
}

TEST(Rfc8439Vectors, FileIsCompleteAndEveryVectorParses) {
    const Rfc8439File* file = nullptr;
    ASSERT_NO_THROW(file = &vectors()) << "the RFC 8439 vectors are required: " << rfc8439_vectors_path();
    EXPECT_EQ(file->vectors.size(), file->kind_lines);
    std::set<std::string> sections;
    for (const auto& v : file->vectors) sections.insert(v.section);
    // The sections issue 2 names, each present at least once.
    for (const char* s : {"2.1.1", "2.2.1", "2.3.2", "2.4.2", "2.5.2", "2.6.2", "2.8.2", "A.1", "A.2", "A.3", "A.4", "A.5"})
        EXPECT_TRUE(sections.count(s)) << "section " << s << " missing";
    EXPECT_EQ(file->of_kind("chacha20_block").size(), 6u);
    EXPECT_EQ(file->of_kind("chacha20_encrypt").size(), 4u);
    EXPECT_EQ(file->of_kind("poly1305").size(), 12u);
    EXPECT_EQ(file->of_kind("poly1305_keygen").size(), 4u);
    EXPECT_EQ(file->of_kind("aead").size(), 2u);
    EXPECT_EQ(file->of_kind("quarter_round").size(), 2u);
}

TEST(Rfc8439Vectors, QuarterRound) {
    for (const auto* v : vectors_of("quarter_round")) {
        SCOPED_TRACE(v->title);
        if (v->has("indices")) {  // §2.2.1: one quarter round on the 16-word state
            std::vector<uint32_t> s = words(v->text("state_in"));
            const std::vector<uint32_t> want = words(v->text("state_out"));
            ASSERT_EQ(s.size(), 16u);
            int i[4];
            ASSERT_EQ(std::sscanf(v->text("indices").c_str(), "%d,%d,%d,%d", &i[0], &i[1], &i[2], &i[3]), 4);
            kern::quarter_round(s[i[0]], s[i[1]], s[i[2]], s[i[3]]);
            EXPECT_EQ(s, want);
        } else {  // §2.1.1: four words
            uint32_t a = v->u32_hex("a"), b = v->u32_hex("b"), c = v->u32_hex("c"), d = v->u32_hex("d");
            kern::quarter_round(a, b, c, d);
            EXPECT_EQ(a, v->u32_hex("a_out"));
            EXPECT_EQ(b, v->u32_hex("b_out"));
            EXPECT_EQ(c, v->u32_hex("c_out"));
            EXPECT_EQ(d, v->u32_hex("d_out"));
        }
        expect_all_fields_used(*v);
    }
}

// The vectors on each kernel set (common/kernel_set_param.hpp): a failure
// names the set, EverySet/Rfc8439Kernels.<Test>/<set>.
class Rfc8439Kernels : public OnEverySet {};

TEST_P(Rfc8439Kernels, ChaCha20Block) {
    const KernelSet& set = GetParam();
    for (const auto* v : vectors_of("chacha20_block")) {
        SCOPED_TRACE(v->title);
        const Bytes key = v->bytes("key"), nonce = v->bytes("nonce"), want = v->bytes("block");
        const uint32_t counter = v->u32_decimal("counter");
        ASSERT_EQ(want.size(), 64u);

        Bytes out(64);
        kern::chacha20_block_portable(chacha_state(key, nonce, counter), out.data());
        EXPECT_EQ(to_hex(out), to_hex(want)) << "chacha20_block_portable";

        ChaChaState st = chacha_state(key, nonce, counter);
        Bytes ks(64, 0xa5);
        set.impl->chacha20_blocks(st, nullptr, ks.data(), 1);  // keystream itself
        EXPECT_EQ(to_hex(ks), to_hex(want));
        EXPECT_EQ(st.ctr[0], counter + 1) << "the counter advances by one block";

        st = chacha_state(key, nonce, counter);
        Bytes x(64, 0);
        set.impl->chacha20_blocks(st, x.data(), x.data(), 1);  // XOR over zeros, in place
        EXPECT_EQ(to_hex(x), to_hex(want));
        expect_all_fields_used(*v);
    }
}

TEST_P(Rfc8439Kernels, ChaCha20Encrypt) {
    const KernelSet& set = GetParam();
    for (const auto* v : vectors_of("chacha20_encrypt")) {
        SCOPED_TRACE(v->title);
        const Bytes key = v->bytes("key"), nonce = v->bytes("nonce");
        const Bytes pt = v->bytes("plaintext"), want = v->bytes("ciphertext");
        const uint32_t counter = v->u32_decimal("counter");
        ASSERT_EQ(pt.size(), want.size());

        for (Split split : {Split::whole, Split::bytewise, Split::irregular}) {
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(set.label + ", " + split_name(split) + (in_place ? ", in place" : ", out of place"));
                kern::ChaChaStream s;
                s.st = chacha_state(key, nonce, counter);
                kern::chacha_stream_reset(s);
                Bytes out = in_place ? pt : Bytes(pt.size(), 0xa5);
                size_t off = 0;
                for (size_t n : chunk_lengths(pt.size(), split)) {
                    kern::chacha_stream_xor(*set.impl, s, (in_place ? out.data() : pt.data()) + off,
                                            out.data() + off, n);
                    off += n;
                }
                EXPECT_EQ(to_hex(out), to_hex(want));
            }
        }
        // And back: the same keystream decrypts.
        kern::ChaChaStream s;
        s.st = chacha_state(key, nonce, counter);
        kern::chacha_stream_reset(s);
        Bytes back(want.size());
        kern::chacha_stream_xor(*set.impl, s, want.data(), back.data(), want.size());
        EXPECT_EQ(to_hex(back), to_hex(pt)) << set.label << ": decrypt";
        expect_all_fields_used(*v);
    }
}

TEST_P(Rfc8439Kernels, Poly1305) {
    const KernelSet& set = GetParam();
    for (const auto* v : vectors_of("poly1305")) {
        SCOPED_TRACE(v->title);
        const Bytes key = v->bytes("key"), msg = v->bytes("msg"), want = v->bytes("tag");
        for (Split split : {Split::whole, Split::bytewise, Split::irregular}) {
            SCOPED_TRACE(set.label + ", " + split_name(split));
            kern::Poly1305State st;
            kern::poly1305_init(st, key.data());
            size_t off = 0;
            for (size_t n : chunk_lengths(msg.size(), split)) {
                kern::poly1305_update(*set.impl, st, msg.data() + off, n);
                off += n;
            }
            Bytes tag(16);
            kern::poly1305_final(*set.impl, st, tag.data());
            EXPECT_EQ(to_hex(tag), to_hex(want));
        }
        expect_all_fields_used(*v);
    }
}

TEST_P(Rfc8439Kernels, Poly1305KeyGen) {
    const KernelSet& set = GetParam();
    for (const auto* v : vectors_of("poly1305_keygen")) {
        SCOPED_TRACE(v->title);
        const Bytes key = v->bytes("key"), nonce = v->bytes("nonce"), want = v->bytes("otk");
        ASSERT_EQ(want.size(), 32u);
        ChaChaState st = chacha_state(key, nonce, 0);  // §2.6: the key block is counter 0
        Bytes block(64);
        set.impl->chacha20_blocks(st, nullptr, block.data(), 1);
        EXPECT_EQ(to_hex(block.data(), 32), to_hex(want));
        expect_all_fields_used(*v);
    }
}

TEST_P(Rfc8439Kernels, AeadSealAndOpen) {
    const KernelSet& set = GetParam();
    for (const auto* v : vectors_of("aead")) {
        SCOPED_TRACE(v->title);
        const Bytes key = v->bytes("key"), nonce = v->bytes("nonce"), aad = v->bytes("aad");
        const Bytes pt = v->bytes("plaintext"), ct = v->bytes("ciphertext"), tag = v->bytes("tag");
        for (Split split : {Split::whole, Split::bytewise, Split::irregular}) {
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(set.label + ", " + split_name(split) + (in_place ? ", in place" : ", out of place"));
                const Sealed s = kernel_seal(*set.impl, key, nonce, aad, pt, split, in_place);
                EXPECT_EQ(to_hex(s.ct), to_hex(ct));
                EXPECT_EQ(to_hex(s.tag), to_hex(tag));

                const Opened o = kernel_open_stream(*set.impl, key, nonce, aad, ct, tag, split, in_place);
                EXPECT_TRUE(o.ok);
                EXPECT_EQ(to_hex(o.pt), to_hex(pt));
            }
        }
        for (bool in_place : {false, true}) {
            SCOPED_TRACE(set.label + ", aead_open_record" + (in_place ? ", in place" : ""));
            const Opened o = kernel_open_record(*set.impl, key, nonce, aad, ct, tag, in_place);
            EXPECT_TRUE(o.ok);
            EXPECT_EQ(to_hex(o.pt), to_hex(pt));
        }
        expect_all_fields_used(*v);
    }
}

// Every one-bit change of tag, ciphertext or AAD is refused, and a refused
// whole-record open leaves only zeros behind.
TEST_P(Rfc8439Kernels, AeadTamperedRefusedWithZeros) {
    const KernelSet& set = GetParam();
    for (const auto* v : vectors_of("aead")) {
        SCOPED_TRACE(v->title);
        const Bytes key = v->bytes("key"), nonce = v->bytes("nonce"), aad = v->bytes("aad");
        const Bytes ct = v->bytes("ciphertext"), tag = v->bytes("tag");
        (void)v->text("plaintext");
        const Bytes zeros(ct.size(), 0);
        auto refused = [&](const Bytes& a, const Bytes& c, const Bytes& t, const std::string& what) {
            for (bool in_place : {false, true}) {
                const Opened o = kernel_open_record(*set.impl, key, nonce, a, c, t, in_place);
                EXPECT_FALSE(o.ok) << what;
                EXPECT_EQ(to_hex(o.pt), to_hex(zeros)) << what << ": output not wiped";
            }
            EXPECT_FALSE(kernel_open_stream(*set.impl, key, nonce, a, c, t, Split::whole, false).ok) << what;
        };
        for (size_t bit = 0; bit < tag.size() * 8; ++bit) {
            Bytes t = tag;
            t[bit / 8] ^= uint8_t(1u << (bit % 8));
            refused(aad, ct, t, "tag bit " + std::to_string(bit));
        }
        for (size_t i = 0; i < ct.size(); i += 7) {  // a spread of ciphertext bytes, all bit positions
            Bytes c = ct;
            c[i] ^= uint8_t(1u << (i % 8));
            refused(aad, c, tag, "ciphertext byte " + std::to_string(i));
        }
        for (size_t i = 0; i < aad.size(); ++i) {
            Bytes a = aad;
            a[i] ^= 0x80;
            refused(a, ct, tag, "aad byte " + std::to_string(i));
        }
        expect_all_fields_used(*v);
    }
}

STITCH_INSTANTIATE_ON_EVERY_SET(Rfc8439Kernels);

}  // namespace
}  // namespace stitch::test
