#!/bin/bash
# Interop (a): libssh as the client, its ChaCha20 and POLY1305 from stitch,
# against a stock OpenSSH sshd over loopback, cipher
# chacha20-poly1305@openssh.com forced both ways, a few MiB each way checked
# by SHA-256.
#
#   run_libssh_interop.sh CLIENT MODULE_DIR STITCH_CNF [MIB]
set -u
CLIENT=$1 MODULE_DIR=$2 STITCH_CNF=$3 MIB=${4:-4}
. "$(dirname "$0")/sshd_fixture.sh"

[ -x "$CLIENT" ] || sshd_fail "no client program at $CLIENT"
[ -f "$MODULE_DIR/stitch.so" ] || sshd_fail "no stitch.so in $MODULE_DIR"
sshd_start

# Only the client loads stitch.
OPENSSL_CONF=$STITCH_CNF OPENSSL_MODULES=$MODULE_DIR timeout 60 \
    "$CLIENT" 127.0.0.1 "$SSHD_PORT" "$(id -un)" "$USER_KEY" "$HOST_PUB" "$SSHD_DIR" "$MIB"
rc=$?

echo "sshd negotiated:"
sshd_ciphers_logged
if [ "$(grep -c 'kex: [a-z>-]* cipher: chacha20-poly1305@openssh.com' "$SSHD_LOG")" -lt 2 ]; then
    echo "FAIL: sshd did not log chacha20-poly1305@openssh.com for both directions" >&2
    rc=1
fi
if [ $rc -ne 0 ]; then
    echo "--- sshd log ---" >&2
    tail -n 40 "$SSHD_LOG" >&2
fi
exit $rc
