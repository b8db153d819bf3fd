"""A pytest plugin for ``bench/suite.py --profile``: each test's CPU and memory, one JSON line.

Loaded as ``-p bench.suite_profile`` with ``SUITE_PROFILE=PREFIX`` set; each
worker appends to ``PREFIX.<worker>.jsonl``: the test's id, the CPU-seconds
of the worker itself (``own``) and of the commands it waited for
(``children``), the wall time, and the worker's resident memory after the
test and at its peak (KiB).
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator

import pytest


def _resident_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    own, children, wall = time.process_time(), _children_cpu(), time.perf_counter()
    yield
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    record = {"id": item.nodeid, "own": round(time.process_time() - own, 3),
              "children": round(_children_cpu() - children, 3),
              "wall": round(time.perf_counter() - wall, 3), "rss": _resident_kib(),
              "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
    prefix = os.environ.get("SUITE_PROFILE")
    if prefix:
        with open(f"{prefix}.{worker}.jsonl", "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
