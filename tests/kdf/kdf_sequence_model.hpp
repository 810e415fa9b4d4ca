// The rules of HKDF's and TLS13-KDF's params as code (docs/tls13-kdf.md,
// "Params and refusals"): what one set_params call leaves in a context, when
// a derive is refused and why, what get_params answers. The kdf_params fuzz
// target and the sequence enumerator hold stitch to it at every call, beside
// the default provider; where OpenSSL 3.0 is unsafe (kdf_divergences.hpp)
// the model is the only judge.
//
// The model keeps stitch's view of the context. A derive it accepts is
// computed by an oracle: a fresh default-provider context given the model's
// state as plain valid params in one call (every refusal the model predicts
// must be the oracle's too), so the model never computes HKDF itself.
//
// Each rule the model applies is named (Note), so a run can say which rules
// it reached and the enumerator can keep one reaching input per rule.
#pragma once

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/test_util.hpp"

namespace stitch::fuzz {

using test::Bytes;

enum class KdfKind { hkdf, tls13 };

// One octet-string input: unset, or present with these bytes (maybe none).
struct ModelField {
    bool present = false;
    Bytes bytes;
    bool refused = false;  // the last param for it was refused (and none since)
};

// What a derive or get is expected to answer.
struct ModelAnswer {
    int rc = 0;
    Bytes out;         // rc 1: the bytes (from the oracle)
    std::string why;   // the rule that decided
};

// The digest as a fetch would find it (cached per name and properties).
struct ModelDigest {
    bool fetched = false;  // the name (with the properties) fetches
    int size = 0;          // EVP_MD_get_size
    bool usable = false;   // an HMAC can run on it: a fixed size of 1..64, a block of at most 168, no XOF
};

class KdfModel {
public:
    using Note = std::function<void(const std::string& rule)>;

    KdfModel(KdfKind kind, OSSL_LIB_CTX* libctx, EVP_KDF* oracle_kdf, Note note)
        : kind_(kind), libctx_(libctx), oracle_kdf_(oracle_kdf), note_(std::move(note)) {}

    // --- what OpenSSL 3.0 would do wrong after a call (kdf_divergences.hpp) ---
    // The default provider's context still matches stitch's except for fields
    // 3.0 holds as a NULL pointer with a length: a derive that reads one
    // would crash it, so such derives are not run on the default.
    bool info_poisoned() const { return info_poisoned_; }
    bool prefix_poisoned() const { return prefix_poisoned_; }
    bool label_poisoned() const { return label_poisoned_; }
    // The default provider must not be given this call at all (it crashes on it).
    static bool crashes_default(const OSSL_PARAM* params) {
        const OSSL_PARAM* m = first(params, OSSL_KDF_PARAM_MODE);
        return m && !m->data;  // 3.0 reads a mode's string or integer through the pointer
    }
    // A derive in the current mode would read a field 3.0 has poisoned.
    bool derive_crashes_default() const {
        if (kind_ == KdfKind::hkdf)
            return info_poisoned_ && mode_ != EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
        const bool reads_label = mode_ == EVP_KDF_HKDF_MODE_EXPAND_ONLY ||
                                 (mode_ == EVP_KDF_HKDF_MODE_EXTRACT_ONLY && salt_.present);
        return reads_label && (prefix_poisoned_ || label_poisoned_);
    }

    // --- calls --------------------------------------------------------------

