// stitch's POLY1305 EVP_MAC against the default provider's, in the same
// process: random keys, every length 0..2000 and 16/64 KiB, update splits
// down to single bytes, the key given at init or through the `key` param,
// EVP_MAC_CTX_dup mid-message, and one context re-keyed message after message.
#include "mac_support.hpp"

namespace stitch::test {
namespace {

struct Pair {
    MacPtr stitch = fetch_poly1305("stitch");
    MacPtr reference = fetch_poly1305("default");
};

std::vector<size_t> lengths() {
    std::vector<size_t> v;
    for (size_t n = 0; n <= 2000; ++n) v.push_back(n);
    v.push_back(16 * 1024);
    v.push_back(64 * 1024);
    return v;
}

KeyBy random_key_by(Rng& rng) { return KeyBy(rng.below(3)); }

TEST(Poly1305Differential, EveryLengthAnySplitAnyKeyPath) {
    Rng rng = seeded_rng(0x9017'1305);
    const Pair macs;
    for (size_t len : lengths()) {
        const Bytes key = rng.bytes(kPolyKeyLen), msg = rng.bytes(len);
        const std::string want = one_shot_hex(macs.reference, key, msg);
        const KeyBy by = random_key_by(rng);
        const auto parts = random_mac_split(rng, len);

        MacCtxPtr ctx = new_mac_ctx(macs.stitch);
        ASSERT_EQ(give_key(ctx.get(), key, by), 1) << "len " << len << " key path " << int(by);
        ASSERT_TRUE(update_split(ctx.get(), msg.data(), parts)) << "len " << len;
        ASSERT_EQ(final_hex(ctx.get()), want) << "len " << len << ", " << parts.size() << " updates, key path "
                                              << int(by);
    }
}

// Every split point of a few messages, one update each side of it, and
// single-byte updates throughout: the 16-byte buffer at every fill level.
TEST(Poly1305Differential, EverySplitPoint) {
    Rng rng = seeded_rng(0x5911'7001);
    const Pair macs;
    for (size_t len : {1, 15, 16, 17, 33, 64, 100, 255}) {
        const Bytes key = rng.bytes(kPolyKeyLen), msg = rng.bytes(len);
        const std::string want = one_shot_hex(macs.reference, key, msg);
        for (size_t cut = 0; cut <= len; ++cut) {
            MacCtxPtr ctx = new_mac_ctx(macs.stitch);
            ASSERT_EQ(give_key(ctx.get(), key, KeyBy::init_arg), 1);
            ASSERT_TRUE(update_split(ctx.get(), msg.data(), {cut, len - cut}));
            ASSERT_EQ(final_hex(ctx.get()), want) << "len " << len << " cut " << cut;
        }
        MacCtxPtr ctx = new_mac_ctx(macs.stitch);
        ASSERT_EQ(give_key(ctx.get(), key, KeyBy::init_arg), 1);
        ASSERT_TRUE(update_split(ctx.get(), msg.data(), std::vector<size_t>(len, 1)));
        ASSERT_EQ(final_hex(ctx.get()), want) << "len " << len << " in single bytes";
    }
}

// A copy taken mid-message carries on independently: both finish the same
// message (the copy after the original is freed), and a second copy finishes
// a different tail.
TEST(Poly1305Differential, DupMidMessage) {
    Rng rng = seeded_rng(0xd0b1'1305);
    const Pair macs;
    for (int round = 0; round < 300; ++round) {
        const size_t len = rng.below(600), cut = rng.below(len + 1);
        const Bytes key = rng.bytes(kPolyKeyLen), msg = rng.bytes(len), other_tail = rng.bytes(rng.below(80));
        Bytes other = Bytes(msg.begin(), msg.begin() + cut);
        other.insert(other.end(), other_tail.begin(), other_tail.end());

        MacCtxPtr orig = new_mac_ctx(macs.stitch);
        ASSERT_EQ(give_key(orig.get(), key, random_key_by(rng)), 1);
        ASSERT_TRUE(update_split(orig.get(), msg.data(), random_mac_split(rng, cut)));
        MacCtxPtr same(EVP_MAC_CTX_dup(orig.get())), diverging(EVP_MAC_CTX_dup(orig.get()));
        ASSERT_TRUE(same && diverging);

        ASSERT_TRUE(update_split(orig.get(), msg.data() + cut, random_mac_split(rng, len - cut)));
        EXPECT_EQ(final_hex(orig.get()), one_shot_hex(macs.reference, key, msg)) << "original, len " << len;
        orig.reset();
        ASSERT_TRUE(update_split(same.get(), msg.data() + cut, random_mac_split(rng, len - cut)));
        EXPECT_EQ(final_hex(same.get()), one_shot_hex(macs.reference, key, msg)) << "copy, len " << len << " cut " << cut;
        ASSERT_TRUE(update_split(diverging.get(), other_tail.data(), random_mac_split(rng, other_tail.size())));
        EXPECT_EQ(final_hex(diverging.get()), one_shot_hex(macs.reference, key, other)) << "diverging copy";
    }
}

// One context, many messages: each init with a new key starts from nothing,
// including after a message abandoned midway (a partial block in the buffer).
TEST(Poly1305Differential, ReinitWithNewKeys) {
    Rng rng = seeded_rng(0x4e17'1305);
    const Pair macs;
    MacCtxPtr ctx = new_mac_ctx(macs.stitch);
    for (int round = 0; round < 500; ++round) {
        const Bytes key = rng.bytes(kPolyKeyLen), msg = rng.bytes(rng.below(300));
        ASSERT_EQ(give_key(ctx.get(), key, random_key_by(rng)), 1) << "round " << round;
        ASSERT_TRUE(update_split(ctx.get(), msg.data(), random_mac_split(rng, msg.size())));
        if (rng.below(4) == 0) continue;  // abandoned: the next init must forget it
        ASSERT_EQ(final_hex(ctx.get()), one_shot_hex(macs.reference, key, msg)) << "round " << round;
    }
}

// Setting the key twice before any data: the second key wins, as in OpenSSL.
TEST(Poly1305Differential, LastKeyBeforeDataWins) {
    Rng rng = seeded_rng(0x1a57'1305);
    const Pair macs;
    const Bytes first = rng.bytes(kPolyKeyLen), second = rng.bytes(kPolyKeyLen), msg = rng.bytes(77);
    for (const MacPtr* mac : {&macs.stitch, &macs.reference}) {
        MacCtxPtr ctx = new_mac_ctx(*mac);
        ASSERT_EQ(give_key(ctx.get(), first, KeyBy::init_arg), 1);
        ASSERT_EQ(give_key(ctx.get(), second, KeyBy::set_params), 1);
        ASSERT_EQ(EVP_MAC_update(ctx.get(), msg.data(), msg.size()), 1);
        EXPECT_EQ(final_hex(ctx.get()), one_shot_hex(macs.reference, second, msg))
            << (mac == &macs.stitch ? "stitch" : "default");
    }
}

}  // namespace
}  // namespace stitch::test
