"""memrun's HTTP load client (runner/workloads/web/client.c) on its send and receive paths, driven
by a harness over a socketpair (client_harness.c, the client's source included whole, its send()
the harness's): what a real server cannot be made to do on demand (a partial send), and how each
kind of answer is framed and counted (RFC 9112, 6.3), with no server, no load and no timing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from runner.workloads.web.client import SOURCE

HARNESS = Path(__file__).with_name("client_harness.c")


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> Path:
    """The harness built against the client's source."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("harness") / "client-harness"
    flags = ["-O2", "-Wall", "-Werror", "-Dsend=harness_send", "-Dmain=client_main", "-I", str(SOURCE.parent)]
    subprocess.run([cc, *flags, "-o", str(out), str(HARNESS)], check=True)
    return out


def _lines(harness: Path, *args: str) -> list[dict]:
    proc = subprocess.run([str(harness), *args], capture_output=True, text=True, timeout=10, check=True)
    return [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.mark.parametrize("first", [5, 0])
def test_a_partial_send_goes_on_from_where_it_stopped_and_its_answer_is_not_counted(harness, first):
    """The kernel takes `first` bytes of the request (0: none, EAGAIN): the send is counted, the
    connection stays busy (no other request goes out on it), the rest goes out on EPOLLOUT, so
    the server reads the request exactly once, whole; the answer to it settles the request (it
    is never censored) but is no answer and no latency; the next request goes out whole and its
    answer counts."""
    (r,) = _lines(harness, "partial", str(first))
    assert r["in_parts"] == 1 and r["first_part"] == first and r["ready_while_busy"] == 0
    assert r["whole_once"] == 1 and r["done_sending"] == 1, "the rest from where it stopped, never all again"
    assert r["answered_after_partial"] == 0 and r["latency_after_partial"] == 0 and r["settled"] == 1
    assert r["second_whole"] == 1 and r["partial_sends"] == 1 and r["sent"] == 2
    assert r["answered"] == 1 and r["latency"] == 1 and r["wrong"] == 0 and r["bad_framing"] == 0


def test_each_answer_is_framed_as_http_1_1_says_and_only_right_ones_count(harness):
    """RFC 9112 6.3, case by case: Content-Length (one number, or a list of the same one);
    chunked as the last coding whatever comes before it (`gzip, chunked`, extensions, trailers,
    split anywhere); read to the close without either, or when chunked is not last (a right
    answer once the server closes, counted `close_delimited`; still waiting while it keeps the
    connection open); 1xx skipped, 204 without a body. Wrong status or Location: counted wrong,
    settled, never an answer. What cannot be framed: bad framing, quoted, the connection closed."""
    got = {r.pop("case"): r for r in _lines(harness, "framing")}
    right = {"answered": 1, "latency": 1, "wrong_status": 0, "wrong_location": 0, "bad_framing": 0}
    right["settled"] = 1
    for case in ("content-length", "gzip-chunked", "length-list", "interim"):
        assert got[case] | right == got[case] and got[case]["open"] == 1, (case, got[case])
        assert got[case]["close_delimited"] == 0
    for case in ("no-length-closed", "chunked-not-last"):
        assert got[case] | right == got[case] and got[case]["close_delimited"] == 1, (case, got[case])
    waiting = got["no-length-open"]
    assert waiting["reading_to_close"] == 1 and waiting["answered"] == 0 and waiting["settled"] == 0
    wrong = {"answered": 0, "latency": 0, "bad_framing": 0, "settled": 1, "open": 1}
    kinds = (("status", "wrong_status"), ("no-content", "wrong_status"), ("location", "wrong_location"))
    for case, kind in kinds:
        assert got[case] | wrong | {kind: 1} == got[case], (case, got[case])
    assert "did not answer 302: HTTP/1.1 200 OK" in got["status"]["example"]
    assert "wrong Location: HTTP/1.1 302 Found  Location: /Renard-0.png" in got["location"]["example"]
    bad = {"answered": 0, "latency": 0, "wrong_status": 0, "wrong_location": 0, "bad_framing": 1, "open": 0}
    for case, why in (
        ("length-conflict", "an invalid Content-Length"),
        ("length-invalid", "an invalid Content-Length"),
        ("chunk-invalid", "a malformed chunk size"),
        ("no-status-line", "not an HTTP/1.x status line"),
        ("unasked", "an answer to no request"),
    ):
        assert got[case] | bad == got[case] and got[case]["example"].startswith(why), (case, got[case])
