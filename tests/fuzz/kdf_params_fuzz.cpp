// libFuzzer target: random parameter sequences on stitch's HKDF or TLS13-KDF
// and on the default provider's, side by side, each call held to the
// default's answer and to the model of the params' rules
// (tests/kdf/kdf_sequence_model.hpp): set_params accepted or refused alike,
// derive accepted or refused alike and the same bytes (a refused one writing
// nothing), `size` and `info` read back alike.
//
// The input picks the KDF, then a sequence of ops: set params (any subset of
// digest, properties, mode as number or string, key, salt, several infos,
// prefix, label, data, some of them with NULL data), derive (params with it
// or not, lengths around HashLen and 255 x HashLen), reset, get size, get
// info, and dup; and, for the sequence enumerator (tests/kdf), one param in
// one variant (valid, empty, NULL data with a length; each mode in both
// forms) and a "prime" call that sets every param. 3.0 has no dupctx:
// stitch's context is replaced by its copy and must carry on exactly as the
// default's original does.
//
// Where 3.0 crashes (tests/kdf/kdf_divergences.hpp: a mode with NULL data,
// an empty info after a non-empty one, a TLS13-KDF prefix or label with NULL
// data and a length), the default is spared the call or the derive and the
// model alone judges stitch. The random param lists never hold the first
// (the enumerator's ops do).
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "fuzz_providers.hpp"
#include "kdf/kdf_divergences.hpp"
#include "kdf/kdf_sequence_model.hpp"

namespace stitch::fuzz {

namespace {

struct KdfCtxFree {
    void operator()(EVP_KDF_CTX* c) const { EVP_KDF_CTX_free(c); }
};
using KdfCtxPtr = std::unique_ptr<EVP_KDF_CTX, KdfCtxFree>;

struct Kdfs {
    OSSL_LIB_CTX* libctx;
    EVP_KDF* stitch[2];
    EVP_KDF* dflt[2];
};

const Kdfs& kdfs() {
    static const Kdfs k = [] {
        const FuzzProviders& p = fuzz_providers();
        Kdfs r{};
        r.libctx = p.libctx;
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

// The enumerator's single-param op (kOneParam): which param, then a variant.
enum OneParam : uint8_t {
    kKey, kSalt, kInfo, kModeInt, kModeString, kDigest, kProperties, kPrefix, kLabel, kData, kDigestWithProperties,
    kOneParamCount
};
enum Variant : uint8_t { kValid, kEmpty, kNullData };  // modes: 0..2 that mode, 3 unknown, 4 NULL data
constexpr uint8_t kOneParamOp = 0xf8, kPrimeOp = 0xf9;  // op bytes beside u8 % 8 (the older ops)

class KdfRun {
public:
    KdfRun(FuzzInput& in)
        : in_(in),
          tls_(in.u8() & 1),
          model_(tls_ ? KdfKind::tls13 : KdfKind::hkdf, kdfs().libctx, kdfs().dflt[tls_],
                 [this](const std::string& rule) { count(rule); }) {
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

    void count(const std::string& rule) { fuzz_count(((tls_ ? "TLS13-KDF " : "HKDF ") + rule).c_str()); }

    void diverge(KdfDivergence d) { count(std::string("divergence: ") + kdf_rule(d).name); }

    // The default stops being driven (a call would crash it); the model judges alone.
    void detach(KdfDivergence d) {
        diverge(d);
        live_ = false;
    }

    Bytes bytes(size_t max) {
        const size_t n = in_.length(max);
        return in_.flag() ? in_.stream(n) : Bytes(n, in_.u8());
    }

    // The default's info is non-empty now (an empty one must not follow:
    // random lists stay clear of that divergence, the enumerator reaches it).
    bool default_has_info() { return !model_.info().empty() || model_.info_poisoned(); }

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

    // One param in one variant, or every param valid: the enumerator's calls.
    void one_param(ParamStore& ps) {
        const uint8_t which = in_.u8() % kOneParamCount, variant = in_.u8();
        auto octets = [&](const char* key, Bytes valid) {
            const uint8_t v = variant % 3;
            ps.octets(key, v == kValid ? std::move(valid) : v == kEmpty ? Bytes{} : Bytes(valid.size(), 0),
                      v == kNullData);
        };
        auto utf8 = [&](const char* key, const char* valid) {
            const uint8_t v = variant % 3;
            if (v == kNullData) {
                ps.params.push_back(OSSL_PARAM_construct_utf8_string(key, nullptr, std::strlen(valid)));
            } else {
                ps.utf8(key, v == kValid ? valid : "");
            }
        };
        static const char* const kModeNames[] = {"EXTRACT_AND_EXPAND", "EXTRACT_ONLY", "EXPAND_ONLY"};
        const uint8_t mv = variant % 5;
        switch (which) {
            case kKey: return octets(OSSL_KDF_PARAM_KEY, test::Rng(0x6b01).bytes(32));
            case kSalt: return octets(OSSL_KDF_PARAM_SALT, test::Rng(0x5a01).bytes(16));
            case kInfo: return octets(OSSL_KDF_PARAM_INFO, test::Rng(0x1f01).bytes(10));
            case kPrefix: return octets(OSSL_KDF_PARAM_PREFIX, Bytes{'d', 't', 'l', 's', '1', '3'});
            case kLabel: return octets(OSSL_KDF_PARAM_LABEL, Bytes{'d', 'e', 'r', 'i', 'v', 'e', 'd'});
            case kData: return octets(OSSL_KDF_PARAM_DATA, test::Rng(0xda01).bytes(48));
            case kModeInt:
                if (mv == 4) {
                    ps.params.push_back(OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, nullptr));
                } else {
                    ps.mode = mv;  // 3: unknown
                    ps.params.push_back(OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &ps.mode));
                }
                return;
            case kModeString:
                if (mv == 4)
                    ps.params.push_back(OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE, nullptr, 11));
                else
                    ps.utf8(OSSL_KDF_PARAM_MODE, mv < 3 ? kModeNames[mv] : "");
                return;
            case kDigest: return utf8(OSSL_KDF_PARAM_DIGEST, home_digest_);
            case kProperties: return utf8(OSSL_KDF_PARAM_PROPERTIES, "provider=default");
            case kDigestWithProperties:
                ps.utf8(OSSL_KDF_PARAM_PROPERTIES, "provider=default");
                ps.utf8(OSSL_KDF_PARAM_DIGEST, home_digest_);
                return;
            default: return;
        }
    }

    void prime(ParamStore& ps) {
        home_digest_ = kDigests[in_.u8() % std::size(kDigests)];
        ps.utf8(OSSL_KDF_PARAM_DIGEST, home_digest_);
        ps.mode = tls_ ? EVP_KDF_HKDF_MODE_EXPAND_ONLY : EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;
        ps.params.push_back(OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &ps.mode));
        ps.octets(OSSL_KDF_PARAM_KEY, test::Rng(0x6b00).bytes(32), false);
        ps.octets(OSSL_KDF_PARAM_SALT, test::Rng(0x5a00).bytes(16), false);
        if (!tls_) ps.octets(OSSL_KDF_PARAM_INFO, test::Rng(0x1f00).bytes(10), false);
        if (tls_) {
            ps.octets(OSSL_KDF_PARAM_PREFIX, Bytes{'t', 'l', 's', '1', '3', ' '}, false);
            ps.octets(OSSL_KDF_PARAM_LABEL, Bytes{'c', ' ', 'h', 's', ' ', 't', 'r', 'a', 'f', 'f', 'i', 'c'}, false);
            ps.octets(OSSL_KDF_PARAM_DATA, test::Rng(0xda00).bytes(32), false);
        }
    }

