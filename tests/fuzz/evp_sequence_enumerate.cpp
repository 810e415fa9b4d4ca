// The EVP sequence fuzzer's model walked exhaustively instead of at random:
// every sequence of up to --depth calls from a fixed vocabulary (init to
// encrypt or decrypt with key and IV, key only, IV only or neither; set a
// tag right, wrong, as a length alone or short; get the tag or its length; AAD;
// updates of 0, 1, 16 and 17 bytes, EVP_Cipher of 0; final and EVP_Cipher's
// final; a context copy;
// TLS AAD; tlsivfixed; for ChaCha20 the counter at its wrap and updates
// around the block edge), each encoded as an evp_sequence fuzz input and run
// by the fuzz target itself, so stitch is held to the default provider and
// to allowed_divergences.hpp exactly as the fuzzer holds it, refusals
// included. A finding aborts with the target's trace and the input in hex.
//
//   evp_sequence_enumerate [--depth N] [--keyed-depth M] [--cipher aead|chacha|both] [--corpus DIR]
//
// --depth walks every sequence up to N calls; --keyed-depth then walks the
// sequences of M calls (M > N) that start with an init with key and IV, a
// fraction of the cost: most others spend their first calls on refusals for
// a missing key or IV, which the walk to N covers.
//
// --corpus writes, for every rule and event the target counts, the first
// (shortest) input that reached it to DIR/enum_<cipher>_<event>: the
// replay corpus then reaches every rule of the model in every CTest run.
#include <algorithm>
#include <cctype>
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

#include "fuzz_providers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Input = std::vector<uint8_t>;

// Op bytes: positions in evp_sequence_ops.hpp's table (as make_corpus.py).
enum : uint8_t {
    kInit = 1, kSetTag = 4, kGetTag = 6, kGetLen = 7, kAad = 9, kData = 12, kFinal = 18, kCipherFinal = 20,
    kTlsAad = 21, kTlsIvFixed = 23, kDup = 24,
};
constexpr uint8_t kEnc = 2, kDec = 1, kKeep = 0;  // init's mode byte: enc = mode % 3 - 1
constexpr uint8_t kKey = 1, kIv = 2, kWrap = 8;   // init's source byte (kWrap: ChaCha20 counter 0xffffffff)

// One call of the vocabulary: its name and its encoding on the current pair
// (a copy moves the sequence on to the other pair); `keyed` for an init
// with key and IV, which starts a keyed walk.
struct Op {
    const char* name;
    std::function<void(Input&, uint8_t& pair)> emit;
    bool keyed = false;
};

Op simple(const char* name, std::vector<uint8_t> after_pair, uint8_t op) {
    return {name, [op, after_pair](Input& in, uint8_t& pair) {
                in.push_back(op);
                in.push_back(pair);
                in.insert(in.end(), after_pair.begin(), after_pair.end());
            }};
}

Op init(const char* name, uint8_t mode, uint8_t src) {
    Op op = simple(name, {mode, src, 7, 8}, kInit);
    op.keyed = (src & (kKey | kIv)) == (kKey | kIv);
    return op;
}

Op copy_to_other() {
    return {"copy", [](Input& in, uint8_t& pair) {
                const uint8_t other = pair ^ 1;
                in.push_back(kDup);
                in.push_back(uint8_t(pair | other << 1));
                pair = other;
            }};
}

std::vector<Op> aead_ops() {
    return {
        init("init enc key+iv", kEnc, kKey | kIv), init("init dec key+iv", kDec, kKey | kIv),
        init("init enc key", kEnc, kKey),         init("init dec key", kDec, kKey),
        init("init enc iv", kEnc, kIv),           init("init dec iv", kDec, kIv),
        init("init enc", kEnc, 0),                init("init dec", kDec, 0),
        init("init keep", kKeep, 0),
        simple("set tag right", {16, 1 | 8, 0}, kSetTag),  // the tag of the message so far
        simple("set tag wrong", {16, 1, 0}, kSetTag),
        simple("set taglen 16", {16, 0, 0}, kSetTag),
        simple("set tag 8 bytes", {8, 1, 0}, kSetTag),
        simple("get tag", {16}, kGetTag),
        simple("get taglen", {0}, kGetLen),
        simple("aad 13", {13, 0, 3}, kAad),
        simple("update 0", {0, 0, 5}, kData), simple("update 1", {1, 0, 5}, kData),
        simple("update 16", {16, 0, 5}, kData), simple("update 17", {17, 1, 5}, kData),  // 17: in place
        simple("EVP_Cipher 0", {0, 2, 5}, kData),  // issue 19: between AAD pieces, on an announced record
        simple("final", {}, kFinal), simple("EVP_Cipher final", {}, kCipherFinal),
        copy_to_other(),
        simple("tls aad len 1", {0, 9, 1}, kTlsAad),    // an encrypt record of 1 + 16 bytes
        simple("tls aad len 17", {0, 9, 17}, kTlsAad),  // a decrypt record of 1 byte + tag
        simple("tlsivfixed", {1, 11}, kTlsIvFixed),
    };
}

