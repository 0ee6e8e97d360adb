"""A cgroup v2 kernel for the guest suite without an emulator: Debian's user-mode Linux.

`user-mode-linux` is Linux 6.1 built to run as an ordinary process (the memory controller, its
kernel-memory accounting and hostfs are built in), so the guest's processes run on the host's CPU
as host processes, not under qemu's TCG, which took about a core for the whole test suite.

The guest's root is the host's, read-only over hostfs; /tmp, /root and /var are overlaid, the
guest's writes kept in the guest (as runner.vm's qemu guests have them); the one host folder it may
write is `share`, mounted read-write over hostfs. PID 1 is a short shell script (INIT) that mounts
the kernel's file systems and cgroup2, brings up loopback, runs the command and powers off; the
command's exit status is left in the share, since the UML process exits 0 whatever it was.

What UML cannot stand in for is a figure of the real x86 kernel (its page tables, its kernel
stacks' size): tests/vm/test_kernel.py boots the real Debian kernels through memrun's own
`--kernel` code under qemu, and those tests stay there.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.cli import ROOT

PACKAGE = "user-mode-linux"
STATUS = ".uml-status"
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") else None  # UML wants its RAM's file on a tmpfs
NO_STATUS = 255  # the guest died before its command's status was written (a panic, a bad init)

INIT = """#!/bin/sh
# PID 1 of the user-mode Linux guest (tests/vm/uml.py)
export PATH={path}
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
# /tmp, /root and /var as the host has them, the guest's writes kept in the guest (an overlay on
# its /run; overlayfs is a module of Debian's UML, inserted from the package's own folder)
{busybox} insmod /usr/lib/uml/modules/$(uname -r)/kernel/fs/overlayfs/overlay.ko
for d in /tmp /root /var; do
  o=/run/overlay$d
  mkdir -p "$o/lower" "$o/upper" "$o/work"
  mount --bind "$d" "$o/lower"
  mount -t overlay overlay -o "lowerdir=$o/lower,upperdir=$o/upper,workdir=$o/work" "$d"
done
mount -t hostfs hostfs {share} -o {share}
ip link set lo up
cd {cwd}
sh {command}
echo $? >{share}/{status}
exec {busybox} poweroff -f
"""


class UmlUnavailable(RuntimeError):
    """No user-mode Linux here; the message names the package."""


def binary() -> Path | None:
    """Debian's UML kernel (`linux.uml`; `linux` is its alternative's name)."""
    for name in ("linux.uml", "linux"):
        found = shutil.which(name, path=f"{os.environ.get('PATH', '')}:/usr/bin")
        if found:
            return Path(found)
    return None


def missing_tools() -> list[str]:
    need = [] if binary() else [f"{PACKAGE} (apt)"]
    return need + ([] if shutil.which("busybox") else ["busybox-static (apt)"])


def _stop(guard: subprocess.Popen[str]) -> None:
    """The guest gone, whatever it was doing: SIGTERM to the guard shell (which kills the kernel's
    session), then the guard's own group."""
    with contextlib.suppress(ProcessLookupError):
        guard.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        guard.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(guard.pid, signal.SIGKILL)


def run(
    command: str, *, share: Path, memory: int = 2 << 30, timeout: float = 1500
) -> subprocess.CompletedProcess[str]:
    """Run command (a shell line) as root in a UML guest; share is the one host folder it may
    write. The CompletedProcess's stdout is the guest's console, its returncode the command's
    exit status (NO_STATUS where the guest never wrote one). The guest and every host process it
    made are killed on a timeout."""
    kernel = binary()
    if kernel is None or not shutil.which("busybox"):
        raise UmlUnavailable(
            "the cgroup v2 guest needs: apt-get install " + " ".join(p.split()[0] for p in missing_tools())
        )
    share.mkdir(parents=True, exist_ok=True)
    (share / STATUS).unlink(missing_ok=True)
    script = share / ".uml-command.sh"
    script.write_text(f"#!/bin/sh\n{command}\n")
    init = share / ".uml-init.sh"
    path = f"{Path(sys.executable).parent}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    init.write_text(
        INIT.format(
            path=path,
            share=shlex.quote(str(share)),
            cwd=shlex.quote(str(ROOT)),
            command=shlex.quote(str(script)),
            status=STATUS,
            busybox=shutil.which("busybox"),
        )
    )
    init.chmod(0o755)
    argv = [
        # The kernel makes a session of its own, whose ID is its PID, and host processes for its
        # guest in it; a SIGKILL of the kernel's process alone left three of them running. So a
        # shell stands between the test and the kernel: when it gets SIGTERM, from the test (a
        # timeout, the end) or from the kernel (setpriv's parent-death signal: the test died,
        # however it died), it kills the kernel's whole session.
        "setpriv",
        "--pdeathsig",
        "TERM",
        "--",
        "sh",
        "-c",
        '"$@" & kernel=$!; trap "kill -KILL -$kernel" TERM; wait $kernel',
        "uml-guard",
        str(kernel),
        f"mem={memory >> 20}M",
        "rootfstype=hostfs",
        "rootflags=/",
        "ro",
        f"init={init}",
        "con=null",
        "con0=null,fd:1",
        "quiet",
    ]
    # UML keeps the guest's RAM in a file of TMPDIR; each guest process is a host process of the
    # group, which the timeout kills as one
    with tempfile.TemporaryDirectory(prefix="memrun-uml-", dir=SCRATCH) as tmp:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            env={**os.environ, "TMPDIR": tmp},
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop(proc)
            out, err = proc.communicate()
        finally:
            _stop(proc)
    try:
        code = int((share / STATUS).read_text())
    except (OSError, ValueError):
        code = NO_STATUS
    return subprocess.CompletedProcess(argv, code, out, err)