    // One set_params call on both providers and the model.
    void set_call(ParamStore& ps, const char* what) {
        OSSL_PARAM* p = ps.get();
        const bool poisoned_before = model_.info_poisoned() || model_.prefix_poisoned() || model_.label_poisoned();
        const int rm = model_.set(p);
        const int rs = EVP_KDF_CTX_set_params(s_.get(), p);
        if (live_ && KdfModel::crashes_default(p)) detach(KdfDivergence::mode_without_data);
        const int rd = live_ ? EVP_KDF_CTX_set_params(d_.get(), p) : -9;
        trace_ += std::string(what) + "(" + std::to_string(ps.params.size() - 1) + ")=" + std::to_string(rs) + " ";
        if ((rs > 0) != (rm > 0)) fail("set_params: stitch " + std::to_string(rs) + ", model " + std::to_string(rm));
        if (live_ && (rs > 0) != (rd > 0))
            fail("set_params: stitch " + std::to_string(rs) + ", default " + std::to_string(rd));
        if (!poisoned_before) {
            if (model_.info_poisoned()) diverge(KdfDivergence::empty_info_after_info);
            if (model_.prefix_poisoned()) diverge(KdfDivergence::prefix_without_data);
            if (model_.label_poisoned()) diverge(KdfDivergence::label_without_data);
        }
    }

