// Reader for the RFC 8439 vector file (vectors/rfc8439/vectors.txt; its
// header documents the format): blocks separated by one blank line, each a
// '# section …' line, 'kind = …' and 'name = value' fields.
//
// Every field a vector carries must be read by the test that checks it
// (unused() lists the ones that were not), so a field added to the file or a
// typo in a test cannot pass unnoticed.
#pragma once

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/test_util.hpp"

namespace stitch::test {

class Rfc8439Vector {
public:
    std::string section;  // e.g. "2.4.2" or "A.3", from the '# section' line
    std::string title;    // the whole comment line, for failure messages
    std::string kind;

    bool has(const std::string& name) const { return fields_.count(name) != 0; }

    const std::string& text(const std::string& name) const {
        auto it = fields_.find(name);
        if (it == fields_.end()) throw std::runtime_error(title + ": no field '" + name + "'");
        used_.insert(name);
        return it->second;
    }
    Bytes bytes(const std::string& name) const { return from_hex(text(name)); }
    uint32_t u32_decimal(const std::string& name) const { return uint32_t(std::stoul(text(name), nullptr, 10)); }
    uint32_t u32_hex(const std::string& name) const { return uint32_t(std::stoul(text(name), nullptr, 16)); }

    std::vector<std::string> unused() const {
        std::vector<std::string> out;
        for (const auto& [name, value] : fields_)
            if (!used_.count(name)) out.push_back(name);
        return out;
    }

    void set(const std::string& name, const std::string& value) {
        if (!fields_.emplace(name, value).second) throw std::runtime_error(title + ": field '" + name + "' twice");
    }

private:
    std::map<std::string, std::string> fields_;
    mutable std::set<std::string> used_;
};

struct Rfc8439File {
    std::vector<Rfc8439Vector> vectors;
    size_t kind_lines = 0;  // 'kind =' lines seen by a plain scan: every one must become a vector

    std::vector<const Rfc8439Vector*> of_kind(const std::string& kind) const {
        std::vector<const Rfc8439Vector*> out;
        for (const auto& v : vectors)
            if (v.kind == kind) out.push_back(&v);
        return out;
    }
};

inline std::string rfc8439_vectors_path() { return std::string(STITCH_VECTORS_DIR) + "/rfc8439/vectors.txt"; }

// Throws with the path when the file is missing or a block is malformed: the
// tests turn that into a failure, never a skip.
inline Rfc8439File load_rfc8439_vectors(const std::string& path = rfc8439_vectors_path()) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open RFC 8439 vectors: " + path);

    Rfc8439File file;
    Rfc8439Vector cur;
    bool in_vector = false;
    auto flush = [&] {
        if (in_vector) {
            if (cur.kind.empty()) throw std::runtime_error(cur.title + ": no kind");
            file.vectors.push_back(std::move(cur));
        }
        cur = Rfc8439Vector{};
        in_vector = false;
    };

    std::string line;
    size_t lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.empty()) {
            flush();
            continue;
        }
        if (line[0] == '#') {
            static const std::string tag = "# section ";
            if (line.rfind(tag, 0) == 0) {
                flush();
                cur.title = line.substr(2);
                cur.section = line.substr(tag.size(), line.find(':') - tag.size());
                in_vector = true;
            }
            continue;
        }
        const size_t eq = line.find(" = ");
        if (eq == std::string::npos || !in_vector)
            throw std::runtime_error(path + ":" + std::to_string(lineno) + ": not a field of a vector: " + line);
        const std::string name = line.substr(0, eq), value = line.substr(eq + 3);
        if (name == "kind") {
            cur.kind = value;
            ++file.kind_lines;
        } else {
            cur.set(name, value);
        }
    }
    flush();
    return file;
}

}  // namespace stitch::test
