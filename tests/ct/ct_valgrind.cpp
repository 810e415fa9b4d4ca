// Constant time, checked by memcheck (the ctgrind method, see ctgrind.hpp).
// Runs every kernel path with the key, the nonce words, the plaintext and the
// tag marked undefined, for the portable kernels, the AVX2 set where the
// host has AVX2, and the AVX-512 set built on SIMDe (tests/emulated). CTest runs this under valgrind with --error-exitcode:
// any branch or table index on a secret byte is a memcheck error and fails
// the test. Outside valgrind it is only a round-trip check.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <vector>

#include "common/test_util.hpp"
#include "ct/ctgrind.hpp"
#include "kernels/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/verdict.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/openssh.hpp"
#include "kernels/portable/set.hpp"
#include "kernels/avx2/set.hpp"
#if defined(STITCH_TEST_AVX512_EMULATED)
#include "tests/emulated/emulated_impls.hpp"
#endif

namespace {

using namespace stitch::kern;
using stitch::ct::declassify;
using stitch::ct::public_verdict;
using stitch::ct::secret;
using stitch::test::Bytes;
using stitch::test::Rng;

// Every size class: empty, sub-block, block edges, the short path's 192-byte
// cut-off, AVX2 batch edges (512 = 8 blocks) and a few batches plus a tail.
constexpr size_t kLengths[] = {0, 1, 15, 16, 63, 64, 65, 191, 192, 193, 511, 512, 513, 1300, 4100};
constexpr size_t kAadLengths[] = {0, 13, 40};  // none, TLS 1.2's, more than can be held back
// Update splits, repeated over the text: bytes, odd sizes, across blocks and batches.
const std::vector<std::vector<size_t>> kSplits = {{1}, {7, 64}, {63, 1, 129}, {200}, {513, 3}};

int g_failures = 0;
int g_checks = 0;

void expect(bool ok, const char* impl, const char* what, size_t len) {
    ++g_checks;
    if (ok) return;
    ++g_failures;
    std::printf("FAIL [%s] %s (len %zu)\n", impl, what, len);
}

// Compares two buffers computed from secrets: public from here on.
bool same(Bytes a, Bytes b) {
    declassify(a.data(), a.size());
    declassify(b.data(), b.size());
    return a == b;
}

bool all_zero(Bytes a) {
    declassify(a.data(), a.size());
    for (uint8_t x : a)
        if (x) return false;
    return true;
}

struct Message {
    Bytes key, nonce, aad, text;
};

Message make_message(Rng& rng, size_t len, size_t aad_len) {
    Message m{rng.bytes(32), rng.bytes(12), rng.bytes(aad_len), rng.bytes(len)};
    secret(m.key.data(), m.key.size());
    secret(m.text.data(), m.text.size());
    return m;  // nonce and AAD are public; the nonce words are marked secret in the state below
}

void start(AeadState& st, const Impl& impl, const Message& m) {
    aead_init(st, impl, Grid::rfc8439);
    aead_set_key(st, m.key.data());
    aead_set_nonce(st, m.nonce.data());
    secret(st.chacha.ctr + 1, 12);  // ctr[0], the block counter, stays public
    aead_aad(st, m.aad.data(), m.aad.size());
}

// Seals (dir = seal) or opens through aead_text in chunks cycling over `split`.
Bytes run_text(AeadState& st, Direction dir, const Bytes& in, const std::vector<size_t>& split, uint8_t tag[16]) {
    Bytes out(in.size());
    size_t pos = 0;
    for (size_t i = 0; pos < in.size(); ++i) {
        size_t n = std::min(split[i % split.size()], in.size() - pos);
        aead_text(st, dir, in.data() + pos, out.data() + pos, n);
        pos += n;
    }
    aead_final(st, tag);
    return out;
}

class Checker {
public:
    Checker(const Impl& impl, uint64_t seed) : impl_(impl), rng_(seed) {}

    void run() {
        chacha_blocks();
        chacha_stream();
        poly1305();
        tag_equal_checks();
        for (size_t i = 0; i < std::size(kLengths); ++i) {
            const size_t len = kLengths[i];
            const size_t aad = kAadLengths[i % std::size(kAadLengths)];
            for (const auto& split : kSplits) one_pass(len, aad, split);
            open_record(len, aad);
            openssh(len);
        }
    }

private:
    // Whole blocks, keystream-only and XOR, with the counter carrying past 2^32.
    void chacha_blocks() {
        for (size_t n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17}) {
            const Bytes key = rng_.bytes(32), in = secret_bytes(n * kChaChaBlock);
            ChaChaState a{}, b{};
            load_secret_key(a, key.data(), 0xfffffffcu);
            b = a;
            Bytes x(in.size()), y(in.size()), ks(in.size());
            impl_.chacha20_blocks(a, in.data(), x.data(), n);
            chacha20_blocks_portable(b, in.data(), y.data(), n);
            expect(same(x, y), impl_label(impl_), "chacha20_blocks xor", n);
            impl_.chacha20_blocks(a, nullptr, ks.data(), n);
            chacha20_blocks_portable(b, nullptr, y.data(), n);
            expect(same(ks, y), impl_label(impl_), "chacha20_blocks keystream", n);
            declassify(a.ctr, sizeof(a.ctr));
            expect(a.ctr[0] == uint32_t(0xfffffffcu + 2 * n), impl_label(impl_), "chacha20_blocks counter", n);
        }
    }

