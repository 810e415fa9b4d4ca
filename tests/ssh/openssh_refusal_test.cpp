// Every one-bit change to a wire packet (length, payload, tag) and every
// wrong sequence number is refused, leaving zeros where the packet would have
// been: through each kernel set, and through stitch's
// `chacha20-poly1305@openssh.com` EVP cipher.
#include "openssh_composition.hpp"
#include "kernel_packet_state.hpp"

namespace stitch::test {
namespace {

// Payload lengths around the MAC grid (blocks start 12 bytes into the
// payload), the short path and the batch edges.
const size_t kLengths[] = {0, 1, 11, 12, 13, 28, 64, 124, 125, 191, 192, 193, 508, 700};

class OpensshKernelRefusal : public OnEverySet {};

TEST_P(OpensshKernelRefusal, EveryBitFlip) {
    const KernelSet& k = GetParam();
    Rng rng = seeded_rng(0x55f0'0001);
    const DefaultComposition reference;
    const Bytes key = rng.bytes(kSshKeyLen);
    KernelPacketState st(*k.impl, key);
    for (size_t len : kLengths) {
        const uint64_t seq = rng.next();
        const Bytes wire = reference.seal(key, seq, plain_packet(rng, len));
        Bytes out;
        ASSERT_TRUE(st.open(seq, wire, false, out)) << k.label << ": the unchanged packet, payload " << len;
        for (size_t bit = 0; bit < wire.size() * 8; ++bit) {
            Bytes bad = wire;
            bad[bit / 8] ^= uint8_t(1u << (bit % 8));
            const bool in_place = bit % 2;
            ASSERT_FALSE(st.open(seq, bad, in_place, out)) << k.label << ": payload " << len << ", bit " << bit;
            ASSERT_TRUE(all_zero(out)) << k.label << ": refused but output left, payload " << len << ", bit " << bit
                                       << (in_place ? " in place" : "");
        }
    }
}

TEST_P(OpensshKernelRefusal, WrongSequenceNumber) {
    const KernelSet& k = GetParam();
    Rng rng = seeded_rng(0x55f0'0002);
    const DefaultComposition reference;
    const Bytes key = rng.bytes(kSshKeyLen);
    KernelPacketState st(*k.impl, key);
    for (size_t len : {size_t(1), size_t(64), size_t(600)}) {
        const uint64_t seq = rng.next();
        const Bytes wire = reference.seal(key, seq, plain_packet(rng, len));
        std::vector<uint64_t> wrong = {seq + 1, seq - 1};
        for (int b = 0; b < 64; ++b) wrong.push_back(seq ^ (uint64_t(1) << b));
        for (uint64_t w : wrong) {
            Bytes out;
            ASSERT_FALSE(st.open(w, wire, w % 2, out)) << k.label << ": seq " << seq << " opened as " << w;
            ASSERT_TRUE(all_zero(out)) << k.label << ": seq " << w;
        }
    }
}

// The provider's cipher, dispatched as the process chose: a refused open
// returns failure and leaves zeros in out[0..inl-16), length included.
TEST(OpensshRefusal, EveryBitFlipAndWrongSeqThroughTheEvpCipher) {
    Rng rng = seeded_rng(0x55f0'0003);
    const DefaultComposition reference;
    const Bytes key = rng.bytes(kSshKeyLen);
    StitchSshCipher opener(key, false);
    for (size_t len : kLengths) {
        const uint64_t seq = rng.next();
        const Bytes packet = plain_packet(rng, len);
        const Bytes wire = reference.seal(key, seq, packet);
        const auto good = opener.run(seq, wire);
        ASSERT_TRUE(good.has_value()) << "payload " << len;
        ASSERT_EQ(to_hex(*good), to_hex(packet));
        for (size_t bit = 0; bit < wire.size() * 8; ++bit) {
            Bytes bad = wire, left;
            bad[bit / 8] ^= uint8_t(1u << (bit % 8));
            ASSERT_FALSE(opener.run(seq, bad, &left).has_value()) << "payload " << len << ", bit " << bit;
            ASSERT_TRUE(all_zero(Bytes(left.begin(), left.end() - kSshTagLen)))
                << "refused but output left, payload " << len << ", bit " << bit;
        }
        for (uint64_t w : {seq + 1, seq - 1, seq ^ (uint64_t(1) << 63), seq ^ 1}) {
            Bytes left;
            ASSERT_FALSE(opener.run(w, wire, &left).has_value()) << "seq " << seq << " opened as " << w;
            ASSERT_TRUE(all_zero(Bytes(left.begin(), left.end() - kSshTagLen)));
        }
        ERR_clear_error();
    }
}

STITCH_INSTANTIATE_ON_EVERY_SET(OpensshKernelRefusal);

}  // namespace
}  // namespace stitch::test
