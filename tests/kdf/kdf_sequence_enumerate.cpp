// HKDF's and TLS13-KDF's call sequences walked exhaustively (issue 18), as
// evp_sequence_enumerate walks the cipher's: every sequence of up to --depth
// calls from a fixed vocabulary, each after a "prime" call that sets every
// param valid for one digest and followed by one derive of HashLen, encoded
// as a kdf_params fuzz input and run by the fuzz target itself. So stitch is
// held to the default provider, to the model of the rules
// (kdf_sequence_model.hpp) and to the listed divergences
// (kdf_divergences.hpp) exactly as the fuzzer holds it. A finding aborts with
// the target's trace, the sequence by name, and the input in hex.
//
// The vocabulary, per KDF, on SHA2-256 and SHA-384 (stitch's kernels) and
// SHA1 (its fetched-digest path):
//   set one param: key, salt, info, prefix, label, data each valid, empty or
//     NULL data with a length; the mode as a number and as a string, each
//     value, an unknown one and NULL data; digest valid, empty, NULL data, and
//     valid with `properties`; properties alone valid, empty, NULL data
//   derive of 0, of HashLen and of 255 x HashLen + 1 bytes
//   reset, dup, get size, get info
// (prefix, label and data only for TLS13-KDF, which has them: 42 ops
// against HKDF's 33.) Depth 4: 2.38 M sequences, ~17 µs each
// (docs/tls13-kdf.md, "The enumeration").
//
// What the deepest level leaves out (docs/tls13-kdf.md, "The enumeration"),
// every one of them being in every shorter sequence:
//   - observers (the derives, get size, get info) other than last: they
//     change no state, which the model asserts on every call and the shorter
//     walks confirm (each is followed there by calls both providers answer);
//   - the second of two equivalent forms: properties alone (accepted, no
//     effect, on both providers: 3.0 reads them only beside a digest) in one
//     variant of three; each mode in one form (a number and a string set the
//     same mode); an unknown mode in one form; TLS13-KDF's info (a param it
//     does not read: every variant has only the per-call effects) in one;
//   - digest NULL (refused with no digest left, as digest empty is);
//   - reset as the second last call: the state after it is that of a
//     sequence two calls shorter, and that reset forgets each param is in
//     the shorter walks;
//   - the NULL-data modes, after which the default is no longer driven.
//
//   kdf_sequence_enumerate [--depth N] [--full-depth M] [--kdf hkdf|tls13|both]
//                          [--digest sha256|sha384|sha1|all] [--corpus DIR]
// --full-depth (default depth - 1): the depth up to which nothing is left out.
// --corpus writes, for every rule and event the target counts, the first
// (shortest) input that reached it to DIR/enum_<event>: the replay corpus
// then reaches every rule in every CTest run.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fuzz/fuzz_providers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Input = std::vector<uint8_t>;

// Op bytes of kdf_params_fuzz.cpp (one param, prime; derive, reset, get, dup).
constexpr uint8_t kOneParam = 0xf8, kPrime = 0xf9, kDerive = 2, kReset = 5, kGet = 6, kDup = 7;
enum : uint8_t { kKey, kSalt, kInfo, kModeInt, kModeString, kDigest, kProperties, kPrefix, kLabel, kData, kDigestProps };
enum : uint8_t { kValid, kEmpty, kNull };

struct Digest {
    const char* name;     // for the report
    uint8_t index;        // into the target's kDigests
    uint8_t hash_len;     // out_length() byte for HashLen
    uint8_t past_limit;   // out_length() byte for 255 x HashLen + 1
};
// kDigests: "SHA2-256" 0, "SHA-384" 2, "SHA1" 5. out_length(): a byte b < 64
// picks {20, 28, 32, 48, 64, 0}[b % 6]; 64..71 pick 255 x {20, 32, 48, 64}[b % 4], + 1 when b & 4.
constexpr Digest kSha256 = {"SHA2-256", 0, 2, 69}, kSha384 = {"SHA-384", 2, 3, 70}, kSha1 = {"SHA1", 5, 0, 68};
constexpr uint8_t kZeroBytes = 5;

