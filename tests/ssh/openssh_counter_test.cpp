// OpenSSH drives raw ChaCha20 with OpenSSL's 16-byte IV filled as
// LE64 block counter ‖ BE64 sequence number, so the 32-bit block counter must
// carry into the next word as a 64-bit counter. Checked around the 2^32 carry
// through stitch's `ChaCha20` against the default provider's, and through
// every kernel set's chacha20_blocks.
#include "kernels/bytes.hpp"
#include "kernels/chacha20.hpp"
#include "openssh_composition.hpp"
#include "kernel_packet_state.hpp"

namespace stitch::test {
namespace {

constexpr uint64_t kCarry = uint64_t(1) << 32;

// Starting counters whose payloads span the carry (and one past it).
const uint64_t kStarts[] = {kCarry - 1, kCarry - 2, kCarry - 5, 2 * kCarry - 1, kCarry};

TEST(OpensshCounterLayout, IvBytesAreLe64CounterThenBe64Seq) {
    EXPECT_EQ(to_hex(openssh_chacha_iv(kCarry - 1, 0x0102030405060708ull)), "ffffffff000000000102030405060708");
}

// A payload spanning the carry, stitch (random update splits) vs default.
TEST(OpensshCounterLayout, StitchChaCha20MatchesDefaultAcrossTheCarry) {
    Rng rng = seeded_rng(0x55c0'0001);
    const CipherPtr stitch = providers().fetch("ChaCha20", "stitch"), reference = providers().fetch("ChaCha20", "default");
    for (uint64_t start : kStarts) {
        for (int round = 0; round < 20; ++round) {
            const Bytes key = rng.bytes(32), iv = openssh_chacha_iv(start, rng.next());
            const Bytes in = rng.bytes(5 * 64 + rng.below(130));
            const Bytes want = raw_chacha20(reference.get(), key.data(), iv, in.data(), in.size());
            const Bytes got = raw_chacha20(stitch.get(), key.data(), iv, in.data(), in.size(), random_mac_split(rng, in.size()));
            ASSERT_EQ(to_hex(got), to_hex(want)) << "start counter 0x" << std::hex << start;
        }
    }
}

// The keystream after the carry is the one at counter 2^32 itself: a real
// 64-bit counter, not a 32-bit one wrapping to 0 (which would repeat block 0).
TEST(OpensshCounterLayout, CarryReachesTheHighWord) {
    Rng rng = seeded_rng(0x55c0'0002);
    const Bytes key = rng.bytes(32), zeros(128, 0);
    const uint64_t seq = rng.next();
    for (const char* provider : {"stitch", "default"}) {
        const CipherPtr c = providers().fetch("ChaCha20", provider);
        const Bytes spanning = raw_chacha20(c.get(), key.data(), openssh_chacha_iv(kCarry - 1, seq), zeros.data(), 128);
        const Bytes after = raw_chacha20(c.get(), key.data(), openssh_chacha_iv(kCarry, seq), zeros.data(), 64);
        const Bytes wrapped = raw_chacha20(c.get(), key.data(), openssh_chacha_iv(0, seq), zeros.data(), 64);
        EXPECT_EQ(to_hex(spanning.data() + 64, 64), to_hex(after)) << provider;
        EXPECT_NE(to_hex(spanning.data() + 64, 64), to_hex(wrapped)) << provider;
    }
}

class OpensshKernelCounterLayout : public OnEverySet {};

// The same through each kernel set's chacha20_blocks, state words
// ctr[0..1] = the 64-bit counter, ctr[2..3] = the BE64 sequence number.
TEST_P(OpensshKernelCounterLayout, KernelsMatchDefaultAcrossTheCarry) {
    const KernelSet& k = GetParam();
    Rng rng = seeded_rng(0x55c0'0003);
    const CipherPtr reference = providers().fetch("ChaCha20", "default");
    for (uint64_t start : kStarts) {
        for (size_t blocks : {2, 5, 8, 9, 16, 17}) {
            const Bytes key = rng.bytes(32), in = rng.bytes(blocks * 64);
            const Bytes iv = openssh_chacha_iv(start, rng.next());
            const Bytes want = raw_chacha20(reference.get(), key.data(), iv, in.data(), in.size());
            kern::ChaChaState st;
            kern::chacha_load_key(st, key.data());
            for (int i = 0; i < 4; ++i) st.ctr[i] = kern::load_le32(iv.data() + 4 * i);
            Bytes out(in.size());
            k.impl->chacha20_blocks(st, in.data(), out.data(), blocks);
            ASSERT_EQ(to_hex(out), to_hex(want)) << k.label << ", start 0x" << std::hex << start << ", " << std::dec
                                                 << blocks << " blocks";
            const uint64_t next = start + blocks;
            EXPECT_EQ(st.ctr[0], uint32_t(next)) << k.label;
            EXPECT_EQ(st.ctr[1], uint32_t(next >> 32)) << k.label;
        }
    }
}

STITCH_INSTANTIATE_ON_EVERY_SET(OpensshKernelCounterLayout);

}  // namespace
}  // namespace stitch::test
