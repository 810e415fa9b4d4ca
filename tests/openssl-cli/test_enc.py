"""`openssl enc -chacha20` through stitch gives the default provider's bytes
and round-trips, whether stitch is named on the command line or enabled by
conf/stitch.cnf."""

import os

import pytest

SIZES = [0, 1, 63, 64, 65, (1 << 20) + 7]
KEY = bytes(range(32)).hex()
# The raw ChaCha20 IV is LE32 block counter || 96-bit nonce. The second IV
# starts the counter two blocks before 2^32, so the larger inputs cross the
# carry into the next word, which OpenSSL (and OpenSSH through it) relies on.
IVS = {
    "counter-0": "00000000" + "000000090000004a00000000",
    "counter-near-carry": "feffffff" + "0a0b0c0d0e0f101112131415",
}


@pytest.fixture(params=SIZES, ids=lambda n: f"{n}B")
def plaintext(request, tmp_path):
    path = tmp_path / "plain.bin"
    path.write_bytes(os.urandom(request.param))
    return path


@pytest.mark.parametrize("iv", IVS.values(), ids=IVS.keys())
def test_enc_chacha20_matches_default_and_round_trips(run, env_default, env_stitch_conf, stitch_args, plaintext,
                                                      iv, tmp_path):
    def enc(name, env, extra, src=plaintext, decrypt=False):
        out = tmp_path / name
        run(["enc", "-d" if decrypt else "-e", "-chacha20", "-K", KEY, "-iv", iv, "-in", src, "-out", out, *extra],
            env)
        return out

    reference = enc("default.bin", env_default, ["-provider", "default", "-propquery", "provider=default"])
    expected = reference.read_bytes()
    assert len(expected) == plaintext.stat().st_size

    # stitch alone on the command line: nothing else could have encrypted.
    via_cli = enc("cli.bin", env_default, [*stitch_args, "-propquery", "provider=stitch"])
    assert via_cli.read_bytes() == expected
    # stitch through conf/, fetched by preference (default_properties) ...
    via_conf = enc("conf.bin", env_stitch_conf, [])
    assert via_conf.read_bytes() == expected
    # ... and by a mandatory query, which only conf/ could have satisfied.
    via_conf_only = enc("conf-stitch.bin", env_stitch_conf, ["-propquery", "provider=stitch"])
    assert via_conf_only.read_bytes() == expected

    back = enc("back.bin", env_default, [*stitch_args, "-propquery", "provider=stitch"], src=via_cli, decrypt=True)
    assert back.read_bytes() == plaintext.read_bytes()
    back_conf = enc("back-conf.bin", env_stitch_conf, [], src=via_conf, decrypt=True)
    assert back_conf.read_bytes() == plaintext.read_bytes()
