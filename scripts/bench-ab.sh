#!/bin/bash
# docs/benchmarks.md, "A/B in one process": two trees' kernels in one
# program, called in turn, so that both see the same moments of a shared
# machine, whose phases move whole processes by 10-30% (more than most
# changes worth measuring). Each tree's kernel library is built with its
# namespace renamed (-Dstitch=stitch_a / stitch_b), and bench/ab/ops.cpp
# against each; bench/ab/main.cpp calls them in turn and prints each side's
# lowest and median TSC ticks a call, and b / a. It removes the machine's
# phases, not code placement: the two libraries' code sits at different
# addresses, and an A/A run (one tree twice, `scripts/bench-ab.sh HEAD HEAD`)
# read 0.84-0.86 at seal 16 and 64 B on Zen 5 (0.99-1.00 for raw ChaCha20 and
# opens). Run one beside any A/B whose ratios are a few percent.
#
#   scripts/bench-ab.sh A B [--cxx COMPILER] [--impl avx2|avx512-ifma] [--samples N] [--sizes LIST]
#
# A and B: source trees, or git revisions of this repository (exported with
# git archive). STITCH_CLEAR_CPUID passes through. The work directory is
# kept in $AB_WORK (default: a temporary one, removed).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
a=$1
b=$2
shift 2
cxx=g++
impl=avx2
samples=2000
sizes=16,64,128,192,1024
while [ $# -gt 0 ]; do
    case "$1" in
        --cxx) cxx=$2; shift 2 ;;
        --impl) impl=$2; shift 2 ;;
        --samples) samples=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        *) echo "bench-ab.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
work=${AB_WORK:-$(mktemp -d)}
[ -n "${AB_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
cc=${cxx/clang++/clang}
cc=${cc/g++/gcc}

for side in a b; do
    tree=${!side}
    if [ ! -d "$tree" ]; then
        mkdir -p "$work/src_$side"
        git -C "$root" archive "$tree" | tar -x -C "$work/src_$side"
        tree=$work/src_$side
    fi
    tree=$(cd "$tree" && pwd)
    CC=$cc CXX=$cxx cmake -S "$tree" -B "$work/build_$side" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS="-Dstitch=stitch_$side" > "$work/cmake_$side.log"
    cmake --build "$work/build_$side" -j"$(nproc)" --target stitch_kernels > "$work/build_$side.log"
    "$cxx" -O2 -std=c++20 -I"$tree" -Dstitch=stitch_$side -DAB_SIDE=$side -c "$root/bench/ab/ops.cpp" \
        -o "$work/ops_$side.o"
done
"$cxx" -O2 -std=c++20 "$root/bench/ab/main.cpp" "$work/ops_a.o" "$work/ops_b.o" \
    "$work/build_a/kernels/libstitch_kernels.a" "$work/build_b/kernels/libstitch_kernels.a" -o "$work/ab_bench"
grep -m1 "model name" /proc/cpuinfo || true
echo "a: $a, b: $b, $cxx, kernel set $impl, $samples samples of ten calls"
"$work/ab_bench" "$impl" "$samples" ${sizes//,/ }
