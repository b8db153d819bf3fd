"""What every test of the suite shares: the process starts as a command typed at a terminal.

A suite started in the background (``./scripts/test &``, ``nohup``, a CI runner's shell)
inherits Ctrl-C ignored, and every command a test starts would inherit it too: a test
that presses Ctrl-C (SIGINT) in ``simulate --games 100000`` would wait for all 100,000
games, then fail. Restored here, the tests' commands see Ctrl-C as at a terminal.
"""

from __future__ import annotations

import signal

#: Not a module of doctests: ``--doctest-modules`` would import it as ``conftest`` after the
#: folders' own conftest modules, and stop at the clash of names.
collect_ignore = ["conftest.py"]


def pytest_configure() -> None:
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        # A handler of Python's own: reset to the default in a command started (at exec).
        signal.signal(signal.SIGINT, signal.default_int_handler)
