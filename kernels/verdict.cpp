// The tag verdict (verdict.hpp): the one place a tag is compared.
#include "kernels/verdict.hpp"

#include "kernels/aead.hpp"

namespace stitch::kern {

uint8_t tag_verdict(AeadState& st, const uint8_t tag[kTagBytes]) noexcept {
    uint8_t computed[kTagBytes];
    aead_final(st, computed);
    const uint8_t keep = ct_mask(tag_equal(computed, tag));
    wipe(computed, sizeof(computed));
    return keep;
}

bool verdict_and_wipe(AeadState& st, uint8_t* out, size_t len, const uint8_t tag[kTagBytes]) noexcept {
    const uint8_t keep = tag_verdict(st, tag);
    wipe_refused(out, len, keep);
    return keep != 0;
}

}  // namespace stitch::kern