    // EVP_KDF_CTX_set_params(params), or the params of a derive (nullptr: a
    // derive without params, which sets nothing). Returns the expected rc.
    int set(const OSSL_PARAM* params) {
        if (!params) return 1;
        const OSSL_PARAM* props = first(params, OSSL_KDF_PARAM_PROPERTIES);
        const OSSL_PARAM* digest = first(params, OSSL_KDF_PARAM_DIGEST);
        const OSSL_PARAM* mode = first(params, OSSL_KDF_PARAM_MODE);
        const OSSL_PARAM* key = first(params, OSSL_KDF_PARAM_KEY);
        const OSSL_PARAM* salt = first(params, OSSL_KDF_PARAM_SALT);
        // 3.0 reads `properties` whenever it looks for a digest, even with none given.
        if (props && props->data_type != OSSL_PARAM_UTF8_STRING) return refused("set: properties of the wrong type");
        if (digest && !set_digest(*digest, props ? static_cast<const char*>(props->data) : nullptr)) return 0;
        if (mode && !set_mode(*mode)) return 0;
        if (key && !set_octets(*key, key_, "key")) return 0;
        if (salt) {
            salt_refused_ = false;
            if (!set_octets(*salt, salt_, "salt")) {
                if (kind_ == KdfKind::hkdf && !salt->data && salt->data_size > 0) {
                    salt_refused_ = true;
                    note("set: HKDF salt with no data but a length (extracting modes refuse until a salt is set)");
                }
                return 0;
            }
        }
        if (kind_ == KdfKind::hkdf) return set_info(params);
        // TLS13-KDF: the mode is checked on every call with params, before its own fields.
        if (mode_ == EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND) return refused("set: TLS13-KDF call while the mode is EXTRACT_AND_EXPAND");
        if (const OSSL_PARAM* p = first(params, OSSL_KDF_PARAM_PREFIX)) {
            const bool poison = !p->data && p->data_size > 0;
            if (!set_octets(*p, prefix_, "prefix")) {
                prefix_poisoned_ = poison;
                return 0;
            }
            prefix_poisoned_ = false;
        }
        if (const OSSL_PARAM* p = first(params, OSSL_KDF_PARAM_LABEL)) {
            const bool poison = !p->data && p->data_size > 0;
            if (!set_octets(*p, label_, "label")) {
                label_poisoned_ = poison;
                return 0;
            }
            label_poisoned_ = false;
        }
        if (data_.present) note("set: TLS13-KDF forgets data on every call with params");
        data_ = {};
        if (const OSSL_PARAM* p = first(params, OSSL_KDF_PARAM_DATA))
            if (!set_octets(*p, data_, "data")) return 0;
        return 1;
    }

    void reset() {
        *this = KdfModel(kind_, libctx_, oracle_kdf_, note_);
        note("reset: everything forgotten, mode back to EXTRACT_AND_EXPAND");
    }

    // A derive of out_len bytes after its params were set (set() returned 1).
    ModelAnswer derive(size_t out_len) {
        ModelAnswer a = judge(out_len);
        note(std::string("derive ") + mode_name() + ": " + a.why);
        if (a.rc == 1) note_refused_inputs();
        const ModelAnswer o = oracle(out_len);
        if (o.rc != a.rc) {
            a.why = "MODEL DISAGREES WITH ORACLE (" + std::to_string(o.rc) + "): " + a.why;
            a.rc = -1;
            return a;
        }
        a.out = o.out;
        return a;
    }

    // get_params(size): SIZE_MAX, or HashLen in EXTRACT_ONLY; 0 when refused.
    std::optional<size_t> size() const {
        if (mode_ != EVP_KDF_HKDF_MODE_EXTRACT_ONLY) return SIZE_MAX;
        const ModelDigest* d = has_digest_ ? digest_info() : nullptr;
        if (!d || d->size <= 0) return std::nullopt;
        return size_t(d->size);
    }
    const Bytes& info() const { return info_; }

private:
    static const OSSL_PARAM* first(const OSSL_PARAM* p, const char* key) {
        for (; p && p->key; ++p)
            if (std::strcmp(p->key, key) == 0) return p;
        return nullptr;
    }

    void note(const std::string& rule) const {
        if (note_) note_(rule);
    }
    int refused(const std::string& rule) const {
        note(rule);
        return 0;
    }
    bool reject(const std::string& rule) const {
        note(rule);
        return false;
    }

    const char* mode_name() const {
        return mode_ == EVP_KDF_HKDF_MODE_EXTRACT_ONLY ? "EXTRACT_ONLY"
               : mode_ == EVP_KDF_HKDF_MODE_EXPAND_ONLY ? "EXPAND_ONLY"
                                                        : "EXTRACT_AND_EXPAND";
    }