    // Raw ChaCha20 over update splits, against one portable call.
    void chacha_stream() {
        for (size_t len : {1, 64, 65, 513, 1300}) {
            const Bytes key = rng_.bytes(32), in = secret_bytes(len);
            for (const auto& split : kSplits) {
                ChaChaStream s{};
                load_secret_key(s.st, key.data(), 0xfffffffeu);
                ChaChaState ref = s.st;
                chacha_stream_reset(s);
                Bytes out(len), want(len + kChaChaBlock);
                for (size_t pos = 0, i = 0; pos < len; ++i) {
                    size_t n = std::min(split[i % split.size()], len - pos);
                    chacha_stream_xor(impl_, s, in.data() + pos, out.data() + pos, n);
                    pos += n;
                }
                Bytes padded = in;
                padded.resize(want.size());
                chacha20_blocks_portable(ref, padded.data(), want.data(), (len + 63) / 64);
                want.resize(len);
                expect(same(out, want), impl_label(impl_), "chacha_stream_xor", len);
            }
        }
    }

    // The impl's poly1305_blocks directly and through update/final at odd lengths.
    void poly1305() {
        for (size_t n : {1, 2, 3, 4, 5, 8, 16, 17, 64}) {
            const Bytes key = secret_bytes(32), msg = secret_bytes(n * kPolyBlock + 7);
            Poly1305State a, b;
            poly1305_init(a, key.data());
            poly1305_init(b, key.data());
            impl_.poly1305_blocks(a, msg.data(), n);
            poly1305_blocks_portable(b, msg.data(), n);
            poly1305_update(impl_, a, msg.data() + n * kPolyBlock, 7);
            poly1305_update(portable_impl(), b, msg.data() + n * kPolyBlock, 7);
            Bytes ta(16), tb(16);
            poly1305_final(impl_, a, ta.data());
            poly1305_final(portable_impl(), b, tb.data());
            expect(same(ta, tb), impl_label(impl_), "poly1305_blocks", n);
        }
    }

    // The tag compare (tag_equal, the one tag_verdict makes) over secret
    // bytes: only the verdict is public. A difference in each byte of either
    // 8-byte half.
    void tag_equal_checks() {
        const Bytes a = secret_bytes(16), b = a;
        expect(public_verdict(tag_equal(a.data(), b.data())), impl_label(impl_), "tag_equal equal", 16);
        for (size_t at = 0; at < 16; ++at) {
            Bytes c = a;
            declassify(&c[at], 1);
            c[at] ^= uint8_t(1u << (at % 8));
            secret(&c[at], 1);
            expect(!public_verdict(tag_equal(a.data(), c.data())), impl_label(impl_), "tag_equal differ", at);
        }
    }

    // Seal and open through aead_text over a split; seal matches portable.
    void one_pass(size_t len, size_t aad_len, const std::vector<size_t>& split) {
        const Message m = make_message(rng_, len, aad_len);
        AeadState st, ref;
        uint8_t tag[16], ref_tag[16], open_tag[16];
        start(st, impl_, m);
        const Bytes ct = run_text(st, Direction::seal, m.text, split, tag);
        start(ref, portable_impl(), m);
        const Bytes ref_ct = run_text(ref, Direction::seal, m.text, {len + 1}, ref_tag);
        expect(same(ct, ref_ct) && same(Bytes(tag, tag + 16), Bytes(ref_tag, ref_tag + 16)), impl_label(impl_),
               "aead_text seal", len);
        start(st, impl_, m);
        const Bytes pt = run_text(st, Direction::open, ct, split, open_tag);
        expect(public_verdict(tag_equal(tag, open_tag)), impl_label(impl_), "aead_text open tag", len);
        expect(same(pt, m.text), impl_label(impl_), "aead_text open text", len);
    }

