// The OpenSSH construction at the kernel level (kernels/openssh.hpp), on
// every kernel set: each payload length sealed and opened, compared with the
// portable kernel and with the construction composed from the default
// provider's ChaCha20 and POLY1305 (openssh_composition.hpp).
#include "kernels/dispatch.hpp"
#include "kernels/openssh.hpp"
#include "kernels/portable/set.hpp"
#include "openssh_composition.hpp"
#include "openssh_kernels.hpp"

namespace stitch::test {
namespace {

std::vector<size_t> payload_lengths() {
    std::vector<size_t> v;
    for (size_t n = 0; n <= 1600; ++n) v.push_back(n);
    for (size_t n : {2048, 4096, 16384}) v.push_back(n);
    return v;
}

// One state per kernel set, re-used across packets as a connection does.
TEST(OpensshConstruction, EveryPayloadLengthOnEveryKernelSet) {
    Rng rng = seeded_rng(0x55b0'0001);
    const DefaultComposition reference;
    const Bytes key = rng.bytes(kSshKeyLen);
    for (const KernelUnderTest& k : openssh_kernels()) {
        SCOPED_TRACE(k.name);
        KernelPacketState st(*k.impl, key), portable(kern::portable_impl(), key);
        uint64_t seq = rng.next() >> rng.below(64);
        for (size_t len : payload_lengths()) {
            ++seq;
            const Bytes packet = plain_packet(rng, len);
            const Bytes want = reference.seal(key, seq, packet);
            ASSERT_EQ(to_hex(st.seal(seq, packet)), to_hex(want)) << "seal, payload " << len << " seq " << seq;
            ASSERT_EQ(to_hex(portable.seal(seq, packet)), to_hex(want)) << "portable seal, payload " << len;

            const bool in_place = rng.below(2);
            Bytes opened;
            ASSERT_TRUE(st.open(seq, want, in_place, opened)) << "open refused, payload " << len << " seq " << seq;
            ASSERT_EQ(to_hex(opened), to_hex(packet)) << "open, payload " << len << (in_place ? " in place" : "");
            ASSERT_EQ(to_hex(st.length(seq, want.data())), to_hex(packet.data(), kSshLengthLen)) << "payload " << len;
        }
    }
}

// The reference itself opens what it seals and refuses a changed tag, so the
// comparisons above compare against a working construction.
TEST(OpensshConstruction, ReferenceRoundTrips) {
    Rng rng = seeded_rng(0x55b0'0002);
    const DefaultComposition reference;
    const Bytes key = rng.bytes(kSshKeyLen);
    for (size_t len : {0, 1, 100, 5000}) {
        const Bytes packet = plain_packet(rng, len);
        Bytes wire = reference.seal(key, 7, packet);
        ASSERT_EQ(wire.size(), packet.size() + kSshTagLen);
        const auto back = reference.open(key, 7, wire);
        ASSERT_TRUE(back.has_value());
        EXPECT_EQ(to_hex(*back), to_hex(packet));
        wire.back() ^= 1;
        EXPECT_FALSE(reference.open(key, 7, wire).has_value());
    }
}

}  // namespace
}  // namespace stitch::test