    // A digest param: the old digest goes first; a name that does not fetch
    // (with the properties, when given) leaves none, as 3.0 leaves it.
    bool set_digest(const OSSL_PARAM& p, const char* props) {
        has_digest_ = false;
        if (p.data_type != OSSL_PARAM_UTF8_STRING) return reject("set: digest of the wrong type");
        if (!p.data) return reject("set: digest with no data (no digest now)");
        digest_ = static_cast<const char*>(p.data);
        props_ = props ? std::optional<std::string>(props) : std::nullopt;
        const ModelDigest* d = digest_info();
        if (!d || !d->fetched) return reject("set: digest that does not fetch (no digest now)");
        has_digest_ = true;
        if (props_) note("set: digest with properties (fetched)");
        return true;
    }

    bool set_mode(const OSSL_PARAM& p) {
        int m = -1;
        if (!p.data) return reject("set: mode with no data (refused; 3.0 crashes)");
        if (p.data_type == OSSL_PARAM_UTF8_STRING) {
            const std::string s = upper(static_cast<const char*>(p.data));
            m = s == "EXTRACT_AND_EXPAND" ? 0 : s == "EXTRACT_ONLY" ? 1 : s == "EXPAND_ONLY" ? 2 : -1;
        } else if (!OSSL_PARAM_get_int(&p, &m)) {
            m = -1;
        }
        if (m < 0 || m > 2) return reject("set: unknown mode (mode unchanged)");
        if (m != mode_) note("set: mode changed");
        mode_ = m;
        return true;
    }

    // An octet-string param into a field: the old bytes go first; one with
    // no data (or of another type) is refused and leaves the field unset.
    bool set_octets(const OSSL_PARAM& p, ModelField& f, const char* name) {
        const bool had = f.present, was_refused = f.refused;
        f = {};
        if (p.data_type != OSSL_PARAM_OCTET_STRING || !p.data) {
            f.refused = true;
            note(std::string("set: ") + name + " with no data refused" + (had ? " (the old one is gone)" : ""));
            return false;
        }
        if (was_refused) note(std::string("rule: a valid ") + name + " after a refused one is taken");
        f.present = true;
        f.refused = false;
        f.bytes.assign(static_cast<const uint8_t*>(p.data), static_cast<const uint8_t*>(p.data) + p.data_size);
        return true;
    }

    // HKDF's info: every `info` param of the call, concatenated, replacing
    // the old; a piece with no data counts as empty; over 32 KiB in all is
    // refused with the old info kept.
    int set_info(const OSSL_PARAM* params) {
        if (!first(params, OSSL_KDF_PARAM_INFO)) return 1;
        Bytes all;
        for (const OSSL_PARAM* q = first(params, OSSL_KDF_PARAM_INFO); q && q->key; ++q) {
            if (std::strcmp(q->key, OSSL_KDF_PARAM_INFO) != 0) continue;
            if (q->data_type != OSSL_PARAM_OCTET_STRING) return refused("set: info of the wrong type");
            if (q->data) all.insert(all.end(), static_cast<const uint8_t*>(q->data),
                                    static_cast<const uint8_t*>(q->data) + q->data_size);
            if (all.size() > 32 * 1024) return refused("set: info over 32 KiB in all (old info kept)");
        }
        // 3.0 frees its info on an empty one but keeps the old length.
        if (all.empty() && (!info_.empty() || info_poisoned_)) {
            info_poisoned_ = true;
            note("set: empty info after a non-empty one (info cleared; 3.0 keeps a stale length)");
        } else {
            info_poisoned_ = false;
        }
        info_ = all;
        return 1;
    }

    static std::string upper(const char* s) {
        std::string u = s;
        for (char& c : u)
            if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
        return u;
    }

