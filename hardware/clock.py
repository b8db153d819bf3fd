"""Whether the clock is true: a Pi 4 has no real-time clock and boots at the last time it
saved, until the network corrects it (systemd-timesyncd, reported by ``timedatectl``).

A score slip says so when its times cannot be trusted.

>>> import sys
>>> synchronised([sys.executable, "-c", "print('yes')"])
True
>>> synchronised([sys.executable, "-c", "print('no')"])
False
>>> synchronised(["/nonexistent/timedatectl"]) is None
True
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

#: Asks systemd whether the system clock is synchronised with a time server.
ASK = ("timedatectl", "show", "--property=NTPSynchronized", "--value")


def synchronised(command: Sequence[str] = ASK, timeout: float = 5.0) -> bool | None:
    """True or False as ``timedatectl`` says; None where it cannot say (no systemd: a laptop
    or a container), for a slip to leave its times unmarked."""
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=timeout,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    answer = done.stdout.strip().lower()
    if done.returncode != 0 or answer not in ("yes", "no"):
        return None
    return answer == "yes"