    void derive_call() {
        ParamStore ps;
        const bool with = in_.flag();
        if (with) build(ps);
        const size_t len = out_length();
        Bytes a(len + 1, 0xa5), b(len + 1, 0xa5);
        OSSL_PARAM* p = with ? ps.get() : nullptr;
        const int set_rc = model_.set(p);
        const ModelAnswer want = set_rc > 0 ? model_.derive(len) : ModelAnswer{0, {}, "refused: its params"};
        if (want.rc < 0) fail("the model and its oracle disagree: " + want.why);
        const int rs = EVP_KDF_derive(s_.get(), a.data(), len, p);
        trace_ += "derive(" + std::to_string(len) + (with ? ",params" : "") + ")=" + std::to_string(rs) + " ";
        fuzz_count(rs > 0 ? "derive accepted" : "derive refused");
        if ((rs > 0) != (want.rc > 0))
            fail("derive: stitch " + std::to_string(rs) + ", model " + std::to_string(want.rc) + " (" + want.why + ")");
        if (rs <= 0 && a != Bytes(len + 1, 0xa5)) fail("stitch wrote output on a refused derive");
        if (rs <= 0 && len) count("rule: a refused derive writes nothing");
        if (rs > 0 && !std::equal(want.out.begin(), want.out.end(), a.begin()))
            fail("derive output differs from the model's (" + want.why + ")");
        if (a[len] != 0xa5) fail("stitch wrote past the output");
        if (!live_) return;
        if (KdfModel::crashes_default(p)) return detach(KdfDivergence::mode_without_data);
        if (set_rc > 0 && model_.derive_crashes_default()) {
            // 3.0 would read a poisoned field: it is given the params alone.
            diverge(model_.info_poisoned()     ? KdfDivergence::empty_info_after_info
                    : model_.prefix_poisoned() ? KdfDivergence::prefix_without_data
                                               : KdfDivergence::label_without_data);
            if (p) EVP_KDF_CTX_set_params(d_.get(), p);
            return;
        }
        const int rd = EVP_KDF_derive(d_.get(), b.data(), len, p);
        if ((rs > 0) != (rd > 0)) fail("derive: stitch " + std::to_string(rs) + ", default " + std::to_string(rd));
        if (rs > 0 && a != b) fail("derive output differs");
    }

    void step() {
        const uint8_t byte = in_.u8();
        if (byte == kOneParamOp || byte == kPrimeOp) {
            ParamStore ps;
            byte == kOneParamOp ? one_param(ps) : prime(ps);
            set_call(ps, byte == kOneParamOp ? "param" : "prime");
            ERR_clear_error();
            return;
        }
        switch (byte % 8) {
            case 0:
            case 1: {  // set params
                ParamStore ps;
                build(ps);
                set_call(ps, "set");
                break;
            }
            case 2:
            case 3:
            case 4:
                derive_call();
                break;
            case 5:  // reset
                EVP_KDF_CTX_reset(s_.get());
                EVP_KDF_CTX_reset(d_.get());
                model_.reset();
                trace_ += "reset ";
                break;
            case 6: {  // get size, or info
                if (in_.flag()) {
                    const size_t ss = EVP_KDF_CTX_get_kdf_size(s_.get()), ds = EVP_KDF_CTX_get_kdf_size(d_.get());
                    const std::optional<size_t> ms = model_.size();
                    trace_ += "size=" + std::to_string(ss) + " ";
                    if (ss != ms.value_or(0)) fail("size: stitch " + std::to_string(ss) + ", model " +
                                                   std::to_string(ms.value_or(0)));
                    if (live_ && ss != ds) fail("size: stitch " + std::to_string(ss) + ", default " + std::to_string(ds));
                    count(ms ? "get size: answered" : "get size: refused (EXTRACT_ONLY with no digest)");
                } else {
                    uint8_t sb[64 * 1024], db[64 * 1024];
                    const size_t room = in_.flag() ? sizeof(sb) : in_.u8();
                    OSSL_PARAM ps[] = {OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, sb, room),
                                       OSSL_PARAM_construct_end()};
                    OSSL_PARAM pd[] = {OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, db, room),
                                       OSSL_PARAM_construct_end()};
                    const int rs = EVP_KDF_CTX_get_params(s_.get(), ps);
                    const Bytes& mi = model_.info();
                    const int rm = mi.size() <= room ? 1 : 0;
                    trace_ += "info=" + std::to_string(rs) + " ";
                    if (rs != rm) fail("get info: stitch " + std::to_string(rs) + ", model " + std::to_string(rm));
                    if (rs == 1 && (ps[0].return_size != mi.size() || !std::equal(mi.begin(), mi.end(), sb)))
                        fail("get info: not the model's bytes");
                    count(rm ? "get info: answered" : "get info: refused (no room)");
                    if (live_) {
                        const int rd = EVP_KDF_CTX_get_params(d_.get(), pd);
                        if (rs != rd)
                            fail("get info: stitch " + std::to_string(rs) + ", default " + std::to_string(rd));
                        if (rs == 1 &&
                            (ps[0].return_size != pd[0].return_size || std::memcmp(sb, db, ps[0].return_size) != 0))
                            fail("get info: different bytes");
                    }
                }
                break;
            }
            default: {  // dup: stitch carries on with its copy
                KdfCtxPtr copy(EVP_KDF_CTX_dup(s_.get()));
                trace_ += "dup ";
                if (!copy) fail("stitch's dupctx failed");
                s_ = std::move(copy);
                diverge(KdfDivergence::no_dupctx);
                break;
            }
        }
        ERR_clear_error();
    }

    FuzzInput& in_;
    const int tls_;
    KdfModel model_;
    KdfCtxPtr s_, d_;
    bool live_ = true;  // the default provider is still driven
    const char* home_digest_ = kDigests[0];  // the digest a prime call set: "valid" for the one-param op
    std::string trace_;
};

}  // namespace

}  // namespace stitch::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    stitch::fuzz::FuzzInput in(data, size);
    stitch::fuzz::KdfRun(in).run();
    return 0;
}
