"""Fixtures of tests/connections (defined in support.py, which tests elsewhere import too)."""

from tests.connections.support import fake, fake_server, machine

__all__ = ["fake", "fake_server", "machine"]
