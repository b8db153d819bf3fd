"""A safe way to switch the Pi off from the touchscreen.

The game's journal must be closed before the power goes: ``safe_shutdown``
runs the caller's ``close`` step first (for instance, closing the journal),
flushes every file system to the SD card, and only then asks the system to
power off. If closing fails, the power stays on and the error is reported, so
a confirmed action can never be lost to a shutdown.

>>> import sys
>>> steps = []
>>> safe_shutdown(lambda: steps.append("journal closed"),
...               command=[sys.executable, "-c", "pass"]).ok
True
>>> steps
['journal closed']
"""

from __future__ import annotations

import os
import subprocess
from typing import Callable, Sequence

from hardware.status import FAULT, READY, Status
from tabletop.messages import Message

#: What powers the Pi off; the desktop user the app runs as may run it (hardware/pi/tabletop.sudoers).
POWER_OFF = ("sudo", "-n", "/usr/bin/systemctl", "poweroff")


def safe_shutdown(close: Callable[[], None], command: Sequence[str] = POWER_OFF,
                  timeout: float = 30.0) -> Status:
    """Close (``close()``), sync the disks, then power off. The Status says how it went."""
    try:
        close()
    except Exception as error:  # noqa: BLE001 - any failure must keep the power on
        return Status(FAULT, Message("not switching off: closing the game failed ({error})",
                                     error=str(error)))
    os.sync()
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Status(FAULT, Message("the game is saved, but power-off failed: {error}",
                                     error=str(error)))
    if done.returncode != 0:
        if done.stderr.strip():
            return Status(FAULT, Message("the game is saved, but power-off failed: {error}",
                                         error=done.stderr.strip()))
        return Status(FAULT, Message("the game is saved, but power-off failed: exit code {code}",
                                     code=done.returncode))
    return Status(READY, Message("the game is saved; switching off"))
