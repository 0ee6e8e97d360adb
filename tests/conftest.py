"""pytest finds the tests here; the helpers they share are in tests/support/ (no test module
imports another)."""
