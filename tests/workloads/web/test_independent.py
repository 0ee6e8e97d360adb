"""The comparison with an independent generator (runner.workloads.web.independent): the header
lines memrun's client then sends are caught from the generator's own request, and the server's
CPU quota holds the server, never a load generator, to its share of a core (real processes, the
real cpu cgroup)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from runner.workloads.web import independent
from runner.workloads.web.independent import IndependentError, ServerQuota, request_headers

# A stand-in for `vegeta attack` of known behaviour: it reads its target from stdin, as vegeta
# does, and sends one request with the header lines it is given, in their order.
FAKE_GENERATOR = textwrap.dedent(
    """\
    import socket, sys
    url = sys.stdin.readline().split()[1]
    host = url.split("/")[2]
    addr, port = host.split(":")
    lines = sys.argv[sys.argv.index("--lines") + 1].split("|")
    head = "GET / HTTP/1.1\\r\\nHost: %s\\r\\n" % host + "".join(l + "\\r\\n" for l in lines) + "\\r\\n"
    s = socket.create_connection((addr, int(port)))
    s.sendall(head.encode())
    s.recv(4096)
    """
)


def test_the_header_lines_are_the_generators_own_host_aside(tmp_path: Path):
    script = tmp_path / "fake_generator.py"
    script.write_text(FAKE_GENERATOR)
    generator = tmp_path / "vegeta"
    lines = "User-Agent: fake/1|X-Seq: 0"
    generator.write_text(f'#!/bin/sh\nexec {sys.executable} {script} "$@" --lines "{lines}"\n')
    generator.chmod(0o755)
    assert request_headers(generator) == ["User-Agent: fake/1", "X-Seq: 0"]


def _cpu_cgroup(pid: int) -> str:
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(","):
            return path
    return ""


@pytest.mark.serial  # CPU shares of spinning processes
def test_the_quota_holds_the_server_to_its_share_and_leaves_the_generators_alone():
    if not (independent.CPU_V1 / "cpu.cfs_quota_us").is_file():
        with pytest.raises(IndependentError, match="cgroup v1's cpu controller"):
            ServerQuota(0.2)
        return
    spin = "while True: pass"
    server = subprocess.Popen([sys.executable, "-c", spin, "a-server"])
    generator = subprocess.Popen([sys.executable, "-c", spin, "memrun-http"])
    try:
        with ServerQuota(0.2) as quota:
            deadline = time.monotonic() + 5
            while server.pid not in quota.moved and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _cpu_cgroup(server.pid).endswith(quota.path.name)
            assert not _cpu_cgroup(generator.pid).endswith(quota.path.name)
            before = psutil.Process(server.pid).cpu_times()
            t0 = time.monotonic()
            time.sleep(2.0)
            after = psutil.Process(server.pid).cpu_times()
            share = (after.user + after.system - before.user - before.system) / (time.monotonic() - t0)
            assert share <= 0.2 * 1.25, f"the server used {share:.2f} of a core under a 0.2 quota"
        assert not quota.path.exists(), "the quota's cgroup is removed"
        assert not _cpu_cgroup(server.pid).endswith(quota.path.name), "the server is back"
    finally:
        for p in (server, generator):
            p.kill()
            p.wait()
    with pytest.raises(IndependentError, match=r"0\.01 to 1 core"):
        ServerQuota(1.5)
