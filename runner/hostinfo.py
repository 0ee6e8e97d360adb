"""Describe the machine a sweep ran on, so a figure can be traced to its hardware and software."""

from __future__ import annotations

import os
import platform
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil

from runner import __version__
from runner.measure import cgroups
from runner.paths import ROOT


def cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


REVISION_ENV = "MEMRUN_GIT_REVISION"


def git_revision() -> str | None:
    """The checkout's commit, "-dirty" if a tracked file changed. A guest (runner.vm) runs the
    host's checkout and is told the host's answer in REVISION_ENV: its own `git status` would read
    every tracked file through the VM's shared folder, where no stat matches the index (about
    ten seconds of a sweep's start under TCG)."""
    if told := os.environ.get(REVISION_ENV):
        return told
    try:
        rev = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if rev.returncode != 0:
        return None
    return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def os_release() -> str | None:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return None


def describe() -> dict[str, Any]:
    placed = cgroups.prepared("auto")
    return {
        "host": socket.gethostname(),
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "ram_bytes": psutil.virtual_memory().total,
        "kernel": platform.release(),
        "os": os_release(),
        "cgroup_version": placed.version,
        "cgroup_reason": placed.reason,
        "cgroup_parent": str(placed.parent) if placed.parent else None,
        "cgroup_setup": placed.how or None,  # what memrun found or did to measure in cgroups here
        "python": sys.version.split()[0],
        "memrun_version": __version__,
        "git_revision": git_revision(),
    }
