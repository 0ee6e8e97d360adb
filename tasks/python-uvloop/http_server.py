"""Serves the http workload (tasks/README.md, "HTTP protocol") with aiohttp's server on the uvloop
event loop: tasks/python/http_server.py (a web.Application with one route, run by web.run_app with
aiohttp's defaults: keep-alive on, keepalive_timeout 75 s, backlog 128; an asyncio task per
connection, and one per request it reads) with uvloop's event loop policy set first, as aiohttp's
docs put uvloop in (docs/faq.rst, and its GunicornUVLoopWebWorker): run_app makes its loop with
asyncio.new_event_loop(), which the policy makes a uvloop loop. uvloop.run does not fit run_app,
which makes and runs its own loop. GET / redirects to /Renard-K.png with K from random.randint (the
random module's Mersenne Twister); any other path gets aiohttp's own 404 (no route). print=None
because run_app prints "======== Running on ..." on stdout otherwise; access_log=None: no access
log."""

import asyncio
import random
import sys

import uvloop
from aiohttp import web

USAGE = "usage: http_server.py PORT IMAGES  (PORT 1-65535, IMAGES >= 1)"


def usage(msg: str) -> None:
    print(msg, USAGE, sep="\n", file=sys.stderr)
    sys.exit(2)


def parse(args: list[str]) -> tuple[int, int]:
    if len(args) != 2:
        usage("wrong number of arguments")
    # isdigit alone would take "²"; int() would take "-1", "+1" and " 1"
    if not all(a.isascii() and a.isdigit() for a in args):
        usage(f"PORT and IMAGES must be non-negative integers: {args}")
    port, images = map(int, args)
    if not 1 <= port <= 65535:
        usage(f"PORT must be from 1 to 65535: {port}")
    if images < 1:
        usage(f"IMAGES must be at least 1: {images}")
    return port, images


def main(port: int, images: int) -> None:
    async def index(request: web.Request) -> web.Response:
        return web.Response(status=302, headers={"Location": f"/Renard-{random.randint(1, images)}.png"})

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    app = web.Application()
    app.add_routes([web.get("/", index)])
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


if __name__ == "__main__":
    main(*parse(sys.argv[1:]))
