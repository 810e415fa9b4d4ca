// stitch's own error reasons. The core gives the provider its own error
// library and prints these strings, so ERR_print_errors says what was wrong.
// Tests include this header to name the error a refusal must raise.
#pragma once

namespace stitch::prov {

enum Reason : int {
    R_INVALID_KEY_LENGTH = 1,
    R_INVALID_IV_LENGTH,
    R_INVALID_TAG_LENGTH,
    R_TAG_NOT_SET,
    R_TAG_NOT_NEEDED,
    R_TAG_NOT_READY,
    R_AAD_AFTER_DATA,
    R_OUTPUT_BUFFER_TOO_SMALL,
    R_INVALID_TLS_AAD,
    R_TLS_RECORD_TOO_SHORT,
    R_TLS_LENGTH_MISMATCH,
    R_KEY_NOT_SET,
    R_IV_NOT_SET,
    R_COUNTER_EXHAUSTED,
    R_NULL_BUFFER,
    R_OVERLAPPING_BUFFERS,
    R_ALREADY_FINAL,
    R_INVALID_PACKET_LENGTH,
    R_INVALID_PARAM,
    R_NOT_INITIALISED,
    R_KEY_ALREADY_USED,
    R_TLS_EMPTY_CALL,
    // The KDFs (provider/kdfs).
    R_DIGEST_NOT_SET,
    R_UNKNOWN_DIGEST,
    R_DIGEST_NOT_USABLE,
    R_INVALID_MODE,
    R_EMPTY_OUTPUT,
    R_OUTPUT_TOO_LONG,
    R_EXTRACT_OUTPUT_SIZE,
    R_INFO_TOO_LONG,
    R_LABEL_TOO_LONG,
    R_CONTEXT_TOO_LONG,
    R_HMAC_FAILED,
    R_SALT_REFUSED,
    R_OUT_OF_MEMORY,
    // openssl.cnf's `kernel` setting (provider/entry.cpp).
    R_UNKNOWN_KERNEL,
    R_KERNEL_NOT_RUNNABLE,
};

struct ReasonText {
    Reason reason;
    const char* text;
};

inline constexpr ReasonText kReasonTexts[] = {
    {R_INVALID_KEY_LENGTH, "invalid key length"},
    {R_INVALID_IV_LENGTH, "invalid iv length"},
    {R_INVALID_TAG_LENGTH, "invalid tag length (decryption takes exactly 16 bytes)"},
    {R_TAG_NOT_SET, "tag not set: decryption needs the 16-byte tag before final"},
    {R_TAG_NOT_NEEDED, "tag cannot be set when encrypting"},
    {R_TAG_NOT_READY, "tag is available only after encryption final"},
    {R_AAD_AFTER_DATA, "AAD after data: all AAD must come before the first data byte"},
    {R_OUTPUT_BUFFER_TOO_SMALL, "output buffer too small"},
    {R_INVALID_TLS_AAD, "TLS AAD must be 13 bytes"},
    {R_TLS_RECORD_TOO_SHORT, "TLS record shorter than its 16-byte tag"},
    {R_TLS_LENGTH_MISMATCH, "TLS record length does not match its AAD"},
    {R_KEY_NOT_SET, "key not set"},
    {R_IV_NOT_SET, "iv not set"},
    {R_COUNTER_EXHAUSTED, "message too long: ChaCha20 block counter exhausted"},
    {R_NULL_BUFFER, "NULL buffer with non-zero length"},
    {R_OVERLAPPING_BUFFERS, "input and output buffers partially overlap"},
    {R_ALREADY_FINAL, "message already finalised: re-initialise with a new iv"},
    {R_INVALID_PACKET_LENGTH, "OpenSSH packet too short for its length field and tag"},
    {R_INVALID_PARAM, "invalid parameter"},
    {R_NOT_INITIALISED, "cipher context not initialised"},
    {R_KEY_ALREADY_USED, "one-time key already used: init needs a new Poly1305 key"},
    {R_TLS_EMPTY_CALL, "zero-length EVP_Cipher in TLS record mode: the record comes whole, payload and 16-byte tag"},
    {R_DIGEST_NOT_SET, "digest not set"},
    {R_UNKNOWN_DIGEST, "unknown digest: no provider in this library context offers it"},
    {R_DIGEST_NOT_USABLE, "digest cannot key an HMAC (an XOF, or no fixed output size)"},
    {R_INVALID_MODE, "invalid mode: EXTRACT_AND_EXPAND, EXTRACT_ONLY or EXPAND_ONLY (TLS13-KDF: not EXTRACT_AND_EXPAND)"},
    {R_EMPTY_OUTPUT, "zero-length output"},
    {R_OUTPUT_TOO_LONG, "output longer than 255 digest blocks"},
    {R_EXTRACT_OUTPUT_SIZE, "extract output must be exactly the digest size"},
    {R_INFO_TOO_LONG, "info longer than 32768 bytes in all"},
    {R_LABEL_TOO_LONG, "TLS 1.3 prefix and label longer than 255 bytes"},
    {R_CONTEXT_TOO_LONG, "TLS 1.3 context (data) longer than 255 bytes"},
    {R_HMAC_FAILED, "HMAC over the fetched digest failed"},
    {R_SALT_REFUSED, "no salt: the last salt param was refused (no data); set a salt again to extract"},
    {R_OUT_OF_MEMORY, "out of memory: an input too long to keep inline could not be stored; it is unset"},
    {R_UNKNOWN_KERNEL, "unknown kernel set in the configuration: use auto, avx512-ifma, avx512, avx2 or portable"},
    {R_KERNEL_NOT_RUNNABLE, "this CPU cannot run the kernel set the configuration names: stitch not started"},
};

}  // namespace stitch::prov
