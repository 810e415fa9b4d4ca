// stitch_bench: stitch against OpenSSL's default provider, in one process,
// alternated, at the record sizes TLS and SSH use. By default it runs twice,
// each time in a fresh process of its own: once with libcrypto as it comes
// (its AVX-512 code on where the CPU has it) and once with OPENSSL_ia32cap
// hiding AVX-512 from libcrypto, as on the AVX2-only CPUs stitch is for.
// libcrypto reads OPENSSL_ia32cap once, when it loads, hence two processes.
#include <alloca.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/clock.hpp"
#include "bench/corunner.hpp"
#include "bench/ossl.hpp"
#include "bench/placement.hpp"
#include "bench/report.hpp"
#include "bench/sections.hpp"
#include "bench/summary.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/avx2/set.hpp"

#include <openssl/opensslv.h>

namespace sb = stitch::bench;

namespace {

// Clears, in the CPUID.7 EBX word (low half): AVX512F 16, DQ 17, IFMA 21,
// PF 26, ER 27, CD 28, BW 30, VL 31; in the ECX word (high half): VBMI 1,
// VBMI2 6, VNNI 11, BITALG 12, VPOPCNTDQ 14. libcrypto 3.0 picks its
// ChaCha20 and Poly1305 AVX-512 code on F and VL (and IFMA for Poly1305).
constexpr const char* kNoAvx512Mask = ":~0x5842DC230000";

const char* const kSections[] = {"tls13", "floor", "tls12", "ssh", "poly1305", "kdf", "kernel"};

struct Options {
    bool quick = false;
    std::string openssl_cpu = "both";  // both | as-is | no-avx512
    std::set<std::string> only;        // empty: every section
    int reps = 0;                      // 0: the mode's default
    double sample_ms = 0;
    int cpu = -1;
    std::string mask = kNoAvx512Mask;
    std::string results;  // internal: where a child run writes its medians
    bool child = false;   // internal: run by the `both` parent
    std::string sizes;    // --sizes: TLS/kernel row sizes instead of the defaults
    std::string impls;    // --impls: kernel table columns (Impl labels)
    std::string place;    // --place: buffer offsets mod 4096 (bench/placement.hpp)
    int stack = 0;        // --stack: bytes the stack is moved down before any section
    std::string contended = "off";  // --contended: off | on | both (quiet, then with a co-runner)
};

[[noreturn]] void usage(int code) {
    std::printf(
        "usage: stitch_bench [--quick] [--openssl-cpu=both|as-is|no-avx512] [--only=SECTIONS]\n"
        "                    [--reps=N] [--sample-ms=MS] [--cpu=N] [--mask=OPENSSL_ia32cap]\n"
        "  --quick        TLS 1.3 seal/open at 64 B, 1 KiB, 16 KiB only (a few seconds)\n"
        "  --openssl-cpu  both (default): run as-is, then with AVX-512 hidden from libcrypto\n"
        "                 (OPENSSL_ia32cap=%s) and from stitch (STITCH_CLEAR_CPUID=avx512),\n"
        "                 as on a CPU with AVX2 only, and summarise both\n"
        "  --only         comma list of tls13,floor,tls12,ssh,poly1305,kdf,kernel\n"
        "  --reps         alternated repetitions per row (default 21, quick 15); medians are reported\n"
        "  --sample-ms    time one repetition of one implementation aims for (default 3, quick 2)\n"
        "  --cpu          pin to this CPU\n"
        "  --sizes        comma list of message sizes for every row\n"
        "  --impls        comma list of kernel sets for the kernel table (e.g. avx2,portable)\n"
        "  --place=IN[,OUT]  TLS 1.3 rows: every op in place at IN mod 4096, or out of place,\n"
        "                 input at IN and output at OUT mod 4096\n"
        "  --stack=N      move the stack down N bytes (0..4095) before measuring\n"
        "  --contended=on|both  measure with a co-runner keeping another CPU busy (both: quiet\n"
        "                 first, then contended, and the ratios side by side)\n"
        "  STITCH_MODULE_DIR overrides where stitch.so is loaded from (default: the build tree)\n",
        kNoAvx512Mask);
    std::exit(code);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char* key) -> const char* {
            const size_t n = std::strlen(key);
            return a.compare(0, n, key) == 0 ? argv[i] + n : nullptr;
        };
        if (a == "--quick") {
            o.quick = true;
        } else if (a == "--child") {
            o.child = true;
        } else if (a == "-h" || a == "--help") {
            usage(0);
        } else if (const char* v = value("--openssl-cpu=")) {
            o.openssl_cpu = v;
            if (o.openssl_cpu != "both" && o.openssl_cpu != "as-is" && o.openssl_cpu != "no-avx512") usage(2);
        } else if (const char* v = value("--only=")) {
            std::stringstream ss(v);
            for (std::string s; std::getline(ss, s, ',');) {
                bool known = false;
                for (const char* k : kSections) known |= s == k;
                if (!known) usage(2);
                o.only.insert(s);
            }
        } else if (const char* v = value("--reps=")) {
            o.reps = std::atoi(v);
            if (o.reps < 1) usage(2);
        } else if (const char* v = value("--sample-ms=")) {
            o.sample_ms = std::atof(v);
            if (o.sample_ms <= 0) usage(2);
        } else if (const char* v = value("--cpu=")) {
            o.cpu = std::atoi(v);
        } else if (const char* v = value("--mask=")) {
            o.mask = v;
        } else if (const char* v = value("--results=")) {
            o.results = v;
        } else if (const char* v = value("--sizes=")) {
            o.sizes = v;
        } else if (const char* v = value("--impls=")) {
            o.impls = v;
        } else if (const char* v = value("--place=")) {
            o.place = v;
            if (!sb::set_placement(o.place)) usage(2);
        } else if (const char* v = value("--contended=")) {
            o.contended = v;
            if (o.contended != "off" && o.contended != "on" && o.contended != "both") usage(2);
        } else if (const char* v = value("--stack=")) {
            o.stack = std::atoi(v);
            if (o.stack < 0 || o.stack >= 4096) usage(2);
        } else {
            usage(2);
        }
    }
    return o;
}

