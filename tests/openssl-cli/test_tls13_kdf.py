"""TLS 1.3's key schedule on stitch: `openssl s_server` and `s_client`
complete handshakes in every TLS 1.3 suite (TLS_AES_128_GCM_SHA256,
TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256) with stitch loaded
through conf/stitch.cnf on both sides, and against OpenSSL's default
provider in each role, and move data both ways.

libssl derives every handshake and traffic secret, key and IV through
EVP_KDF "TLS13-KDF". One handshake per suite runs under callgrind on both
sides, and counts: every one of libssl's EVP_KDF_derive calls must have
landed in stitch's TLS13-KDF (and there must be a key schedule's worth).
"""

import os
import shutil

import pytest

import callgrind_cost
import tls_pair
from test_tls import check_transfer

SUITES = ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"]
PAIRS = ["stitch-stitch", "stitch-server-default-client", "default-server-stitch-client"]
# A TLS 1.3 handshake (no PSK, no HelloRetryRequest) derives: the early,
# handshake and master secrets' extract steps, both handshake and both
# application traffic secrets, a key and an IV for each direction's
# handshake and application keys, two finished keys, the resumption master
# secret and the exporter secret: libssl 3.0.19 makes 21 calls per side
# (counted here on every run). Fewer than 15 would mean a schedule cut short.
MIN_DERIVES_PER_HANDSHAKE = 15


@pytest.fixture(scope="session")
def ec_cert(run, env_default, tmp_path_factory):
    """A throwaway self-signed ECDSA P-256 certificate, as most TLS 1.3 servers now use."""
    d = tmp_path_factory.mktemp("ec-cert")
    run(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", d / "key.pem", "-out", d / "cert.pem", "-days", "1", "-subj", "/CN=localhost"], env_default)
    return d / "cert.pem", d / "key.pem"


def suite_args(suite):
    return ["-tls1_3", "-ciphersuites", suite, "-groups", "X25519"]


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("suite", SUITES)
def test_tls13_handshake_in_every_suite(openssl, env_default, env_stitch_conf, ec_cert, tmp_path, suite, pair):
    server_env = env_default if pair.startswith("default-server") else env_stitch_conf
    client_env = env_default if pair.endswith("default-client") else env_stitch_conf
    to_client, to_server = os.urandom(64 * 1024 + 3), os.urandom(32 * 1024 + 5)
    result = tls_pair.transfer(openssl, suite_args(suite), *ec_cert, tls_pair.Side(server_env, []),
                               tls_pair.Side(client_env, []), to_client, to_server, tmp_path)
    check_transfer(result, to_client, to_server, "TLSv1.3", suite)


@pytest.mark.parametrize("suite", SUITES)
def test_tls13_key_schedule_runs_inside_stitch(openssl, env_stitch_conf, ec_cert, tmp_path, suite):
    valgrind = shutil.which("valgrind")
    assert valgrind, "valgrind is required (scripts/setup-debian.sh installs it)"

    def side(name):
        out = tmp_path / f"{name}.callgrind"
        return tls_pair.Side(env_stitch_conf, [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}",
                                               "--log-file=" + str(tmp_path / f"{name}.valgrind.log")]), out

    (server, server_profile), (client, client_profile) = side("server"), side("client")
    to_client, to_server = os.urandom(1024), os.urandom(1024)
    result = tls_pair.transfer(openssl, suite_args(suite), *ec_cert, server, client, to_client, to_server, tmp_path,
                               timeout=60)
    check_transfer(result, to_client, to_server, "TLSv1.3", suite)
    for name, profile in (("server", server_profile), ("client", client_profile)):
        libssl_derives = callgrind_cost.calls_to(profile, "EVP_KDF_derive")
        in_stitch = callgrind_cost.calls_to(profile, "stitch::prov::(anonymous namespace)::tls13_derive")
        assert libssl_derives >= MIN_DERIVES_PER_HANDSHAKE, f"{name}: only {libssl_derives} EVP_KDF_derive calls"
        assert in_stitch == libssl_derives, \
            f"{name}: {in_stitch} of {libssl_derives} EVP_KDF_derive calls ran stitch's TLS13-KDF"
