// libssh as an SSH client whose chacha20-poly1305@openssh.com runs on
// stitch, against a stock OpenSSH sshd (run_libssh_interop.sh starts it).
// libssh 0.10 composes the construction itself from libcrypto: EVP_chacha20()
// (an implicit fetch) and EVP_MAC_fetch(NULL, "poly1305", NULL). This process
// runs under OPENSSL_CONF=conf/stitch.cnf, so both resolve to stitch; it
// asserts that, and also counts, through the two EVP functions libssh's
// cipher calls (interposed below), which provider each of libssh's own
// contexts used.
//
//   libssh_interop_client HOST PORT USER PRIVATE_KEY HOST_PUBLIC_KEY WORK_DIR MIB
//
// Moves MIB MiB each way: up into `sha256sum` on the server, down from `cat`
// of a file this program wrote; both checked by SHA-256. Exit 0 on success.
#include <dlfcn.h>
#include <libssh/libssh.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

int g_failures = 0;

void check(bool ok, const std::string& what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    if (!ok) ++g_failures;
}

std::string provider_name(const OSSL_PROVIDER* p) { return p ? OSSL_PROVIDER_get0_name(p) : "(none)"; }

// Calls made by libssh's chacha20-poly1305 on ChaCha20 contexts and POLY1305
// MAC contexts, by provider.
struct Counts {
    long chacha_stitch = 0, chacha_other = 0, poly_stitch = 0, poly_other = 0;
} g_counts;

template <class Fn>
Fn real(const char* name) {
    void* f = dlsym(RTLD_NEXT, name);
    if (!f) {
        std::fprintf(stderr, "dlsym %s failed\n", name);
        std::abort();
    }
    return reinterpret_cast<Fn>(f);
}

std::string sha256_hex(const std::vector<unsigned char>& data) {
    unsigned char md[32];
    unsigned int n = 0;
    EVP_Digest(data.data(), data.size(), md, &n, EVP_sha256(), nullptr);
    std::string hex;
    char b[3];
    for (unsigned i = 0; i < n; ++i) {
        std::snprintf(b, sizeof b, "%02x", md[i]);
        hex += b;
    }
    return hex;
}

// The process's own fetches, with no provider named, as libssh makes them.
void check_fetches() {
    EVP_MAC* mac = EVP_MAC_fetch(nullptr, "poly1305", nullptr);
    const OSSL_PROVIDER* prov = mac ? EVP_MAC_get0_provider(mac) : nullptr;
    check(provider_name(prov) == "stitch", "EVP_MAC_fetch(NULL, \"poly1305\", NULL) resolves to provider " +
                                               provider_name(prov));
    // The kernel set stitch chose (STITCH_CLEAR_CPUID=all forces "portable").
    const char* kernel = nullptr;
    OSSL_PARAM params[2] = {OSSL_PARAM_construct_utf8_ptr("kernel", const_cast<char**>(&kernel), 0),
                            OSSL_PARAM_construct_end()};
    if (prov && OSSL_PROVIDER_get_params(prov, params) == 1 && kernel) {
        const char* mask = std::getenv("STITCH_CLEAR_CPUID");
        const bool portable_forced = mask && std::string(mask) == "all";
        check(!portable_forced || std::string(kernel) == "portable", std::string("stitch kernel set: ") + kernel);
    } else {
        check(false, "stitch's kernel param");
    }
    EVP_MAC_free(mac);

    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    const unsigned char key[32] = {0}, iv[16] = {0};
    const bool init = EVP_EncryptInit_ex(ctx, EVP_chacha20(), nullptr, key, iv) == 1;
    const EVP_CIPHER* c = EVP_CIPHER_CTX_get0_cipher(ctx);
    const std::string p = init && c ? provider_name(EVP_CIPHER_get0_provider(c)) : "(init failed)";
    check(p == "stitch", "EVP_chacha20() implicit fetch resolves to provider " + p);
    EVP_CIPHER_CTX_free(ctx);
}

