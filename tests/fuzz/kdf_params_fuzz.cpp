// libFuzzer target: random parameter sequences on stitch's HKDF or TLS13-KDF
// and on the default provider's, side by side, each call held to the
// default's answer: set_params accepted or refused alike, derive accepted or
// refused alike and the same bytes, `size` and `info` read back alike.
//
// The input picks the KDF, then a sequence of ops: set params (any subset of
// digest, properties, mode as number or string, key, salt, several infos,
// prefix, label, data, some of them with NULL data), derive (params with it
// or not, lengths around HashLen and 255 x HashLen), reset, get size, get
// info, and dup. 3.0 has no dupctx: stitch's context is replaced by its copy
// and must carry on exactly as the default's original does.
//
// Two sequences are never generated, because 3.0.19 reads through a NULL
// pointer after them: an empty info after a non-empty one (it frees its info
// and keeps the length; kdf_params_test checks stitch's answer instead), and
// a TLS13-KDF prefix param with no data but a length (it keeps the length and
// copies that much from NULL; stitch derives with no prefix).
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "fuzz_providers.hpp"

namespace stitch::fuzz {

namespace {

struct KdfCtxFree {
    void operator()(EVP_KDF_CTX* c) const { EVP_KDF_CTX_free(c); }
};
using KdfCtxPtr = std::unique_ptr<EVP_KDF_CTX, KdfCtxFree>;

struct Kdfs {
    EVP_KDF* stitch[2];
    EVP_KDF* dflt[2];
};

const Kdfs& kdfs() {
    static const Kdfs k = [] {
        const FuzzProviders& p = fuzz_providers();
        Kdfs r{};
        const char* names[2] = {"HKDF", "TLS13-KDF"};
        for (int i = 0; i < 2; ++i) {
            r.stitch[i] = EVP_KDF_fetch(p.libctx, names[i], "provider=stitch");
            r.dflt[i] = EVP_KDF_fetch(p.libctx, names[i], "provider=default");
            if (!r.stitch[i] || !r.dflt[i]) fuzz_fail("cannot fetch %s from both providers", names[i]);
        }
        return r;
    }();
    return k;
}

// SHA-256/384/512 (stitch's kernels) under several names, digests stitch
// fetches, an XOF, and names nobody offers.
const char* const kDigests[] = {"SHA2-256", "sha256",   "SHA-384",  "SHA2-512", "2.16.840.1.101.3.4.2.1",
                                "SHA1",     "SHA2-224", "SHA3-256", "SHAKE128", "MD5",
                                "SHA-257",  ""};
const char* const kModes[] = {"EXTRACT_AND_EXPAND", "extract_only", "Expand_Only", "EXPAND", "", "EXTRACT_ONLY"};
const char* const kProps[] = {"provider=default", "", "provider=stitch", "?provider=default"};

struct ParamStore {
    std::vector<OSSL_PARAM> params;
    std::vector<Bytes> bytes;  // reserved up front: params point into it
    std::vector<std::string> strings;
    int mode = 0;
    ParamStore() {
        bytes.reserve(16);
        strings.reserve(4);
    }
    void octets(const char* key, Bytes b, bool null_data) {
        bytes.push_back(std::move(b));
        Bytes& s = bytes.back();
        static uint8_t empty[1];
        void* data = null_data ? nullptr : (s.empty() ? empty : s.data());
        params.push_back(OSSL_PARAM_construct_octet_string(key, data, s.size()));
    }
    void utf8(const char* key, const char* v) {
        strings.emplace_back(v);
        params.push_back(OSSL_PARAM_construct_utf8_string(key, strings.back().data(), 0));
    }
    OSSL_PARAM* get() {
        params.push_back(OSSL_PARAM_construct_end());
        return params.data();
    }
};

class KdfRun {
public:
    KdfRun(FuzzInput& in) : in_(in), tls_(in.u8() & 1) {
        s_.reset(EVP_KDF_CTX_new(kdfs().stitch[tls_]));
        d_.reset(EVP_KDF_CTX_new(kdfs().dflt[tls_]));
        if (!s_ || !d_) fuzz_fail("EVP_KDF_CTX_new");
    }

