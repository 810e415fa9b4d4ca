"""`openssl s_server` / `s_client` on loopback with stitch loaded on both sides
through conf/stitch.cnf, in TLS 1.3 (TLS_CHACHA20_POLY1305_SHA256) and TLS 1.2
(ECDHE-RSA-CHACHA20-POLY1305): a few MiB each way, checked by SHA-256.

Against itself stitch could pass with a symmetric bug, so each version also
runs stitch against OpenSSL's default provider in both roles. And since conf/
only prefers stitch, one run per version goes under callgrind to show the
records were sealed and opened by code inside stitch.so.
"""

import hashlib
import os
import shutil

import pytest

import callgrind_cost
import tls_pair

VERSIONS = {
    "tls1.3": (["-tls1_3", "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"],
               "TLSv1.3", "TLS_CHACHA20_POLY1305_SHA256"),
    "tls1.2": (["-tls1_2", "-cipher", "ECDHE-RSA-CHACHA20-POLY1305"],
               "TLSv1.2", "ECDHE-RSA-CHACHA20-POLY1305"),
}
MIB = 1 << 20


@pytest.fixture(scope="session")
def server_cert(run, env_default, tmp_path_factory):
    """A throwaway self-signed RSA certificate and key."""
    d = tmp_path_factory.mktemp("cert")
    run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", d / "key.pem", "-out", d / "cert.pem",
         "-days", "1", "-subj", "/CN=localhost"], env_default)
    return d / "cert.pem", d / "key.pem"


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def check_transfer(result, to_client, to_server, protocol, cipher):
    assert sha256(result.server_received) == sha256(to_server), \
        f"server got {len(result.server_received)} of {len(to_server)} bytes\n{result.server_log}"
    assert sha256(result.client_received) == sha256(to_client), \
        f"client got {len(result.client_received)} of {len(to_client)} bytes\n{result.client_log}"
    # s_client -brief prints what was negotiated.
    assert f"Protocol version: {protocol}" in result.client_log, result.client_log
    assert f"Ciphersuite: {cipher}" in result.client_log, result.client_log


PAIRS = ["stitch-stitch", "stitch-server-default-client", "default-server-stitch-client"]


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("version", VERSIONS.keys())
def test_tls_moves_mebibytes_each_way(openssl, env_default, env_stitch_conf, server_cert, tmp_path, version, pair):
    tls_args, protocol, cipher = VERSIONS[version]
    server_env = env_default if pair.startswith("default-server") else env_stitch_conf
    client_env = env_default if pair.endswith("default-client") else env_stitch_conf
    to_client, to_server = os.urandom(3 * MIB + 5), os.urandom(2 * MIB + 11)
    result = tls_pair.transfer(openssl, tls_args, *server_cert, tls_pair.Side(server_env, []),
                               tls_pair.Side(client_env, []), to_client, to_server, tmp_path)
    check_transfer(result, to_client, to_server, protocol, cipher)


@pytest.mark.parametrize("version", VERSIONS.keys())
def test_tls_records_are_processed_inside_stitch(openssl, env_stitch_conf, server_cert, tmp_path, version):
    valgrind = shutil.which("valgrind")
    assert valgrind, "valgrind is required (scripts/setup-debian.sh installs it)"
    tls_args, protocol, cipher = VERSIONS[version]
    n = 256 * 1024  # small: both sides run under callgrind

    def side(name):
        out = tmp_path / f"{name}.callgrind"
        return tls_pair.Side(env_stitch_conf, [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}",
                                               "--log-file=" + str(tmp_path / f"{name}.valgrind.log")]), out

    (server, server_profile), (client, client_profile) = side("server"), side("client")
    to_client, to_server = os.urandom(n), os.urandom(n)
    result = tls_pair.transfer(openssl, tls_args, *server_cert, server, client, to_client, to_server, tmp_path,
                               timeout=60)
    check_transfer(result, to_client, to_server, protocol, cipher)
    for name, profile in (("server", server_profile), ("client", client_profile)):
        in_stitch = callgrind_cost.cost_in(profile, "/stitch.so")
        # Each side seals n bytes and opens n bytes. Any ChaCha20 and Poly1305
        # costs well over one instruction per byte, so fewer than 2n
        # instructions inside stitch.so means the records went elsewhere.
        assert in_stitch >= 2 * n, f"{name}: only {in_stitch} instructions ran inside stitch.so"