bool read_all(ssh_channel ch, std::vector<unsigned char>& out) {
    unsigned char buf[65536];
    for (;;) {
        const int n = ssh_channel_read_timeout(ch, buf, sizeof buf, 0, 20000);
        if (n == SSH_ERROR) return false;
        if (n == 0) {
            if (ssh_channel_is_eof(ch)) return true;
            continue;  // timeout slice without data; the overall test timeout bounds this
        }
        out.insert(out.end(), buf, buf + n);
    }
}

// Runs `cmd`, sends `input` (then EOF), returns stdout and the exit status.
bool run_command(ssh_session s, const std::string& cmd, const std::vector<unsigned char>& input,
                 std::vector<unsigned char>& output, int& status) {
    ssh_channel ch = ssh_channel_new(s);
    if (!ch || ssh_channel_open_session(ch) != SSH_OK || ssh_channel_request_exec(ch, cmd.c_str()) != SSH_OK) {
        std::fprintf(stderr, "exec '%s': %s\n", cmd.c_str(), ssh_get_error(s));
        if (ch) ssh_channel_free(ch);
        return false;
    }
    bool ok = true;
    for (size_t off = 0; ok && off < input.size();) {
        const uint32_t n = uint32_t(std::min<size_t>(input.size() - off, 32768));
        const int w = ssh_channel_write(ch, input.data() + off, n);
        ok = w > 0;
        off += ok ? size_t(w) : 0;
    }
    ok = ok && ssh_channel_send_eof(ch) == SSH_OK && read_all(ch, output);
    status = ssh_channel_get_exit_status(ch);
    ssh_channel_close(ch);
    ssh_channel_free(ch);
    if (!ok) std::fprintf(stderr, "channel '%s': %s\n", cmd.c_str(), ssh_get_error(s));
    return ok;
}

std::vector<unsigned char> random_bytes(size_t n) {
    std::vector<unsigned char> v(n);
    RAND_bytes(v.data(), int(n));
    return v;
}

}  // namespace

// --- interposed: libssh's calls land here first (the executable exports
// these names), are counted by the provider of the context, and go on to
// libcrypto.
extern "C" int EVP_CipherUpdate(EVP_CIPHER_CTX* ctx, unsigned char* out, int* outl, const unsigned char* in, int inl) {
    using Fn = int (*)(EVP_CIPHER_CTX*, unsigned char*, int*, const unsigned char*, int);
    static const Fn next = real<Fn>("EVP_CipherUpdate");
    const EVP_CIPHER* c = EVP_CIPHER_CTX_get0_cipher(ctx);
    if (c && EVP_CIPHER_is_a(c, "ChaCha20"))
        ++(provider_name(EVP_CIPHER_get0_provider(c)) == "stitch" ? g_counts.chacha_stitch : g_counts.chacha_other);
    return next(ctx, out, outl, in, inl);
}

extern "C" int EVP_MAC_init(EVP_MAC_CTX* ctx, const unsigned char* key, size_t keylen, const OSSL_PARAM params[]) {
    using Fn = int (*)(EVP_MAC_CTX*, const unsigned char*, size_t, const OSSL_PARAM[]);
    static const Fn next = real<Fn>("EVP_MAC_init");
    const EVP_MAC* m = EVP_MAC_CTX_get0_mac(ctx);
    if (m && EVP_MAC_is_a(m, "POLY1305"))
        ++(provider_name(EVP_MAC_get0_provider(m)) == "stitch" ? g_counts.poly_stitch : g_counts.poly_other);
    return next(ctx, key, keylen, params);
}

