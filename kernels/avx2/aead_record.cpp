// The whole-record open (Impl::aead_open_record): records up to
// avx2::kShortOpenMax take the short path (avx2/aead_short.hpp), MAC'd
// before a byte is decrypted and written masked by the verdict; longer ones
// take the one pass and have their output cleared on a refusal.
#include "kernels/avx2/aead_short.hpp"
#include "kernels/avx2/kernels.hpp"
#include "kernels/avx2/tuning.hpp"
#include "kernels/bytes.hpp"
#include "kernels/verdict.hpp"

namespace stitch::kern {

bool aead_open_record_avx2(AeadState& st, const uint8_t* in, uint8_t* out, size_t len,
                           const uint8_t tag[16]) noexcept {
    using namespace avx2;
    U32x8::clean_upper();
    if (len > kShortOpenMax) {
        aead_text_avx2(st, Direction::open, in, out, len);
        const uint8_t keep = tag_verdict(st, tag);
        wipe_refused(out, len, keep);
        U32x8::zero_registers();
        return keep != 0;
    }
    U32x8 ks[1][16];
    mulx::PolyAcc acc;
    size_t first = 0;  // the lane of the text's first block
    if (st.mac_keyed) {
        keyed_keystream(st, ks, len);
        acc = mulx::load(st.mac);
        avx2::mac_update(acc, st.mac, in, len);
    } else {
        acc = keyed_open_keystream(st, ks, in, len, first);
    }
    mulx::store(st.mac, acc);
    // Nothing is written before the verdict, so in == out still holds the
    // ciphertext here.
    const uint8_t keep = tag_verdict(st, tag);
    masked_xor(ks, first, in, out, len, keep);
    avx2::wipe_upto(ks, first + blocks_for(len));
    U32x8::zero_registers();
    return keep != 0;
}

}  // namespace stitch::kern