    void run() {
        for (int ops = 0; !in_.empty() && ops < 64; ++ops) step();
        ERR_clear_error();
    }

private:
    void fail(const std::string& what) {
        fuzz_fail("%s %s\n  ops: %s", tls_ ? "TLS13-KDF" : "HKDF", what.c_str(), trace_.c_str());
    }

    Bytes bytes(size_t max) {
        const size_t n = in_.length(max);
        return in_.flag() ? in_.stream(n) : Bytes(n, in_.u8());
    }

    // The default's info is non-empty now (an empty one must not follow).
    bool default_has_info() {
        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, nullptr, 0),
                          OSSL_PARAM_construct_end()};
        return EVP_KDF_CTX_get_params(d_.get(), p) == 1 && p[0].return_size > 0;
    }

    // A random param list; a few bytes of input choose which params appear.
    void build(ParamStore& ps) {
        const uint16_t which = in_.u16();
        if (which & 1) ps.utf8(OSSL_KDF_PARAM_DIGEST, kDigests[in_.below(std::size(kDigests))]);
        if (which & 2) ps.utf8(OSSL_KDF_PARAM_PROPERTIES, kProps[in_.below(std::size(kProps))]);
        if (which & 4) {
            if (in_.flag()) {
                ps.mode = int(in_.u8() % 5) - 1;  // -1..3
                ps.params.push_back(OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &ps.mode));
            } else {
                ps.utf8(OSSL_KDF_PARAM_MODE, kModes[in_.below(std::size(kModes))]);
            }
        }
        if (which & 8) ps.octets(OSSL_KDF_PARAM_KEY, bytes(200), (which & 0x1000) != 0);
        if (which & 16) ps.octets(OSSL_KDF_PARAM_SALT, bytes(200), (which & 0x2000) != 0);
        if (which & 32) {
            const size_t n = 1 + in_.below(3);
            const bool must_have_bytes = default_has_info();
            std::vector<Bytes> infos;
            size_t total = 0;
            for (size_t i = 0; i < n; ++i) {
                infos.push_back(in_.u8() < 8 ? Bytes(16 * 1024 + in_.u8(), 0x69) : bytes(300));
                total += infos.back().size();
            }
            if (must_have_bytes && total == 0) infos.back().push_back(0x69);
            for (Bytes& b : infos) ps.octets(OSSL_KDF_PARAM_INFO, std::move(b), false);
        }
        if (which & 64) {
            // A prefix with no data is sent with length 0 only: 3.0.19 keeps
            // a refused prefix's length and copies that much from NULL.
            if (which & 0x4000)
                ps.octets(OSSL_KDF_PARAM_PREFIX, Bytes{}, true);
            else
                ps.octets(OSSL_KDF_PARAM_PREFIX, in_.flag() ? Bytes{'t', 'l', 's', '1', '3', ' '} : bytes(20), false);
        }
        if (which & 128)
            ps.octets(OSSL_KDF_PARAM_LABEL, in_.u8() < 16 ? Bytes(240 + in_.u8() % 20, 'l') : bytes(30), false);
        if (which & 256)
            ps.octets(OSSL_KDF_PARAM_DATA, in_.u8() < 16 ? Bytes(250 + in_.u8() % 10, 'd') : bytes(64),
                      (which & 0x8000) != 0);
    }

    size_t out_length() {
        const uint8_t b = in_.u8();
        static const size_t kSizes[] = {20, 28, 32, 48, 64, 0};
        if (b < 64) return kSizes[b % std::size(kSizes)];
        if (b < 72) {  // around 255 blocks of the digests above
            static const size_t kEnds[] = {255 * 20, 255 * 32, 255 * 48, 255 * 64};
            return kEnds[b % 4] + (b & 4 ? 1 : 0);
        }
        return in_.length(600);
    }

    void step() {
        const uint8_t op = in_.u8() % 8;
        switch (op) {
            case 0:
            case 1: {  // set params
                ParamStore ps;
                build(ps);
                const int rs = EVP_KDF_CTX_set_params(s_.get(), ps.get());
                const int rd = EVP_KDF_CTX_set_params(d_.get(), ps.params.data());
                trace_ += "set(" + std::to_string(ps.params.size() - 1) + ")=" + std::to_string(rd) + " ";
                if ((rs > 0) != (rd > 0))
                    fail("set_params: stitch " + std::to_string(rs) + ", default " + std::to_string(rd));
                break;
            }
            case 2:
            case 3:
            case 4: {  // derive
                ParamStore ps;
                const bool with = in_.flag();
                if (with) build(ps);
                const size_t len = out_length();
                Bytes a(len + 1, 0xa5), b(len + 1, 0xa5);
                OSSL_PARAM* p = with ? ps.get() : nullptr;
                const int rs = EVP_KDF_derive(s_.get(), a.data(), len, p);
                const int rd = EVP_KDF_derive(d_.get(), b.data(), len, p);
                trace_ += "derive(" + std::to_string(len) + (with ? ",params" : "") + ")=" + std::to_string(rd) + " ";
                fuzz_count(rd > 0 ? "derive accepted" : "derive refused");
                if ((rs > 0) != (rd > 0))
                    fail("derive: stitch " + std::to_string(rs) + ", default " + std::to_string(rd));
                if (rs <= 0 && a != Bytes(len + 1, 0xa5)) fail("stitch wrote output on a refused derive");
                if (rs > 0 && a != b) fail("derive output differs");
                if (a[len] != 0xa5) fail("stitch wrote past the output");
                break;
            }
            case 5:  // reset
                EVP_KDF_CTX_reset(s_.get());
                EVP_KDF_CTX_reset(d_.get());
                trace_ += "reset ";
                break;
            case 6: {  // get size, or info
                if (in_.flag()) {
                    const size_t ss = EVP_KDF_CTX_get_kdf_size(s_.get()), ds = EVP_KDF_CTX_get_kdf_size(d_.get());
                    trace_ += "size=" + std::to_string(ds) + " ";
                    if (ss != ds) fail("size: stitch " + std::to_string(ss) + ", default " + std::to_string(ds));
                } else {
                    uint8_t sb[64 * 1024], db[64 * 1024];
                    const size_t room = in_.flag() ? sizeof(sb) : in_.u8();
                    OSSL_PARAM ps[] = {OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, sb, room),
                                       OSSL_PARAM_construct_end()};
                    OSSL_PARAM pd[] = {OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, db, room),
                                       OSSL_PARAM_construct_end()};
                    const int rs = EVP_KDF_CTX_get_params(s_.get(), ps), rd = EVP_KDF_CTX_get_params(d_.get(), pd);
                    trace_ += "info=" + std::to_string(rd) + " ";
                    if (rs != rd) fail("get info: stitch " + std::to_string(rs) + ", default " + std::to_string(rd));
                    if (rs == 1 &&
                        (ps[0].return_size != pd[0].return_size || std::memcmp(sb, db, ps[0].return_size) != 0))
                        fail("get info: different bytes");
                }
                break;
            }
            default: {  // dup: stitch carries on with its copy
                KdfCtxPtr copy(EVP_KDF_CTX_dup(s_.get()));
                trace_ += "dup ";
                if (!copy) fail("stitch's dupctx failed");
                s_ = std::move(copy);
                break;
            }
        }
        ERR_clear_error();
    }

    FuzzInput& in_;
    const int tls_;
    KdfCtxPtr s_, d_;
    std::string trace_;
};

}  // namespace

}  // namespace stitch::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    stitch::fuzz::FuzzInput in(data, size);
    stitch::fuzz::KdfRun(in).run();
    return 0;
}
