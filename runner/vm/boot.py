"""Booting a kernel with virtme-ng: on the host's filesystem, under the machine lock, with KVM
when it works and TCG when not, and never a qemu left behind.

virtme-ng (`vng`) boots the kernel with the host's root as the guest's, read-only, with /var,
/tmp and /root overlaid (the guest's changes stay in the guest) and one host folder shared
writable (where the guest leaves its results), both over 9p. Its process tree (vng, a shell,
virtme-run and qemu) runs in a process group of its own, recorded in build/vm/guests/ with the memrun
that owns it: Ctrl-C and SIGTERM kill the group at once; after a SIGKILL of memrun, the next
memrun command finds the record of an owner that is gone, kills the group and says so (recover).

KVM: /dev/kvm can be present and still hang a guest (nested virtualisation), so it is trusted only
after a short probe boot of the same kernel ran a command and came back; the answer is kept in
build/vm/kvm.json per host and guest kernel. Without it the guest runs under qemu's TCG
emulation: about ten times slower in time, the same in memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from runner.paths import BUILD_DIR, ROOT
from runner.state import Owner

GUESTS = BUILD_DIR / "vm" / "guests"
KVM_CACHE = BUILD_DIR / "vm" / "kvm.json"
KVM_PROBE_S = 90.0  # a KVM boot that has not run `true` by then is hung, not slow
OVERLAID = ("/var", "/tmp", "/root")
# The drivers of emulated hardware no guest of memrun uses, which the guest's kernel refuses to
# load (module_blacklist=): without KVM virtme-ng boots qemu's q35 machine, whose LPC and SMBus
# controllers, watchdogs, SATA CD-ROM, PC speaker and mouse udev loaded one by one before the
# command could start, with KVM inside the guest, CPU frequency and crypto drivers: 10 of a
# TCG boot's ~21 s before the command (dmesg: udev settling from 9 s to 27 s, 12 s with these
# refused). The guest's root and shared folder are 9p, its runs use no device.
UNUSED_MODULES = (
    "lpc_ich", "i2c_i801", "i6300esb", "iTCO_wdt", "iTCO_vendor_support", "ahci", "libata", "sr_mod",
    "cdrom", "sg", "psmouse", "pcspkr", "button", "kvm_amd", "kvm_intel", "kvm", "powernow_k8",
    "cryptd", "aesni_intel",
)  # fmt: skip


class VmError(RuntimeError):
    """A guest that cannot be had here; the message says why, in one line."""


def missing_tools() -> list[str]:
    """What a boot needs that is not here, as the packages that provide it."""
    need = []
    if not shutil.which("qemu-system-x86_64"):
        need.append("qemu-system-x86 (apt)")
    if not shutil.which("busybox"):
        need.append("busybox-static (apt)")
    if not vng().exists():
        need.append("virtme-ng (pip, into memrun's venv)")
    return need


def vng() -> Path:
    return Path(sys.executable).with_name("vng")


@dataclass(frozen=True)
class Guest:
    image: Path  # the kernel's vmlinuz
    release: str
    memory: int  # bytes
    cpus: int
    kvm: bool
    share: Path  # the one host folder the guest may write

    def argv(self, command: str) -> list[str]:
        out = [str(vng()), "-r", str(self.image), "--memory", f"{max(256, self.memory >> 20)}M"]
        # 9p at once: virtme-ng tries virtiofs first, for the root and again for the shared folder,
        # and waits 3.1 s each time for a virtiofsd that never starts when the one found is qemu's
        # C daemon (Debian 12's qemu-system-common), which refuses the Rust daemon's options; then
        # it takes 9p anyway (6.2 s of every boot here, before qemu started)
        out += ["--cpus", str(self.cpus), "--force-9p"]
        if not self.kvm:
            out.append("--disable-kvm")
        for d in OVERLAID:
            out += ["--overlay-rwdir", d]
        out += ["--append", f"module_blacklist={','.join(UNUSED_MODULES)}"]
        return [*out, "--rwdir", str(self.share), "--cwd", str(ROOT), "--exec", command]


def _env() -> dict[str, str]:
    bin_dir = Path(sys.executable).parent
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}


def _record(pgid: int, release: str) -> Path:
    GUESTS.mkdir(parents=True, exist_ok=True)
    path = GUESTS / f"{pgid}.json"
    path.write_text(json.dumps({"pgid": pgid, "release": release, "owner": Owner.me().to_dict()}))
    return path


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


NO_STATUS = 255  # virtme-ng's exit when the guest never wrote its command's status (panic, failed init)
LOGS = BUILD_DIR / "vm" / "logs"
KEPT_LOGS = 20


def run(
    guest: Guest,
    command: str,
    timeout: float | None = None,
    capture: bool = False,
    console: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Boot the guest and run command (a shell line) in it as root; the guest's output is its
    stdout (shown as it comes unless captured, and copied to the file `console` if given, so a
    guest that dies can be read afterwards). The process group is killed whatever happens."""
    teed = console is not None and not capture
    piped = capture or teed
    proc = subprocess.Popen(
        guest.argv(_script(guest, command)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if piped else None,
        stderr=subprocess.PIPE if piped else None,
        text=True,
        errors="replace",
        env=_env(),
        start_new_session=True,  # a group of its own: killed as one, without memrun in it
    )
    record = _record(proc.pid, guest.release)
    copiers: list[threading.Thread] = []
    if teed and console is not None:
        kept = console.open("w", encoding="utf-8")
        lock = threading.Lock()
        for stream, shown in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr)):
            copier = threading.Thread(target=_tee, args=(stream, shown, kept, lock), daemon=True)
            copier.start()
            copiers.append(copier)
    try:
        if teed:
            proc.wait(timeout=timeout)
            return subprocess.CompletedProcess(proc.args, proc.returncode, None, None)
        out, err = proc.communicate(timeout=timeout)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        out, err = (None, None) if teed else proc.communicate()
        return subprocess.CompletedProcess(proc.args, -signal.SIGKILL, out, err)
    finally:
        _kill_group(proc.pid)
        with contextlib.suppress(ChildProcessError, subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        for copier in copiers:
            copier.join(timeout=10)
        if teed:
            kept.close()
        record.unlink(missing_ok=True)


COMMAND_FILE = ".memrun-command.sh"


def _script(guest: Guest, command: str) -> str:
    """The command as a script in the guest's shared folder, and the short line that runs it.
    virtme-ng passes --exec on the kernel's command line, which x86 cuts at 2,048 bytes: a
    command with long paths or many variables lost its end there (virtme-ng's init= with it),
    and the guest then waited for nothing, idle, with no error."""
    path = guest.share / COMMAND_FILE
    path.write_text(f"#!/bin/sh\n{command}\n")
    return f"sh {shlex.quote(str(path))}"


def _tee(stream: IO[str], shown: IO[str], kept: IO[str], lock: threading.Lock) -> None:
    """Copy one of the guest's output streams to memrun's own (stdout to stdout, stderr to
    stderr) and, line by line, into its console file."""
    for line in stream:
        shown.write(line)
        shown.flush()
        with lock:
            kept.write(line)
            kept.flush()


def console_file(release: str, attempt: int = 1) -> Path:
    """Where a guest's console is kept: one file per boot, the newest KEPT_LOGS of them."""
    LOGS.mkdir(parents=True, exist_ok=True)
    old = sorted(LOGS.glob("*.log"), key=lambda p: p.stat().st_mtime)
    for path in old[: max(0, len(old) - KEPT_LOGS + 1)]:
        path.unlink(missing_ok=True)
    return LOGS / f"{release}-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{attempt}.log"


def tail(path: Path, lines: int = 15) -> str:
    """The last lines of a console file, for an error message."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def recover(log: Callable[[str], None]) -> list[int]:
    """Kill the guests of memrun processes that are gone (SIGKILLed mid-sweep), saying so; the
    process groups killed."""
    killed: list[int] = []
    if os.environ.get("MEMRUN_IN_VM"):  # a guest's memrun: the records are the host's
        return killed
    for path in sorted(GUESTS.glob("*.json")) if GUESTS.is_dir() else []:
        try:
            data: dict[str, Any] = json.loads(path.read_text())
            owner = Owner.from_dict(data["owner"])
            pgid = int(data["pgid"])
        except (OSError, ValueError, KeyError):
            path.unlink(missing_ok=True)
            continue
        if owner.alive():
            continue
        if _group_alive(pgid):
            _kill_group(pgid)
            killed.append(pgid)
            log(
                f"memrun: stopped the VM of kernel {data.get('release', '?')} (process group {pgid}) "
                f"left running by {owner.describe()}, which is gone"
            )
        path.unlink(missing_ok=True)
    return killed


def virtualisation_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The CPU's hardware virtualisation flags (vmx: Intel VT-x, svm: AMD-V) as the kernel lists
    them; an unreadable cpuinfo counts as having them (the probe boot then decides)."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return {"unknown"}
    flags = {word for line in text.splitlines() if line.startswith("flags") for word in line.split()}
    return flags & {"vmx", "svm"}


def kvm_usable(image: Path, release: str, log: Callable[[str], None]) -> bool:
    """Whether KVM boots this kernel here: /dev/kvm usable, then a probe boot that must run
    `true` within KVM_PROBE_S (kept per host and guest kernel in build/vm/kvm.json)."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        log("memrun: no usable /dev/kvm: the guest runs under TCG emulation (about 10x slower, same memory)")
        return False
    if not virtualisation_flags():
        # KVM runs guests on the CPU's VMX or SVM; a /dev/kvm without them (a sandbox's, a nested
        # host that hides them) hangs a boot, so the probe would only wait its KVM_PROBE_S out
        log(
            "memrun: this CPU shows no vmx or svm flag (/proc/cpuinfo): the guest runs under TCG "
            "emulation (about 10x slower, same memory)"
        )
        return False
    key = f"{os.uname().release} -> {release}"
    try:
        cache = json.loads(KVM_CACHE.read_text())
    except (OSError, ValueError):
        cache = {}
    if key not in cache:
        share = BUILD_DIR / "vm" / "probe"
        share.mkdir(parents=True, exist_ok=True)
        guest = Guest(image, release, 512 << 20, 1, True, share)
        t0 = time.monotonic()
        done = run(guest, "true", timeout=KVM_PROBE_S, capture=True)
        cache[key] = {"ok": done.returncode == 0, "seconds": round(time.monotonic() - t0, 1)}
        KVM_CACHE.parent.mkdir(parents=True, exist_ok=True)
        KVM_CACHE.write_text(json.dumps(cache, indent=1))
    if not cache[key]["ok"]:
        log(
            "memrun: KVM did not boot this kernel here (a probe boot hung or failed, as nested KVM "
            "can): the guest runs under TCG emulation, about 10x slower in time, the same in memory"
        )
    return bool(cache[key]["ok"])
