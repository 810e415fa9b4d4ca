#include "tools/stitch-check/rows.hpp"

#include <exception>
#include <memory>
#include <span>

#include "bench/evp_ssh.hpp"
#include "bench/evp_tls.hpp"
#include "bench/harness.hpp"

namespace stitch::check {

namespace {

using bench::CipherPtr;
using bench::MacPtr;

// One provider's implementation of a row: the callable the harness times,
// and its first output, which must equal the default provider's.
struct Contender {
    std::unique_ptr<bench::Subject> subject;
    std::vector<uint8_t> output;
};

template <class Op, class... Args>
Contender make(Args&&... args) {
    Op op(std::forward<Args>(args)...);
    if (!op()) throw std::runtime_error("the first call failed");
    Contender c;
    const auto out = op.output();
    c.output.assign(out.begin(), out.end());
    c.subject = bench::make_subject(std::move(op));
    return c;
}

// The default provider has no OpenSSH cipher: it is measured as libssh
// 0.10.6 composes the packet from its ChaCha20 and POLY1305.
Contender contender(const RowSpec& row, const Loaded& load, bool stitch) {
    switch (row.op) {
        case Op::tls13_seal:
        case Op::tls13_open: {
            CipherPtr aead(load.cipher(stitch, "ChaCha20-Poly1305"));
            if (!aead) throw std::runtime_error("ChaCha20-Poly1305 not offered");
            if (row.op == Op::tls13_seal) return make<bench::Tls13Seal>(aead.get(), row.bytes);
            // Every provider opens the same record, sealed by this one.
            bench::Tls13Seal seal(aead.get(), row.bytes);
            if (!seal()) throw std::runtime_error("sealing the record to open failed");
            return make<bench::Tls13Open>(aead.get(), seal.output());
        }
        case Op::chacha20: {
            CipherPtr chacha(load.cipher(stitch, "ChaCha20"));
            if (!chacha) throw std::runtime_error("ChaCha20 not offered");
            return make<bench::ChaCha20Xor>(chacha.get(), row.bytes);
        }
        case Op::ssh_seal:
        case Op::ssh_open: {
            CipherPtr chacha(load.cipher(false, "ChaCha20"));
            MacPtr poly(load.mac(false, "POLY1305"));
            CipherPtr ssh(load.cipher(true, "chacha20-poly1305@openssh.com"));
            if (!chacha || !poly || !ssh) throw std::runtime_error("OpenSSH packet ciphers not offered");
            bench::SshSealCipher seal(ssh.get(), row.bytes);
            if (!seal()) throw std::runtime_error("sealing the packet to open failed");
            if (row.op == Op::ssh_seal)
                return stitch ? make<bench::SshSealCipher>(ssh.get(), row.bytes)
                              : make<bench::SshSealComposed>(chacha.get(), poly.get(), row.bytes);
            return stitch ? make<bench::SshOpenCipher>(ssh.get(), seal.output())
                          : make<bench::SshOpenComposed>(chacha.get(), poly.get(), seal.output());
        }
    }
    throw std::runtime_error("unknown row");
}

Measured measured(const bench::Result& r) {
    return {r.median_ns, r.median_ns > 0 ? (r.p75_ns - r.p25_ns) / r.median_ns : 0};
}

}  // namespace

const std::vector<RowSpec>& default_rows() {
    static const std::vector<RowSpec> rows = {
        {Op::tls13_seal, 64},   {Op::tls13_seal, 1024},  {Op::tls13_seal, 16384}, {Op::tls13_seal, 65536},
        {Op::tls13_open, 64},   {Op::tls13_open, 1024},  {Op::tls13_open, 16384}, {Op::tls13_open, 65536},
        {Op::chacha20, 1024},   {Op::chacha20, 65536},   {Op::ssh_seal, 1024},    {Op::ssh_open, 1024},
    };
    return rows;
}

const char* op_name(Op op) {
    switch (op) {
        case Op::tls13_seal: return "TLS 1.3 seal";
        case Op::tls13_open: return "TLS 1.3 open";
        case Op::chacha20: return "raw ChaCha20";
        case Op::ssh_seal: return "OpenSSH seal";
        case Op::ssh_open: return "OpenSSH open";
    }
    return "?";
}

RowResult measure_row(const RowSpec& spec, const std::vector<const Loaded*>& loads, int reps, double sample_ms) {
    RowResult result;
    result.spec = spec;
    result.sets.resize(loads.size());
    try {
        std::vector<Contender> cs;
        cs.push_back(contender(spec, *loads.front(), false));
        for (const Loaded* load : loads) {
            cs.push_back(contender(spec, *load, true));
            if (cs.back().output != cs.front().output)
                throw std::runtime_error("stitch's output differs from the default provider's");
        }
        std::vector<bench::Subject*> subjects;
        for (Contender& c : cs) subjects.push_back(c.subject.get());
        const bench::Timing t = bench::alternate(subjects, {reps, sample_ms});
        for (const bench::Result& r : t.results)
            if (!r.ok) throw std::runtime_error("a call failed while being timed");
        result.dflt = measured(t.results[0]);
        for (size_t i = 0; i < loads.size(); ++i) result.sets[i] = measured(t.results[i + 1]);
    } catch (const std::exception& e) {
        result.error = e.what();
    }
    return result;
}

}  // namespace stitch::check