int main(int argc, char** argv) {
    if (argc != 8) {
        std::fprintf(stderr, "usage: %s HOST PORT USER PRIVATE_KEY HOST_PUBLIC_KEY WORK_DIR MIB\n", argv[0]);
        return 2;
    }
    const char *host = argv[1], *user = argv[3], *key_path = argv[4], *host_pub_path = argv[5];
    const unsigned port = unsigned(std::atoi(argv[2]));
    const std::string work = argv[6];
    const size_t bytes = size_t(std::atoi(argv[7])) * 1024 * 1024 + 7;  // + 7: not a whole packet
    const char* cipher = "chacha20-poly1305@openssh.com";

    check_fetches();

    ssh_session s = ssh_new();
    const int no = 0;
    ssh_options_set(s, SSH_OPTIONS_HOST, host);
    ssh_options_set(s, SSH_OPTIONS_PORT, &port);
    ssh_options_set(s, SSH_OPTIONS_USER, user);
    ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);  // no ~/.ssh/config or /etc/ssh/ssh_config
    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, "/dev/null");
    ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");
    ssh_options_set(s, SSH_OPTIONS_CIPHERS_C_S, cipher);
    ssh_options_set(s, SSH_OPTIONS_CIPHERS_S_C, cipher);
    if (ssh_connect(s) != SSH_OK) {
        std::fprintf(stderr, "connect: %s\n", ssh_get_error(s));
        return 1;
    }

    // The server is the one the script started: its host key, not any other.
    ssh_key server_key = nullptr, expected_key = nullptr;
    const bool host_ok = ssh_get_server_publickey(s, &server_key) == SSH_OK &&
                         ssh_pki_import_pubkey_file(host_pub_path, &expected_key) == SSH_OK &&
                         ssh_key_cmp(server_key, expected_key, SSH_KEY_CMP_PUBLIC) == 0;
    check(host_ok, "server host key is the test's own");
    ssh_key_free(server_key);
    ssh_key_free(expected_key);

    const std::string in = ssh_get_cipher_in(s) ? ssh_get_cipher_in(s) : "(none)";
    const std::string out = ssh_get_cipher_out(s) ? ssh_get_cipher_out(s) : "(none)";
    check(in == cipher, "negotiated cipher server->client: " + in);
    check(out == cipher, "negotiated cipher client->server: " + out);

    ssh_key user_key = nullptr;
    const bool auth = ssh_pki_import_privkey_file(key_path, nullptr, nullptr, nullptr, &user_key) == SSH_OK &&
                      ssh_userauth_publickey(s, nullptr, user_key) == SSH_AUTH_SUCCESS;
    ssh_key_free(user_key);
    check(auth, std::string("public key authentication as ") + user);
    if (!auth) {
        std::fprintf(stderr, "auth: %s\n", ssh_get_error(s));
        return 1;
    }

    // Up: the server hashes what it received.
    const std::vector<unsigned char> up = random_bytes(bytes);
    std::vector<unsigned char> reply;
    int status = -1;
    const bool up_ran = run_command(s, "sha256sum", up, reply, status);
    const std::string server_hash(reply.begin(), reply.begin() + std::min<size_t>(reply.size(), 64));
    check(up_ran && status == 0 && server_hash == sha256_hex(up),
          "upload of " + std::to_string(bytes) + " bytes: server's sha256 " + server_hash);

    // Down: the server sends a file this process wrote.
    const std::vector<unsigned char> down = random_bytes(bytes);
    const std::string down_path = work + "/download.bin";
    std::ofstream(down_path, std::ios::binary).write(reinterpret_cast<const char*>(down.data()), std::streamsize(bytes));
    std::vector<unsigned char> got;
    const bool down_ran = run_command(s, "cat " + down_path, {}, got, status);
    check(down_ran && status == 0 && got.size() == bytes && sha256_hex(got) == sha256_hex(down),
          "download of " + std::to_string(got.size()) + " bytes matches by sha256");

    ssh_disconnect(s);
    ssh_free(s);

    std::printf("libssh's ChaCha20 updates: %ld on stitch, %ld elsewhere; POLY1305 inits: %ld on stitch, %ld elsewhere\n",
                g_counts.chacha_stitch, g_counts.chacha_other, g_counts.poly_stitch, g_counts.poly_other);
    check(g_counts.chacha_stitch > 0 && g_counts.chacha_other == 0, "every ChaCha20 call libssh made ran on stitch");
    check(g_counts.poly_stitch > 0 && g_counts.poly_other == 0, "every POLY1305 key libssh set ran on stitch");
    std::printf("%s\n", g_failures ? "FAILED" : "PASSED");
    return g_failures ? 1 : 0;
}
