"""One TLS connection on loopback between `openssl s_server` and `openssl
s_client`, moving a buffer each way through their stdin/stdout.

The server runs with -quiet (stdout is exactly what it received; closing its
stdin ends the connection), the client with -brief -ign_eof -nocommands (its
stdout is exactly what it received, the negotiated protocol and cipher go to
stderr, and no input byte is taken as a command letter).
"""

import os
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass


@dataclass
class Side:
    env: dict
    wrapper: list  # command prefix, e.g. valgrind; [] for none


@dataclass
class TransferResult:
    server_received: bytes
    client_received: bytes
    client_log: str  # s_client's stderr: "Protocol version: ...", "Ciphersuite: ..."
    server_log: str


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port):
    """True once something listens on 127.0.0.1:port (read from /proc, so the
    probe does not use up s_server's single accept)."""
    want = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as f:
        return any(line.split()[1] == want and line.split()[3] == "0A" for line in list(f)[1:])


def _kill(proc):
    if proc is not None and proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def transfer(openssl, tls_args, cert, key, server, client, to_client, to_server, log_dir, timeout=20.0):
    """Moves `to_client` from the server and `to_server` from the client over
    one connection; returns what each side printed. Both processes are killed
    by PID if anything is left running."""
    srv = cli = None
    logs = []
    try:
        for _ in range(3):  # another process may take the free port first
            port = free_port()
            server_log = open(log_dir / f"server-{port}.log", "w+b")
            logs.append(server_log)
            srv = subprocess.Popen(
                [*server.wrapper, openssl, "s_server", "-accept", f"127.0.0.1:{port}", "-naccept", "1", "-quiet",
                 "-cert", str(cert), "-key", str(key), *tls_args],
                env=server.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=server_log)
            deadline = time.monotonic() + timeout
            while srv.poll() is None and not _listening(port) and time.monotonic() < deadline:
                time.sleep(0.01)
            if srv.poll() is None and _listening(port):
                break
            _kill(srv)
        else:
            raise AssertionError("s_server did not start listening")

        client_log = open(log_dir / f"client-{port}.log", "w+b")
        logs.append(client_log)
        cli = subprocess.Popen(
            [*client.wrapper, openssl, "s_client", "-connect", f"127.0.0.1:{port}", "-brief", "-ign_eof",
             "-nocommands", *tls_args],
            env=client.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=client_log)

        received = {}

        def read(name, stream, n):
            buf = bytearray()
            while len(buf) < n:
                chunk = stream.read1(1 << 20)
                if not chunk:
                    break
                buf += chunk
            received[name] = bytes(buf)

        def write(stream, data):
            try:
                stream.write(data)
                stream.flush()
            except BrokenPipeError:
                pass  # the peer died; the byte counts below show it

        threads = [threading.Thread(target=read, args=("server", srv.stdout, len(to_server))),
                   threading.Thread(target=read, args=("client", cli.stdout, len(to_client))),
                   threading.Thread(target=write, args=(srv.stdin, to_client)),
                   threading.Thread(target=write, args=(cli.stdin, to_server))]
        for t in threads:
            t.daemon = True
            t.start()
        deadline = time.monotonic() + timeout
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))

        # Closing the server's input ends the connection; both should exit cleanly.
        srv.stdin.close()
        cli.stdin.close()
        srv.wait(max(1.0, deadline - time.monotonic()))
        cli.wait(max(1.0, deadline - time.monotonic()))
        server_log.seek(0)
        client_log.seek(0)
        return TransferResult(received.get("server", b""), received.get("client", b""),
                              client_log.read().decode(errors="replace"), server_log.read().decode(errors="replace"))
    finally:
        _kill(cli)
        _kill(srv)
        for f in logs:
            f.close()
