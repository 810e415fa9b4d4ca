// One tree's kernels behind C entry points, for scripts/bench-ab.sh: built
// twice, once against each tree, with the namespace renamed
// (-Dstitch=stitch_a, -Dstitch=stitch_b) and the entry points' prefix set
// (-DAB_SIDE=a or b), so both trees' kernels live in one program.
#include <cstdint>
#include <cstring>

#include "kernels/aead.hpp"
#include "kernels/chacha20.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/openssh.hpp"

#define AB_CAT2(x, y) x##_##y
#define AB_CAT(x, y) AB_CAT2(x, y)
#define AB_NAME(op) AB_CAT(AB_SIDE, op)

using namespace stitch::kern;

namespace {

const Impl* the_impl = nullptr;
uint8_t key[32] = {1, 2, 3}, nonce[12] = {4, 5}, ssh_key[64] = {9};
alignas(64) uint8_t buf[70000], out[70000];
AeadState seal_st, open_st;
ChaChaStream stream;
OpensshState ssh_st;

}  // namespace

// Picks the kernel set by label ("avx2", "avx512-ifma"); false if this CPU
// cannot run it.
extern "C" bool AB_NAME(init)(const char* impl) {
    the_impl = find_impl(impl);
    if (!the_impl) return false;
    aead_init(seal_st, *the_impl, Grid::rfc8439);
    aead_set_key(seal_st, key);
    aead_init(open_st, *the_impl, Grid::rfc8439);
    aead_set_key(open_st, key);
    chacha_load_key(stream.st, key);
    openssh_init(ssh_st, *the_impl);
    openssh_set_key(ssh_st, ssh_key);
    return true;
}

// A TLS 1.3 record's shape: the nonce, a 5-byte AAD, the text, the tag.
extern "C" void AB_NAME(seal)(size_t len) {
    const uint8_t aad[5] = {23, 3, 3, uint8_t(len >> 8), uint8_t(len)};
    aead_set_nonce(seal_st, nonce);
    aead_aad(seal_st, aad, sizeof(aad));
    aead_text(seal_st, Direction::seal, buf, buf, len);
    aead_final(seal_st, buf + len);
}

// A refused whole-record open: the same work as an accepted one (the verdict
// masks the output, no branch on it).
extern "C" void AB_NAME(open)(size_t len) {
    const uint8_t aad[5] = {23, 3, 3, uint8_t(len >> 8), uint8_t(len)};
    aead_set_nonce(open_st, nonce);
    aead_aad(open_st, aad, sizeof(aad));
    aead_open_record(open_st, buf, out, len, buf + len);
}

extern "C" void AB_NAME(chacha20)(size_t len) {
    for (int i = 0; i < 4; ++i) stream.st.ctr[i] = uint32_t(i);
    chacha_stream_reset(stream);
    chacha_stream_xor(*the_impl, stream, buf, buf, len);
}

// An OpenSSH packet of len payload bytes after the 4-byte length.
extern "C" void AB_NAME(ssh_seal)(size_t len) {
    openssh_seal(ssh_st, 7, buf, out, len + 4, out + len + 4);
}