bool wants(const Options& o, const char* section) {
    if (o.quick) return std::string(section) == "tls13";
    return o.only.empty() || o.only.count(section);
}

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line, model, family;
    while (std::getline(f, line)) {
        auto val = [&] { return line.substr(line.find(':') + 2); };
        if (model.empty() && line.rfind("model name", 0) == 0) model = val();
        if (family.empty() && line.rfind("cpu family", 0) == 0) family = val();
    }
    return model + " (family " + family + ")";
}

// Whether libcrypto will take its AVX-512 ChaCha20/Poly1305 code: AVX512F
// (bit 16) and AVX512VL (bit 31) of the CPUID.7 EBX word in the vector.
std::string avx512_state(const std::string& cpuinfo) {
    const size_t colon = cpuinfo.find(':');
    if (colon == std::string::npos) return "unknown";
    const unsigned long long v = std::strtoull(cpuinfo.c_str() + colon + 1, nullptr, 16);
    const bool f = (v >> 16) & 1, vl = (v >> 31) & 1;
    if (f && vl) return "AVX-512 code on";
    if (!f && !vl) return "AVX-512 code off";
    return std::string("AVX512F ") + (f ? "on" : "off") + ", AVX512VL " + (vl ? "on" : "off");
}

void print_clock(const char* when, const sb::ClockReading& c) {
    std::printf("%s core clock %.2f GHz (%s, trials %.2f..%.2f), TSC %.2f GHz = %.2f x core\n", when, c.core_ghz,
                sb::clock_source(), c.core_ghz_min, c.core_ghz_max, c.tsc_ghz, c.tsc_ghz / c.core_ghz);
}

std::vector<std::string> split(const std::string& list) {
    std::vector<std::string> v;
    std::stringstream ss(list);
    for (std::string s; std::getline(ss, s, ',');)
        if (!s.empty()) v.push_back(s);
    return v;
}

std::vector<size_t> split_sizes(const std::string& list) {
    std::vector<size_t> v;
    for (const std::string& s : split(list)) v.push_back(size_t(std::strtoull(s.c_str(), nullptr, 0)));
    return v;
}

// The CPU and the kernel set dispatch picks, as this process's copy of the
// kernels sees it: stitch.so runs the same rule on the same CPU and
// environment.
void print_kernel_set() {
    const stitch::kern::CpuFeatures f = stitch::kern::cpu_features_raw();
    const char* vendor = f.vendor == stitch::kern::CpuVendor::amd     ? "AMD"
                         : f.vendor == stitch::kern::CpuVendor::intel ? "Intel"
                                                                      : "other vendor";
    std::printf("CPU: %s family 0x%x model 0x%x; kernels dispatch chose: %s\n", vendor, f.family, f.model,
                stitch::kern::impl_label(stitch::kern::active_impl()));
}

