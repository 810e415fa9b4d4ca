"""Fixtures for driving the `openssl` command line with stitch.

CTest passes --openssl, --modules-dir (the build directory holding stitch.so)
and --conf-dir (the source conf/ directory). Each test builds the environment
of every command it runs itself, so OPENSSL_CONF never leaks from one command
into another: `env_default` is OpenSSL as shipped, `env_stitch_conf` loads
stitch through conf/stitch.cnf.
"""

import os
import subprocess
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption("--openssl", default=os.environ.get("STITCH_OPENSSL", "openssl"),
                     help="the openssl binary (its libcrypto is the one stitch.so was built against)")
    parser.addoption("--modules-dir", default=os.environ.get("OPENSSL_MODULES"),
                     help="directory that holds stitch.so")
    parser.addoption("--conf-dir", default=os.environ.get("STITCH_CONF_DIR"),
                     help="the repository's conf/ directory (stitch.cnf)")
    parser.addoption("--stitch-check", default=os.environ.get("STITCH_CHECK"),
                     help="the built stitch-check program")


@pytest.fixture(scope="session")
def openssl(request):
    return request.config.getoption("--openssl")


@pytest.fixture(scope="session")
def modules_dir(request):
    value = request.config.getoption("--modules-dir")
    assert value, "--modules-dir (or OPENSSL_MODULES) must name the directory holding stitch.so"
    path = Path(value).resolve()
    assert (path / "stitch.so").is_file(), f"no stitch.so in {path}: build target `stitch` first"
    return path


@pytest.fixture(scope="session")
def stitch_conf(request):
    value = request.config.getoption("--conf-dir")
    assert value, "--conf-dir (or STITCH_CONF_DIR) must name the repository's conf/ directory"
    path = Path(value).resolve() / "stitch.cnf"
    assert path.is_file(), f"missing {path}"
    return path


@pytest.fixture(scope="session")
def stitch_check(request):
    value = request.config.getoption("--stitch-check")
    assert value, "--stitch-check (or STITCH_CHECK) must name the built stitch-check"
    path = Path(value).resolve()
    assert path.is_file(), f"no {path}: build target `stitch-check` first"
    return path


def _base_env():
    # STITCH_CLEAR_CPUID passes through: CTest runs the suite once more with it
    # set to "all", which forces stitch onto its portable kernels.
    env = dict(os.environ)
    for name in ("OPENSSL_CONF", "OPENSSL_MODULES"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="session")
def env_default():
    """OpenSSL as shipped: the system openssl.cnf, the default provider."""
    return _base_env()


@pytest.fixture(scope="session")
def env_stitch_conf(modules_dir, stitch_conf):
    """stitch loaded the way a user enables it: OPENSSL_CONF=conf/stitch.cnf."""
    env = _base_env()
    env["OPENSSL_CONF"] = str(stitch_conf)
    env["OPENSSL_MODULES"] = str(modules_dir)
    return env


@pytest.fixture(scope="session")
def stitch_args(modules_dir):
    """Command-line options that load stitch alone (no default provider)."""
    return ["-provider-path", str(modules_dir), "-provider", "stitch"]


@pytest.fixture(scope="session")
def run(openssl):
    """Runs `openssl ARGS...`; fails the test with its output on a non-zero exit."""

    def _run(args, env, check=True, timeout=60, **kwargs):
        proc = subprocess.run([openssl, *map(str, args)], env=env, capture_output=True, timeout=timeout, **kwargs)
        if check and proc.returncode != 0:
            pytest.fail(f"openssl {' '.join(map(str, args))} exited {proc.returncode}\n"
                        f"stdout: {proc.stdout[-2000:]!r}\nstderr: {proc.stderr[-4000:].decode(errors='replace')}")
        return proc

    return _run
