// One OpenSSH packet state driven the way the provider drives it
// (kernels/openssh.hpp), for the tests that run on every kernel set
// (common/kernel_set_param.hpp; test_kernel_sets checks that kernel_sets()
// holds every set this host runs).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/kernel_set_param.hpp"
#include "common/test_util.hpp"
#include "kernels/bytes.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/openssh.hpp"
#include "kernels/portable/set.hpp"

namespace stitch::test {

class KernelPacketState {
public:
    KernelPacketState(const kern::Impl& impl, const Bytes& key) {
        kern::openssh_init(st_, impl);
        kern::openssh_set_key(st_, key.data());
    }
    ~KernelPacketState() { kern::openssh_wipe(st_); }
    KernelPacketState(const KernelPacketState&) = delete;
    KernelPacketState& operator=(const KernelPacketState&) = delete;

    // packet = length ‖ payload → wire = encrypted length ‖ ciphertext ‖ tag.
    Bytes seal(uint64_t seq, const Bytes& packet) {
        Bytes wire(packet.size() + kern::kTagLen);
        kern::openssh_seal(st_, seq, packet.data(), wire.data(), packet.size(), wire.data() + packet.size());
        return wire;
    }

    // Opens wire into `out` (length ‖ payload), in place or from a separate
    // buffer first filled with 0xee. On a refusal `out` is what the kernel left.
    bool open(uint64_t seq, const Bytes& wire, bool in_place, Bytes& out) {
        const size_t len = wire.size() - kern::kTagLen;
        const Bytes tag(wire.end() - kern::kTagLen, wire.end());
        bool ok;
        if (in_place) {
            out = Bytes(wire.begin(), wire.begin() + len);
            ok = kern::openssh_open(st_, seq, out.data(), out.data(), len, tag.data());
        } else {
            out.assign(len, 0xee);
            ok = kern::openssh_open(st_, seq, wire.data(), out.data(), len, tag.data());
        }
        return ok;
    }

    Bytes length(uint64_t seq, const uint8_t* enc4) const {
        Bytes out(kern::kOpensshLengthLen);
        kern::openssh_length(st_, seq, enc4, out.data());
        return out;
    }

private:
    kern::OpensshState st_;
};

}  // namespace stitch::test
