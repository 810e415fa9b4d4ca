// What a refusal must leave behind: the last error on the queue is stitch's,
// from its own error library, with the expected reason and that reason's text
// from provider/reasons.hpp, and ERR_print_errors shows the text.
#pragma once

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/err.h>

#include <string>

#include "provider/reasons.hpp"

namespace stitch::test {

inline const char* reason_text(prov::Reason r) {
    for (const auto& t : prov::kReasonTexts)
        if (t.reason == r) return t.text;
    return "(no such reason in reasons.hpp)";
}

// Checks and then empties the error queue.
inline void expect_stitch_error(prov::Reason want) {
    const unsigned long e = ERR_peek_last_error();
    if (e == 0) {
        ADD_FAILURE() << "refused without an error on the queue; want \"" << reason_text(want) << "\"";
        return;
    }
    char described[256];
    ERR_error_string_n(e, described, sizeof described);
    const char* lib = ERR_lib_error_string(e);
    const char* text = ERR_reason_error_string(e);
    EXPECT_STREQ(lib ? lib : "(none)", "stitch") << "last error is not stitch's: " << described;
    EXPECT_EQ(ERR_GET_REASON(e), int(want)) << "last error: " << described << "; want \"" << reason_text(want) << "\"";
    EXPECT_STREQ(text ? text : "(none)", reason_text(want)) << described;

    BIO* bio = BIO_new(BIO_s_mem());
    ERR_print_errors(bio);
    char* p = nullptr;
    const long n = BIO_get_mem_data(bio, &p);
    const std::string printed(p, size_t(n > 0 ? n : 0));
    BIO_free(bio);
    EXPECT_NE(printed.find(reason_text(want)), std::string::npos) << "ERR_print_errors said:\n" << printed;
}

}  // namespace stitch::test
