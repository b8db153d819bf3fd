"""The suite's worker groups hold: tests marked ``xdist_group`` run in one worker.

Several files rely on it: tests/ui/test_window.py starts its Xvfb servers one at a
time, and the demo and marker-edge tests share one played game or one set of rendered
photos per group, made once. pytest 9.2 broke the mark silently (pytest-xdist 3.8 sets
an attribute pytest no longer reads), which doubled that work and let the Xvfb servers
overlap; pyproject.toml pins pytest below it. This runs a small suite as
``./scripts/test`` does and asserts that a group stays together.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

GROUPED = '''
import json, os, pathlib
import pytest

GROUP = pytest.mark.xdist_group("together")

def _note(name):
    with open({out!r}, "a") as out:
        out.write(json.dumps([name, os.environ.get("PYTEST_XDIST_WORKER")]) + "\\n")

@pytest.mark.parametrize("n", range(6))
@GROUP
def test_grouped(n):
    _note("grouped")

@pytest.mark.parametrize("n", range(6))
def test_free(n):
    _note("free")
'''


def test_a_marked_group_runs_in_one_worker(tmp_path: Path):
    out = tmp_path / "workers.jsonl"
    (tmp_path / "test_grouped.py").write_text(GROUPED.format(out=str(out)))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-n", "2", "--dist", "loadgroup", "-o", "addopts=", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    seen = [json.loads(line) for line in out.read_text().splitlines()]
    grouped = {worker for name, worker in seen if name == "grouped"}
    assert len(seen) == 12 and None not in grouped
    assert len(grouped) == 1, f"the group ran in workers {sorted(grouped)}"
