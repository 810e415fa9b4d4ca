#!/bin/bash
# TLS 1.3 handshake rate with and without stitch (docs/tls13-kdf.md, "Measured"):
# `openssl s_time -new` makes full handshakes against `openssl s_server` on
# loopback for SECONDS, once with both sides on OpenSSL as shipped and once
# with both under conf/stitch.cnf, alternated for ROUNDS rounds (the order
# swapping each round). Reports handshakes per second and the server's CPU
# time per handshake (user + system, from /proc/PID/stat), the figure the
# KDFs change: libssl derives 21 TLS 1.3 secrets, keys and IVs per handshake
# on each side through TLS13-KDF.
#   scripts/bench-handshake.sh [BUILD_DIR] [SECONDS] [ROUNDS] [SUITE]
#   (defaults: build, 5, 6, TLS_AES_128_GCM_SHA256: an AES suite, so the
#   record cipher is the default provider's either way and only the key
#   schedule differs)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
seconds=${2:-5}
rounds=${3:-6}
suite=${4:-TLS_AES_128_GCM_SHA256}
modules=$(cd "$build/provider" 2>/dev/null && pwd) || { echo "bench-handshake.sh: no $build/provider" >&2; exit 1; }
[ -f "$modules/stitch.so" ] || { echo "bench-handshake.sh: no stitch.so in $modules: build target stitch" >&2; exit 1; }
openssl=$(command -v openssl)
tick=$(getconf CLK_TCK)

work=$(mktemp -d)
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

"$openssl" req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" \
    -out "$work/cert.pem" -days 1 -subj /CN=localhost 2>/dev/null

# Process CPU time in clock ticks: utime + stime (fields 14 and 15; the
# command name in field 2 has no spaces here).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

listening() {  # 127.0.0.1:$1 in LISTEN state
    local want
    want=$(printf '0100007F:%04X' "$1")
    awk -v w="$want" 'NR > 1 && $2 == w && $4 == "0A" {found = 1} END {exit !found}' /proc/net/tcp
}

# One measurement: prints "handshakes wall_seconds server_cpu_ticks".
measure() {
    local with=$1 port env=()
    [ "$with" = stitch ] && env=(OPENSSL_CONF="$root/conf/stitch.cnf" OPENSSL_MODULES="$modules")
    port=$(( 20000 + RANDOM % 20000 ))
    env "${env[@]}" "$openssl" s_server -accept "127.0.0.1:$port" -cert "$work/cert.pem" -key "$work/key.pem" \
        -tls1_3 -ciphersuites "$suite" -quiet < /dev/null > /dev/null 2>&1 &
    server_pid=$!
    for _ in $(seq 200); do listening "$port" && break; sleep 0.02; done
    listening "$port" || { echo "bench-handshake.sh: s_server did not start" >&2; exit 1; }
    local before after t0 t1 out
    before=$(cpu_ticks "$server_pid")
    t0=$(date +%s.%N)
    out=$(env "${env[@]}" "$openssl" s_time -connect "127.0.0.1:$port" -new -time "$seconds" -tls1_3 \
        -ciphersuites "$suite" 2>&1)
    t1=$(date +%s.%N)
    after=$(cpu_ticks "$server_pid")
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
    local n
    n=$(echo "$out" | sed -n 's/^\([0-9]*\) connections in .* real seconds.*/\1/p' | head -1)
    [ -n "$n" ] && [ "$n" -gt 0 ] || { echo "bench-handshake.sh: s_time made no connections:" >&2; echo "$out" >&2; exit 1; }
    echo "$n $(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}') $(( after - before ))"
}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
echo "TLS 1.3 full handshakes, $suite, ECDSA P-256 certificate, X25519 (s_time's default group)"
echo "$cpu; $(nproc) CPUs; $("$openssl" version); $seconds s per run, $rounds rounds alternated"
printf '%-6s %-8s %10s %12s %16s\n' round with handshakes "per second" "server us/hs"
declare -A rate_list cpu_list
for r in $(seq "$rounds"); do
    order="default stitch"
    [ $(( r % 2 )) = 0 ] && order="stitch default"
    for with in $order; do
        read -r n wall ticks < <(measure "$with")
        rate=$(awk -v n="$n" -v w="$wall" 'BEGIN {print n / w}')
        us=$(awk -v t="$ticks" -v k="$tick" -v n="$n" 'BEGIN {print t * 1000000 / k / n}')
        printf '%-6s %-8s %10d %12.1f %16.1f\n' "$r" "$with" "$n" "$rate" "$us"
        rate_list[$with]+="$rate "
        cpu_list[$with]+="$us "
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo
for with in default stitch; do
    printf 'median %-8s %10s %12.1f %16.1f\n' "$with" "" "$(echo "${rate_list[$with]}" | median)" \
        "$(echo "${cpu_list[$with]}" | median)"
done
d=$(echo "${cpu_list[default]}" | median)
s=$(echo "${cpu_list[stitch]}" | median)
awk -v d="$d" -v s="$s" 'BEGIN {printf "server CPU per handshake: %.1f us less with stitch (%.1f%%)\n", d - s, (d - s) * 100 / d}'
