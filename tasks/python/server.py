"""Measures: memory of N idle TCP connections, each served by its own asyncio task (the coroutine
asyncio.start_server runs per connection) awaiting reader.read(BUFFER_BYTES) on its StreamReader
(tasks/README.md, "Connections protocol")."""

import asyncio
import sys

USAGE = "usage: server.py PORT N BUFFER_BYTES  (PORT 1-65535, N >= 0, BUFFER_BYTES >= 1)"
# The kernel caps listen(2)'s backlog at somaxconn, whose largest value was 65535 until Linux 5.4
# (asyncio's default is 100). Not the C int's 2**31 - 1 that socket.listen would take: asyncio also
# uses the backlog as the number of accept() calls per turn of the loop, and CPython 3.11 does not
# leave that loop on EMFILE (gh-151615), so an fd limit would keep the loop in it for 2**31 turns.
BACKLOG = 65535


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


async def main(port: int, n: int, size: int) -> None:
    loop = asyncio.get_running_loop()
    all_accepted = loop.create_future()
    all_ended = loop.create_future()
    accepted = first_reads = ended = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal accepted, first_reads, ended
        accepted += 1
        if accepted == n:
            all_accepted.set_result(None)
        try:
            if await reader.read(size):
                first_reads += 1
                if first_reads == n:
                    print(f"ready {n}", flush=True)
                while await reader.read(size):
                    pass
        except ConnectionError:  # a reset ends the connection like EOF
            pass
        finally:
            writer.close()
            ended += 1
            if ended == n:
                all_ended.set_result(None)

    server = await asyncio.start_server(serve, "127.0.0.1", port, backlog=BACKLOG, reuse_address=True)
    if n == 0:
        server.close()
        print("ready 0", flush=True)
        return
    await all_accepted
    server.close()  # stop accepting; the accepted connections stay open
    await all_ended


def parse(args: list[str]) -> tuple[int, int, int]:
    if len(args) != 3:
        usage("wrong number of arguments")
    # isdigit alone would take "²"; int() would take "-1", "+1" and " 1"
    if not all(a.isascii() and a.isdigit() for a in args):
        usage(f"PORT, N and BUFFER_BYTES must be non-negative integers: {args}")
    port, n, size = map(int, args)
    if not 1 <= port <= 65535:
        usage(f"PORT must be from 1 to 65535: {port}")
    if size < 1:
        usage(f"BUFFER_BYTES must be at least 1: {size}")
    return port, n, size


if __name__ == "__main__":
    asyncio.run(main(*parse(sys.argv[1:])))
