// stitch-check: before switching stitch on for a whole machine, measure on
// this machine whether it is faster than OpenSSL's default provider, in one
// process, in about ten seconds, and say so in one line and in the exit code.
#include <openssl/crypto.h>

#include <cpuid.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu.hpp"
#include "tools/stitch-check/loader.hpp"
#include "tools/stitch-check/report.hpp"
#include "tools/stitch-check/rows.hpp"

namespace {

using namespace stitch::check;

constexpr const char kHelp[] = R"(NAME
    stitch-check - is stitch faster than OpenSSL's default provider on this machine?

SYNOPSIS
    stitch-check [--provider-path=DIR] [--kernel=SET | --all-sets] [--conf] [--time=SECONDS]
    stitch-check --status
    stitch-check --help

DESCRIPTION
    Loads the stitch provider the way the system would (stitch.so from OpenSSL's modules
    directory, `openssl version -m`, or $OPENSSL_MODULES, or --provider-path) beside OpenSSL's
    default provider as it comes, in one process, and times both on the record shapes of TLS
    and SSH traffic: TLS 1.3 seal and open at 64 B, 1 KiB, 16 KiB and 64 KiB, raw ChaCha20
    (what OpenSSH's own cipher uses) at 1 KiB and 64 KiB, and the OpenSSH packet at 1 KiB
    (against libssh's composition from the default provider). Outputs are compared byte for
    byte before anything is timed. Each row alternates the providers over repeated samples of
    thread CPU time and reports medians; the noise column is the spread between the quartiles.

    It prints the CPU, the kernel set stitch runs, a table of time ratios (default / stitch),
    and a verdict: "faster at every size measured", or "slower at ..." naming each row below
    1.00x. Run it on the machine itself, ideally when it is not busy; rerun if a row is close.

OPTIONS
    --provider-path=DIR   load stitch.so from DIR instead of OpenSSL's modules directory
    --kernel=SET          measure SET instead of stitch's own choice, loaded through the
                          provider's `kernel` setting as openssl.cnf would give it:
                          auto, avx512-ifma, avx512, avx2, portable
    --all-sets            measure every kernel set this CPU can run, side by side, and name
                          the best: the one not slower anywhere with the highest geometric
                          mean ratio
    --conf                with --all-sets (implied): print the openssl.cnf lines that pin
                          the best set
    --time=SECONDS        time budget for the measurements (default 10)
    --status              say whether this process's OpenSSL configuration (OPENSSL_CONF, else
                          the system openssl.cnf) has stitch active, and with which kernel
    --help                this text

EXIT STATUS
    0   stitch (with --all-sets: the best set) is not slower than the default provider in any
        row measured; provisioning scripts can gate on it
    1   slower somewhere, or a row could not be measured (the verdict line says which)
    2   stitch could not be loaded, or bad arguments; --status: stitch is not active

FILES
    stitch.so in `openssl version -m`; the section to add to /etc/ssl/openssl.cnf is in the
    README ("Enable it for the whole machine"); `kernel = ...` in stitch's section pins a set.
)";

struct Args {
    std::string provider_path;
    std::string kernel;
    bool all_sets = false, conf = false, status = false;
    double seconds = 10;
};

bool parse(int argc, char** argv, Args& a) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg(argv[i]);
        auto value = [&](std::string_view flag, std::string& out) {
            if (!arg.starts_with(flag)) return false;
            out = std::string(arg.substr(flag.size()));
            return true;
        };
        std::string t;
        if (arg == "--help" || arg == "-h") {
            std::fputs(kHelp, stdout);
            std::exit(0);
        } else if (value("--provider-path=", a.provider_path) || value("--kernel=", a.kernel)) {
        } else if (arg == "--all-sets") {
            a.all_sets = true;
        } else if (arg == "--conf") {
            a.conf = a.all_sets = true;
        } else if (arg == "--status") {
            a.status = true;
        } else if (value("--time=", t)) {
            a.seconds = std::atof(t.c_str());
            if (!(a.seconds > 0 && a.seconds <= 600)) return false;
        } else {
            return false;
        }
    }
    if (a.kernel == "auto") a.kernel.clear();
    return !(a.all_sets && !a.kernel.empty());
}