// One run in this process, with libcrypto as this process's environment set it.
[[gnu::noinline]] int run_here(const Options& o) {
    if (o.cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o.cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set) != 0) std::perror("sched_setaffinity");
    }
    sb::SectionConfig cfg;
    cfg.settings.reps = o.reps ? o.reps : (o.quick ? 15 : 21);
    cfg.settings.sample_ms = o.sample_ms ? o.sample_ms : (o.quick ? 2.0 : 3.0);
    if (o.quick) {
        cfg.tls_sizes = {64, 1024, 16384};
        cfg.tls13_chacha20 = false;
    } else {
        cfg.tls_sizes = {0, 64, 192, 256, 1024, 1300, 16384, 65536};
        cfg.ssh_sizes = {64, 256, 1024, 16384, 32768};
    }
    if (!o.sizes.empty()) cfg.tls_sizes = cfg.ssh_sizes = split_sizes(o.sizes);
    if (!o.impls.empty()) cfg.impls = split(o.impls);

    const std::string cpuinfo = sb::openssl_cpu_info();
    const char* env = std::getenv("OPENSSL_ia32cap");
    std::printf("\n==== default provider: %s (OPENSSL_ia32cap %s%s) ====\n", avx512_state(cpuinfo).c_str(),
                env ? "= " : "unset", env ? env : "");
    std::printf("%s; %s; libcrypto %s\n", cpu_model().c_str(), OPENSSL_VERSION_TEXT, cpuinfo.c_str());

    sb::Providers p;
    if (p.has_stitch()) {
        std::printf("stitch %s from %s, kernel %s (stitch reads CPUID itself: OPENSSL_ia32cap does not reach it)\n",
                    p.stitch_version().c_str(), p.module_dir().c_str(), p.stitch_kernel().c_str());
    } else {
        std::printf("stitch NOT LOADED from %s: %s\n", p.module_dir().c_str(), p.stitch_error().c_str());
    }
    print_kernel_set();
    std::printf("%d alternated repetitions per row, ~%.1f ms each; medians; TLS 1.3 buffers: %s; stack moved %d B\n",
                cfg.settings.reps, cfg.settings.sample_ms, sb::placement_text().c_str(), o.stack);

    print_clock("start:", sb::measure_clock());

    std::FILE* results = o.results.empty() ? nullptr : std::fopen(o.results.c_str(), "w");
    bool all_ok = p.has_stitch();
    std::vector<sb::Table> tables;
    auto section = [&](const char* id, auto build, bool record) {
        if (!wants(o, id)) return;
        sb::Table t = build(p, cfg);
        if (!(o.quick && o.child) || t.failures) sb::print_table(t, stdout);  // quick: the summary says it all
        if (results && record) sb::write_results(t, results);
        all_ok &= t.failures == 0;
        tables.push_back(std::move(t));
    };
    auto sections = [&](bool record) {
        section("tls13", sb::tls13_table, record);
        section("floor", sb::floor_table, record);
        section("tls12", sb::tls12_table, record);
        section("ssh", sb::ssh_table, record);
        section("poly1305", sb::poly1305_table, record);
        section("kdf", sb::kdf_table, record);
        section("kernel", sb::kernel_table, record);
    };
    if (o.contended == "off") {
        sections(true);
    } else {
        std::vector<sb::Table> quiet;
        if (o.contended == "both") {
            std::printf("\n---- quiet: nothing else of ours runs ----\n");
            sections(false);
            quiet = std::move(tables);
            tables.clear();
        }
        sb::CoRunner co;
        if (co.start()) {
            std::printf("\n---- contended: a co-runner streams through 4 MiB on CPU %d ----\n", co.cpu());
        } else {
            std::printf("\n---- contended: NO co-runner (no other CPU to run it on) ----\n");
        }
        sections(true);
        co.stop();
        if (!quiet.empty()) sb::print_contention(quiet, tables, stdout);
    }
    print_clock("end:  ", sb::measure_clock());
    if (results) std::fclose(results);
    return all_ok ? 0 : 1;
}

// Moves the stack down o.stack bytes, then runs: whatever the sections put
// on the stack (the kernels' spills included) sits that much lower.
int run_moved(const Options& o) {
    if (o.stack == 0) return run_here(o);
    char* pad = static_cast<char*>(alloca(size_t(o.stack)));
    __asm__ volatile("" : : "r"(pad) : "memory");
    return run_here(o);
}

