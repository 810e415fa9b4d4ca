// Holds stitch to OpenSSH's own chacha20-poly1305@openssh.com: the packets a
// stock `ssh` client received from a stock sshd, recorded by
// openssh_capture_shim.c (key, sequence number, wire packet, plaintext), are
// opened with stitch's EVP cipher and through every kernel set (each must
// accept and give OpenSSH's plaintext), and re-sealed (each must give the
// wire bytes, tag included). run_openssh_capture.sh names the file in
// STITCH_SSH_CAPTURE; a missing or short capture fails.
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "openssh_composition.hpp"
#include "kernel_packet_state.hpp"

namespace stitch::test {
namespace {

struct Captured {
    uint64_t seq;
    Bytes key;    // K_2 ‖ K_1
    Bytes wire;   // encrypted length ‖ ciphertext ‖ tag
    Bytes plain;  // length ‖ payload
};

std::vector<Captured> load_capture() {
    const char* path = std::getenv("STITCH_SSH_CAPTURE");
    if (!path) throw std::runtime_error("STITCH_SSH_CAPTURE is not set (run_openssh_capture.sh sets it)");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(std::string("cannot open capture ") + path);
    std::vector<Captured> packets;
    char magic[8];
    while (in.read(magic, sizeof magic)) {
        if (std::memcmp(magic, "SSHPKT01", 8) != 0) throw std::runtime_error("capture: bad record magic");
        Captured c;
        uint32_t len = 0;
        in.read(reinterpret_cast<char*>(&c.seq), sizeof c.seq);
        in.read(reinterpret_cast<char*>(&len), sizeof len);
        c.key.resize(kSshKeyLen);
        c.wire.resize(kSshLengthLen + len + kSshTagLen);
        c.plain.resize(kSshLengthLen + len);
        in.read(reinterpret_cast<char*>(c.key.data()), std::streamsize(c.key.size()));
        in.read(reinterpret_cast<char*>(c.wire.data()), std::streamsize(c.wire.size()));
        in.read(reinterpret_cast<char*>(c.plain.data()), std::streamsize(c.plain.size()));
        if (!in) throw std::runtime_error("capture: truncated record");
        packets.push_back(std::move(c));
    }
    return packets;
}

const std::vector<Captured>& capture() {
    static const std::vector<Captured> packets = load_capture();
    return packets;
}

// Enough traffic that the test means something: the script moves a few MiB
// from the server, in packets up to OpenSSH's 32 KiB channel packets.
TEST(OpensshCapture, HoldsTheTransfer) {
    size_t bytes = 0, biggest = 0;
    for (const Captured& c : capture()) {
        bytes += c.plain.size();
        biggest = std::max(biggest, c.plain.size());
        // The plaintext's own length field says how long the packet is.
        const uint32_t field = uint32_t(c.plain[0]) << 24 | uint32_t(c.plain[1]) << 16 | uint32_t(c.plain[2]) << 8 | c.plain[3];
        EXPECT_EQ(field, c.plain.size() - kSshLengthLen) << "seq " << c.seq;
    }
    std::printf("captured %zu packets, %zu bytes, largest %zu\n", capture().size(), bytes, biggest);
    EXPECT_GE(capture().size(), 50u);
    EXPECT_GE(bytes, size_t(2) << 20);
    EXPECT_GE(biggest, size_t(16384));
}

TEST(OpensshCapture, StitchEvpCipherOpensAndResealsEveryPacket) {
    size_t n = 0;
    for (const Captured& c : capture()) {
        StitchSshCipher opener(c.key, false), sealer(c.key, true);
        Bytes len4(kSshLengthLen, 0xee);
        ASSERT_EQ(opener.packet(c.seq, c.wire.data(), len4.data(), kSshLengthLen), int(kSshLengthLen));
        ASSERT_EQ(to_hex(len4), to_hex(c.plain.data(), kSshLengthLen)) << "length-only decrypt, seq " << c.seq;
        const auto opened = opener.run(c.seq, c.wire);
        ASSERT_TRUE(opened.has_value()) << "stitch refused OpenSSH's packet, seq " << c.seq;
        ASSERT_EQ(to_hex(*opened), to_hex(c.plain)) << "seq " << c.seq;
        const auto sealed = sealer.run(c.seq, c.plain);
        ASSERT_TRUE(sealed.has_value());
        ASSERT_EQ(to_hex(*sealed), to_hex(c.wire)) << "re-seal, seq " << c.seq;
        ++n;
    }
    EXPECT_EQ(n, capture().size());
}

class OpensshKernelCapture : public OnEverySet {};

TEST_P(OpensshKernelCapture, OpensAndResealsEveryPacket) {
    const KernelSet& k = GetParam();
    for (const Captured& c : capture()) {
        KernelPacketState st(*k.impl, c.key);
        Bytes out;
        ASSERT_TRUE(st.open(c.seq, c.wire, c.seq % 2, out)) << k.label << ": refused, seq " << c.seq;
        ASSERT_EQ(to_hex(out), to_hex(c.plain)) << k.label << ", seq " << c.seq;
        ASSERT_EQ(to_hex(st.seal(c.seq, c.plain)), to_hex(c.wire)) << k.label << ": re-seal, seq " << c.seq;
    }
}

STITCH_INSTANTIATE_ON_EVERY_SET(OpensshKernelCapture);

}  // namespace
}  // namespace stitch::test
