// Wycheproof's HKDF vectors (tests/vectors/wycheproof/hkdf_<hash>_test.json),
// read in place: the provider tests run them through EVP, the kernel tests
// through every SHA-2 set's HMAC directly.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/test_util.hpp"

namespace stitch::test {

struct WycheproofHkdf {
    int tc_id;
    std::string comment;
    Bytes ikm, salt, info, okm;
    size_t size;
    bool valid;
};

// hash: "sha1", "sha256", "sha384", "sha512". declared: the file's own count.
inline std::vector<WycheproofHkdf> load_wycheproof_hkdf(const std::string& hash, size_t& declared) {
    const std::string path = std::string(STITCH_VECTORS_DIR) + "/wycheproof/hkdf_" + hash + "_test.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open Wycheproof vectors: " + path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    declared = doc.at("numberOfTests").get<size_t>();
    std::vector<WycheproofHkdf> tests;
    for (const auto& group : doc.at("testGroups")) {
        if (group.at("type").get<std::string>() != "HkdfTest") throw std::runtime_error(path + ": unexpected group");
        for (const auto& t : group.at("tests"))
            tests.push_back({t.at("tcId").get<int>(), t.at("comment").get<std::string>(),
                             from_hex(t.at("ikm").get<std::string>()), from_hex(t.at("salt").get<std::string>()),
                             from_hex(t.at("info").get<std::string>()), from_hex(t.at("okm").get<std::string>()),
                             t.at("size").get<size_t>(), t.at("result").get<std::string>() == "valid"});
    }
    return tests;
}

}  // namespace stitch::test
