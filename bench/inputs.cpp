#include "bench/inputs.hpp"

namespace stitch::bench {

namespace {

Inputs make_inputs() {
    Inputs in{};
    fill(in.key, sizeof(in.key), 1);
    fill(in.iv12, sizeof(in.iv12), 2);
    fill(in.iv16, sizeof(in.iv16), 3);
    in.iv16[0] = in.iv16[1] = in.iv16[2] = in.iv16[3] = 0;
    fill(in.ssh_key, sizeof(in.ssh_key), 6);
    in.ssh_seqnr = 0x0000000100000007ull;  // both halves non-zero: byte order mistakes show
    fill(in.poly_key, sizeof(in.poly_key), 7);
    return in;
}

}  // namespace

const Inputs& inputs() {
    static const Inputs in = make_inputs();
    return in;
}

Buffer plaintext(size_t len) { return filled(len, 5); }

void tls13_header(uint8_t aad[5], size_t len) {
    const size_t wire = len + kTagLen;
    aad[0] = 0x17;
    aad[1] = 0x03;
    aad[2] = 0x03;
    aad[3] = uint8_t(wire >> 8);
    aad[4] = uint8_t(wire);
}

void tls12_header(uint8_t aad[13], size_t length_field) {
    fill(aad, 8, 4);
    aad[8] = 0x17;
    aad[9] = 0x03;
    aad[10] = 0x03;
    aad[11] = uint8_t(length_field >> 8);
    aad[12] = uint8_t(length_field);
}

Buffer ssh_packet(size_t payload, size_t spare) {
    Buffer b(kSshLengthLen + payload + spare);
    const uint32_t n = uint32_t(payload);
    b.data()[0] = uint8_t(n >> 24);
    b.data()[1] = uint8_t(n >> 16);
    b.data()[2] = uint8_t(n >> 8);
    b.data()[3] = uint8_t(n);
    fill(b.data() + kSshLengthLen, payload, 8);
    return b;
}

}  // namespace stitch::bench
