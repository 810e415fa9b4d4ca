// The C++ half of the independent Poly1305 check (test_poly1305_edges.py):
// it runs what the Python test chose through every kernel set and through
// stitch's EVP interfaces and prints what came out; Python computes the same
// with its own big-integer arithmetic and compares. Nothing here decides
// whether a result is right.
//
// One request a line on stdin, one JSON object a line on stdout. Hex strings
// throughout, "-" for an empty one; splits are comma-separated sizes.
//
//   blocks R S H0 H1 H2 MSG SPLITS   a Poly1305State loaded with r (clamped by
//        the caller), s and accumulator limbs h0, h1, h2 (16 hex digits each),
//        then Impl::poly1305_blocks over MSG in calls of SPLITS blocks, chained
//        through the state; prints the limbs after each call and the tag.
//   mac KEY MSG SPLITS               poly1305_init/update/final on every set
//        (updates of SPLITS bytes), stitch's POLY1305 EVP_MAC with the same
//        updates, and the default provider's, one shot.
//   aead GRID KEY CTR AAD CT PT SPLITS   GRID rfc8439 or openssh; CTR four
//        8-hex-digit counter words (word 0: the key block). On every set: CT
//        opened by aead_text in calls of SPLITS bytes (tag and plaintext),
//        opened whole by aead_open_record against the tag the seal gave,
//        and PT sealed the same way (ciphertext and tag). On the rfc8439 grid
//        with counter 0 also through stitch's ChaCha20-Poly1305 EVP cipher.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/kernel_sets.hpp"
#include "common/test_util.hpp"
#include "kernels/aead.hpp"
#include "kernels/bytes.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/poly1305.hpp"

namespace stitch::test {
namespace {

// A kernel set's key in the output: its position and its label from
// kernel_sets() ("0:portable", "1:avx2 (active)"), so shapes stay apart.
std::string set_key(size_t i, const KernelSet& set) { return std::to_string(i) + ":" + set.label; }

Bytes hex(const std::string& s) { return s == "-" ? Bytes{} : from_hex(s); }
std::string hex(const Bytes& b) { return b.empty() ? "-" : to_hex(b); }
std::string hex64(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
    return buf;
}
uint64_t u64(const std::string& s) { return std::stoull(s, nullptr, 16); }

std::vector<size_t> sizes(const std::string& s) {
    std::vector<size_t> v;
    if (s == "-") return v;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, ',');)
        if (!part.empty()) v.push_back(std::stoul(part));
    return v;
}

// Sizes that cover `total`: the given ones in turn (repeated), the last cut short.
std::vector<size_t> cover(const std::vector<size_t>& pattern, size_t total) {
    std::vector<size_t> v;
    for (size_t done = 0, i = 0; done < total; ++i) {
        const size_t n = std::min(pattern.empty() ? total : std::max<size_t>(1, pattern[i % pattern.size()]), total - done);
        v.push_back(n);
        done += n;
    }
    return v;
}

std::string blocks(std::istream& in) {
    std::string r, s, h0, h1, h2, msg, splits;
    in >> r >> s >> h0 >> h1 >> h2 >> msg >> splits;
    const Bytes rb = hex(r), sb = hex(s), m = hex(msg);
    std::ostringstream out;
    out << "{\"sets\": {";
    const std::vector<KernelSet> sets = kernel_sets();
    for (size_t i = 0; i < sets.size(); ++i) {
        const KernelSet& set = sets[i];
        kern::Poly1305State st{};
        st.r[0] = kern::load_le64(rb.data());
        st.r[1] = kern::load_le64(rb.data() + 8);
        st.s1 = st.r[1] + (st.r[1] >> 2);
        st.pad[0] = kern::load_le64(sb.data());
        st.pad[1] = kern::load_le64(sb.data() + 8);
        st.h[0] = u64(h0), st.h[1] = u64(h1), st.h[2] = u64(h2);
        out << (i ? ", " : "") << "\"" << set_key(i, set) << "\": {\"states\": [";
        size_t off = 0;
        bool first_state = true;
        for (size_t n : cover(sizes(splits), m.size() / 16)) {
            set.impl->poly1305_blocks(st, m.data() + off * 16, n);
            off += n;
            out << (first_state ? "" : ", ") << "[\"" << hex64(st.h[0]) << "\", \"" << hex64(st.h[1]) << "\", \""
                << hex64(st.h[2]) << "\"]";
            first_state = false;
        }
        Bytes tag(16);
        kern::poly1305_final(*set.impl, st, tag.data());
        out << "], \"tag\": \"" << hex(tag) << "\"}";
    }
    out << "}}";
    return out.str();
}

