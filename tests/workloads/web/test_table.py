"""`memrun inspect`'s line about an http run's load client."""

from __future__ import annotations

from runner.workloads.web.table import client_line


def test_the_client_line_names_bad_framing_and_partial_sends_only_where_there_were_any():
    summary = {"sent": 1_200, "wrong": 0, "bad_framing": 0, "partial_sends": 0}
    assert client_line(5, {"summary": summary}) == "load client: 5 connections, sent 1,200, wrong 0"
    summary |= {"bad_framing": 5, "partial_sends": 2}
    line = client_line(5, {"summary": summary})
    assert line == "load client: 5 connections, sent 1,200, wrong 0, bad framing 5, partial sends 2"
