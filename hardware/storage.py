"""Whether the data folder outlives a power cut: not when it lies in memory.

Raspberry Pi OS's overlay file system (raspi-config: Performance Options,
Overlay File System) keeps the SD card read-only and every write in RAM, which
is lost at power-off: a journal there would lose every game. The overlay is
asked for on the kernel's command line (``boot=overlay``; Ubuntu's overlayroot
says ``overlayroot=tmpfs``), and the folder's mount shows it: the overlay
itself, or a memory file system under it.

>>> MOUNTS = "22 1 0:21 / / rw - overlay overlay rw,lowerdir=/media/root-ro\\n"
>>> bool(in_memory("/home/pi/.local/share/tabletop", MOUNTS, "console=tty1 boot=overlay"))
True
>>> in_memory("/home/pi/.local/share/tabletop", MOUNTS, "console=tty1")
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from tabletop.messages import Message

#: File systems that live in memory.
MEMORY = ("tmpfs", "ramfs")
#: The kernel's command line when the root file system is an overlay over RAM.
OVERLAY_BOOT = re.compile(r"(?:^|\s)(?:boot=overlay|overlayroot=(?!disabled)\S+)(?:\s|$)")


@dataclass(frozen=True)
class Mount:
    """One line of ``/proc/self/mountinfo``: where, and what kind of file system."""

    point: str
    kind: str


def mounts(text: str) -> list[Mount]:
    r"""The mounts of a ``mountinfo`` text (mount points unescaped: ``\040`` is a space).

    >>> mounts("36 35 98:0 / /media/pi/MY\\040STICK rw shared:1 - vfat /dev/sda1 rw\n")
    [Mount(point='/media/pi/MY STICK', kind='vfat')]
    """
    found = []
    for line in text.splitlines():
        before, dash, after = line.partition(" - ")
        fields = before.split()
        if dash and len(fields) >= 5 and after.split():
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            found.append(Mount(point, after.split()[0]))
    return found


def holding(path: str | Path, table: list[Mount]) -> Mount | None:
    """The mount that ``path`` lies on (made or not yet): the deepest mount point above it."""
    path = os.path.realpath(path)
    above = [mount for mount in table
             if path == mount.point or path.startswith(mount.point.rstrip("/") + "/")]
    return max(above, key=lambda mount: len(mount.point), default=None)


def in_memory(path: str | Path, mountinfo: str | None = None,
              cmdline: str | None = None) -> Message | None:
    """Why a game kept in ``path`` would be lost at power-off, or None when it is kept.

    ``mountinfo`` and ``cmdline``: the texts of ``/proc/self/mountinfo`` and
    ``/proc/cmdline`` (read when not given; a system without them is taken as one
    without an overlay).
    """
    cmdline = _read("/proc/cmdline") if cmdline is None else cmdline
    if not OVERLAY_BOOT.search(cmdline):
        return None
    mountinfo = _read("/proc/self/mountinfo") if mountinfo is None else mountinfo
    mount = holding(path, mounts(mountinfo))
    if mount is None or mount.kind not in ("overlay", *MEMORY):
        return None             # a partition of its own, mounted writable: kept
    return Message("the data folder {folder} is on the overlay file system, in memory: a game "
                   "played there is lost when the power goes. Turn the overlay off (sudo "
                   "raspi-config: Performance Options, Overlay File System) or keep the data on "
                   "a writable partition ([paths] data in the configuration)", folder=str(path))


def _read(name: str) -> str:
    try:
        return Path(name).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
