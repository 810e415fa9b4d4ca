#include "bench/sections.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "bench/evp_kdf.hpp"
#include "bench/evp_ssh.hpp"
#include "bench/evp_tls.hpp"
#include "bench/inputs.hpp"
#include "bench/kernel_ops.hpp"
#include "kernels/portable/set.hpp"

namespace stitch::bench {

namespace {

using Bytes = std::vector<uint8_t>;

// One implementation of one row, set up and called once: its first output
// is what gets compared, and only then is it timed.
struct Contender {
    std::unique_ptr<Subject> subject;  // null: not measured, see `error`
    Bytes output;
    std::string error;
    bool failed = false;  // it exists but did not work (as against: not offered)
};

Contender absent(std::string why) {
    Contender c;
    c.error = std::move(why);
    return c;
}

Contender broken(std::string why) {
    Contender c = absent(std::move(why));
    c.failed = true;
    return c;
}

template <class Op, class... Args>
Contender contender(Args&&... args) {
    try {
        Op op(std::forward<Args>(args)...);
        if (!op()) return broken("the first call failed: " + openssl_errors());
        Contender c;
        const auto out = op.output();
        c.output.assign(out.begin(), out.end());
        c.subject = make_subject(std::move(op));
        return c;
    } catch (const std::exception& e) {
        return broken(e.what() + (" " + openssl_errors()));
    }
}

std::vector<Contender> both(Contender a, Contender b) {
    std::vector<Contender> cs;
    cs.push_back(std::move(a));
    cs.push_back(std::move(b));
    return cs;
}

// An operation of stitch's that needs `algo`; says why when it cannot run.
template <class Op, class Algo, class... Args>
Contender from_stitch(const Providers& p, const Algo& algo, const char* name, Args&&... args) {
    if (!p.has_stitch()) return absent("stitch.so not loaded from " + p.module_dir() + ": " + p.stitch_error());
    if (!algo) return absent(std::string("stitch offers no ") + name);
    return contender<Op>(algo.get(), std::forward<Args>(args)...);
}

Bytes bytes_of(const Buffer& b) { return Bytes(b.data(), b.data() + b.size()); }

void note_once(Table& t, const std::string& note) {
    if (std::find(t.notes.begin(), t.notes.end(), note) == t.notes.end()) t.notes.push_back(note);
}

// Checks each contender's output against `reference` (by default the
// baseline's, the last column), times those present in alternation, and
// appends the row. A contender that could not run leaves its cell empty and
// its reason once in the table's notes.
void add_row(Table& t, const SectionConfig& cfg, std::string op, size_t bytes, std::vector<Contender> cs,
             const Bytes* reference = nullptr, const char* reference_name = nullptr, bool check = true) {
    Row row;
    row.op = std::move(op);
    row.bytes = bytes;
    row.results.resize(cs.size());
    row.mismatch.assign(cs.size(), false);
    std::string ref_name = reference_name ? reference_name : "";
    if (!reference && cs.back().subject) {
        reference = &cs.back().output;
        ref_name = t.columns.back();
    }
    std::vector<Subject*> present;
    std::vector<size_t> where;
    for (size_t i = 0; i < cs.size(); ++i) {
        if (!cs[i].subject) {
            note_once(t, t.columns[i] + ": " + cs[i].error);
            t.failures += cs[i].failed;
            continue;
        }
        if (check && reference && cs[i].output != *reference) {
            row.mismatch[i] = true;
            ++t.failures;
            row.notes.push_back("OUTPUT MISMATCH: " + t.columns[i] + " differs from " + ref_name);
        }
        present.push_back(cs[i].subject.get());
        where.push_back(i);
    }
    const Timing timing = alternate(present, cfg.settings);
    row.core_ghz = timing.core_ghz;
    for (size_t j = 0; j < where.size(); ++j) {
        row.results[where[j]] = timing.results[j];
        if (!timing.results[j].ok) {
            row.notes.push_back(t.columns[where[j]] + " failed while being timed");
            ++t.failures;
        }
    }
    t.rows.push_back(std::move(row));
}

// The kernel table's columns: every kernel set this build has and
// this CPU runs (runnable_impls(), whatever dispatch chose), or those
// cfg.impls names, with the portable set last as the baseline.
std::vector<const kern::Impl*> kernel_columns(const SectionConfig& cfg) {
    std::vector<const kern::Impl*> v;
    for (const kern::Impl* impl : kern::runnable_impls()) {
        if (impl == &kern::portable_impl()) continue;
        const std::string label = kern::impl_label(*impl);
        if (cfg.impls.empty() || std::find(cfg.impls.begin(), cfg.impls.end(), label) != cfg.impls.end())
            v.push_back(impl);
    }
    v.push_back(&kern::portable_impl());
    return v;
}

// The same operation on each of those kernel sets.
template <class Op, class... Args>
std::vector<Contender> kernels(const std::vector<const kern::Impl*>& impls, const Args&... args) {
    std::vector<Contender> cs;
    for (const kern::Impl* impl : impls) cs.push_back(contender<Op>(*impl, args...));
    return cs;
}

}  // namespace

Table tls13_table(const Providers& p, const SectionConfig& cfg) {
    Table t;
    t.id = "tls13";
    t.title = "TLS 1.3 records through EVP (per message: re-init with the IV, 5-byte AAD, data, final, tag)";
    t.notes = {"seal in place; open out of place with the tag set first; chacha20 = raw ChaCha20, re-init + update"};
    t.columns = {"stitch", "default"};
    const auto sa = p.cipher(Prov::stitch, "ChaCha20-Poly1305");
    const auto da = p.cipher(Prov::dflt, "ChaCha20-Poly1305");
    const auto sc = p.cipher(Prov::stitch, "ChaCha20");
    const auto dc = p.cipher(Prov::dflt, "ChaCha20");

    for (size_t n : cfg.tls_sizes)
        add_row(t, cfg, "seal", n,
                both(from_stitch<Tls13Seal>(p, sa, "ChaCha20-Poly1305", n), contender<Tls13Seal>(da.get(), n)));
    for (size_t n : cfg.tls_sizes) {
        const Bytes record = contender<Tls13Seal>(da.get(), n).output;
        const Bytes expect = bytes_of(plaintext(n));
        add_row(t, cfg, "open", n,
                both(from_stitch<Tls13Open>(p, sa, "ChaCha20-Poly1305", record), contender<Tls13Open>(da.get(), record)),
                &expect, "the plaintext");
    }
    if (cfg.tls13_chacha20)
        for (size_t n : cfg.tls_sizes)
            add_row(t, cfg, "chacha20", n,
                    both(from_stitch<ChaCha20Xor>(p, sc, "ChaCha20", n), contender<ChaCha20Xor>(dc.get(), n)));
    return t;
}

Table floor_table(const Providers& p, const SectionConfig& cfg) {
    Table t;
    t.id = "floor";
    t.title = "The EVP floor: TLS 1.3 records as in the tls13 table, and through a provider that does nothing";
    t.notes = {"no-op: a built-in provider whose ChaCha20-Poly1305 reads and writes nothing (bench/floor_provider.hpp):",
               "what EVP itself costs per record in libssl's call sequence; outputs are not compared in this table"};
    t.columns = {"stitch", "default", "no-op"};
    const auto sa = p.cipher(Prov::stitch, "ChaCha20-Poly1305");
    const auto da = p.cipher(Prov::dflt, "ChaCha20-Poly1305");
    const auto fa = p.cipher(Prov::floor, "ChaCha20-Poly1305");
    auto floor_of = [&]<class Op, class... Args>(std::type_identity<Op>, Args&&... args) {
        return fa ? contender<Op>(fa.get(), std::forward<Args>(args)...) : absent("the no-op provider did not load");
    };
    auto above_floor = [&](Row& row) {
        if (row.results.size() == 3 && row.results[2].ok)
            for (size_t i = 0; i < 2; ++i)
                if (row.results[i].ok)
                    row.notes.push_back(t.columns[i] + " - no-op = " +
                                        std::to_string(int(row.results[i].median_ns - row.results[2].median_ns)) + " ns");
    };
    for (size_t n : cfg.floor_sizes) {
        std::vector<Contender> cs;
        cs.push_back(from_stitch<Tls13Seal>(p, sa, "ChaCha20-Poly1305", n));
        cs.push_back(contender<Tls13Seal>(da.get(), n));
        cs.push_back(floor_of(std::type_identity<Tls13Seal>{}, n));
        add_row(t, cfg, "seal", n, std::move(cs), nullptr, nullptr, false);
        above_floor(t.rows.back());
    }
    for (size_t n : cfg.floor_sizes) {
        const Bytes record = contender<Tls13Seal>(da.get(), n).output;
        std::vector<Contender> cs;
        cs.push_back(from_stitch<Tls13Open>(p, sa, "ChaCha20-Poly1305", record));
        cs.push_back(contender<Tls13Open>(da.get(), record));
        cs.push_back(floor_of(std::type_identity<Tls13Open>{}, record));
        add_row(t, cfg, "open", n, std::move(cs), nullptr, nullptr, false);
        above_floor(t.rows.back());
    }
    return t;
}

Table tls12_table(const Providers& p, const SectionConfig& cfg) {
    Table t;
    t.id = "tls12";
    t.title = "TLS 1.2 records through EVP (per message: EVP_CTRL_AEAD_TLS1_AAD, one update over record + tag)";
    t.notes = {"seal in place; open out of place"};
    t.columns = {"stitch", "default"};
    const auto sa = p.cipher(Prov::stitch, "ChaCha20-Poly1305");
    const auto da = p.cipher(Prov::dflt, "ChaCha20-Poly1305");
    std::vector<size_t> sizes;
    for (size_t n : cfg.tls_sizes)
        if (n + kTagLen <= 0xffff) sizes.push_back(n);  // the header's 16-bit length field
        else note_once(t, "sizes over 65519 B do not fit the header's 16-bit length field: omitted");

    for (size_t n : sizes)
        add_row(t, cfg, "seal", n,
                both(from_stitch<Tls12Seal>(p, sa, "ChaCha20-Poly1305", n), contender<Tls12Seal>(da.get(), n)));
    for (size_t n : sizes) {
        const Bytes record = contender<Tls12Seal>(da.get(), n).output;
        const Bytes expect = bytes_of(plaintext(n));
        add_row(t, cfg, "open", n,
                both(from_stitch<Tls12Open>(p, sa, "ChaCha20-Poly1305", record), contender<Tls12Open>(da.get(), record)),
                &expect, "the plaintext");
    }
    return t;
}

Table ssh_table(const Providers& p, const SectionConfig& cfg) {
    Table t;
    t.id = "ssh";
    t.title = "OpenSSH chacha20-poly1305@openssh.com packets through EVP (bytes = payload; + 4-byte length, 16-byte tag)";
    t.notes = {"stitch: re-init with the sequence number, ONE update over the packet",
               "default: libssh 0.10.6's composition: two default-provider ChaCha20 contexts + its POLY1305 EVP_MAC"};
    t.columns = {"stitch", "default"};
    const auto ss = p.cipher(Prov::stitch, "chacha20-poly1305@openssh.com");
    const auto dc = p.cipher(Prov::dflt, "ChaCha20");
    const auto dm = p.mac(Prov::dflt, "POLY1305");
    const char* name = "chacha20-poly1305@openssh.com";

    for (size_t n : cfg.ssh_sizes)
        add_row(t, cfg, "ssh-seal", n,
                both(from_stitch<SshSealCipher>(p, ss, name, n), contender<SshSealComposed>(dc.get(), dm.get(), n)));
    for (size_t n : cfg.ssh_sizes) {
        const Bytes packet = contender<SshSealComposed>(dc.get(), dm.get(), n).output;
        const Bytes expect = bytes_of(ssh_packet(n, 0));
        add_row(t, cfg, "ssh-open", n,
                both(from_stitch<SshOpenCipher>(p, ss, name, packet),
                 contender<SshOpenComposed>(dc.get(), dm.get(), packet)),
                &expect, "the plaintext packet");
    }
    return t;
}

Table poly1305_table(const Providers& p, const SectionConfig& cfg) {
    Table t;
    t.id = "poly1305";
    t.title = "POLY1305 EVP_MAC (per message: init with a one-time key, update, final)";
    t.columns = {"stitch", "default"};
    const auto sm = p.mac(Prov::stitch, "POLY1305");
    const auto dm = p.mac(Prov::dflt, "POLY1305");
    const char* missing = "POLY1305 MAC yet (EVP_MAC_fetch(libctx, \"POLY1305\", \"provider=stitch\") failed): "
                          "default alone";
    for (size_t n : cfg.ssh_sizes)
        add_row(t, cfg, "poly1305", n, both(from_stitch<Poly1305Mac>(p, sm, missing, n), contender<Poly1305Mac>(dm.get(), n)));
    return t;
}

Table kernel_table(const Providers& p, const SectionConfig& cfg) {
    Table t;
    t.id = "kernel";
    t.title = "stitch kernels called directly (no EVP; outputs checked against the default provider)";
    t.notes = {"seal = aead_set_nonce, aead_aad(5 B), aead_text, aead_final; open = aead_open_record;",
               "chacha20 = chacha_stream_xor over Impl::chacha20_blocks; ssh-* = openssh_seal/openssh_open (bytes = "
               "payload)",
               std::string("every kernel set this CPU runs; dispatch chose ") +
                   kern::impl_label(kern::active_impl())};
    const std::vector<const kern::Impl*> impls = kernel_columns(cfg);
    for (const kern::Impl* impl : impls) t.columns.push_back(kern::impl_label(*impl));
    if (impls.size() == 2) t.notes.push_back("speedup = portable ns / " + t.columns[0] + " ns");
    const char* ref = "the default provider";
    const auto da = p.cipher(Prov::dflt, "ChaCha20-Poly1305");
    const auto dc = p.cipher(Prov::dflt, "ChaCha20");
    const auto dm = p.mac(Prov::dflt, "POLY1305");


    for (size_t n : cfg.tls_sizes) {
        const Bytes sealed = contender<Tls13Seal>(da.get(), n).output;
        add_row(t, cfg, "seal", n, kernels<KernelSeal>(impls, n), &sealed, ref);
    }
    for (size_t n : cfg.tls_sizes) {
        const Bytes record = contender<Tls13Seal>(da.get(), n).output;
        const Bytes expect = bytes_of(plaintext(n));
        add_row(t, cfg, "open", n, kernels<KernelOpen>(impls, record), &expect, "the plaintext");
    }
    for (size_t n : cfg.tls_sizes) {
        const Bytes stream = contender<ChaCha20Xor>(dc.get(), n).output;
        add_row(t, cfg, "chacha20", n, kernels<KernelChaCha20>(impls, n), &stream, ref);
    }
    for (size_t n : cfg.ssh_sizes) {
        const Bytes tag = contender<Poly1305Mac>(dm.get(), n).output;
        add_row(t, cfg, "poly1305", n, kernels<KernelPoly1305>(impls, n), &tag, ref);
    }
    for (size_t n : cfg.ssh_sizes) {
        const Bytes packet = contender<SshSealComposed>(dc.get(), dm.get(), n).output;
        add_row(t, cfg, "ssh-seal", n, kernels<KernelSshSeal>(impls, n), &packet, ref);
    }
    for (size_t n : cfg.ssh_sizes) {
        const Bytes packet = contender<SshSealComposed>(dc.get(), dm.get(), n).output;
        const Bytes expect = bytes_of(ssh_packet(n, 0));
        add_row(t, cfg, "ssh-open", n, kernels<KernelSshOpen>(impls, packet), &expect, "the plaintext packet");
    }
    return t;
}

Table kdf_table(const Providers& p, const SectionConfig& cfg) {
    Table t;
    t.id = "kdf";
    t.title = "HKDF and TLS13-KDF through EVP (bytes = output)";
    t.notes = {"t13-label, t13-extr: libssl 3.0's calls, each a fetch, a new context, one derive with the digest's "
               "name in the params, a free (TLS 1.3 makes 21 per handshake per side); 32 B = SHA-256, 48 B = SHA-384",
               "hk-expand, hk-both: HKDF in the same call shape (EXPAND_ONLY; EXTRACT_AND_EXPAND), key, salt and "
               "info of HashLen",
               "t13-fixed: the fetch, new context and frees alone, no derive: what libcrypto costs around each of "
               "the rows above whoever provides the KDF",
               "hkdf-*: one kept context, mode, digest name, key and info (expand) or salt (extract) passed to "
               "every derive; hkdf-sha1 takes stitch's fetched-digest path"};
    t.columns = {"stitch", "default"};
    OSSL_LIB_CTX* libctx = p.libctx();
    auto libssl_shape = [&](const char* op, auto tag, const char* digest, size_t hash_len) {
        using Op = typename decltype(tag)::type;
        Contender s = p.has_stitch() ? contender<Op>(libctx, Prov::stitch, digest, hash_len)
                                     : absent("stitch.so not loaded from " + p.module_dir() + ": " + p.stitch_error());
        add_row(t, cfg, op, hash_len, both(std::move(s), contender<Op>(libctx, Prov::dflt, digest, hash_len)));
    };
    libssl_shape("t13-label", std::type_identity<Tls13ExpandLabel>{}, "SHA2-256", 32);
    libssl_shape("t13-label", std::type_identity<Tls13ExpandLabel>{}, "SHA2-384", 48);
    libssl_shape("t13-extr", std::type_identity<Tls13Extract>{}, "SHA2-256", 32);
    libssl_shape("t13-extr", std::type_identity<Tls13Extract>{}, "SHA2-384", 48);
    auto hkdf_shape = [&](const char* op, int mode, const char* digest, size_t out_len) {
        Contender s = p.has_stitch() ? contender<HkdfLibsslShape>(libctx, Prov::stitch, mode, digest, out_len)
                                     : absent("stitch.so not loaded from " + p.module_dir() + ": " + p.stitch_error());
        add_row(t, cfg, op, out_len, both(std::move(s), contender<HkdfLibsslShape>(libctx, Prov::dflt, mode, digest, out_len)));
    };
    hkdf_shape("hk-expand", EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA2-256", 32);
    hkdf_shape("hk-expand", EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA2-384", 48);
    hkdf_shape("hk-both", EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, "SHA2-256", 32);
    hkdf_shape("hk-both", EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, "SHA2-384", 48);
    {
        Contender s = p.has_stitch() ? contender<KdfFetchNewFree>(libctx, Prov::stitch, "TLS13-KDF")
                                     : absent("stitch.so not loaded from " + p.module_dir() + ": " + p.stitch_error());
        add_row(t, cfg, "t13-fixed", 0, both(std::move(s), contender<KdfFetchNewFree>(libctx, Prov::dflt, "TLS13-KDF")));
    }

    const auto sk = p.kdf(Prov::stitch, "HKDF");
    const auto dk = p.kdf(Prov::dflt, "HKDF");
    auto hkdf = [&](const char* op, int mode, const char* digest, size_t out_len) {
        add_row(t, cfg, op, out_len,
                both(from_stitch<HkdfWithParams>(p, sk, "HKDF", mode, digest, out_len),
                     contender<HkdfWithParams>(dk.get(), mode, digest, out_len)));
    };
    hkdf("hkdf-exp", EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA256", 32);
    hkdf("hkdf-exp", EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA256", 255);
    hkdf("hkdf-exp", EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA384", 48);
    hkdf("hkdf-extr", EVP_KDF_HKDF_MODE_EXTRACT_ONLY, "SHA256", 32);
    hkdf("hkdf-both", EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, "SHA512", 64);
    hkdf("hkdf-sha1", EVP_KDF_HKDF_MODE_EXPAND_ONLY, "SHA1", 20);
    return t;
}

}  // namespace stitch::bench
