"""The screen's backlight: dimmed between games, woken by a touch.

Backends, picked by :func:`open_backlight` from the :data:`BACKENDS` registry:

``sysfs``
    every panel under ``/sys/class/backlight`` (Touch Display 1 and 2 appear there as
    ``10-0045``-style I2C names; HDMI monitors do not appear at all). At the start each
    device's ``max_brightness`` and ``brightness`` are read; :meth:`~SysfsBacklight.dim`
    writes :data:`DIM_FRACTION` of the maximum (at least 1: a panel at 0 is off, and a
    dark table looks dead, not idle); :meth:`~SysfsBacklight.wake` writes back the level
    read at the start. Raspberry Pi OS lets the ``video`` group write ``brightness``
    (raspberrypi-sys-mods' ``60-backlight.rules``), and the desktop user is in it.
``mock``
    no device: the calls are kept in :attr:`MockBacklight.calls`.
``none``
    nothing at all: a laptop, an HDMI monitor, a table that must never dim.

Several devices (a Pi 5 with two DSI panels) are all dimmed and woken together: the
app's window covers the table's screens, a touch on either wakes the table, and one
panel left glaring beside a dimmed one would be a table half asleep.

A device that refuses (no permission, unplugged, gone) makes :attr:`~Backlight.status`
a FAULT with a sentence for people; nothing here raises into the game.

>>> light = open_backlight("mock")
>>> light.dim(); light.dimmed, light.calls
(True, ['dim'])
>>> light.wake(); light.dimmed
False
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from hardware.status import FAULT, READY, Status
from tabletop.messages import Message

log = logging.getLogger(__name__)

ENV_VAR = "TABLETOP_BACKLIGHT"
ROOT = "/sys/class/backlight"
#: How bright a dimmed panel stays, as a share of its maximum: readable up close, not lit
#: for an empty room.
DIM_FRACTION = 0.15
#: Errors that mean the device is no longer there (an unplugged or unbound panel).
GONE = frozenset({errno.ENOENT, errno.ENODEV, errno.ENXIO})


class Backlight(Protocol):
    """What the app needs of a screen's backlight; calls come from the app's one thread."""

    @property
    def status(self) -> Status:
        """READY, or FAULT with the sentence of the last refusal."""

    @property
    def dimmed(self) -> bool:
        """Whether the panel is dim now (a refused dim leaves it lit, and says so here)."""

    def dim(self) -> None:
        """Lower the light (never to off)."""

    def wake(self) -> None:
        """Bring the light back to its level; nothing when not dimmed."""

    def close(self) -> None:
        """Wake the panel for whoever uses the screen next; then do nothing more."""


class NoBacklight:
    """``none``: no light to change; always ready, never dimmed."""

    kind = "none"
    status = Status(READY)
    dimmed = False

    def dim(self) -> None:
        pass

    def wake(self) -> None:
        pass

    def close(self) -> None:
        pass


class MockBacklight:
    """``mock``: records each call (``"dim"``, ``"wake"``, ``"close"``) in :attr:`calls`."""

    kind = "mock"
    status = Status(READY)

    def __init__(self) -> None:
        self.dimmed = False
        self.calls: list[str] = []

    def dim(self) -> None:
        self.dimmed = True
        self.calls.append("dim")

    def wake(self) -> None:
        self.dimmed = False
        self.calls.append("wake")

    def close(self) -> None:
        self.dimmed = False
        self.calls.append("close")


def dim_level(maximum: int, fraction: float = DIM_FRACTION) -> int:
    """The dimmed level of a device whose maximum is ``maximum``: never 0 (off).

    >>> dim_level(255), dim_level(31), dim_level(1)
    (38, 5, 1)
    """
    return max(1, round(maximum * fraction))


class Panel:
    """One device folder of ``/sys/class/backlight``: its levels and its last refusal."""

    def __init__(self, folder: Path, fraction: float = DIM_FRACTION) -> None:
        self.folder = folder
        self.name = folder.name
        self.error: Message | None = None
        self.low = self.normal = 0
        #: Whether the last write was the dim level and the device took it.
        self.dimmed = False
        try:
            maximum = int((folder / "max_brightness").read_text().strip())
            start = int((folder / "brightness").read_text().strip())
            if maximum < 1:
                raise ValueError(f"max_brightness is {maximum}")
        except (OSError, ValueError) as error:
            self._refused(error, Message("backlight {device}: cannot read the brightness "
                                         "({error})", device=self.name, error=_reason(error)))
            return
        self.low = dim_level(maximum, fraction)
        # A level at or below the dim one is a panel left off or left dimmed (the app
        # stopped while dimmed, and systemd started it again): waking it there would keep
        # the table dark for good, so it wakes to the maximum.
        self.normal = start if start > self.low else maximum

    @property
    def readable(self) -> bool:
        return self.normal > 0

    def write(self, level: int) -> None:
        """Set ``level``; a refusal is kept in :attr:`error`, never raised."""
        self.dimmed = False         # a device that refuses is not known to be dim
        if not self.readable:
            return
        try:
            # No O_CREAT: sysfs never gains a file, and a vanished device must fail here
            # rather than leave a stray file behind. O_TRUNC is a no-op on sysfs.
            descriptor = os.open(self.folder / "brightness", os.O_WRONLY | os.O_TRUNC)
            try:
                os.write(descriptor, f"{level}\n".encode("ascii"))
            finally:
                os.close(descriptor)
        except OSError as error:
            self._refused(error, _refusal(self.name, error))
            return
        if self.error is not None:
            log.info("backlight %s: answering again", self.name)
        self.error = None
        self.dimmed = level == self.low < self.normal   # a 0/1 panel cannot look dim

    def _refused(self, error: BaseException, said: Message) -> None:
        if said != self.error:      # once per new refusal, not once per touch
            log.warning("%s", said)
        self.error = said


def _reason(error: BaseException) -> str:
    return (error.strerror if isinstance(error, OSError) and error.strerror else str(error))


def _refusal(device: str, error: OSError) -> Message:
    if isinstance(error, PermissionError):
        return Message("backlight {device}: not allowed to set the brightness "
                       "(is the user in the video group?)", device=device)
    if error.errno in GONE:
        return Message("backlight {device}: the panel has gone", device=device)
    return Message("backlight {device}: cannot set the brightness ({error})",
                   device=device, error=_reason(error))


def devices(root: str | os.PathLike[str] = ROOT) -> list[Path]:
    """The backlight device folders under ``root``, by name (none when it is missing)."""
    try:
        found = [entry for entry in Path(root).iterdir()
                 if (entry / "max_brightness").is_file()]
    except OSError:
        return []
    return sorted(found, key=lambda entry: entry.name)


class SysfsBacklight:
    """``sysfs``: every device under ``root``, dimmed and woken together."""

    kind = "sysfs"

    def __init__(self, root: str | os.PathLike[str] = ROOT,
                 fraction: float = DIM_FRACTION) -> None:
        self.root = Path(root)
        self.panels = [Panel(folder, fraction) for folder in devices(root)]
        self._asked = False         # dim() was the last call: wake() has work to do
        self._closed = False

    @property
    def dimmed(self) -> bool:
        return any(panel.dimmed for panel in self.panels)

    @property
    def status(self) -> Status:
        if not self.panels:
            return Status(FAULT, Message("no screen backlight under {folder}",
                                         folder=str(self.root)))
        for panel in self.panels:
            if panel.error is not None:
                return Status(FAULT, panel.error)
        return Status(READY)

    def dim(self) -> None:
        if self._closed:
            return
        self._asked = True
        for panel in self.panels:
            panel.write(panel.low)

    def wake(self) -> None:
        if self._closed or not self._asked:
            return
        self._asked = False
        for panel in self.panels:
            panel.write(panel.normal)

    def close(self) -> None:
        self.wake()
        self._closed = True


@dataclass(frozen=True)
class Backend:
    """One entry of :data:`BACKENDS`: a name and how to build it from the devices' folder."""

    name: str
    factory: Callable[[Path], Backlight]


