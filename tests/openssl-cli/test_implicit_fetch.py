"""A program that never names a provider (scripts/which-provider.py, the
README's demo) gets stitch for ChaCha20 and ChaCha20-Poly1305 under
conf/stitch.cnf, and the default provider without it."""

import os
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "which-provider.py"


def which(env, *args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=30)


def test_conf_moves_implicit_fetches_to_stitch(env_stitch_conf):
    proc = which(env_stitch_conf, "--require-stitch")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "EVP_chacha20_poly1305()    -> ChaCha20-Poly1305  from provider 'stitch'" in proc.stdout
    assert "EVP_chacha20()             -> ChaCha20           from provider 'stitch'" in proc.stdout
    assert "from provider 'default'" in proc.stdout  # AES-256-GCM: stitch does not take what it does not offer
    kernel = re.search(r"stitch runs its '([\w-]+)' kernels", proc.stdout)
    assert kernel, proc.stdout
    # The .portable run of this suite must really be on the portable kernels.
    if os.environ.get("STITCH_CLEAR_CPUID") == "all":
        assert kernel.group(1) == "portable"
    elif os.environ.get("STITCH_CLEAR_CPUID") == "avx512":
        assert kernel.group(1) in ("portable", "avx2")
    else:
        assert kernel.group(1) in ("portable", "avx2", "avx512", "avx512-ifma")


def test_without_conf_the_default_provider_serves(env_default):
    proc = which(env_default)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "stitch" not in proc.stdout
    assert which(env_default, "--require-stitch").returncode == 1
