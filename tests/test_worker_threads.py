"""A worker of a parallel run keeps OpenCV and numpy's OpenBLAS to one thread each
(tests/conftest.py), and so do the commands it starts: each worker is one core's work."""

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


def _openblas_threads() -> int | None:
    """How many threads numpy's OpenBLAS runs (None: a BLAS that does not say)."""
    import ctypes

    import numpy

    numpy.ones((64, 64)) @ numpy.ones((64, 64))      # the library is loaded and running
    names = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
             "openblas_get_num_threads")
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "blas" in line.lower() and ".so" in line}
    for path in sorted(paths):
        library = ctypes.CDLL(path)
        for name in names:
            if hasattr(library, name):
                return getattr(library, name)()
    return None


def test_numpy_s_openblas_runs_one_thread_in_a_worker_and_in_what_it_starts():
    threads = _openblas_threads()
    if threads is None:
        pytest.skip("this numpy's BLAS does not say how many threads it runs")
    assert threads == 1
    started = subprocess.run([sys.executable, "-c", "import test_worker_threads as t; "
                              "print(t._openblas_threads())"], cwd=os.path.dirname(__file__),
                             capture_output=True, text=True, check=True)
    assert started.stdout.strip() == "1"
