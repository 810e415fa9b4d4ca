"""`openssl speed` runs ChaCha20-Poly1305 on stitch and prints a result."""

import re

import pytest


@pytest.mark.parametrize("mode", [[], ["-aead"]], ids=["evp", "evp-aead"])
def test_speed_chacha20_poly1305_on_stitch(run, env_default, modules_dir, mode):
    args = ["speed", "-provider-path", modules_dir, "-provider", "stitch", "-provider", "default",
            "-propquery", "provider=stitch", "-mr", "-seconds", "1", "-bytes", "16384", *mode,
            "-evp", "chacha20-poly1305"]
    out = run(args, env_default, timeout=30).stdout.decode()
    # -mr prints "+F:<n>:<cipher>:<bytes per second at each size>".
    rates = re.findall(r"^\+F:\d+:([^:]+):([0-9.]+)", out, re.M)
    assert rates, out
    name, rate = rates[0]
    assert name.lower() == "chacha20-poly1305", out
    assert float(rate) > 0, out
