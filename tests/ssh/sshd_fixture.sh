# A stock OpenSSH sshd on a free loopback port, for one test, sourced by the
# interop scripts. Everything lives in a temp dir: host key, the test user's
# key, authorized_keys, config, pid file, log. The sshd is stock: it runs
# with no OPENSSL_CONF of ours, so its crypto is OpenSSH + OpenSSL's default
# provider, an implementation nobody here wrote.
#
#   sshd_start          sets SSHD_DIR, SSHD_PORT, SSHD_PID, SSHD_LOG,
#                       USER_KEY (private key path), HOST_PUB (host public key)
#   sshd_stop           kills that sshd by PID and removes the temp dir
#
# Needs root (sshd binds, switches to the user and uses /run/sshd) and the
# Debian packages openssh-server and openssh-client.

SSHD_BIN=/usr/sbin/sshd

sshd_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

sshd_start() {
    [ "$(id -u)" = 0 ] || sshd_fail "the interop tests run sshd and must run as root"
    [ -x "$SSHD_BIN" ] || sshd_fail "$SSHD_BIN missing: install the Debian package openssh-server"
    command -v ssh-keygen >/dev/null || sshd_fail "ssh-keygen missing: install the Debian package openssh-client"

    # A clean environment for sshd: none of our OpenSSL settings.
    unset OPENSSL_CONF OPENSSL_MODULES
    SSHD_DIR=$(mktemp -d /tmp/stitch-sshd.XXXXXX)
    chmod 755 "$SSHD_DIR"
    trap sshd_stop EXIT
    trap 'sshd_stop; exit 1' INT TERM
    mkdir -p /run/sshd  # OpenSSH's privilege separation directory
    chmod 755 /run/sshd

    ssh-keygen -q -t ed25519 -N '' -C stitch-test-host -f "$SSHD_DIR/host_ed25519" || sshd_fail "ssh-keygen host key"
    ssh-keygen -q -t ed25519 -N '' -C stitch-test-user -f "$SSHD_DIR/user_ed25519" || sshd_fail "ssh-keygen user key"
    cp "$SSHD_DIR/user_ed25519.pub" "$SSHD_DIR/authorized_keys"
    USER_KEY=$SSHD_DIR/user_ed25519
    HOST_PUB=$SSHD_DIR/host_ed25519.pub
    SSHD_LOG=$SSHD_DIR/sshd.log

    # A random port; if another process holds it, sshd says so and exits, and
    # the next try takes another.
    local try
    for try in 1 2 3 4 5 6 7 8 9 10; do
        SSHD_PORT=$((20000 + RANDOM % 40000))
        cat >"$SSHD_DIR/sshd_config" <<EOF
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $SSHD_DIR/host_ed25519
AuthorizedKeysFile $SSHD_DIR/authorized_keys
PidFile $SSHD_DIR/sshd.pid
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
Ciphers chacha20-poly1305@openssh.com
LogLevel DEBUG1
EOF
        "$SSHD_BIN" -t -f "$SSHD_DIR/sshd_config" || sshd_fail "sshd rejects its config"
        : >"$SSHD_LOG"
        "$SSHD_BIN" -D -f "$SSHD_DIR/sshd_config" -E "$SSHD_LOG" &
        SSHD_PID=$!
        local i
        for i in $(seq 1 100); do
            if grep -q "Server listening on 127.0.0.1 port $SSHD_PORT" "$SSHD_LOG"; then
                echo "sshd (pid $SSHD_PID) listening on 127.0.0.1:$SSHD_PORT, dir $SSHD_DIR"
                return 0
            fi
            kill -0 "$SSHD_PID" 2>/dev/null || break
            sleep 0.05
        done
        kill "$SSHD_PID" 2>/dev/null
        wait "$SSHD_PID" 2>/dev/null
        SSHD_PID=
    done
    cat "$SSHD_LOG" >&2
    sshd_fail "sshd did not start on a loopback port after 10 tries"
}

sshd_stop() {
    if [ -n "${SSHD_PID:-}" ]; then
        kill "$SSHD_PID" 2>/dev/null
        wait "$SSHD_PID" 2>/dev/null
        SSHD_PID=
    fi
    if [ -n "${SSHD_DIR:-}" ] && [ -d "$SSHD_DIR" ]; then
        rm -rf "$SSHD_DIR"
        SSHD_DIR=
    fi
}

# The ciphers sshd logged for each direction of every connection
# ("kex: client->server cipher: ... MAC: ...").
sshd_ciphers_logged() {
    grep -o 'kex: [a-z>-]* cipher: [^ ]*' "$SSHD_LOG" | sort | uniq -c
}
