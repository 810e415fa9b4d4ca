// The rows stitch-check measures: the record shapes a machine's TLS and SSH
// traffic takes, each timed for the default provider and for every loaded
// stitch set in alternation (bench/harness), after their outputs were
// compared byte for byte.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tools/stitch-check/loader.hpp"

namespace stitch::check {

enum class Op { tls13_seal, tls13_open, chacha20, ssh_seal, ssh_open };

struct RowSpec {
    Op op;
    size_t bytes;
};

// TLS 1.3 seal and open at 64 B, 1 KiB, 16 KiB, 64 KiB; raw ChaCha20 at
// 1 KiB and 64 KiB; the OpenSSH packet at 1 KiB, sealed and opened.
const std::vector<RowSpec>& default_rows();

const char* op_name(Op op);

struct Measured {
    double ns = 0;     // median per message
    double noise = 0;  // (p75 - p25) / median
};

struct RowResult {
    RowSpec spec;
    Measured dflt;
    std::vector<Measured> sets;  // one per stitch load, in the order given
    std::string error;           // non-empty: the row could not be measured (or outputs differed)
};

// Times one row for the default provider (from the first load's context)
// and every load, `reps` alternated repetitions of about `sample_ms` each.
RowResult measure_row(const RowSpec& spec, const std::vector<const Loaded*>& loads, int reps, double sample_ms);

}  // namespace stitch::check
