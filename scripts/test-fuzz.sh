#!/bin/bash
# libFuzzer run of the fuzz targets in tests/fuzz (issue 5 item 4):
#   evp_sequence_fuzz    EVP call sequences, stitch against the default provider
#   openssh_packet_fuzz  chacha20-poly1305@openssh.com against a composition
#   kdf_params_fuzz      HKDF / TLS13-KDF params, stitch against the default
#                        provider (30 s at most, after the other two)
# Builds them with clang (-fsanitize=fuzzer,address,undefined, stitch linked
# in and instrumented), fuzzes the first two at once for a bounded time from the
# committed seed corpus, then replays everything they found once more with
# dispatch forced to the portable kernels. A crash, a sanitizer report or a
# mismatch fails the run and names the reproducer file, the input (base64)
# and the seed.
#   scripts/test-fuzz.sh [SECONDS_PER_TARGET] [BUILD_DIR]   (defaults: 60, build-fuzz)
# Each target's libFuzzer seed is printed; STITCH_FUZZ_SEED=N runs every
# target with seed N instead of a random one (the same mutations again).
# Replay a reproducer: BUILD_DIR/tests/fuzz/<target>_fuzz FILE
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${2:-$root/build-fuzz}
targets="evp_sequence openssh_packet"
kdf_target=kdf_params   # HKDF / TLS13-KDF params: fuzzed after the pair, on its own
kdf_seconds=$(( seconds < 30 ? seconds : 30 ))
start=$(date +%s)

if [ -e "$build" ] && [ ! -f "$build/CMakeCache.txt" ]; then
    echo "test-fuzz.sh: $build exists and is not a CMake build directory; not touching it" >&2
    exit 1
fi
# A fresh cache: changing the compiler on an old one makes CMake drop every
# other -D given with it. Object files stay, so the build is incremental.
rm -f "$build/CMakeCache.txt"
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
        clang++ -fsanitize=fuzzer -x c++ - -o /dev/null 2>/dev/null; then
    echo "test-fuzz.sh: clang++ with libFuzzer is needed (Debian: clang, libclang-rt-14-dev)" >&2
    exit 1
fi

# Line tables only (-g1): a finding's stack trace names file and line, and
# the build takes less time than with full debug information.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DSTITCH_BUILD_FUZZ=ON -DSTITCH_BUILD_BENCH=OFF
# shellcheck disable=SC2046  # the list is meant to split
cmake --build "$build" -j"$(nproc)" --target $(for t in $targets $kdf_target; do echo "${t}_fuzz"; done)
built=$(date +%s)

export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:print_summary=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
work=$build/fuzz-work          # what the fuzzers found: kept between runs, never committed
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"

# A seed per target (libFuzzer's -seed: 1..2^31-1), printed so a failure can be re-run.
seed_for() { echo "${STITCH_FUZZ_SEED:-$(( $(od -An -N4 -tu4 /dev/urandom) % 2147483646 + 1 ))}"; }

# What a failed target leaves: the finding, its seed, its input, how to replay it.
report_failure() {
    local t=$1 seed=$2 secs=$3 log=$4
    echo "test-fuzz.sh: $t FAILED (libFuzzer seed $seed); its log, $log, ends:" >&2
    grep -E -A30 'FUZZ FINDING|ERROR: AddressSanitizer|runtime error|ERROR: libFuzzer|ERROR: LeakSanitizer' \
        "$log" | head -60 >&2 || tail -40 "$log" >&2
    echo "test-fuzz.sh: replay the input: $build/tests/fuzz/${t}_fuzz $(ls -t "$artifacts/$t-"* 2>/dev/null | head -1)" >&2
    echo "test-fuzz.sh: re-run the fuzzing: STITCH_FUZZ_SEED=$seed scripts/test-fuzz.sh $secs" >&2
}

# Both targets at once: one per core.
pids=()
seeds=()
for t in $targets; do
    mkdir -p "$work/$t"
    seed=$(seed_for)
    seeds+=("$seed")
    echo "test-fuzz.sh: $t: libFuzzer seed $seed"
    "$build/tests/fuzz/${t}_fuzz" -seed="$seed" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 \
        -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
        "$work/$t" "$root/tests/fuzz/corpus/$t" > "$build/fuzz-$t.log" 2>&1 &
    pids+=($!)
done
failed=0
i=0
for t in $targets; do
    if wait "${pids[$i]}"; then
        echo "test-fuzz.sh: $t: $(grep -E '^stat::number_of_executed_units' "$build/fuzz-$t.log" | awk '{print $2}') runs in ${seconds} s (seed ${seeds[$i]}), no finding"
    else
        failed=1
        report_failure "$t" "${seeds[$i]}" "$seconds" "$build/fuzz-$t.log"
    fi
    i=$((i + 1))
done
[ "$failed" = 0 ] || exit 1

# The KDF target alone, for kdf_seconds (its calls are cheap; 30 s reaches
# every param path from the seeds).
t=$kdf_target
mkdir -p "$work/$t"
seed=$(seed_for)
echo "test-fuzz.sh: $t: libFuzzer seed $seed"
if "$build/tests/fuzz/${t}_fuzz" -seed="$seed" -max_total_time="$kdf_seconds" -timeout=20 -rss_limit_mb=3072 \
        -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
        "$work/$t" "$root/tests/fuzz/corpus/$t" > "$build/fuzz-$t.log" 2>&1; then
    echo "test-fuzz.sh: $t: $(grep -E '^stat::number_of_executed_units' "$build/fuzz-$t.log" | awk '{print $2}') runs in ${kdf_seconds} s (seed $seed), no finding"
else
    report_failure "$t" "$seed" "$seconds" "$build/fuzz-$t.log"
    exit 1
fi

# Everything found, once more on the portable kernels (dispatch is chosen
# once per process, so the fuzzing above ran on the dispatched path only).
for t in $targets $kdf_target; do
    if ! STITCH_CLEAR_CPUID=all "$build/tests/fuzz/${t}_fuzz" -runs=0 -artifact_prefix="$artifacts/$t-portable-" \
            "$work/$t" "$root/tests/fuzz/corpus/$t" > "$build/fuzz-$t-portable.log" 2>&1; then
        echo "test-fuzz.sh: $t FAILED on the portable kernels; see $build/fuzz-$t-portable.log" >&2
        tail -40 "$build/fuzz-$t-portable.log" >&2
        exit 1
    fi
    echo "test-fuzz.sh: $t: $(ls "$work/$t" | wc -l) corpus inputs replayed on the portable kernels"
done
echo "test-fuzz.sh: build $(( built - start )) s, fuzzing $(( $(date +%s) - built )) s"
