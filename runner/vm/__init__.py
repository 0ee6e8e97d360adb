"""Runs inside a virtual machine of any Debian kernel (`sweep --kernel 6.1`): the same cells on
another kernel, with root, its own limits and cgroup v2, on this machine.

Kernel memory is half of what a connection or an OS thread costs, and it is the kernel's: a
figure from one kernel says little about another. memrun fetches Debian's kernel package by name
(kernels), boots it with virtme-ng on the host's own filesystem (boot: this checkout, its venv
and its built programs, as they are), runs the sweep inside as root (guest), and joins the
guest's runs into the host's results under a label of their own, `<label>@<release>`.
"""

from runner.vm.boot import VmError

__all__ = ["VmError"]
