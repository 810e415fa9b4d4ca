"""The Poly1305 edge tool as a fixture: one process per test session, fed one
request a line (poly1305_edge_tool.cpp describes them), answering in JSON.
CTest passes --tool; the environment (STITCH_CLEAR_CPUID, OPENSSL_MODULES) is
CTest's."""

import json
import subprocess

import pytest


def pytest_addoption(parser):
    parser.addoption("--tool", required=True, help="the built poly1305_edge_tool")


class Tool:
    def __init__(self, path):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, *words):
        line = " ".join(w if w else "-" for w in words)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        assert answer, f"the tool died on: {line[:200]}"
        return json.loads(answer)

    def close(self):
        self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0


@pytest.fixture(scope="session")
def tool(request):
    t = Tool(request.config.getoption("--tool"))
    yield t
    t.close()
