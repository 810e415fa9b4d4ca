// The RFC 8439 Poly1305 vectors (§2.5.2 and Appendix A.3), read from
// vectors/rfc8439/vectors.txt, through stitch's POLY1305 EVP_MAC: one-shot,
// in single bytes and in random splits, with the key at init or as a param.
#include "common/rfc8439_vectors.hpp"
#include "mac_support.hpp"

namespace stitch::test {
namespace {

TEST(Poly1305Vectors, Rfc8439ThroughStitch) {
    const Rfc8439File file = load_rfc8439_vectors();
    const auto vectors = file.of_kind("poly1305");
    // §2.5.2 and the eleven A.3 vectors; fewer means the file or parser lost some.
    ASSERT_EQ(vectors.size(), 12u) << rfc8439_vectors_path();
    Rng rng = seeded_rng(0x8439'1305);
    const MacPtr mac = fetch_poly1305("stitch");
    for (const Rfc8439Vector* v : vectors) {
        const Bytes key = v->bytes("key"), msg = v->bytes("msg");
        const std::string want = v->text("tag");
        EXPECT_TRUE(v->unused().empty()) << v->title;
        EXPECT_EQ(one_shot_hex(mac, key, msg), want) << v->title;

        const std::vector<std::vector<size_t>> splits = {std::vector<size_t>(msg.size(), 1), random_mac_split(rng, msg.size()),
                                                         random_mac_split(rng, msg.size())};
        for (const auto& parts : splits) {
            for (KeyBy by : {KeyBy::init_arg, KeyBy::init_params, KeyBy::set_params}) {
                MacCtxPtr ctx = new_mac_ctx(mac);
                ASSERT_EQ(give_key(ctx.get(), key, by), 1) << v->title;
                ASSERT_TRUE(update_split(ctx.get(), msg.data(), parts)) << v->title;
                EXPECT_EQ(final_hex(ctx.get()), want) << v->title << ", " << parts.size() << " updates, key path "
                                                      << int(by);
            }
        }
    }
}

}  // namespace
}  // namespace stitch::test