#: Backend name -> :class:`Backend`. Extend with :func:`register_backend`.
BACKENDS: dict[str, Backend] = {
    backend.name: backend for backend in (
        Backend("sysfs", SysfsBacklight),
        Backend("mock", lambda root: MockBacklight()),
        Backend("none", lambda root: NoBacklight()),
    )
}


def register_backend(name: str, factory: Callable[[Path], Backlight]) -> Backend:
    """Make ``open_backlight(name)`` build a backlight with ``factory(root)``."""
    backend = Backend(name.lower(), factory)
    BACKENDS[backend.name] = backend
    return backend


def _automatic(root: Path) -> str:
    found = devices(root)
    if not found:
        return "none"
    if not any(os.access(folder / "brightness", os.W_OK) for folder in found):
        # A laptop's panel belongs to its desktop, not to us; on a Pi this is a missing
        # video group, said once here rather than as a fault on every idle spell.
        log.warning("backlight: %s found but not writable by this user: not dimming",
                    ", ".join(folder.name for folder in found))
        return "none"
    return "sysfs"


def open_backlight(kind: str | None = "auto", root: str | os.PathLike[str] = ROOT,
                   environ: Mapping[str, str] = os.environ) -> Backlight:
    """The backlight of backend ``kind``; ``"auto"`` (or None): ``$TABLETOP_BACKLIGHT``,
    else ``sysfs`` when a device under ``root`` may be written, else ``none``.

    >>> open_backlight(root="/nonexistent", environ={}).kind
    'none'
    >>> open_backlight(environ={"TABLETOP_BACKLIGHT": "mock"}).kind
    'mock'
    >>> open_backlight("lamp")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: unknown backlight backend 'lamp'; backends are sysfs, mock, none...
    """
    chosen = (kind or "auto").strip().lower()
    if chosen == "auto":
        chosen = environ.get(ENV_VAR, "").strip().lower() or "auto"
    if chosen == "auto":
        chosen = _automatic(Path(root))
    if chosen not in BACKENDS:
        raise ValueError(f"unknown backlight backend {chosen!r}; "
                         f"backends are {', '.join(BACKENDS)}")
    return BACKENDS[chosen].factory(Path(root))