    // The digest last named (set_digest stores it before it asks).
    const ModelDigest* digest_info() const {
        const std::string k = digest_ + "\n" + (props_ ? *props_ : std::string("\x01"));
        static std::map<std::string, ModelDigest> cache;
        auto it = cache.find(k);
        if (it == cache.end()) {
            ModelDigest d;
            ERR_set_mark();
            EVP_MD* md = EVP_MD_fetch(libctx_, digest_.c_str(), props_ ? props_->c_str() : nullptr);
            ERR_pop_to_mark();
            if (md) {
                d.fetched = true;
                d.size = EVP_MD_get_size(md);
                const int block = EVP_MD_get_block_size(md);
                d.usable = d.size > 0 && d.size <= 64 && block > 0 && block <= 168 &&
                           !(EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF);
                EVP_MD_free(md);
            }
            it = cache.emplace(k, d).first;
        }
        return &it->second;
    }

    // An accepted derive after refused inputs: the rule that a refused or
    // NULL input affects only the modes that read it, named per field.
    void note_refused_inputs() const {
        const bool hkdf = kind_ == KdfKind::hkdf;
        const bool extract = mode_ == EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
        const bool expand = mode_ == EVP_KDF_HKDF_MODE_EXPAND_ONLY;
        const std::string m = mode_name();
        auto unread = [&](const char* name) { note(std::string("rule: a refused ") + name + " does not stop " + m + ", which never reads it"); };
        auto unset = [&](const char* name, const char* as) {
            note(std::string("rule: a refused ") + name + " reads as unset in " + m + " (" + as + ")");
        };
        if (salt_.refused) {
            if (expand) unread("salt");
            else unset("salt", hkdf ? "no salt: HashLen zeros" : "no previous secret");
        }
        if (key_.refused && !hkdf && extract) unset("key", "the IKM is HashLen zeros");
        if (hkdf) return;
        for (auto [f, name] : {std::pair{&prefix_, "prefix"}, {&label_, "label"}}) {
            if (!f->refused) continue;
            if (extract && !salt_.present) unread(name);
            else unset(name, "empty");
        }
        if (data_.refused) {
            if (extract) unread("data");
            else unset("data", "an empty context");
        }
    }

    // Why a derive of out_len bytes is refused, in the order stitch checks.
    ModelAnswer judge(size_t out_len) const {
        auto no = [](const char* why) { return ModelAnswer{0, {}, why}; };
        auto yes = [](const char* why) { return ModelAnswer{1, {}, why}; };
        const ModelDigest* d = has_digest_ ? digest_info() : nullptr;
        if (!d) return no("refused: no digest");
        if (!d->usable) return no("refused: digest an HMAC cannot run on");
        const size_t h = size_t(d->size);
        if (kind_ == KdfKind::hkdf) {
            if (!key_.present) return no("refused: no key");
            if (out_len == 0) return no("refused: zero-length output");
            if (salt_refused_ && mode_ != EVP_KDF_HKDF_MODE_EXPAND_ONLY) return no("refused: salt refused earlier");
            if (mode_ == EVP_KDF_HKDF_MODE_EXTRACT_ONLY)
                return out_len == h ? yes("extract") : no("refused: extract into other than HashLen");
            if (out_len > 255 * h) return no("refused: more than 255 blocks");
            return yes(mode_ == EVP_KDF_HKDF_MODE_EXPAND_ONLY ? "expand" : "extract and expand");
        }
        if (mode_ == EVP_KDF_HKDF_MODE_EXPAND_ONLY) {
            if (!key_.present) return no("refused: no key");
            if (prefix_.bytes.size() + label_.bytes.size() > 255) return no("refused: prefix and label over 255 bytes");
            if (data_.bytes.size() > 255) return no("refused: data over 255 bytes");
            if (out_len > 255 * h) return no("refused: more than 255 blocks");
            return yes(out_len == 0 ? "expand of nothing" : "expand label");
        }
        if (mode_ == EVP_KDF_HKDF_MODE_EXTRACT_ONLY) {
            if (out_len != h) return no("refused: extract into other than HashLen");
            if (salt_.present && prefix_.bytes.size() + label_.bytes.size() > 255)
                return no("refused: prefix and label over 255 bytes");
            return yes(salt_.present ? (key_.present ? "extract step" : "extract step from zeros")
                                     : (key_.present ? "extract with no salt" : "early secret (no salt, zeros)"));
        }
        return no("refused: mode EXTRACT_AND_EXPAND");
    }