std::string evp_mac(const char* provider, const Bytes& key, const Bytes& m, const std::vector<size_t>& parts) {
    MacPtr mac = providers().fetch_mac("POLY1305", provider);
    MacCtxPtr ctx = new_mac_ctx(mac);
    if (EVP_MAC_init(ctx.get(), key.data(), key.size(), nullptr) != 1) return "init refused";
    size_t off = 0;
    for (size_t n : parts) {
        if (EVP_MAC_update(ctx.get(), m.data() + off, n) != 1) return "update refused";
        off += n;
    }
    Bytes tag(16);
    size_t outl = 0;
    if (EVP_MAC_final(ctx.get(), tag.data(), &outl, tag.size()) != 1 || outl != 16) return "final refused";
    return hex(tag);
}

std::string mac(std::istream& in) {
    std::string k, msg, splits;
    in >> k >> msg >> splits;
    const Bytes key = hex(k), m = hex(msg);
    const std::vector<size_t> parts = cover(sizes(splits), m.size());
    std::ostringstream out;
    out << "{\"sets\": {";
    const std::vector<KernelSet> sets = kernel_sets();
    for (size_t i = 0; i < sets.size(); ++i) {
        const KernelSet& set = sets[i];
        kern::Poly1305State st;
        kern::poly1305_init(st, key.data());
        size_t off = 0;
        for (size_t n : parts) {
            kern::poly1305_update(*set.impl, st, m.data() + off, n);
            off += n;
        }
        Bytes tag(16);
        kern::poly1305_final(*set.impl, st, tag.data());
        out << (i ? ", " : "") << "\"" << set_key(i, set) << "\": \"" << hex(tag) << "\"";
    }
    out << "}, \"evp_stitch\": \"" << evp_mac("stitch", key, m, parts) << "\", \"evp_default\": \""
        << evp_mac("default", key, m, {m.size()}) << "\", \"active\": \"" << kern::active_impl().name << "\"}";
    return out.str();
}

struct AeadRun {
    bool ok = true;
    Bytes out, tag;
};

AeadRun kernel_aead(const kern::Impl& impl, kern::Grid grid, const Bytes& key, const uint32_t ctr[4], const Bytes& aad,
                    kern::Direction dir, const Bytes& text, const std::vector<size_t>& parts) {
    kern::AeadState st;
    kern::aead_init(st, impl, grid);
    kern::aead_set_key(st, key.data());
    kern::aead_restart(st, ctr);
    AeadRun r;
    r.out.assign(text.size(), 0);
    r.tag.assign(16, 0);
    r.ok = kern::aead_aad(st, aad.data(), aad.size());
    size_t off = 0;
    for (size_t n : parts) {
        r.ok &= kern::aead_text(st, dir, text.data() + off, r.out.data() + off, n);
        off += n;
    }
    kern::aead_final(st, r.tag.data());
    kern::aead_wipe(st);
    return r;
}

AeadRun kernel_open_record(const kern::Impl& impl, kern::Grid grid, const Bytes& key, const uint32_t ctr[4],
                           const Bytes& aad, const Bytes& ct, const Bytes& tag) {
    kern::AeadState st;
    kern::aead_init(st, impl, grid);
    kern::aead_set_key(st, key.data());
    kern::aead_restart(st, ctr);
    AeadRun r;
    r.out.assign(ct.size(), 0);
    r.ok = kern::aead_aad(st, aad.data(), aad.size()) &&
           kern::aead_open_record(st, ct.data(), r.out.data(), ct.size(), tag.data());
    kern::aead_wipe(st);
    return r;
}

