// Where stitch's HKDF and TLS13-KDF part from OpenSSL 3.0's default provider
// on purpose, as the kdf_params fuzz target and the sequence enumerator
// allow it (docs/tls13-kdf.md lists them with the same reasons). Everywhere
// else the two must answer every call alike: accept or refuse, the same
// bytes, the same size and info read back; and stitch must answer as the
// model (kdf_sequence_model.hpp) says, here too.
//
// Every entry but no_dupctx is a place where 3.0 crashes: there the default
// is spared the crash (not given the call, or the derive) and the model alone
// judges stitch.
#pragma once

namespace stitch::fuzz {

enum class KdfDivergence {
    no_dupctx,
    mode_without_data,
    empty_info_after_info,
    prefix_without_data,
    label_without_data,
};

struct KdfDivergenceRule {
    const char* name;
    const char* reason;
};

inline constexpr KdfDivergenceRule kKdfRules[] = {
    {"no_dupctx",
     "3.0 has no dupctx (EVP_KDF_CTX_dup fails); stitch's copy replaces its context and must carry on exactly as "
     "the default's original does"},
    {"mode_without_data",
     "a mode param with NULL data: 3.0 reads the string or the integer through the pointer and crashes; stitch "
     "refuses it (R_INVALID_MODE), mode unchanged. The default is not given that call and not driven after it: "
     "stitch runs on alone, judged by the model"},
    {"empty_info_after_info",
     "HKDF: an info of no bytes (empty, or pieces with NULL data) after a non-empty one: 3.0 frees its info, keeps "
     "the old length, and its next derive that reads info (EXPAND_ONLY, EXTRACT_AND_EXPAND) reads through NULL; "
     "stitch clears the info. Those derives are not run on the default until info is set again or reset"},
    {"prefix_without_data",
     "TLS13-KDF: a prefix with NULL data and a length: both refuse it, but 3.0 keeps the length with no bytes and "
     "its next derive that reads the prefix (EXPAND_ONLY, or EXTRACT_ONLY with a salt) copies from NULL; stitch "
     "derives with no prefix. Those derives are not run on the default until the prefix is set again or reset"},
    {"label_without_data",
     "TLS13-KDF: a label with NULL data and a length: as prefix_without_data, for the label"},
};

inline const KdfDivergenceRule& kdf_rule(KdfDivergence d) { return kKdfRules[static_cast<int>(d)]; }

}  // namespace stitch::fuzz
