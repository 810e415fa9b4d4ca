#!/bin/bash
# docs/benchmarks.md, "Layout": whether stitch's time depends on where memory sits. Runs
# stitch_bench's TLS 1.3 rows (seal, open, raw ChaCha20) against the default
# provider without AVX-512, each run a fresh process:
#   aslr-on    RUNS processes with address-space randomisation (the stack,
#              heap and libraries land somewhere new each time)
#   aslr-off   RUNS processes under `setarch -R` (the same layout each time)
#   place      one process per buffer placement: in place at several offsets
#              mod 4096, and out of place at several input/output pairs
#   stack      one process per stack offset (--stack), ASLR off
# and prints, per row, the spread of each side's time over the processes of
# each group and over all of them: (max - min) / min. A process's time for a
# row is its fastest repetition: other processes' load only ever adds time,
# where a layout's cost is in every repetition (the spread of the medians,
# which load does move, is printed too). stitch is layout-proof where its
# spread is no wider than the default provider's.
#
#   scripts/bench-layout.sh [--build DIR] [--runs N] [--reps N] [--sample-ms MS]
#                           [--sizes LIST] [--keep DIR]
#                           [--openssl-cpu=no-avx512|as-is]
# Environment passes through: STITCH_CLEAR_CPUID=avx512 measures the AVX2
# set, STITCH_KERNEL=<set> another set. --openssl-cpu=as-is lets the
# default provider run its AVX-512 code (the AVX-512 set's comparison);
# no-avx512 (the default) hides it, for the AVX2 set's.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
runs=6
reps=9
sample_ms=1
sizes=64,192,1024,1300,16384,65536
keep=
openssl_cpu=no-avx512
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --sample-ms) sample_ms=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        --openssl-cpu=*) openssl_cpu=${1#--openssl-cpu=}; shift ;;
        *) echo "usage: $0 [--build DIR] [--runs N] [--reps N] [--sample-ms MS] [--sizes LIST] [--keep DIR] [--openssl-cpu=no-avx512|as-is]" >&2
           exit 2 ;;
    esac
done

bench=$build/bench/stitch_bench
[ -x "$bench" ] || { echo "bench-layout.sh: no $bench (cmake --build $build --target stitch_bench)" >&2; exit 1; }
command -v setarch >/dev/null || { echo "bench-layout.sh: setarch (util-linux) is missing" >&2; exit 1; }

out=${keep:-$(mktemp -d /tmp/stitch-layout.XXXXXX)}
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT

# One fresh process; its medians go to $out/<group>.<n>.
run() {
    local group=$1 n=$2
    shift 2
    "$@" "$bench" --openssl-cpu="$openssl_cpu" --only=tls13 --reps="$reps" --sample-ms="$sample_ms" \
        --sizes="$sizes" --results="$out/$group.$n" "${extra[@]}" > "$out/$group.$n.log" 2>&1 ||
        { echo "bench-layout.sh: run $group.$n failed:" >&2; cat "$out/$group.$n.log" >&2; exit 1; }
}

extra=()
"$bench" --openssl-cpu="$openssl_cpu" --only=tls13 --reps=1 --sample-ms=0.1 --sizes=64 2>&1 |
    grep -E "^(AMD|Intel|[A-Za-z].*family)|^CPU:|^stitch" | head -3
echo "env: STITCH_CLEAR_CPUID=${STITCH_CLEAR_CPUID:-} STITCH_KERNEL=${STITCH_KERNEL:-} default provider: $openssl_cpu"
echo "runs: $runs with ASLR, $runs without, 9 placements, 4 stack offsets; $reps reps x ${sample_ms} ms per row"

for i in $(seq 1 "$runs"); do run aslr-on "$i"; done
for i in $(seq 1 "$runs"); do run aslr-off "$i" setarch "$(uname -m)" -R; done
n=0
for place in 0 16 64 2048 4032 0,0 0,64 64,0 100,2148; do
    n=$((n + 1))
    extra=(--place="$place")
    run place "$n"
done
n=0
for stack in 0 1024 2080 3000; do
    n=$((n + 1))
    extra=(--stack="$stack")
    run stack "$n" setarch "$(uname -m)" -R
done

python3 - "$out" <<'PY'
import collections, glob, os, sys

out = sys.argv[1]
runs = collections.defaultdict(dict)  # (group, file) -> {(op, bytes, column): ns}
rows = []
for path in sorted(glob.glob(os.path.join(out, "*.*[0-9]"))):
    group = os.path.basename(path).split(".")[0]
    for line in open(path):
        table, op, size, column, median, _ghz, fastest = line.split()
        if table != "tls13":
            continue
        if (op, int(size)) not in rows:
            rows.append((op, int(size)))
        runs[(group, path)][(op, int(size), column)] = float(fastest)
        runs[(group, path)][(op, int(size), column + " median")] = float(median)

def values(group, op, size, column):
    return [r[(op, size, column)] for (g, _), r in runs.items()
            if (group == "all" or g == group) and (op, size, column) in r]

def spread(v):
    return (max(v) - min(v)) / min(v) * 100 if v else float("nan")

groups = ["aslr-on", "aslr-off", "place", "stack", "all"]
print()
print("Spread over fresh processes of each side's fastest repetition, (max - min) / min, stitch|default,")
print("per group and over all %d runs, and of the medians over all runs; then over all runs stitch's" % len(runs))
print("and the default's range (fastest repetitions, ns), and the lowest default/stitch speedup of")
print("any one process (fastest repetitions).")
print("%-9s %6s " % ("op", "bytes") + " ".join("%15s" % g for g in groups + ["all medians"]) +
      "   %-15s %-15s %s" % ("stitch ns", "default ns", "min speedup"))
wider = 0
for op, size in rows:
    line = "%-9s %6d " % (op, size)
    for g in groups:
        line += " %6.1f%%|%6.1f%%" % (spread(values(g, op, size, "stitch")), spread(values(g, op, size, "default")))
    line += " %6.1f%%|%6.1f%%" % (spread(values("all", op, size, "stitch median")),
                                  spread(values("all", op, size, "default median")))
    s, d = values("all", op, size, "stitch"), values("all", op, size, "default")
    ratios = [r[(op, size, "default")] / r[(op, size, "stitch")] for r in runs.values()
              if (op, size, "stitch") in r and (op, size, "default") in r]
    line += "   %6.0f-%-8.0f %6.0f-%-8.0f %.2fx" % (min(s), max(s), min(d), max(d), min(ratios))
    if spread(s) > spread(d):
        wider += 1
        line += "  <- stitch wider"
    print(line)
print("\n%d of %d rows: stitch's spread over all runs wider than the default's" % (wider, len(rows)))
PY