    // Whole-record open, short path (<= kShortMax) or long: accept out of
    // place, refuse in place with every output byte wiped.
    void open_record(size_t len, size_t aad_len) {
        const Message m = make_message(rng_, len, aad_len);
        AeadState st;
        uint8_t tag[16], bad[16];
        start(st, impl_, m);
        const Bytes ct = run_text(st, Direction::seal, m.text, {len + 1}, tag);
        Bytes out(len);
        start(st, impl_, m);
        secret(tag, 16);
        expect(public_verdict(aead_open_record(st, ct.data(), out.data(), len, tag)), impl_label(impl_),
               "open_record accept", len);
        expect(same(out, m.text), impl_label(impl_), "open_record text", len);
        std::memcpy(bad, tag, 16);
        declassify(bad, 16);
        bad[len % 16] ^= 1;
        secret(bad, 16);
        Bytes io = ct;
        start(st, impl_, m);
        expect(!public_verdict(aead_open_record(st, io.data(), io.data(), len, bad)), impl_label(impl_),
               "open_record refuse", len);
        expect(all_zero(io), impl_label(impl_), "open_record refusal wipe", len);
    }

    // OpenSSH packet: length(4) ‖ payload under K_2 ‖ K_1, seal/length/open/refuse.
    void openssh(size_t payload_len) {
        const Bytes key = secret_bytes(kOpensshKeyLen);
        const Bytes packet = secret_bytes(kOpensshLengthLen + payload_len);
        const size_t len = packet.size();
        const uint64_t seqnr = rng_.next();
        OpensshState st, ref;
        openssh_init(st, impl_);
        openssh_set_key(st, key.data());
        openssh_init(ref, portable_impl());
        openssh_set_key(ref, key.data());
        Bytes sealed(len), ref_sealed(len);
        uint8_t tag[kTagLen], ref_tag[kTagLen];
        openssh_seal(st, seqnr, packet.data(), sealed.data(), len, tag);
        openssh_seal(ref, seqnr, packet.data(), ref_sealed.data(), len, ref_tag);
        expect(same(sealed, ref_sealed) && same(Bytes(tag, tag + 16), Bytes(ref_tag, ref_tag + 16)), impl_label(impl_),
               "openssh_seal", payload_len);
        Bytes length(kOpensshLengthLen);
        openssh_length(st, seqnr, sealed.data(), length.data());
        expect(same(length, Bytes(packet.begin(), packet.begin() + 4)), impl_label(impl_), "openssh_length", payload_len);
        Bytes out(len);
        expect(public_verdict(openssh_open(st, seqnr, sealed.data(), out.data(), len, tag)), impl_label(impl_),
               "openssh_open accept", payload_len);
        expect(same(out, packet), impl_label(impl_), "openssh_open text", payload_len);
        declassify(tag, kTagLen);
        tag[payload_len % kTagLen] ^= 0x80;
        secret(tag, kTagLen);
        expect(!public_verdict(openssh_open(st, seqnr, sealed.data(), out.data(), len, tag)), impl_label(impl_),
               "openssh_open refuse", payload_len);
        expect(all_zero(out), impl_label(impl_), "openssh_open refusal wipe", payload_len);
    }

    Bytes secret_bytes(size_t n) {
        Bytes b = rng_.bytes(n);
        secret(b.data(), b.size());
        return b;
    }

    // Key and nonce words secret; the 64-bit block counter public, started at `counter`.
    void load_secret_key(ChaChaState& st, const uint8_t* key, uint32_t counter) {
        chacha_load_key(st, key);
        const Bytes nonce = rng_.bytes(8);
        st.ctr[0] = counter;
        st.ctr[1] = 0;
        std::memcpy(st.ctr + 2, nonce.data(), 8);
        secret(st.key, sizeof(st.key));
        secret(st.ctr + 2, 8);
    }

    const Impl& impl_;
    Rng rng_;
};

}  // namespace

int main() {
    const CpuFeatures raw = cpu_features_raw();
    const Impl* avx2 = avx2::preferred(raw);
    std::printf("cpu (as this process sees it): avx2=%d bmi2=%d adx=%d; avx2::preferred: %s\n", raw.avx2, raw.bmi2,
                raw.adx, avx2 ? "present" : "null");
    Checker(portable_impl(), 1).run();
    // The AVX2 set, whatever dispatch chose.
    uint64_t seed = 2;
    for (const Impl* impl : avx2::impls()) Checker(*impl, seed++).run();
    // The AVX-512 set as SIMDe runs it (valgrind executes no AVX-512
    // instruction): the same kernel source, so a branch or index on a secret
    // in its logic shows here too.
#if defined(STITCH_TEST_AVX512_EMULATED)
    for (const Impl* emulated : stitch::test::avx512_emulated_impls()) {
        std::printf("checking %s\n", impl_label(*emulated));
        Checker(*emulated, seed++).run();
    }
#endif
#if defined(__x86_64__)
    // An x86-64 build always carries the AVX2 kernels: a null here on an
    // AVX2+BMI2 host means they were never checked, which is a failure.
    if (raw.avx2 && raw.bmi2 && !avx2) {
        std::printf("FAIL avx2_expected: this host has AVX2+BMI2 but avx2::preferred(cpu_features_raw()) is null\n");
        ++g_failures;
    }
#endif
    std::printf("%d checks, %d failures\n", g_checks, g_failures);
    return g_failures == 0 ? 0 : 1;
}