// The AVX2-CPU view: libcrypto without its AVX-512 code (OPENSSL_ia32cap)
// and stitch without its AVX-512 set (STITCH_CLEAR_CPUID=avx512), so both
// sides run what they run on a CPU that has AVX2 only.
void hide_avx512(const char* ia32cap) {
    setenv("OPENSSL_ia32cap", ia32cap, 1);
    const char* clear = std::getenv("STITCH_CLEAR_CPUID");
    const std::string mask = clear && *clear ? std::string(clear) + ",avx512" : "avx512";
    setenv("STITCH_CLEAR_CPUID", mask.c_str(), 1);
}

// Re-executes this binary with OPENSSL_ia32cap set (libcrypto has already
// read the environment by the time main runs).
int run_child(char** argv, const std::vector<std::string>& args, const char* ia32cap) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) {
        std::perror("fork");
        return 1;
    }
    if (pid == 0) {
        if (ia32cap) hide_avx512(ia32cap);
        std::vector<char*> av{argv[0]};
        for (const auto& a : args) av.push_back(const_cast<char*>(a.c_str()));
        av.push_back(nullptr);
        execv("/proc/self/exe", av.data());
        std::perror("execv");
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

std::vector<sb::ResultLine> load(const std::string& path) {
    std::vector<sb::ResultLine> lines;
    if (std::FILE* f = std::fopen(path.c_str(), "r")) {
        lines = sb::read_results(f);
        std::fclose(f);
    }
    std::remove(path.c_str());
    return lines;
}

int run_both(char** argv, const Options& o) {
    std::vector<std::string> common;
    if (o.quick) common.push_back("--quick");
    if (!o.sizes.empty()) common.push_back("--sizes=" + o.sizes);
    if (!o.impls.empty()) common.push_back("--impls=" + o.impls);
    if (!o.place.empty()) common.push_back("--place=" + o.place);
    if (o.stack) common.push_back("--stack=" + std::to_string(o.stack));
    if (o.contended != "off") common.push_back("--contended=" + o.contended);
    if (o.reps) common.push_back("--reps=" + std::to_string(o.reps));
    if (o.sample_ms) common.push_back("--sample-ms=" + std::to_string(o.sample_ms));
    if (o.cpu >= 0) common.push_back("--cpu=" + std::to_string(o.cpu));
    common.push_back("--mask=" + o.mask);
    common.push_back("--child");
    std::string only_as_is, only_masked;
    for (const char* s : kSections) {
        if (!o.only.empty() && !o.only.count(s)) continue;
        only_as_is += std::string(only_as_is.empty() ? "" : ",") + s;
        // The kernels never see OPENSSL_ia32cap, and the mask leaves libcrypto's
        // SHA code (the KDFs' default side) alone: both measured once, in the first run.
        if (std::string(s) != "kernel" && std::string(s) != "kdf") only_masked += std::string(only_masked.empty() ? "" : ",") + s;
    }

    char tmpl_a[] = "/tmp/stitch_bench.XXXXXX", tmpl_b[] = "/tmp/stitch_bench.XXXXXX";
    const int fa = mkstemp(tmpl_a), fb = mkstemp(tmpl_b);
    if (fa < 0 || fb < 0) {
        std::perror("mkstemp");
        return 1;
    }
    close(fa);
    close(fb);

    auto args = [&](const char* cpu, const std::string& only, const char* path) {
        std::vector<std::string> v = common;
        v.push_back(std::string("--openssl-cpu=") + cpu);
        if (!o.quick && !only.empty()) v.push_back("--only=" + only);
        v.push_back(std::string("--results=") + path);
        return v;
    };
    const int rc_a = run_child(argv, args("as-is", only_as_is, tmpl_a), nullptr);
    const int rc_b = run_child(argv, args("no-avx512", only_masked, tmpl_b), o.mask.c_str());
    const auto a = load(tmpl_a), b = load(tmpl_b);
    if (o.only.empty() || o.only.count("tls13") || o.quick) print_summary(a, b);
    if (rc_a || rc_b) std::printf("\nFAILED: a run reported a mismatch, a failure, or no stitch (exit %d, %d)\n", rc_a, rc_b);
    return rc_a || rc_b ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        if (o.openssl_cpu == "both") return run_both(argv, o);
        if (o.openssl_cpu == "no-avx512") {
            const char* env = std::getenv("OPENSSL_ia32cap");
            if (!env || o.mask != env) {
                // libcrypto read its environment before main: start again with the mask in place.
                std::fflush(stdout);
                hide_avx512(o.mask.c_str());
                execv("/proc/self/exe", argv);
                std::perror("execv");
                return 1;
            }
        }
        return run_moved(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stitch_bench: %s\n", e.what());
        return 1;
    }
}
