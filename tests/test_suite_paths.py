"""A mistyped test path (``./scripts/test nonexistent_dir``) is named, with the nearest
names or what there is under tests/, and the run stops with pytest's usage status (4)
before any worker starts, instead of pytest-xdist's "no tests ran" (tests/suite_paths.py,
through the suite's conftest). ./scripts/test's own check, before it installs anything,
is in tests/test_setup_scripts.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from suite_paths import advice

ROOT = Path(__file__).resolve().parents[1]


def pytest_in_repository(*args: str) -> subprocess.CompletedProcess:
    """pytest as ./scripts/test runs it, in parallel, from the repository's root."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_XDIST_AUTO_NUM_WORKERS", "PYTEST_XDIST_WORKER")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist",
                           "loadgroup", "-p", "no:cacheprovider", *args], cwd=ROOT,
                          env={**env, "PYTEST_ADDOPTS": ""}, capture_output=True, text=True,
                          timeout=120)


def test_a_path_that_is_not_there_is_named_with_what_there_is():
    run = pytest_in_repository("nonexistent_dir")
    assert run.returncode == 4, run.stdout + run.stderr
    assert run.stderr.startswith(
        "ERROR: no test file or folder nonexistent_dir (paths are from the repository's root, "
        "e.g. tests/engine); under tests/ there are assembly/, "), run.stderr
    assert "engine/" in run.stderr and "test_suite_paths.py" in run.stderr
    assert "no tests ran" not in run.stdout and "Traceback" not in run.stdout + run.stderr
    assert "worker" not in run.stdout, run.stdout         # stopped before any started


@pytest.mark.parametrize("typed, meant", [
    ("engine", "tests/engine or tabletop/engine"),
    ("tests/engin", "tests/engine"),
    ("tests/engine/test_payot.py::test_x", "tests/engine/test_payout.py"),
])
def test_a_mistyped_path_is_offered_the_nearest_names(typed, meant):
    run = pytest_in_repository(typed)
    assert run.returncode == 4, run.stdout + run.stderr
    assert run.stderr == (f"ERROR: no test file or folder {typed.split('::')[0]}: did you mean "
                          f"{meant}? (paths are from the repository's root)\n\n"), run.stderr


def test_an_options_value_is_no_path():
    run = pytest_in_repository("-k", "nonexistent_dir", "tests/suite_paths.py")
    assert run.returncode == 5, run.stdout + run.stderr     # pytest's own: all deselected
    assert "no test file or folder" not in run.stdout + run.stderr


def test_paths_are_said_from_the_folder_pytest_started_in(tmp_path):
    (tmp_path / "tests" / "engine").mkdir(parents=True)
    (tmp_path / "tests" / "test_one.py").write_text("")
    inside = tmp_path / "tests"
    assert advice("engin", inside, tmp_path) == (
        f"no test file or folder engin: did you mean engine? (paths are from {inside})")
    assert advice("nowhere", inside, tmp_path) == (
        f"no test file or folder nowhere (paths are from {inside}, e.g. {inside}/engine); "
        f"under {inside}/ there are engine/, test_one.py")
