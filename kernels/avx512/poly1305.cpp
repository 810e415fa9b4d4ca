// Poly1305 over whole blocks for the AVX-512 set (Impl::poly1305_blocks):
// short runs on the AVX2 set's MULX loop; longer ones on IFMA
// (poly1305_ifma.hpp: the first nblocks % 4 blocks through MULX, then four
// lanes, or for long runs sixteen in two sets of eight) or, without IFMA,
// on the AVX2 set's four-lane code. The POLY1305 EVP_MAC and every
// trailing MAC of the AEAD pass go through here.
#include <cstdlib>
#include <cstring>

#include "kernels/x86/poly1305_vector.hpp"
#include "kernels/avx2/kernels.hpp"
#include "kernels/avx512/chacha20.hpp"
#include "kernels/avx512/kernels.hpp"
#include "kernels/avx512/set.hpp"
#if STITCH_AVX512_IFMA
#include "kernels/avx512/poly1305_ifma.hpp"
#endif

namespace stitch::kern::STITCH_AVX512_NS {

#if STITCH_AVX512_IFMA
namespace {
// Read once, at load: the CPU table's width for this CPU (CPUID is an
// instruction, so reading it here is safe wherever stitch.so is loaded).
const size_t kZmmMinBlocks = [] {
    const size_t n = avx512::ifma_zmm_min_blocks(cpu_features_raw());
    return n < 16 ? 16 : n;  // a two-set zmm run needs one whole group
}();

// The order of each step's products (poly1305_ifma.hpp's Order): read once,
// at load, from the CPU table, or from STITCH_AVX512_IFMA_ORDER=limbs|carry,
// which tests and measurements use to run either on any CPU.
const bool kIfmaCarryOrder = [] {
    const char* env = std::getenv("STITCH_AVX512_IFMA_ORDER");
    if (env && std::strcmp(env, "carry") == 0) return true;
    if (env && std::strcmp(env, "limbs") == 0) return false;
    return avx512::ifma_carry_order(cpu_features_raw());
}();

// nblocks (a multiple of four, at least four) on IFMA lanes, from st.h back
// into st.h.
template <ifma::Order O>
STITCH_INLINE_AVX512 void ifma_runs(Poly1305State& st, const uint8_t* in, size_t nblocks) {
    const ifma::FirstPowers f = ifma::first_powers(st);
    if (nblocks < kIfmaTwoSetsMinBlocks) {
        ifma::absorb4<O>(st, ifma::powers4(f), in, nblocks / 4);
        return;
    }
    // What whole groups leave over on four lanes first, then groups of 2L
    // blocks on two sets of L lanes.
    const size_t group = nblocks < kZmmMinBlocks ? 8 : 16;
    if (const size_t fours = nblocks % group / 4; fours > 0) {
        ifma::absorb4<O>(st, ifma::powers4(f), in, fours);
        in += 4 * fours * kPolyBlock;
        nblocks -= 4 * fours;
    }
    if (group == 8)
        ifma::absorb_two_sets<O>(st, ifma::two_sets_of_four(f), in, nblocks / 8);
    else
        ifma::absorb_two_sets<O>(st, ifma::two_sets_of_eight(f), in, nblocks / 16);
}
}  // namespace
#endif

namespace {

// The vector run, out of line so that poly1305_blocks tests for a short
// run before any frame is built: with the body inline, g++ 12 built its
// 64-byte-aligned frame (six pushes, the stack realigned, the arguments
// spilled) ahead of that test and unwound it for every run of one to seven
// blocks, where clang 14 tested first. On Ice Lake-SP a 64-byte POLY1305
// through EVP took 50.0 ns from the g++ build and 47.2 from the clang one;
// split, g++'s takes 48.3.
[[gnu::noinline]] STITCH_TARGET_AVX512 void poly1305_blocks_vector(Poly1305State& st, const uint8_t* in,
                                                                   size_t nblocks) noexcept {
#if STITCH_AVX512_IFMA
    const size_t head = nblocks % 4;
#else
    const size_t head = 0;
#endif
    clean_upper();
    if (head > 0) {
        mulx::PolyAcc acc = mulx::load(st);
        mulx::blocks(acc, in, head);
        mulx::store(st, acc);
        in += head * kPolyBlock;
        nblocks -= head;
    }
    if (nblocks > 0) {
#if STITCH_AVX512_IFMA
        if (kIfmaCarryOrder)
            ifma_runs<ifma::Order::carry>(st, in, nblocks);
        else
            ifma_runs<ifma::Order::limbs>(st, in, nblocks);
#else
        poly1305_blocks_avx2_vector(st, in, nblocks);
#endif
    }
    // h passes through vector registers on the MULX head's load and store.
    zero_registers();
}

}  // namespace

void poly1305_blocks(Poly1305State& st, const uint8_t* in, size_t nblocks) noexcept {
    // A run too short for the vector code: the AVX2 set's MULX loop, which
    // touches no vector register, so there is nothing to clean or wipe (on
    // Zen 4 poly1305_blocks_vector's wipe cost a 16-byte POLY1305 more than
    // its block).
    // Not inline here: with AVX-512 enabled, g++ 12 spilled a general
    // register of this function to xmm7 (tests/wipe/avx512_registers_test).
#if STITCH_AVX512_IFMA
    if (nblocks < kIfmaMinBlocks) return poly1305_blocks_mulx(st, in, nblocks);
#else
    if (nblocks < kVectorPolyMinBlocks) return poly1305_blocks_mulx(st, in, nblocks);
#endif
    poly1305_blocks_vector(st, in, nblocks);
}

}  // namespace stitch::kern::STITCH_AVX512_NS
