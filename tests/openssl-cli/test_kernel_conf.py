"""openssl.cnf's `kernel = ...` in stitch's section, as an administrator
writes it: conf/stitch.cnf with the line added, through OPENSSL_CONF. Which
sets this CPU can run is read independently from /proc/cpuinfo (and the
STITCH_CLEAR_CPUID mask the suite may run under); stitch must run exactly the
named set where the CPU has it, and refuse to start, leaving OpenSSL on its
default provider, where it has not or the word is unknown."""

import os
import re
import subprocess

import pytest

SETS = ["auto", "avx512-ifma", "avx512", "avx2", "portable"]


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def runnable(name):
    """Whether dispatch may run `name` here: the CPU's flags less the mask."""
    flags = cpu_flags()
    mask = set(os.environ.get("STITCH_CLEAR_CPUID", "").split(","))
    avx2 = {"avx2", "bmi2"} <= flags and not mask & {"all", "avx2", "bmi2"}
    avx512 = avx2 and {"avx512f", "avx512dq", "avx512bw", "avx512vl"} <= flags and not mask & {"all", "avx512"}
    ifma = avx512 and "avx512ifma" in flags and "avx512ifma" not in mask
    return {"auto": True, "portable": True, "avx2": avx2, "avx512": avx512, "avx512-ifma": ifma}[name]


def conf_with(tmp_path, stitch_conf, kernel):
    path = tmp_path / f"stitch-{kernel.replace('/', '_')}.cnf"
    # A later header for the same section adds to it (OpenSSL's NCONF).
    path.write_text(stitch_conf.read_text() + f"\n[stitch_sect]\nkernel = {kernel}\n")
    return path


def env_for(env_stitch_conf, conf):
    env = dict(env_stitch_conf)
    env["OPENSSL_CONF"] = str(conf)
    return env


def status(stitch_check, env):
    return subprocess.run([stitch_check, "--status"], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("kernel", SETS)
def test_kernel_setting_runs_that_set_or_refuses(kernel, tmp_path, stitch_conf, env_stitch_conf, run, stitch_check):
    env = env_for(env_stitch_conf, conf_with(tmp_path, stitch_conf, kernel))
    providers = run(["list", "-providers"], env).stdout.decode()
    st = status(stitch_check, env)
    if runnable(kernel):
        assert re.search(r"^  stitch$", providers, re.M), providers
        assert st.returncode == 0, st.stdout + st.stderr
        m = re.search(r"kernel (\S+),", st.stdout)
        assert m, st.stdout
        if kernel != "auto":
            assert m.group(1) == kernel, st.stdout
    else:
        # What an administrator sees: stitch absent, OpenSSL on its default provider.
        assert not re.search(r"^  stitch$", providers, re.M), providers
        assert st.returncode == 2, st.stdout
        assert f"kernel = {kernel}: this CPU cannot run that kernel set; stitch not started" in st.stdout, st.stdout
        run(["enc", "-chacha20", "-K", "00" * 32, "-iv", "00" * 16, "-in", "/dev/null"], env)


@pytest.mark.parametrize("word", ["bogus", "AVX2", "avx2,portable"])
def test_unknown_kernel_word_is_refused(word, tmp_path, stitch_conf, env_stitch_conf, run, stitch_check):
    env = env_for(env_stitch_conf, conf_with(tmp_path, stitch_conf, word))
    providers = run(["list", "-providers"], env).stdout.decode()
    assert not re.search(r"^  stitch$", providers, re.M), providers
    st = status(stitch_check, env)
    assert st.returncode == 2
    assert f"kernel = {word}: unknown kernel set (auto, avx512-ifma, avx512, avx2, portable)" in st.stdout, st.stdout
