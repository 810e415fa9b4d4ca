#!/bin/bash
# Interop (b): stitch's chacha20-poly1305@openssh.com against OpenSSH's own
# construction. The stock `ssh` client (OpenSSH 9.2: EVP_chacha20 from
# OpenSSL's default provider, Poly1305 from its own poly1305.c) downloads a
# few MiB from the stock sshd, with openssh_capture_shim.so preloaded to
# record each packet it receives; the verifier then opens and re-seals every
# recorded packet with stitch.
#
#   run_openssh_capture.sh SHIM VERIFIER [MIB]
set -u
SHIM=$1 VERIFIER=$2 MIB=${3:-3}
. "$(dirname "$0")/sshd_fixture.sh"

[ -f "$SHIM" ] || sshd_fail "no shim at $SHIM"
[ -x "$VERIFIER" ] || sshd_fail "no verifier at $VERIFIER"
command -v ssh >/dev/null || sshd_fail "ssh missing: install the Debian package openssh-client"
sshd_start

CAPTURE=$SSHD_DIR/capture.bin
head -c $((MIB * 1024 * 1024 + 5)) /dev/urandom >"$SSHD_DIR/download.bin"
echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$HOST_PUB")" >"$SSHD_DIR/known_hosts"
# Empty files of our own for the client's config and global known hosts,
# not /dev/null: a CI run once found /dev/null a regular file holding an
# earlier command's output, and ssh refused it as its config.
: >"$SSHD_DIR/ssh_config"
: >"$SSHD_DIR/no_known_hosts"

# The client is stock too: no stitch in its OpenSSL, no agent, no user config.
env -u SSH_AUTH_SOCK LD_PRELOAD="$SHIM" STITCH_SSH_CAPTURE="$CAPTURE" timeout 60 \
    ssh -F "$SSHD_DIR/ssh_config" -p "$SSHD_PORT" -i "$USER_KEY" \
    -o IdentitiesOnly=yes -o BatchMode=yes -o LogLevel=ERROR \
    -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$SSHD_DIR/known_hosts" -o GlobalKnownHostsFile="$SSHD_DIR/no_known_hosts" \
    -o Ciphers=chacha20-poly1305@openssh.com \
    "$(id -un)@127.0.0.1" "cat $SSHD_DIR/download.bin" >"$SSHD_DIR/received.bin"
rc=$?
if [ $rc -ne 0 ]; then
    tail -n 40 "$SSHD_LOG" >&2
    sshd_fail "ssh exited with $rc"
fi
cmp -s "$SSHD_DIR/download.bin" "$SSHD_DIR/received.bin" || sshd_fail "ssh received other bytes than sshd sent"
echo "ssh received $(stat -c %s "$SSHD_DIR/received.bin") bytes intact; sshd negotiated:"
sshd_ciphers_logged

STITCH_SSH_CAPTURE=$CAPTURE "$VERIFIER"
