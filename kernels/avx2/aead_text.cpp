// The one pass (Impl::aead_text): short opens, and first-call short seals
// where the CPU rule says so, take the short paths (avx2/aead_short.hpp),
// everything else the pass (avx2/aead_pass.hpp).
#include "kernels/avx2/aead_pass.hpp"
#include "kernels/avx2/aead_short.hpp"
#include "kernels/avx2/kernels.hpp"
#include "kernels/avx2/tuning.hpp"

namespace stitch::kern {

namespace {

// Out of line: the short paths keep block 0, the MAC and the rows in flight
// at once and take every general-purpose register, and the short open
// inlined made the seal's pass in this function slower (its prologue and
// frame): TLS 1.3 seal at 64 B 293 -> 322 ns through EVP on Zen 5,
// December 2026. The short seal is out of line for the same reason.
[[gnu::noinline]] STITCH_TARGET_AVX2_BMI2 void open_short(AeadState& st, const uint8_t* in, uint8_t* out,
                                                          size_t len) noexcept {
    avx2::short_open(st, in, out, len);
}

[[gnu::noinline]] STITCH_TARGET_AVX2_BMI2 void seal_short(AeadState& st, const uint8_t* in, uint8_t* out,
                                                          size_t len) noexcept {
    avx2::short_seal(st, in, out, len);
}

}  // namespace

void aead_text_avx2(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out, size_t len) noexcept {
    using avx2::U32x8;
    U32x8::clean_upper();
    // Short records have their own paths: an open's MAC keyed and fed
    // beside one row run (measured ~10% quicker than the pass at 192 B on
    // Zen 5), a first-call seal's of 1-128 bytes keyed beside it where the
    // CPU rule puts block 0 there (~25% quicker on Zen 5); other seals take
    // the pass.
    if (dir == Direction::open && !st.mac_keyed && len <= avx2::kShortOpenMax)
        open_short(st, in, out, len);
    else if (dir == Direction::seal && !st.mac_keyed && avx2::short_seal_takes(len))
        seal_short(st, in, out, len);
    else
        avx2::Pass(st, dir, in, out, len).run();
    U32x8::zero_registers();
}

}  // namespace stitch::kern
