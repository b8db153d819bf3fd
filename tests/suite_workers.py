"""How many workers ``pytest -n auto`` (``./scripts/test``) starts: a core each, and one more.

The suite is not all computing: a test waits for a command it started, an X server, a
broker or a browser, and while one worker waits a core would stand idle. One worker more
than the cores keeps them busy, and on a machine busy with other work (a CI runner's
neighbours) the suite keeps its share of the cores: with two other busy processes on two
cores, three workers finished in 8 minutes where two took 11-12 (docs/benchmarks.md).
Each worker can hold about 1.4 GB at its peak (a whole demo game's frames, a Kivy window)
and is given room for 1.5 GiB of the free memory: a machine with less for them all gets
fewer, never fewer than one.

>>> suite_workers(cores=2, available=24 * GIB)
3
>>> suite_workers(cores=2, available=3 * GIB)       # memory for two only
2
>>> suite_workers(cores=4, available=1 * GIB)
1
"""

from __future__ import annotations

import math
import os

GIB = 1024 ** 3
#: The free memory each worker is given room for (its peak, and a margin).
PER_WORKER = 1.5 * GIB


def suite_workers(cores: int, available: float) -> int:
    """Workers for ``cores`` usable cores and ``available`` bytes of free memory."""
    return max(1, min(cores + 1, int(available // PER_WORKER)))


def available_memory() -> float:
    """The free memory the kernel says can be used without swapping (bytes; Linux), or an
    unbounded figure where it does not say (the cores alone decide)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024.0
    except (OSError, ValueError, IndexError):
        pass
    return float("inf")


def usable_cores() -> int:
    """The cores this process may run on (a container's or ``taskset``'s limit included)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def why_workers(workers: int, cores: int, available: float) -> str:
    """Why :func:`suite_workers` gave ``workers``, in the words of the suite's first line
    (the free memory rounded down, so that what it is said to hold adds up).

    >>> why_workers(3, cores=2, available=24 * GIB)
    'one a core (2) and one more'
    >>> why_workers(2, cores=2, available=3 * GIB)
    'the free memory, 3.0 GiB, holds 2 at 1.5 GiB each (not one a core and one more: 3)'
    >>> why_workers(1, cores=4, available=1 * GIB)
    'the free memory, 1.0 GiB, holds none at 1.5 GiB each: 1, the least (not one a core and one more: 5)'
    >>> why_workers(1, cores=2, available=1.499 * GIB)
    'the free memory, 1.4 GiB, holds none at 1.5 GiB each: 1, the least (not one a core and one more: 3)'
    """
    if workers >= cores + 1:
        return f"one a core ({cores}) and one more"
    each = f"at {PER_WORKER / GIB:.1f} GiB each"
    held = int(available // PER_WORKER)
    holds = f"holds {held} {each}" if held else f"holds none {each}: {workers}, the least"
    return (f"the free memory, {math.floor(available / GIB * 10) / 10:.1f} GiB, {holds} "
            f"(not one a core and one more: {cores + 1})")


def auto_choice() -> tuple[int, str]:
    """This machine's count for ``-n auto``, and why; ``PYTEST_XDIST_AUTO_NUM_WORKERS``
    overrides it, as it does in pytest-xdist itself."""
    told = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").strip()
    if told.isdigit() and int(told) > 0:
        return int(told), f"PYTEST_XDIST_AUTO_NUM_WORKERS={told}"
    cores, available = usable_cores(), available_memory()
    workers = suite_workers(cores, available)
    return workers, why_workers(workers, cores, available)


def auto_workers() -> int:
    """This machine's count for ``-n auto`` (:func:`auto_choice`)."""
    return auto_choice()[0]

