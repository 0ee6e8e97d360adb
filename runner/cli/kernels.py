"""`--kernel K` on the measuring commands (sweep, capacity, bisect): the option, its check before
anything is built, and one guest's run with its one-line outcome. The VM itself is runner.vm's."""

from __future__ import annotations

import sys

import click

from runner.cli.app import InputError, err
from runner.results import ResultsDir


def kernel_option(what: str):  # type: ignore[no-untyped-def]
    """--kernel, repeatable; `what` names what runs inside ("the sweep", "each search")."""
    return click.option(
        "--kernel",
        "kernels",
        multiple=True,
        metavar="K",
        help=f"Run {what} inside a VM of this Debian kernel (repeatable): a line (6.1, 6.12: the "
        "newest apt knows), a package (linux-image-6.12.117+deb12-amd64), or 'host' for this machine "
        "itself. The guest boots on this filesystem with virtme-ng (KVM when a probe boot shows it "
        "works, else TCG: about 10x slower, the same memory), gets --memory-cap as its RAM (by "
        "default a power of two within this machine's RAM, the same at every boot) and its CPUs, "
        "raises its own limits, and its runs join OUT labelled LABEL@RELEASE.",
    )


def check_kernels(kernels: tuple[str, ...]) -> None:
    """Every --kernel resolved before anything is built: one that apt does not know is one line."""
    from runner.vm import VmError
    from runner.vm import kernels as debian

    for kernel in kernels:
        try:
            debian.resolve(kernel)
        except VmError as e:
            raise InputError(str(e)) from None


def is_host(kernel: str) -> bool:
    return kernel.strip() == "host"


def in_guest(kernel: str, command: str, args: list[str], out: ResultsDir, label: str, cap: int | None):  # type: ignore[no-untyped-def]
    """`memrun COMMAND ARGS` in a guest of the kernel, its runs joined into OUT; the guest's memory
    is the cap given, else a power of two within the host's RAM (runner.vm.guest.memory_for).
    Returns runner.vm.guest.GuestRun."""
    from runner.vm import VmError, guest

    memory = guest.memory_for(cap)
    try:
        done = guest.run(kernel, command, args, out, label, memory, log=err)
    except VmError as e:
        raise InputError(str(e)) from None
    except KeyboardInterrupt:
        click.echo(
            f"interrupted: the guest of {kernel} was stopped; nothing of it was added to {out.path}", err=True
        )
        sys.exit(130)
    err(
        f"{done.release}: {done.merged.runs:,} runs"
        + (f" and {done.merged.capacity:,} capacity answers" if done.merged.capacity else "")
        + f" joined into {out.path} as {done.label!r} "
        f"({'KVM' if done.kvm else 'TCG'}, {done.wall_s:.0f} s from boot to shutdown)"
    )
    return done