std::string cpu_line() {
    unsigned regs[12] = {};
    char brand[49] = {};
    if (unsigned(__get_cpuid_max(0x80000000, nullptr)) >= 0x80000004u) {
        for (unsigned i = 0; i < 3; ++i)
            __get_cpuid(0x80000002 + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
        std::memcpy(brand, regs, 48);
    }
    std::string name(brand);
    name.erase(0, name.find_first_not_of(' '));
    const auto f = stitch::kern::cpu_features_raw();
    char buf[160];
    std::snprintf(buf, sizeof(buf), "%s (%s family 0x%x model 0x%x):%s%s%s%s%s", name.c_str(),
                  f.vendor == stitch::kern::CpuVendor::intel ? "Intel" : f.vendor == stitch::kern::CpuVendor::amd ? "AMD" : "other",
                  f.family, f.model, f.avx2 ? " AVX2" : "", f.bmi2 ? " BMI2" : "", f.avx512 ? " AVX-512" : "",
                  f.avx512ifma ? " IFMA" : "", f.sha ? " SHA" : "");
    return buf;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!parse(argc, argv, args)) {
        std::fputs("usage: stitch-check [--provider-path=DIR] [--kernel=SET | --all-sets] [--conf] [--time=SECONDS]\n"
                   "       stitch-check --status | --help\n",
                   stderr);
        return 2;
    }
    if (args.status) {
        std::string text;
        const bool active = describe_system(args.provider_path, text);
        std::printf("%s\n", text.c_str());
        return active ? 0 : 2;
    }

    // The loads to measure: stitch's own choice (or --kernel), or every set.
    std::vector<std::unique_ptr<Loaded>> loads;
    std::vector<std::string> kernels;
    auto auto_load = std::make_unique<Loaded>(args.provider_path, args.kernel);
    if (!auto_load->ok()) {
        std::fprintf(stderr, "stitch-check: %s\n", auto_load->error().c_str());
        return 2;
    }
    const std::string auto_kernel = auto_load->param("kernel");
    if (args.all_sets) {
        for (const char* set : kKernelSets) {
            auto load = std::make_unique<Loaded>(args.provider_path, set);
            if (!load->ok()) continue;  // this CPU cannot run it
            kernels.push_back(load->param("kernel"));
            loads.push_back(std::move(load));
        }
    } else {
        kernels.push_back(auto_kernel);
        loads.push_back(std::move(auto_load));
    }

    std::printf("stitch-check: %s against OpenSSL %s's default provider as it comes\n",
                loads.front()->param("buildinfo").c_str(), OpenSSL_version(OPENSSL_VERSION_STRING));
    std::printf("CPU: %s\n", cpu_line().c_str());
    std::printf("stitch's kernel set %s: %s\n", args.kernel.empty() ? "as chosen here" : "as asked (--kernel)",
                auto_kernel.c_str());

    const std::vector<const Loaded*> views = [&] {
        std::vector<const Loaded*> v;
        for (auto& l : loads) v.push_back(l.get());
        return v;
    }();
    const auto& specs = default_rows();
    const int reps = 9;
    // The budget shared out: every row, every repetition, every contender.
    const double sample_ms = args.seconds * 1e3 / double(specs.size()) / reps / double(1 + loads.size()) * 0.8;
    std::vector<RowResult> rows;
    for (const RowSpec& spec : specs) rows.push_back(measure_row(spec, views, reps, sample_ms));

    std::printf("\ntime per message, default / stitch = ratio (above 1.00x: stitch is faster)\n%s",
                table(rows, kernels).c_str());
    std::printf("run noise (interquartile spread / median, per row): %s\n", run_noise(rows).c_str());

    std::vector<SetVerdict> verdicts;
    for (size_t i = 0; i < kernels.size(); ++i) verdicts.push_back(judge(rows, i, kernels[i]));
    if (!args.all_sets) {
        std::printf("verdict: %s\n", verdict_line(verdicts[0]).c_str());
        return verdicts[0].slower ? 1 : 0;
    }

    const size_t best = best_set(verdicts);
    for (const SetVerdict& v : verdicts)
        std::printf("%-12s %s%s\n", v.kernel.c_str(), verdict_line(v).c_str(),
                    v.kernel == auto_kernel ? "   [stitch's own choice here]" : "");
    const SetVerdict& b = verdicts[best];
    std::printf("best set: %s (geometric mean %.2fx)%s\n", b.kernel.c_str(), b.geomean,
                b.slower ? "; no set is faster everywhere: do not switch stitch on for this machine" : "");
    if (args.conf) {
        std::printf("\n# openssl.cnf: pin stitch's kernel set to the one measured best here (stitch-check --all-sets)\n"
                    "[stitch_sect]\nactivate = 1\nkernel = %s\n",
                    b.kernel.c_str());
    }
    return b.slower ? 1 : 0;
}
