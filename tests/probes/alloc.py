"""Probe: touch exactly MIB mebibytes (every page written), hold them SLEEP seconds, exit.

Usage: alloc.py MIB [SLEEP] [--children K]   with --children, K forked children each hold MIB at once.
"""

import os
import sys
import time

mib = int(sys.argv[1])
sleep = float(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else 1.0
children = int(sys.argv[sys.argv.index("--children") + 1]) if "--children" in sys.argv else 0


def hold() -> None:
    block = b"\x01" * (mib << 20)  # bytes multiplication writes every page
    print("ready 1", flush=True)
    time.sleep(sleep)
    del block


if children:
    pids = []
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            hold()
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
else:
    hold()
