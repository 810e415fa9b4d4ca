// Published vectors through EVP: RFC 5869's test cases (every mode) and
// every Wycheproof HKDF vector for SHA-1/256/384/512, on stitch and on the
// default provider (which shows the harness is right). SHA-1 runs through
// stitch's fetched-digest path, the others on its SHA-2 kernels. Read in
// place from tests/vectors; a missing file fails.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/stitch_errors.hpp"
#include "kdf/kdf_support.hpp"
#include "kdf/wycheproof_hkdf.hpp"

namespace stitch::test {
namespace {

struct Rfc5869Case {
    int number = 0;
    std::string hash;
    Bytes ikm, info, prk, okm;
    std::optional<Bytes> salt;  // case 7: none at all
    size_t length = 0;
};

std::vector<Rfc5869Case> load_rfc5869() {
    const std::string path = std::string(STITCH_VECTORS_DIR) + "/rfc5869/vectors.txt";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::vector<Rfc5869Case> cases;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const size_t eq = line.find(" = ");
        if (eq == std::string::npos) {
            // "SALT = " and "INFO = " with nothing after them lose their trailing space to some editors
            if (line.back() == '=')
                line += ' ';
            else
                continue;
        }
        const std::string k = line.substr(0, line.find(' '));
        std::string v = line.find(" = ") == std::string::npos ? "" : line.substr(line.find(" = ") + 3);
        while (!v.empty() && v.back() == ' ') v.pop_back();
        if (k == "CASE") {
            cases.emplace_back();
            cases.back().number = std::stoi(v);
        } else if (cases.empty())
            continue;
        else if (k == "HASH")
            cases.back().hash = v;
        else if (k == "IKM")
            cases.back().ikm = from_hex(v);
        else if (k == "SALT")
            cases.back().salt = v == "(none)" ? std::nullopt : std::optional<Bytes>(from_hex(v));
        else if (k == "INFO")
            cases.back().info = from_hex(v);
        else if (k == "L")
            cases.back().length = std::stoul(v);
        else if (k == "PRK")
            cases.back().prk = from_hex(v);
        else if (k == "OKM")
            cases.back().okm = from_hex(v);
    }
    return cases;
}

const char* const kProviders[] = {"stitch", "default"};

TEST(Rfc5869, EveryCaseInEveryModeOnBothProviders) {
    const auto cases = load_rfc5869();
    ASSERT_EQ(cases.size(), 7u) << "RFC 5869 Appendix A has seven cases";
    for (const char* prov : kProviders) {
        const KdfPtr hkdf = fetch_kdf("HKDF", prov);
        for (const auto& c : cases) {
            SCOPED_TRACE(std::string(prov) + ", case " + std::to_string(c.number) + " " + c.hash);
            KdfParamSet p;
            p.digest = c.hash;
            p.key = c.ikm;
            p.salt = c.salt;
            p.infos = {c.info};
            p.mode = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;
            EXPECT_EQ(to_hex(run_kdf(hkdf, {p}, c.length).out), to_hex(c.okm)) << "extract and expand";

            p.mode = EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
            EXPECT_EQ(to_hex(run_kdf(hkdf, {p}, c.prk.size()).out), to_hex(c.prk)) << "extract only";

            KdfParamSet e;
            e.digest = c.hash;
            e.mode_str = "EXPAND_ONLY";
            e.key = c.prk;
            e.infos = {c.info};
            EXPECT_EQ(to_hex(run_kdf(hkdf, {e}, c.length).out), to_hex(c.okm)) << "expand only";
        }
    }
}

class WycheproofHkdfTest : public ::testing::TestWithParam<const char*> {};

// Valid vectors derive their exact OKM; the invalid ones (an output longer
// than 255 blocks) are refused, by stitch with its own error.
TEST_P(WycheproofHkdfTest, EveryVectorOnBothProviders) {
    const std::string hash = GetParam();
    size_t declared = 0;
    const auto tests = load_wycheproof_hkdf(hash, declared);
    ASSERT_EQ(tests.size(), declared);
    const std::string digest = hash == "sha1" ? "SHA1" : "SHA2-" + hash.substr(3);
    for (const char* prov : kProviders) {
        const KdfPtr hkdf = fetch_kdf("HKDF", prov);
        int valid = 0, refused = 0;
        for (const auto& t : tests) {
            SCOPED_TRACE(std::string(prov) + " " + digest + " tcId " + std::to_string(t.tc_id) + " " + t.comment);
            KdfParamSet p;
            p.digest = digest;
            p.key = t.ikm;
            p.salt = t.salt;
            p.infos = {t.info};
            if (t.valid) {
                const DeriveResult r = run_kdf(hkdf, {p}, t.size);
                ASSERT_EQ(r.rc, 1);
                EXPECT_EQ(to_hex(r.out), to_hex(t.okm));
                ++valid;
            } else {
                KdfCtxPtr ctx = new_kdf_ctx(hkdf);
                ParamArray a(p);
                Bytes out(t.size, 0xa5);
                EXPECT_EQ(EVP_KDF_derive(ctx.get(), out.data(), out.size(), a.get()), 0);
                EXPECT_EQ(out, Bytes(t.size, 0xa5)) << "a refused derive wrote";
                if (std::string(prov) == "stitch") expect_stitch_error(prov::R_OUTPUT_TOO_LONG);
                ERR_clear_error();
                ++refused;
            }
        }
        EXPECT_GT(valid, 0);
        EXPECT_EQ(refused, 3);
    }
}

INSTANTIATE_TEST_SUITE_P(Hashes, WycheproofHkdfTest, ::testing::Values("sha1", "sha256", "sha384", "sha512"),
                         [](const auto& info) { return std::string(info.param); });

// RFC 8448's simple 1-RTT handshake: the early secret (no PSK: IKM of zeros,
// no salt), then Derive-Secret(., "derived", "") as the handshake secret's
// salt, through TLS13-KDF exactly as libssl passes it.
TEST(Rfc8448, KeyScheduleStepsOnBothProviders) {
    const Bytes early = from_hex("33ad0a1c607ec03b09e6cd9893680ce210adf300aa1f2660e1b22e10f170f92a");
    const Bytes ecdhe = from_hex("8bd4054fb55b9d63fdfbacf9f04b9f0d35e6d63f537563efd46272900f89492d");
    const Bytes handshake = from_hex("1dc826e93606aa6fdc0aadc12f741b01046aa6b99f691ed221a9f0ca043fbeac");
    // client_handshake_traffic_secret from the handshake secret and the
    // transcript hash of ClientHello..ServerHello.
    const Bytes transcript = from_hex("860c06edc07858ee8e78f0e7428c58edd6b43f2ca3e6e95f02ed063cf0e1cad8");
    const Bytes c_hs_traffic = from_hex("b3eddb126e067f35a780b3abf45e2d8f3b1a950738f52e9600746a0e27a55a21");
    for (const char* prov : kProviders) {
        SCOPED_TRACE(prov);
        const KdfPtr kdf = fetch_kdf("TLS13-KDF", prov);
        KdfParamSet e;
        e.mode = EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
        e.digest = "SHA2-256";
        e.prefix = Bytes{'t', 'l', 's', '1', '3', ' '};
        e.label = Bytes{'d', 'e', 'r', 'i', 'v', 'e', 'd'};
        EXPECT_EQ(to_hex(run_kdf(kdf, {e}, 32).out), to_hex(early)) << "early secret: no key, no salt";

        KdfParamSet h = e;
        h.key = ecdhe;
        h.salt = early;
        EXPECT_EQ(to_hex(run_kdf(kdf, {h}, 32).out), to_hex(handshake)) << "handshake secret";

        KdfParamSet x;
        x.mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
        x.digest = "SHA2-256";
        x.key = handshake;
        x.prefix = e.prefix;
        x.label = Bytes{'c', ' ', 'h', 's', ' ', 't', 'r', 'a', 'f', 'f', 'i', 'c'};
        x.data = transcript;
        EXPECT_EQ(to_hex(run_kdf(kdf, {x}, 32).out), to_hex(c_hs_traffic)) << "client handshake traffic secret";
    }
}

}  // namespace
}  // namespace stitch::test