std::vector<Op> chacha_ops() {
    return {
        init("init enc key+iv", kEnc, kKey | kIv), init("init enc key+iv at wrap", kEnc, kKey | kIv | kWrap),
        init("init dec key+iv", kDec, kKey | kIv), init("init keep key", kKeep, kKey),
        init("init enc iv at wrap", kEnc, kIv | kWrap), init("init keep", kKeep, 0),
        simple("update 0", {0, 0, 5}, kData), simple("update 1", {1, 0, 5}, kData),
        simple("update 63", {63, 0, 5}, kData), simple("update 64", {64, 1, 5}, kData),
        simple("update 65", {65, 2, 5}, kData),  // EVP_Cipher
        simple("final", {}, kFinal), simple("EVP_Cipher final", {}, kCipherFinal),
        copy_to_other(),
    };
}

// What the run is doing, for the abort handler and the corpus hook.
struct Current {
    const char* cipher = "";
    Input input;
    std::vector<const char*> names;
};
Current g_now;
std::map<std::string, std::pair<Input, std::string>> g_first;  // "<cipher>_<event>" -> input, op names

std::string joined(const std::vector<const char*>& names) {
    std::string s;
    for (const char* n : names) s += std::string(s.empty() ? "" : ", ") + n;
    return s;
}

void on_event(const char* what) {
    const std::string key = std::string(g_now.cipher) + "_" + what;
    if (!g_first.count(key)) g_first[key] = {g_now.input, joined(g_now.names)};
}

extern "C" void on_abort(int) {
    std::fprintf(stderr, "\nenumerator: the %s sequence [%s] failed; input:", g_now.cipher, joined(g_now.names).c_str());
    for (uint8_t b : g_now.input) std::fprintf(stderr, " %02x", b);
    std::fprintf(stderr, "\n");
    std::signal(SIGABRT, SIG_DFL);
    std::abort();
}

// Every sequence of exactly `depth` ops (shorter ones are prefixes of these,
// and each op is checked as it runs), or only those that start keyed;
// returns how many ran.
unsigned long walk(const char* cipher, uint8_t cipher_byte, const std::vector<Op>& ops, int depth, bool keyed_only) {
    std::vector<size_t> idx(size_t(depth), 0);
    unsigned long runs = 0;
    for (;;) {
        if (keyed_only && !ops[idx[0]].keyed) {
            // Skip to the next first op.
            std::fill(idx.begin() + 1, idx.end(), 0);
            if (++idx[0] == ops.size()) return runs;
            continue;
        }
        g_now.cipher = cipher;
        g_now.input.assign(1, cipher_byte);
        g_now.names.clear();
        uint8_t pair = 0;
        for (size_t i : idx) {
            ops[i].emit(g_now.input, pair);
            g_now.names.push_back(ops[i].name);
        }
        LLVMFuzzerTestOneInput(g_now.input.data(), g_now.input.size());
        ++runs;
        size_t pos = idx.size();
        while (pos > 0 && ++idx[pos - 1] == ops.size()) idx[--pos] = 0;
        if (pos == 0) return runs;
    }
}

}  // namespace

int main(int argc, char** argv) {
    int depth = 4, keyed_depth = 0;
    std::string which = "both", corpus;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--depth" && i + 1 < argc) depth = std::atoi(argv[++i]);
        else if (a == "--keyed-depth" && i + 1 < argc) keyed_depth = std::atoi(argv[++i]);
        else if (a == "--cipher" && i + 1 < argc) which = argv[++i];
        else if (a == "--corpus" && i + 1 < argc) corpus = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--depth N] [--keyed-depth M] [--cipher aead|chacha|both] [--corpus DIR]\n",
                         argv[0]);
            return 2;
        }
    }
    std::signal(SIGABRT, on_abort);
    stitch::fuzz::fuzz_count_hook = on_event;
    unsigned long total = 0;
    const std::vector<Op> aead = aead_ops(), chacha = chacha_ops();
    // Depth by depth, so the first input to reach an event is a shortest one.
    for (int d = 1; d <= std::max(depth, keyed_depth); ++d) {
        const bool keyed_only = d > depth;
        if (which != "chacha") total += walk("aead", 0, aead, d, keyed_only);
        if (which != "aead") total += walk("chacha", 1, chacha, d, keyed_only);
    }
    std::printf("enumerated %lu sequences (every one up to %d calls, and up to %d from a keyed init; "
                "%zu ChaCha20-Poly1305 ops, %zu ChaCha20 ops): every one agreed with the default provider "
                "or an allowed divergence\n",
                total, depth, std::max(depth, keyed_depth), aead.size(), chacha.size());
    for (const auto& [event, first] : g_first) std::printf("  %-45s first: %s\n", event.c_str(), first.second.c_str());
    if (!corpus.empty()) {
        for (const auto& [event, first] : g_first) {
            std::string name = "enum_" + event;
            for (char& c : name)
                if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
            std::ofstream(std::filesystem::path(corpus) / name, std::ios::binary)
                .write(reinterpret_cast<const char*>(first.first.data()), std::streamsize(first.first.size()));
        }
        std::printf("wrote %zu inputs to %s\n", g_first.size(), corpus.c_str());
    }
    return 0;
}