struct Op {
    std::string name;
    Input bytes;
    bool observer = false;  // changes no state: only last at the deepest level
    bool deep = true;       // walked at the deepest level
    bool reset = false;     // not third of four at the deepest level
};

Op param(const char* name, uint8_t which, uint8_t variant, bool deep = true) {
    return {name, {kOneParam, which, variant}, false, deep};
}

std::vector<Op> vocabulary(bool tls13, const Digest& d) {
    std::vector<Op> v = {
        param("key valid", kKey, kValid), param("key empty", kKey, kEmpty), param("key NULL", kKey, kNull),
        param("salt valid", kSalt, kValid), param("salt empty", kSalt, kEmpty), param("salt NULL", kSalt, kNull),
        param("info valid", kInfo, kValid), param("info empty", kInfo, kEmpty, !tls13),
        param("info NULL", kInfo, kNull, !tls13),
        param("mode 0", kModeInt, 0), param("mode \"EXTRACT_AND_EXPAND\"", kModeString, 0, false),
        param("mode 1", kModeInt, 1, false), param("mode \"EXTRACT_ONLY\"", kModeString, 1),
        param("mode 2", kModeInt, 2), param("mode \"EXPAND_ONLY\"", kModeString, 2, false),
        param("mode 3 (unknown)", kModeInt, 3), param("mode \"\" (unknown)", kModeString, 3, false),
        param("mode NULL int", kModeInt, 4, false), param("mode NULL string", kModeString, 4, false),
        param("digest valid", kDigest, kValid), param("digest empty", kDigest, kEmpty),
        param("digest NULL", kDigest, kNull, false), param("digest valid with properties", kDigestProps, kValid),
        param("properties valid", kProperties, kValid), param("properties empty", kProperties, kEmpty, false),
        param("properties NULL", kProperties, kNull, false),
    };
    if (tls13)
        for (auto [n, w] : {std::pair{"prefix", kPrefix}, {"label", kLabel}, {"data", kData}}) {
            v.push_back(param((std::string(n) + " valid").c_str(), w, kValid));
            v.push_back(param((std::string(n) + " empty").c_str(), w, kEmpty));
            v.push_back(param((std::string(n) + " NULL").c_str(), w, kNull));
        }
    v.push_back({"derive 0", {kDerive, 0, kZeroBytes}, true});
    v.push_back({"derive HashLen", {kDerive, 0, d.hash_len}, true});
    v.push_back({"derive 255 x HashLen + 1", {kDerive, 0, d.past_limit}, true});
    v.push_back({"reset", {kReset}, false, true, true});
    v.push_back({"dup", {kDup}, false});
    v.push_back({"get size", {kGet, 1}, true});
    v.push_back({"get info", {kGet, 0, 1}, true});
    return v;
}

// What the run is doing, for the abort handler and the corpus hook.
struct Current {
    std::string what;
    Input input;
    std::vector<const Op*> ops;
};
Current g_now;
std::map<std::string, std::pair<Input, std::string>> g_first;  // event -> input, sequence

std::string joined(const std::vector<const Op*>& ops) {
    std::string s;
    for (const Op* o : ops) s += (s.empty() ? "" : ", ") + o->name;
    return s;
}

void on_event(const char* what) {
    if (!g_first.count(what)) g_first[what] = {g_now.input, g_now.what + ": prime, " + joined(g_now.ops) + ", derive"};
}

extern "C" void on_abort(int) {
    std::fprintf(stderr, "\nenumerator: %s [prime, %s, derive HashLen] failed; input:", g_now.what.c_str(),
                 joined(g_now.ops).c_str());
    for (uint8_t b : g_now.input) std::fprintf(stderr, " %02x", b);
    std::fprintf(stderr, "\n");
    std::signal(SIGABRT, SIG_DFL);
    std::abort();
}