// stitch's ChaCha20-Poly1305 through EVP (counter 0), updates of `parts`.
AeadRun evp_aead(bool enc, const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& text,
                 const std::vector<size_t>& parts, const Bytes& tag_in) {
    CipherPtr cipher = providers().fetch("ChaCha20-Poly1305", "stitch");
    CipherCtxPtr ctx = new_cipher_ctx();
    AeadRun r;
    r.out.assign(text.size(), 0);
    r.tag.assign(16, 0);
    int outl = 0;
    r.ok = EVP_CipherInit_ex(ctx.get(), cipher.get(), nullptr, key.data(), nonce.data(), enc) == 1;
    if (!enc) r.ok &= EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, const_cast<uint8_t*>(tag_in.data())) == 1;
    if (!aad.empty()) r.ok &= EVP_CipherUpdate(ctx.get(), nullptr, &outl, aad.data(), int(aad.size())) == 1;
    size_t off = 0;
    for (size_t n : parts) {
        r.ok &= EVP_CipherUpdate(ctx.get(), r.out.data() + off, &outl, text.data() + off, int(n)) == 1;
        off += n;
    }
    r.ok &= EVP_CipherFinal_ex(ctx.get(), nullptr, &outl) == 1;
    if (enc) r.ok &= EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, r.tag.data()) == 1;
    return r;
}

std::string aead(std::istream& in) {
    std::string g, k, c, a, ctext, ptext, splits;
    in >> g >> k >> c >> a >> ctext >> ptext >> splits;
    const kern::Grid grid = g == "openssh" ? kern::Grid::openssh : kern::Grid::rfc8439;
    const Bytes key = hex(k), aad = hex(a), ct = hex(ctext), pt = hex(ptext);
    uint32_t ctr[4];
    for (int i = 0; i < 4; ++i) ctr[i] = uint32_t(std::stoul(c.substr(9 * i, 8), nullptr, 16));
    const std::vector<size_t> parts = cover(sizes(splits), ct.size());
    std::ostringstream out;
    out << "{\"sets\": {";
    const std::vector<KernelSet> sets = kernel_sets();
    for (size_t i = 0; i < sets.size(); ++i) {
        const KernelSet& set = sets[i];
        const AeadRun open = kernel_aead(*set.impl, grid, key, ctr, aad, kern::Direction::open, ct, parts);
        const AeadRun seal = kernel_aead(*set.impl, grid, key, ctr, aad, kern::Direction::seal, pt, parts);
        const AeadRun whole = kernel_open_record(*set.impl, grid, key, ctr, aad, ct, seal.tag);
        out << (i ? ", " : "") << "\"" << set_key(i, set) << "\": {\"open_ok\": " << open.ok << ", \"open_pt\": \""
            << hex(open.out) << "\", \"open_tag\": \"" << hex(open.tag) << "\", \"seal_ok\": " << seal.ok
            << ", \"seal_ct\": \"" << hex(seal.out) << "\", \"seal_tag\": \"" << hex(seal.tag)
            << "\", \"record_ok\": " << whole.ok << ", \"record_pt\": \"" << hex(whole.out) << "\"}";
    }
    out << "}";
    if (grid == kern::Grid::rfc8439 && ctr[0] == 0) {
        Bytes nonce(12);
        for (int i = 0; i < 3; ++i) kern::store_le32(nonce.data() + 4 * i, ctr[1 + i]);
        const AeadRun seal = evp_aead(true, key, nonce, aad, pt, parts, {});
        const AeadRun open = evp_aead(false, key, nonce, aad, ct, parts, seal.tag);
        out << ", \"evp\": {\"seal_ok\": " << seal.ok << ", \"seal_ct\": \"" << hex(seal.out) << "\", \"seal_tag\": \""
            << hex(seal.tag) << "\", \"open_ok\": " << open.ok << ", \"open_pt\": \"" << hex(open.out) << "\"}";
    }
    out << "}";
    return out.str();
}

}  // namespace
}  // namespace stitch::test

int main() {
    using namespace stitch::test;
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string op;
        in >> op;
        if (op == "blocks") std::cout << blocks(in) << '\n';
        else if (op == "mac") std::cout << mac(in) << '\n';
        else if (op == "aead") std::cout << aead(in) << '\n';
        else if (op == "sets") {
            std::cout << "{\"sets\": [";
            const std::vector<KernelSet> sets = kernel_sets();
            for (size_t i = 0; i < sets.size(); ++i) std::cout << (i ? ", " : "") << "\"" << set_key(i, sets[i]) << "\"";
            std::cout << "], \"active\": \"" << stitch::kern::active_impl().name << "\"}\n";
        } else if (!op.empty()) {
            std::cout << "{\"error\": \"unknown request " << op << "\"}\n";
        }
        std::cout.flush();
    }
    return 0;
}
