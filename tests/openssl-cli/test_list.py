"""`openssl list` sees the stitch provider and its three ciphers."""

import re

STITCH_CIPHERS = {"chacha20-poly1305", "chacha20", "chacha20-poly1305@openssh.com"}


def provided_ciphers(listing):
    """Maps each provider to the set of cipher names it offers, from the
    'Provided:' part of `openssl list -cipher-algorithms` (lower case)."""
    offered = {}
    in_provided = False
    for line in listing.splitlines():
        if not line.startswith(" "):
            in_provided = line.strip() == "Provided:"
            continue
        if not in_provided:
            continue
        names, sep, provider = line.strip().rpartition(" @ ")
        assert sep, f"unexpected line in 'Provided:': {line!r}"
        # "{ 1.2.3, NAME, ALIAS }" for algorithms with several names, else "NAME".
        for name in names.strip("{} ").split(","):
            offered.setdefault(provider.strip(), set()).add(name.strip().lower())
    return offered


def test_list_providers_shows_stitch_active(run, env_default, stitch_args):
    out = run(["list", "-providers", *stitch_args], env_default).stdout.decode()
    # "  stitch" as a provider entry, then its status line.
    assert re.search(r"^  stitch$", out, re.M), out
    assert re.search(r"status: active", out), out


def test_list_cipher_algorithms_shows_the_three_ciphers_at_stitch(run, env_default, stitch_args):
    out = run(["list", "-cipher-algorithms", *stitch_args], env_default).stdout.decode()
    offered = provided_ciphers(out)
    assert STITCH_CIPHERS <= offered.get("stitch", set()), out
    assert set(offered) == {"stitch"}, "only stitch was loaded"


def test_list_through_conf_shows_stitch_beside_default(run, env_stitch_conf):
    providers = run(["list", "-providers"], env_stitch_conf).stdout.decode()
    assert re.search(r"^  stitch$", providers, re.M), providers
    assert re.search(r"^  default$", providers, re.M), providers
    offered = provided_ciphers(run(["list", "-cipher-algorithms"], env_stitch_conf).stdout.decode())
    assert STITCH_CIPHERS <= offered.get("stitch", set())
    assert {"chacha20", "chacha20-poly1305"} <= offered.get("default", set())
