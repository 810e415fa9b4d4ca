"""stitch-check: its help, its verdict and exit status (never its speed,
which a test cannot judge), and the openssl.cnf lines it prints taking effect."""

import os
import re
import subprocess


def check(stitch_check, modules_dir, *args, env=None, timeout=120):
    cmd = [stitch_check, f"--provider-path={modules_dir}", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def test_help_is_a_manual_page(stitch_check):
    out = subprocess.run([stitch_check, "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    for heading in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS"):
        assert re.search(rf"^{heading}$", out.stdout, re.M), heading


def test_bad_arguments_exit_2(stitch_check, modules_dir):
    assert check(stitch_check, modules_dir, "--frobnicate").returncode == 2
    assert check(stitch_check, modules_dir, "--kernel=avx2", "--all-sets").returncode == 2
    assert check(stitch_check, modules_dir, "--time=0").returncode == 2


def test_missing_module_exits_2(stitch_check, tmp_path):
    out = subprocess.run([stitch_check, f"--provider-path={tmp_path}", "--time=1"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2
    assert "stitch did not start" in out.stderr


def test_portable_is_slower_and_fails_the_check(stitch_check, modules_dir):
    # The reference kernels are several times slower than any default
    # provider at 16 KiB: the verdict must say so and the exit must gate.
    out = check(stitch_check, modules_dir, "--kernel=portable", "--time=2")
    assert out.returncode == 1, out.stdout + out.stderr
    assert re.search(r"^verdict: slower at .*TLS 1\.3 seal 16 KiB", out.stdout, re.M), out.stdout
    assert "as asked (--kernel): portable" in out.stdout


def test_forced_down_dispatch_fails_the_check(stitch_check, modules_dir):
    env = dict(os.environ, STITCH_CLEAR_CPUID="all")
    out = check(stitch_check, modules_dir, "--time=2", env=env)
    assert out.returncode == 1, out.stdout
    assert "as chosen here: portable" in out.stdout


def test_report_names_cpu_set_rows_and_agrees_with_its_exit(stitch_check, modules_dir):
    out = check(stitch_check, modules_dir, "--time=2")
    assert out.returncode in (0, 1), out.stderr
    assert re.search(r"^CPU: .*family 0x[0-9a-f]+ model 0x[0-9a-f]+", out.stdout, re.M), out.stdout
    for row in ("TLS 1.3 seal      64 B", "TLS 1.3 open    64 KiB", "raw ChaCha20     1 KiB", "OpenSSH open     1 KiB"):
        assert row in out.stdout, out.stdout
    assert re.search(r"^run noise .*±\d+%", out.stdout, re.M)
    verdict = re.search(r"^verdict: (.*)$", out.stdout, re.M).group(1)
    assert verdict.startswith("faster at every size measured") == (out.returncode == 0), verdict


def test_conf_lines_take_effect(stitch_check, modules_dir, stitch_conf, env_stitch_conf, tmp_path):
    out = check(stitch_check, modules_dir, "--conf", "--time=3", timeout=300)
    assert out.returncode in (0, 1), out.stderr
    best = re.search(r"^best set: (\S+)", out.stdout, re.M).group(1)
    lines = out.stdout[out.stdout.index("[stitch_sect]"):]
    assert re.search(rf"^kernel = {re.escape(best)}$", lines, re.M), lines
    conf = tmp_path / "pinned.cnf"
    conf.write_text(stitch_conf.read_text() + "\n" + lines)
    env = dict(env_stitch_conf, OPENSSL_CONF=str(conf))
    st = subprocess.run([stitch_check, "--status"], env=env, capture_output=True, text=True, timeout=60)
    assert st.returncode == 0, st.stdout
    assert f"`kernel = {best}`): kernel {best}," in st.stdout, st.stdout
