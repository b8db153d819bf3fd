"""Ctrl-C in the test suite (``./scripts/test``): one line saying so, not pytest's banner.

The suite's own tests/conftest.py is copied beside a test that waits, and pytest runs
them as ``./scripts/test`` does, in parallel or not, until Ctrl-C (SIGINT) stops it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

WAITING = '''
import pathlib, time

def test_passes():
    pass

def test_waits(tmp_path_factory):
    pathlib.Path({started!r}).write_text("started")
    time.sleep(120)
'''


BRINGING_UP = "bringing up nodes..."
WORKERS = "tests run in "       # the conftest's line saying how many workers


def _progress(seen: str) -> str:
    """What a run printed of its tests' progress: the workers' line and pytest-xdist's
    "bringing up nodes..." lines left out, also while half printed (their dots are no test's)."""
    return "\n".join(line for line in seen.split("\n")
                     if not any(start.startswith(line) or line.startswith(start)
                                for start in (BRINGING_UP, WORKERS)))


def _until_a_test_is_counted(run: subprocess.Popen) -> str:
    """What the run printed up to its first progress dot (or its end)."""
    seen = ""
    while "." not in _progress(seen):
        char = run.stdout.read(1)
        if not char:
            break
        seen += char
    return seen


def _default_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)    # as at a terminal, even in a background run


@pytest.mark.parametrize("workers", ["0", "2"])
def test_ctrl_c_says_it_stopped_in_one_line(tmp_path, workers):
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(HERE / "conftest.py", suite / "conftest.py")
    started = tmp_path / "started"
    (suite / "test_waiting.py").write_text(WAITING.format(started=str(started)))
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-n", workers, str(suite)], cwd=suite, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, preexec_fn=_default_ctrl_c,
                           env={**os.environ, "PYTEST_ADDOPTS": ""})
    try:
        deadline = time.monotonic() + 120
        while not started.exists() and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "the waiting test never started"
        # In parallel the other test may not have been counted yet: wait for its dot (the
        # progress pytest prints once the result has reached it), so that Ctrl-C comes after.
        seen = _until_a_test_is_counted(run)
        run.send_signal(signal.SIGINT)
        out, _ = run.communicate(timeout=120)
        out = seen + out
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 2, out
    assert "stopped (Ctrl-C): the tests that ran are counted below" in out, out
    assert "KeyboardInterrupt" not in out and "threading.py" not in out, out
    assert "1 passed" in out, out