    // The oracle: a fresh default-provider context given the model's state in
    // one call (a refused HKDF salt replayed after it), then the derive.
    ModelAnswer oracle(size_t out_len) const {
        // The state as its raw bytes, each piece length-prefixed.
        std::string k;
        auto put = [&k](const void* p, size_t n) {
            k.append(reinterpret_cast<const char*>(&n), sizeof(n));
            k.append(static_cast<const char*>(p), n);
        };
        const int ints[] = {int(kind_), has_digest_, props_.has_value(), mode_, salt_refused_};
        put(ints, sizeof(ints));
        put(&out_len, sizeof(out_len));
        put(digest_.data(), digest_.size());
        if (props_) put(props_->data(), props_->size());
        for (const ModelField* f : {&key_, &salt_, &prefix_, &label_, &data_}) {
            put(&f->present, 1);
            put(f->bytes.data(), f->bytes.size());
        }
        put(info_.data(), info_.size());
        static std::unordered_map<std::string, ModelAnswer> cache;
        if (auto it = cache.find(k); it != cache.end()) return it->second;
        if (cache.size() > 200000) cache.clear();  // a long fuzzing run: bounded memory

        EVP_KDF_CTX* c = EVP_KDF_CTX_new(oracle_kdf_);
        std::vector<OSSL_PARAM> p;
        std::string digest = digest_, props = props_ ? *props_ : std::string();
        int mode = mode_;
        static uint8_t empty[1];
        auto octets = [&](const char* key, const ModelField& f) {
            if (f.present)
                p.push_back(OSSL_PARAM_construct_octet_string(
                    key, f.bytes.empty() ? empty : const_cast<uint8_t*>(f.bytes.data()), f.bytes.size()));
        };
        if (has_digest_) {
            if (props_) p.push_back(OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_PROPERTIES, props.data(), 0));
            p.push_back(OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest.data(), 0));
        }
        p.push_back(OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode));
        octets(OSSL_KDF_PARAM_KEY, key_);
        octets(OSSL_KDF_PARAM_SALT, salt_);
        if (kind_ == KdfKind::hkdf && !info_.empty())
            p.push_back(OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<uint8_t*>(info_.data()),
                                                          info_.size()));
        if (kind_ == KdfKind::tls13) {
            octets(OSSL_KDF_PARAM_PREFIX, prefix_);
            octets(OSSL_KDF_PARAM_LABEL, label_);
            octets(OSSL_KDF_PARAM_DATA, data_);
        }
        p.push_back(OSSL_PARAM_construct_end());
        ModelAnswer a;
        if (c && EVP_KDF_CTX_set_params(c, p.data()) > 0) {
            if (salt_refused_) {
                OSSL_PARAM s[] = {OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, nullptr, 1),
                                  OSSL_PARAM_construct_end()};
                EVP_KDF_CTX_set_params(c, s);
            }
            Bytes out(out_len + 1, 0xa5);
            a.rc = EVP_KDF_derive(c, out.data(), out_len, nullptr) > 0 ? 1 : 0;
            if (a.rc) a.out.assign(out.begin(), out.begin() + long(out_len));
        }
        EVP_KDF_CTX_free(c);
        ERR_clear_error();
        cache.emplace(k, a);
        return a;
    }

    KdfKind kind_;
    OSSL_LIB_CTX* libctx_;
    EVP_KDF* oracle_kdf_;
    Note note_;

    bool has_digest_ = false;
    std::string digest_;
    std::optional<std::string> props_;
    int mode_ = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;
    ModelField key_, salt_, prefix_, label_, data_;
    Bytes info_;
    bool salt_refused_ = false;  // HKDF: a salt with no data but a length
    bool info_poisoned_ = false, prefix_poisoned_ = false, label_poisoned_ = false;
};

}  // namespace stitch::fuzz
