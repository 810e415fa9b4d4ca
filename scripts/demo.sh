#!/bin/bash
# README "Build and test": installs what is missing, builds stitch and its benchmark,
# then shows the main job: ChaCha20-Poly1305 TLS 1.3 records sealed and
# opened by stitch beside OpenSSL's default provider, and stitch taking over
# for programs that never name it once conf/stitch.cnf is in effect.
#   scripts/demo.sh [BUILD_DIR]    (default: build in the repository)
#   scripts/demo.sh --dry-run      print the benchmark command this CPU gets, run nothing
#
# On a CPU with AVX-512 the benchmark runs twice, as the CPU is and with
# AVX-512 hidden from both providers (OPENSSL_ia32cap for libcrypto,
# STITCH_CLEAR_CPUID for stitch), and checks that the mask reached libcrypto.
# Without AVX-512 there is nothing to hide: one run, and no mask check.
# STITCH_DEMO_CPU_FLAGS stands in for /proc/cpuinfo's flags; only the
# script's own test (tests/scripts/demo_test.sh) sets it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dry_run=0
if [[ ${1:-} == --dry-run ]]; then
    dry_run=1
    shift
fi
build=${1:-$root/build}

cpu_flags() {
    if [[ -n ${STITCH_DEMO_CPU_FLAGS:-} ]]; then
        echo " $STITCH_DEMO_CPU_FLAGS "
    else
        echo " $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    fi
}

# The flags libcrypto's AVX-512 ChaCha20 and Poly1305 code needs (F, and
# VL for the ymm forms); the kernel lists them only where the OS saves the
# zmm state.
bench_args=(--quick)
flags=$(cpu_flags)
if [[ $flags == *" avx512f "* && $flags == *" avx512vl "* ]]; then
    bench_note="This CPU has AVX-512: the table is measured as the CPU is, then with AVX-512 hidden from both providers (as on an AVX2-only CPU), and the mask is checked."
else
    bench_args+=(--openssl-cpu=as-is)
    bench_note="This CPU has no AVX-512: one run, as the CPU is (there is nothing to hide, so no mask check)."
fi

if ((dry_run)); then
    echo "$bench_note"
    echo "$build/bench/stitch_bench ${bench_args[*]}"
    exit 0
fi

"$root/scripts/setup-debian.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTITCH_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target stitch stitch_bench

echo
echo "=== 1. Throughput: stitch and the default provider in one process (bench/, --quick) ==="
echo "$bench_note"
"$build/bench/stitch_bench" "${bench_args[@]}"

export OPENSSL_CONF="$root/conf/stitch.cnf" OPENSSL_MODULES="$build/provider"
echo
echo "=== 2. stitch through conf/: OPENSSL_CONF=conf/stitch.cnf OPENSSL_MODULES=$build/provider ==="
echo "\$ openssl list -providers"
openssl list -providers
echo "\$ openssl list -cipher-algorithms | grep stitch"
openssl list -cipher-algorithms | grep "@ stitch"
echo
echo "A program that never names a provider (scripts/which-provider.py, EVP_chacha20_poly1305() etc.):"
/usr/bin/python3 "$root/scripts/which-provider.py" --require-stitch
