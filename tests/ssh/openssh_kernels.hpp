// The kernel sets the OpenSSH tests run through, and one packet state driven
// the way the provider drives it (kernels/openssh.hpp).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "kernels/bytes.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/openssh.hpp"
#include "kernels/portable/set.hpp"
#include "kernels/avx2/set.hpp"

namespace stitch::test {

struct KernelUnderTest {
    std::string name;
    const kern::Impl* impl;
};

// portable_impl() always; the AVX2 set's shape for this CPU wherever the CPU
// can run it. A host that has AVX2 and BMI2 (as the compiler's own CPU check
// sees it) but no AVX2 Impl is a failure by name: that path would otherwise
// go untested.
inline std::vector<KernelUnderTest> openssh_kernels() {
    std::vector<KernelUnderTest> v{{"portable_impl()", &kern::portable_impl()}};
    if (const kern::Impl* avx2 = kern::avx2::preferred(kern::cpu_features_raw())) {
        v.push_back({"avx2::preferred()", avx2});
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) {
        ADD_FAILURE() << "this host has AVX2 and BMI2 but avx2::preferred() is null: the AVX2 OpenSSH path is untested";
    }
    return v;
}

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
