"""runner.vm.boot's KVM decision: a CPU that lists no vmx or svm flag gets TCG at once, without
the probe boot (which would hang its KVM_PROBE_S out); one that lists them is probed."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.vm import boot

FLAGS = (
    "processor\t: 0\nflags\t\t: fpu vme sse2 {extra} hypervisor\n\nprocessor\t: 1\nflags\t\t: fpu {extra}\n"
)


@pytest.mark.parametrize(("extra", "found"), [("", set()), ("vmx", {"vmx"}), ("svm lm", {"svm"})])
def test_the_virtualisation_flags_are_read_from_cpuinfo(tmp_path, extra, found):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(FLAGS.format(extra=extra))
    assert boot.virtualisation_flags(cpuinfo) == found


def test_an_unreadable_cpuinfo_leaves_the_decision_to_the_probe(tmp_path):
    assert boot.virtualisation_flags(tmp_path / "missing")


@pytest.mark.parametrize("flags", [set(), {"vmx"}])
def test_without_the_flags_no_probe_boots(tmp_path, monkeypatch, flags):
    monkeypatch.setattr(boot.os, "access", lambda path, mode: True)
    monkeypatch.setattr(boot, "virtualisation_flags", lambda: flags)
    monkeypatch.setattr(boot, "KVM_CACHE", tmp_path / "kvm.json")
    monkeypatch.setattr(boot, "BUILD_DIR", tmp_path)
    probes: list[str] = []

    def probe(guest: boot.Guest, command: str, **kw: object) -> boot.subprocess.CompletedProcess[str]:
        probes.append(command)
        return boot.subprocess.CompletedProcess([], 0, "", "")

    monkeypatch.setattr(boot, "run", probe)
    said: list[str] = []
    usable = boot.kvm_usable(Path("/vmlinuz"), "6.12.1", said.append)
    if flags:
        assert usable and probes == ["true"] and not said
    else:
        assert not usable and probes == [] and "no vmx or svm flag" in said[0]


def test_a_long_command_reaches_the_guest_whole_through_a_short_exec_line(tmp_path):
    """virtme-ng puts --exec on the kernel's command line, which x86 cuts at 2,048 bytes: the
    command goes in a script in the shared folder, and --exec only runs it (as the guest's init
    does, with sh -c)."""
    share = tmp_path / "share"
    share.mkdir()
    guest = boot.Guest(Path("/vmlinuz"), "6.12.1", 256 << 20, 1, False, share)
    long = "X=" + "x" * 5000
    line = boot._script(guest, f"{long} sh -c 'echo ${{#X}} $0' ok; exit 3")
    argv = guest.argv(line)
    assert argv[argv.index("--exec") + 1] == line and len(line) < 200, line
    done = boot.subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=30)
    assert done.returncode == 3 and done.stdout.split() == ["5000", "ok"], done


def test_the_guest_kernel_refuses_the_drivers_of_hardware_no_guest_uses():
    """Under TCG udev loaded the q35 machine's drivers one by one before the command started (10 s
    of a boot): the kernel is told to refuse them, and nothing a guest needs is among them."""
    guest = boot.Guest(Path("/vmlinuz"), "6.12.1", 256 << 20, 1, False, Path("/tmp"))
    argv = guest.argv("true")
    appended = [argv[i + 1] for i, a in enumerate(argv) if a == "--append"]
    assert appended == ["module_blacklist=" + ",".join(boot.UNUSED_MODULES)], appended
    refused = set(boot.UNUSED_MODULES)
    assert {"lpc_ich", "ahci", "i6300esb", "sr_mod"} <= refused
    # the guest's root, overlays, cgroups and sockets: virtiofs, 9p, overlayfs and the network stay
    assert not refused & {"virtiofs", "9p", "9pnet_virtio", "overlay", "fuse", "virtio_net", "netfs"}
