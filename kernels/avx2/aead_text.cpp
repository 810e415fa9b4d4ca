// The one pass (Impl::aead_text) of each shape: short opens take the short
// path (avx2/aead_short.hpp), everything else the pass (avx2/aead_pass.hpp)
// with the shape's MAC arrangement.
#include "kernels/avx2/aead_pass.hpp"
#include "kernels/avx2/aead_short.hpp"
#include "kernels/avx2/kernels.hpp"

namespace stitch::kern {

namespace {

using avx2::Shape;
using avx2::U32x8;

template <const Shape& S>
STITCH_TARGET_AVX2_BMI2 void aead_text(AeadState& st, Direction dir, const uint8_t* in, uint8_t* out,
                                       size_t len) noexcept {
    U32x8::clean_upper();
    // Short opens have their own path (the MAC keyed and fed beside one row
    // run, measured ~10% quicker than the pass at 192 B on Zen 5); short
    // seals take the pass, whose first call is the same single keystream call.
    if (dir == Direction::open && !st.mac_keyed && len <= S.short_max)
        avx2::short_open(st, in, out, len);
    else
        avx2::Pass<S>(st, dir, in, out, len).run();
    U32x8::zero_registers();
}

}  // namespace

const PerShape<AeadTextFn> aead_text_avx2 =
    avx2::for_each_shape<AeadTextFn>([]<const Shape& S>() { return &aead_text<S>; });

}  // namespace stitch::kern
