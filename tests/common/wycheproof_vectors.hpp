// Reader for Wycheproof's chacha20_poly1305_test.json (AeadTest schema),
// read in place from tests/vectors/wycheproof.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/test_util.hpp"

namespace stitch::test {

struct WycheproofAead {
    int tc_id = 0;
    std::string comment;
    std::vector<std::string> flags;
    Bytes key, iv, aad, msg, ct, tag;
    bool valid = false;  // "valid"; everything else in this file is "invalid" (no "acceptable" cases)

    bool has_flag(const std::string& f) const {
        for (const auto& x : flags)
            if (x == f) return true;
        return false;
    }
    // For SCOPED_TRACE: which vector failed.
    std::string label() const {
        std::string s = "wycheproof tcId " + std::to_string(tc_id) + " (" + comment;
        for (const auto& f : flags) s += ", " + f;
        return s + ")";
    }
};

struct WycheproofFile {
    std::vector<WycheproofAead> tests;
    size_t declared = 0;  // numberOfTests from the file header
};

inline std::string wycheproof_chacha20_poly1305_path() {
    return std::string(STITCH_VECTORS_DIR) + "/wycheproof/chacha20_poly1305_test.json";
}

// Throws when the file is missing or not the AeadTest shape: a failure, never a skip.
inline WycheproofFile load_wycheproof_chacha20_poly1305(const std::string& path = wycheproof_chacha20_poly1305_path()) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open Wycheproof vectors: " + path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    if (doc.at("algorithm").get<std::string>() != "CHACHA20-POLY1305")
        throw std::runtime_error(path + ": not CHACHA20-POLY1305 vectors");

    WycheproofFile file;
    file.declared = doc.at("numberOfTests").get<size_t>();
    for (const auto& group : doc.at("testGroups")) {
        if (group.at("type").get<std::string>() != "AeadTest") throw std::runtime_error(path + ": unexpected group type");
        for (const auto& t : group.at("tests")) {
            WycheproofAead v;
            v.tc_id = t.at("tcId").get<int>();
            v.comment = t.at("comment").get<std::string>();
            v.flags = t.at("flags").get<std::vector<std::string>>();
            v.key = from_hex(t.at("key").get<std::string>());
            v.iv = from_hex(t.at("iv").get<std::string>());
            v.aad = from_hex(t.at("aad").get<std::string>());
            v.msg = from_hex(t.at("msg").get<std::string>());
            v.ct = from_hex(t.at("ct").get<std::string>());
            v.tag = from_hex(t.at("tag").get<std::string>());
            const std::string result = t.at("result").get<std::string>();
            if (result != "valid" && result != "invalid")
                throw std::runtime_error(v.label() + ": result '" + result + "' has no rule here");
            v.valid = result == "valid";
            // The group's sizes are in bits; each vector must agree with its group.
            if (v.iv.size() * 8 != group.at("ivSize").get<size_t>() ||
                v.key.size() * 8 != group.at("keySize").get<size_t>())
                throw std::runtime_error(v.label() + ": sizes disagree with its group");
            file.tests.push_back(std::move(v));
        }
    }
    return file;
}

}  // namespace stitch::test
