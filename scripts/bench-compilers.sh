#!/bin/bash
# docs/benchmarks.md, "Compilers": whether the kernels' speed depends on the
# compiler. Runs the kernel table (stitch_bench --only=kernel, the kernels
# called directly, so each build measures the code its own compiler made) of
# two build trees in alternating fresh processes, RUNS each, and prints per
# row the median over the processes of each build's median time and their
# ratio. A machine shared with other tenants moves whole processes by 10%
# or more; the alternation puts both builds through the same moments.
#
# The kernel table also times each build's own harness (the benchmark's
# loop and its calls, made by that build's compiler), and on rows of a few
# dozen nanoseconds that alone has read 7% apart (benchmarks.md, Ice
# Lake-SP, its second visit). --modules takes it out: BUILD_A's stitch_bench
# loads BUILD_A's stitch.so and BUILD_B's in alternate processes
# (STITCH_MODULE_DIR) and times them through EVP (TLS 1.3, TLS 1.2, OpenSSH,
# POLY1305), stitch's time only: the one harness, each compiler's module,
# which is what users load.
#
#   scripts/bench-compilers.sh BUILD_A BUILD_B [--runs N] [--impls LIST] [--sizes LIST] [--modules]
#
# Make the two trees first, e.g.
#   cmake -S . -B build-gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo
#   CC=clang CXX=clang++ cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=RelWithDebInfo
#   cmake --build build-gcc --target stitch_bench; cmake --build build-clang --target stitch_bench
# (--modules needs BUILD_A's stitch_bench and both trees' provider/stitch.so.)
# STITCH_CLEAR_CPUID passes through (=avx512: the AVX2 set on an AVX-512 CPU).
set -euo pipefail

a=$1
b=$2
shift 2
runs=6
impls=avx2
sizes=64,192,1024,1300,16384,65536
modules=0
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --impls) impls=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --modules) modules=1; shift ;;
        *) echo "bench-compilers.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ "$(basename "$a")" != "$(basename "$b")" ] || { echo "bench-compilers.sh: the two trees need different names" >&2; exit 2; }
if [ "$modules" = 1 ]; then
    for tree in "$a" "$b"; do
        [ -f "$tree/provider/stitch.so" ] || { echo "bench-compilers.sh: no $tree/provider/stitch.so (build the stitch target there)" >&2; exit 2; }
    done
    [ -x "$a/bench/stitch_bench" ] || { echo "bench-compilers.sh: no $a/bench/stitch_bench (build the stitch_bench target there)" >&2; exit 2; }
    [ "$impls" = avx2 ] || echo "bench-compilers.sh: --impls is the kernel table's; --modules times the set dispatch chooses" >&2
fi
for ((i = 0; i < runs; ++i)); do
    for tree in "$a" "$b"; do
        tag=$(basename "$tree")
        if [ "$modules" = 1 ]; then
            STITCH_MODULE_DIR=$(realpath "$tree/provider") "$a/bench/stitch_bench" --openssl-cpu=as-is \
                --only=tls13,tls12,ssh,poly1305 --sizes="$sizes" --reps=9 --sample-ms=2 \
                --results="$out/$tag.$i" > "$out/$tag.$i.txt" 2>&1
        else
            "$tree/bench/stitch_bench" --openssl-cpu=as-is --only=kernel --impls="$impls" --sizes="$sizes" \
                --reps=9 --results="$out/$tag.$i" > "$out/$tag.$i.txt" 2>&1
        fi || { echo "bench-compilers.sh: $tree failed:"; tail -5 "$out/$tag.$i.txt"; exit 1; }
    done
done
grep -m1 -h "^CPU:" "$out/$(basename "$a").0.txt" || true
impl=${impls%%,*}
[ "$modules" = 1 ] && impl=stitch
python3 - "$out" "$(basename "$a")" "$(basename "$b")" "$runs" "$impl" "$modules" <<'EOF'
import collections, statistics, sys
out, a, b, runs, impl, modules = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6] == "1"
def per_process(tag):
    rows = collections.defaultdict(list)
    for i in range(runs):
        for line in open(f"{out}/{tag}.{i}"):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 5 and f[3] == impl:
                # Through EVP a TLS 1.3 and a TLS 1.2 row share an op name.
                op = f"{f[0]}:{f[1]}" if modules else f[1]
                rows[(op, int(f[2]))].append(float(f[4]))
    return rows
pa, pb = per_process(a), per_process(b)
# The median over processes, and the lowest: a neighbour's load only ever
# adds time, so the lowest process is the least disturbed.
if modules:
    print(f"each build's stitch.so through {a}'s stitch_bench (EVP), stitch's median ns a process; over {runs} alternating processes per build, the median and the lowest")
else:
    print(f"kernel {impl}: each process's median ns; over {runs} alternating processes per build, the median and the lowest")
print(f"{'op':16} {'bytes':>7} {a + ' med':>14} {b + ' med':>14} {'b/a':>7} {a + ' low':>14} {b + ' low':>14} {'b/a':>7}")
worst = 0
for key in sorted(pa, key=lambda k: (k[0], k[1])):
    if key not in pb: continue
    ma, mb = statistics.median(pa[key]), statistics.median(pb[key])
    la, lb = min(pa[key]), min(pb[key])
    r, rl = mb / ma, lb / la
    worst = max(worst, abs(rl - 1))
    flag = "  <-- more than 5% apart" if abs(rl - 1) > 0.05 else ""
    print(f"{key[0]:16} {key[1]:7} {ma:14.1f} {mb:14.1f} {r:7.3f} {la:14.1f} {lb:14.1f} {rl:7.3f}{flag}")
print(f"largest difference of the lowest: {worst * 100:.1f}%")
EOF
