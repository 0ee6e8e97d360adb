"""Fixtures of tests/connections (defined in support.py, which tests elsewhere import too)."""

from tests.support.connections import fake, fake_server, machine

__all__ = ["fake", "fake_server", "machine"]
