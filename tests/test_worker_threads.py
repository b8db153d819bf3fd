"""A worker of a parallel run keeps OpenCV to one thread (tests/conftest.py), and so do the
commands it starts: each worker is one core's work."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not os.environ.get("PYTEST_XDIST_WORKER"),
                                reason="only a worker of a parallel run (pytest -n 2) is held")


def test_opencv_runs_one_thread_in_a_worker_and_in_what_it_starts():
    cv2 = pytest.importorskip("cv2")
    assert cv2.getNumThreads() == 1
    started = subprocess.run([sys.executable, "-c", "import cv2; print(cv2.getNumThreads())"],
                             capture_output=True, text=True, check=True)
    assert started.stdout.strip() == "1"
