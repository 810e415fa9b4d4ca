#!/bin/sh
# Installs the Debian 12 packages stitch's build, tests and demo use. Safe to
# rerun: it asks apt only for what is missing, so with everything present it
# returns at once and needs no root.
set -eu

# build: compiler, CMake, pkg-config (locates OpenSSL's modules directory), OpenSSL 3 headers
# tests: GoogleTest, nlohmann/json (Wycheproof vectors), pytest and the openssl
#        command line (tests/openssl-cli), valgrind (constant-time check and
#        the proof that TLS records run inside stitch.so)
# ssh interop (tests/ssh): a stock sshd to talk to, the ssh client, libssh
# fuzzing (tests/fuzz): clang with libFuzzer and its sanitizer runtimes
# the AVX-512 set on CPUs without it (tests/emulated): SIMDe, header-only
# branch coverage (scripts/test-coverage.sh): gcovr
# the built module's machine code (tests/scripts/test_machine_code.py): objdump,
#        from binutils (g++ pulls it in too; named so the test's need is plain)
PACKAGES="build-essential binutils cmake pkg-config libssl-dev openssl
          libgtest-dev nlohmann-json3-dev python3 python3-pytest valgrind
          openssh-server openssh-client libssh-dev
          clang libclang-rt-14-dev
          libsimde-dev gcovr"

missing=""
for pkg in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done

if [ -z "$missing" ]; then
    echo "setup-debian: all packages present"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "setup-debian: missing:$missing; run as root (or: apt-get install$missing)" >&2
    exit 1
fi
echo "setup-debian: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086  # the list is meant to split
apt-get install -y -qq --no-install-recommends $missing
