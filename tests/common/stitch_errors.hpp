// The check that a refusal raised stitch's own reason: the last error on the
// queue is stitch's, with the wanted reason code, that reason's text from
// provider/reasons.hpp, and ERR_print_errors prints the text.
#pragma once

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/err.h>

#include <string>

#include "common/evp_handles.hpp"
#include "provider/reasons.hpp"

namespace stitch::test {

inline const char* reason_text(prov::Reason r) {
    for (const auto& t : prov::kReasonTexts)
        if (t.reason == r) return t.text;
    return "(not in provider/reasons.hpp)";
}

// Empties the queue.
inline void expect_stitch_error(prov::Reason want) {
    const unsigned long e = ERR_peek_last_error();
    ASSERT_NE(e, 0u) << "refused without an error on the queue; want \"" << reason_text(want) << "\"";
    char described[256];
    ERR_error_string_n(e, described, sizeof described);
    const char* lib = ERR_lib_error_string(e);
    const char* text = ERR_reason_error_string(e);
    EXPECT_STREQ(lib ? lib : "(none)", "stitch") << "the last error is not stitch's: " << described;
    EXPECT_EQ(ERR_GET_REASON(e), int(want)) << "last error: " << described << "; want \"" << reason_text(want) << "\"";
    EXPECT_STREQ(text ? text : "(none)", reason_text(want)) << described;
    BioPtr bio(BIO_new(BIO_s_mem()));
    ERR_print_errors(bio.get());
    char* p = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &p);
    const std::string printed(p, size_t(n > 0 ? n : 0));
    EXPECT_NE(printed.find(reason_text(want)), std::string::npos) << "ERR_print_errors printed:\n" << printed;
    ERR_clear_error();
}

}  // namespace stitch::test
