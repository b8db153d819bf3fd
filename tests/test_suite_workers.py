"""``./scripts/test`` (``pytest -n auto``) starts a worker a core and one more: the suite's
waits leave no core idle, and beside other busy work it keeps its share (tests/suite_workers.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from suite_workers import GIB, available_memory

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("taskset") is None, reason="needs util-linux's taskset")
@pytest.mark.skipif(available_memory() < 3 * GIB, reason="memory for two workers only")
def test_auto_on_one_core_starts_two_workers():
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_XDIST_AUTO_NUM_WORKERS", "PYTEST_XDIST_WORKER")}
    run = subprocess.run(["taskset", "-c", "0", sys.executable, "-m", "pytest", "-n", "auto",
                          "-p", "no:cacheprovider", "tests/suite_workers.py"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "2 workers [1 item]" in run.stdout, run.stdout[-2000:]
