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
};

}  // namespace stitch::prov
