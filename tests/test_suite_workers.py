"""``./scripts/test`` (``pytest -n auto``) starts a worker a core and one more: the suite's
waits leave no core idle, and beside other busy work it keeps its share (tests/suite_workers.py).
It says how many in a line of its own, also under ``-q``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from suite_workers import GIB, available_memory

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment without the suite's own worker settings (a test runs in a worker)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_XDIST_AUTO_NUM_WORKERS", "PYTEST_XDIST_WORKER")}
    return {**env, "PYTEST_ADDOPTS": "", **extra}


@pytest.mark.skipif(shutil.which("taskset") is None, reason="needs util-linux's taskset")
@pytest.mark.skipif(available_memory() < 3 * GIB, reason="memory for two workers only")
def test_auto_on_one_core_starts_two_workers():
    run = subprocess.run(["taskset", "-c", "0", sys.executable, "-m", "pytest", "-n", "auto",
                          "-p", "no:cacheprovider", "tests/suite_workers.py"],
                         cwd=ROOT, env=_clean_env(), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert re.search(r"^2 workers \[\d+ items?\]$", run.stdout, re.MULTILINE), run.stdout[-2000:]
    assert "tests run in 2 workers (-n auto: one a core (1) and one more)" in run.stdout


@pytest.mark.parametrize("quiet", [["-q"], ["-q", "-q"]])
@pytest.mark.parametrize("workers, env, says", [
    ("2", {}, "tests run in 2 workers (-n 2)"),
    ("auto", {"PYTEST_XDIST_AUTO_NUM_WORKERS": "1"},
     "tests run in 1 worker (-n auto: PYTEST_XDIST_AUTO_NUM_WORKERS=1)"),
])
def test_a_quiet_parallel_run_says_how_many_workers(tmp_path, quiet, workers, env, says):
    """./scripts/test passes -q, under which pytest-xdist says only "bringing up nodes...":
    the suite's conftest says the count in a line of its own, before any test."""
    for name in ("conftest.py", "suite_workers.py"):
        shutil.copy(HERE / name, tmp_path / name)
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    run = subprocess.run([sys.executable, "-m", "pytest", *quiet, "-p", "no:cacheprovider",
                          "-n", workers, "test_one.py"], cwd=tmp_path, env=_clean_env(**env),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert says in lines, run.stdout
    assert lines.index(says) < next(i for i, line in enumerate(lines) if line.startswith(".")), \
        run.stdout


def test_a_run_without_workers_says_nothing_of_them(tmp_path):
    for name in ("conftest.py", "suite_workers.py"):
        shutil.copy(HERE / name, tmp_path / name)
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-n", "0", "test_one.py"], cwd=tmp_path, env=_clean_env(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "worker" not in run.stdout, run.stdout