// Every sequence of exactly `depth` ops (each shorter one is walked at its
// own depth); at a depth past full_depth only `deep` ops, observers last.
unsigned long walk(bool tls13, const Digest& d, int depth, int full_depth) {
    const std::vector<Op> all = vocabulary(tls13, d);
    const bool pruned = depth > full_depth;
    std::vector<const Op*> inner, last, before_last;  // before_last: the op before the last one
    for (const Op& o : all) {
        if (pruned && !o.deep) continue;
        if (!pruned || !o.observer) inner.push_back(&o);
        if (!pruned || (!o.observer && !o.reset)) before_last.push_back(&o);
        last.push_back(&o);
    }
    auto ops_at = [&](size_t i) -> const std::vector<const Op*>& {
        return i + 1 == size_t(depth) ? last : i + 2 == size_t(depth) && depth >= 3 ? before_last : inner;
    };
    const Op final_derive{"derive HashLen", {kDerive, 0, d.hash_len}, true};
    std::vector<size_t> idx(size_t(depth), 0);
    unsigned long runs = 0;
    g_now.what = std::string(tls13 ? "TLS13-KDF " : "HKDF ") + d.name;
    for (;;) {
        g_now.input = {uint8_t(tls13 ? 1 : 0), kPrime, d.index};
        g_now.ops.clear();
        for (size_t i = 0; i < idx.size(); ++i) {
            const Op* o = ops_at(i)[idx[i]];
            g_now.input.insert(g_now.input.end(), o->bytes.begin(), o->bytes.end());
            g_now.ops.push_back(o);
        }
        g_now.input.insert(g_now.input.end(), final_derive.bytes.begin(), final_derive.bytes.end());
        LLVMFuzzerTestOneInput(g_now.input.data(), g_now.input.size());
        ++runs;
        size_t pos = idx.size();
        while (pos > 0) {
            const size_t limit = ops_at(pos - 1).size();
            if (++idx[pos - 1] < limit) break;
            idx[--pos] = 0;
        }
        if (pos == 0) return runs;
    }
}

}  // namespace

int main(int argc, char** argv) {
    int depth = 4, full_depth = -1;
    std::string which = "both", digests = "all", corpus;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--depth" && i + 1 < argc) depth = std::atoi(argv[++i]);
        else if (a == "--full-depth" && i + 1 < argc) full_depth = std::atoi(argv[++i]);
        else if (a == "--kdf" && i + 1 < argc) which = argv[++i];
        else if (a == "--digest" && i + 1 < argc) digests = argv[++i];
        else if (a == "--corpus" && i + 1 < argc) corpus = argv[++i];
        else {
            std::fprintf(stderr,
                         "usage: %s [--depth N] [--full-depth M] [--kdf hkdf|tls13|both] "
                         "[--digest sha256|sha384|sha1|all] [--corpus DIR]\n",
                         argv[0]);
            return 2;
        }
    }
    if (full_depth < 0) full_depth = depth - 1;
    std::signal(SIGABRT, on_abort);
    stitch::fuzz::fuzz_count_hook = on_event;
    std::vector<Digest> ds;
    if (digests == "all" || digests == "sha256") ds.push_back(kSha256);
    if (digests == "all" || digests == "sha384") ds.push_back(kSha384);
    if (digests == "all" || digests == "sha1") ds.push_back(kSha1);
    const auto start = std::chrono::steady_clock::now();
    unsigned long total = 0;
    // Depth by depth, so the first input to reach an event is a shortest one.
    for (int dep = 0; dep <= depth; ++dep)
        for (const Digest& d : ds) {
            if (which != "tls13") total += walk(false, d, dep, full_depth);
            if (which != "hkdf") total += walk(true, d, dep, full_depth);
        }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("enumerated %lu sequences in %.1f s (every one up to %d calls, and up to %d with the deepest level "
                "pruned): every one agreed with the default provider, the model, or a listed divergence\n",
                total, secs, full_depth, depth);
    for (const auto& [event, first] : g_first) std::printf("  %-80s first: %s\n", event.c_str(), first.second.c_str());
    if (!corpus.empty()) {
        for (const auto& [event, first] : g_first) {
            std::string name = "enum_" + event;
            for (char& c : name)
                if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
            if (name.size() > 150)  // keep it short and still unique
                name = name.substr(0, 140) + "_" + std::to_string(std::hash<std::string>{}(event) % 100000);
            std::ofstream(std::filesystem::path(corpus) / name, std::ios::binary)
                .write(reinterpret_cast<const char*>(first.first.data()), std::streamsize(first.first.size()));
        }
        std::printf("wrote %zu inputs to %s\n", g_first.size(), corpus.c_str());
    }
    return 0;
}
