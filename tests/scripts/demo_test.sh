#!/bin/bash
# scripts/demo.sh says nothing false on any CPU: the OPENSSL_ia32cap mask
# check runs only where the CPU has AVX-512. Checked on this CPU, and on an
# AVX2-only and an AVX-512 CPU simulated through STITCH_DEMO_CPU_FLAGS; the
# command an AVX2-only CPU gets is then run here (briefly) and must print no
# mask check.
#   tests/scripts/demo_test.sh BUILD_DIR
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
fail=0
check() {  # what, output, pattern that must appear, pattern that must not
    if ! grep -q -- "$3" <<<"$2"; then
        echo "FAIL: $1: no '$3' in:"; echo "$2"; fail=1
    fi
    if [[ -n $4 ]] && grep -q -- "$4" <<<"$2"; then
        echo "FAIL: $1: '$4' in:"; echo "$2"; fail=1
    fi
}

avx2_only="fpu sse2 ssse3 sse4_1 avx avx2 bmi1 bmi2 adx sha_ni"
avx512="$avx2_only avx512f avx512dq avx512bw avx512vl avx512ifma"

out=$(STITCH_DEMO_CPU_FLAGS=$avx2_only "$root/scripts/demo.sh" --dry-run "$build")
check "AVX2-only CPU" "$out" "--openssl-cpu=as-is" "mask is checked"
out=$(STITCH_DEMO_CPU_FLAGS=$avx512 "$root/scripts/demo.sh" --dry-run "$build")
check "AVX-512 CPU" "$out" "mask is checked" "--openssl-cpu"
out=$(STITCH_DEMO_CPU_FLAGS="$avx2_only avx512f" "$root/scripts/demo.sh" --dry-run "$build")
check "AVX512F without VL" "$out" "--openssl-cpu=as-is" ""

# This CPU, as /proc/cpuinfo reports it.
out=$("$root/scripts/demo.sh" --dry-run "$build")
if grep -qw avx512f /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo; then
    check "this CPU (AVX-512)" "$out" "mask is checked" "--openssl-cpu"
else
    check "this CPU (no AVX-512)" "$out" "--openssl-cpu=as-is" "mask is checked"
fi

# What an AVX2-only CPU runs prints no mask check (a short run: --reps=3).
cmd=$(STITCH_DEMO_CPU_FLAGS=$avx2_only "$root/scripts/demo.sh" --dry-run "$build" | tail -1)
out=$($cmd --reps=3 --sample-ms=1 2>&1)
check "the AVX2-only command's output" "$out" "seal" "mask check"

((fail == 0)) && echo "demo_test: all checks passed"
exit $fail
