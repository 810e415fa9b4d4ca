// Every Wycheproof ChaCha20-Poly1305 vector against the kernels directly.
// Valid vectors seal to exactly ct ‖ tag and open back; invalid ones (modified
// tags) are refused with zeros left behind. The nonce-size group cannot be
// expressed here (the kernel takes a 12-byte nonce by type): it is checked
// through the provider in tests/provider/provider_vectors_test.cpp, and
// counted below so no vector is dropped silently.
#include <gtest/gtest.h>

#include "common/kernel_aead_calls.hpp"
#include "common/kernel_set_param.hpp"
#include "common/wycheproof_vectors.hpp"

namespace stitch::test {
namespace {

const WycheproofFile& vectors() {
    static const WycheproofFile file = load_wycheproof_chacha20_poly1305();
    return file;
}

// Vectors the kernel API can express: a 12-byte nonce and a 16-byte tag.
bool kernel_expressible(const WycheproofAead& v) { return v.iv.size() == 12 && v.tag.size() == 16; }

TEST(WycheproofKernel, EveryVectorIsClassified) {
    const WycheproofFile* file = nullptr;
    ASSERT_NO_THROW(file = &vectors()) << "the Wycheproof vectors are required: " << wycheproof_chacha20_poly1305_path();
    EXPECT_EQ(file->tests.size(), file->declared);
    size_t valid = 0, modified_tag = 0, bad_nonce = 0;
    for (const auto& v : file->tests) {
        SCOPED_TRACE(v.label());
        if (v.valid) {
            EXPECT_TRUE(kernel_expressible(v));
            ++valid;
        } else if (v.has_flag("ModifiedTag")) {
            EXPECT_TRUE(kernel_expressible(v));
            ++modified_tag;
        } else {
            // The only other invalid kind in this file; checked through the provider.
            EXPECT_TRUE(v.has_flag("InvalidNonceSize"));
            EXPECT_NE(v.iv.size(), 12u);
            ++bad_nonce;
        }
    }
    EXPECT_EQ(valid + modified_tag + bad_nonce, file->declared);
    EXPECT_GT(valid, 0u);
    EXPECT_GT(modified_tag, 0u);
    EXPECT_GT(bad_nonce, 0u);
}

// The vectors on each kernel set (common/kernel_set_param.hpp): a failure
// names the set, EverySet/WycheproofKernels.<Test>/<set>.
class WycheproofKernels : public OnEverySet {};

TEST_P(WycheproofKernels, ValidVectorsSealToExactBytes) {
    const KernelSet& set = GetParam();
    size_t checked = 0;
    for (const auto& v : vectors().tests) {
        if (!v.valid) continue;
        SCOPED_TRACE(v.label());
        for (Split split : {Split::whole, Split::irregular}) {
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(set.label + ", " + split_name(split) + (in_place ? ", in place" : ", out of place"));
                const Sealed s = kernel_seal(*set.impl, v.key, v.iv, v.aad, v.msg, split, in_place);
                ASSERT_EQ(to_hex(s.ct), to_hex(v.ct));
                ASSERT_EQ(to_hex(s.tag), to_hex(v.tag));
            }
        }
        ++checked;
    }
    EXPECT_GT(checked, 0u);
}

TEST_P(WycheproofKernels, ValidVectorsOpenToExactBytes) {
    const KernelSet& set = GetParam();
    size_t checked = 0;
    for (const auto& v : vectors().tests) {
        if (!v.valid) continue;
        SCOPED_TRACE(v.label());
        for (bool in_place : {false, true}) {
            SCOPED_TRACE(set.label + (in_place ? ", in place" : ", out of place"));
            for (Split split : {Split::whole, Split::irregular}) {
                const Opened o = kernel_open_stream(*set.impl, v.key, v.iv, v.aad, v.ct, v.tag, split, in_place);
                ASSERT_TRUE(o.ok) << "streaming open, " << split_name(split);
                ASSERT_EQ(to_hex(o.pt), to_hex(v.msg)) << "streaming open, " << split_name(split);
            }
            const Opened r = kernel_open_record(*set.impl, v.key, v.iv, v.aad, v.ct, v.tag, in_place);
            ASSERT_TRUE(r.ok) << "aead_open_record";
            ASSERT_EQ(to_hex(r.pt), to_hex(v.msg)) << "aead_open_record";
        }
        ++checked;
    }
    EXPECT_GT(checked, 0u);
}

TEST_P(WycheproofKernels, ModifiedTagsRefusedWithZeros) {
    const KernelSet& set = GetParam();
    size_t checked = 0;
    for (const auto& v : vectors().tests) {
        if (v.valid || !kernel_expressible(v)) continue;
        SCOPED_TRACE(v.label());
        const Bytes zeros(v.ct.size(), 0);
        for (bool in_place : {false, true}) {
            const Opened r = kernel_open_record(*set.impl, v.key, v.iv, v.aad, v.ct, v.tag, in_place);
            EXPECT_FALSE(r.ok) << "aead_open_record" << (in_place ? ", in place" : "");
            EXPECT_EQ(to_hex(r.pt), to_hex(zeros)) << "refused open must leave zeros";
        }
        EXPECT_FALSE(kernel_open_stream(*set.impl, v.key, v.iv, v.aad, v.ct, v.tag, Split::irregular, false).ok)
            << "streaming open";
        // The sealed tag is a different one: the vector's tag really is the forgery.
        const Sealed s = kernel_seal(*set.impl, v.key, v.iv, v.aad, v.msg, Split::whole, false);
        EXPECT_EQ(to_hex(s.ct), to_hex(v.ct));
        EXPECT_NE(to_hex(s.tag), to_hex(v.tag));
        ++checked;
    }
    EXPECT_GT(checked, 0u);
}

STITCH_INSTANTIATE_ON_EVERY_SET(WycheproofKernels);

}  // namespace
}  // namespace stitch::test
