// What is measured: each section builds one table, checks that every
// implementation's first output matches the reference, then times them in
// alternation.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "bench/ossl.hpp"
#include "bench/report.hpp"

namespace stitch::bench {

struct SectionConfig {
    Settings settings;
    std::vector<size_t> tls_sizes;      // TLS 1.3 / TLS 1.2 / raw ChaCha20 / kernel rows
    std::vector<size_t> ssh_sizes;      // OpenSSH packets (payload bytes) and POLY1305
    std::vector<size_t> floor_sizes = {0, 64, 192};  // the EVP floor table
    bool tls13_chacha20 = true;         // the raw ChaCha20 rows of the TLS 1.3 table
    std::vector<std::string> impls;     // kernel table: only these Impl labels (and portable); empty: all
};

// TLS 1.3 records (seal, open) and raw ChaCha20 through EVP: stitch against default.
Table tls13_table(const Providers& p, const SectionConfig& cfg);
// stitch, the default provider and a provider that does nothing, seal and
// open at the small sizes: how far each is above EVP's own cost.
Table floor_table(const Providers& p, const SectionConfig& cfg);

// TLS 1.2 records: EVP_CTRL_AEAD_TLS1_AAD and one in-place update.
Table tls12_table(const Providers& p, const SectionConfig& cfg);

// OpenSSH packets: stitch's cipher against libssh's composition on the default provider.
Table ssh_table(const Providers& p, const SectionConfig& cfg);

// The POLY1305 EVP_MAC: stitch's (when it offers one) against default.
Table poly1305_table(const Providers& p, const SectionConfig& cfg);

// HKDF and TLS13-KDF: libssl's key-schedule calls (a fetch and a new context
// each) and HKDF with params on a kept context, stitch against default.
Table kdf_table(const Providers& p, const SectionConfig& cfg);

// The kernels called directly: avx2 against portable, outputs checked
// against the default provider through EVP.
Table kernel_table(const Providers& p, const SectionConfig& cfg);

}  // namespace stitch::bench
