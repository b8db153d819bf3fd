"""Finding the desktop the touchscreen app shows on, from the desktop user's systemd service.

The app runs as the desktop user, in its systemd user service; the session's launcher
(hardware/pi/tabletop-session) hands the service the session's own ``DISPLAY`` and
``WAYLAND_DISPLAY``, and those win. Without them (the service started by hand, or before the
session handed them over) the session is found by its sockets: the Wayland compositor's in
``/run/user/<this process's uid>`` (Raspberry Pi OS bookworm's labwc or wayfire) and the X
server's (or XWayland's) in ``/tmp/.X11-unix``. Kivy's SDL2 draws through X (XWayland on a
Wayland desktop), so a ``DISPLAY`` is what the app needs.

>>> find_screen({"DISPLAY": ":1"})
{}
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Callable, Mapping

RUNTIME_ROOT = "/run/user"
X11_ROOT = "/tmp/.X11-unix"


def _socket(path: Path) -> bool:
    try:
        return stat.S_ISSOCK(path.stat().st_mode)
    except OSError:
        return False


def find_screen(environ: Mapping[str, str], runtime_root: str | None = None,
                x11_root: str | None = None) -> dict[str, str]:
    """The variables that reach the desktop, besides those ``environ`` has (none when it
    names a ``DISPLAY``)."""
    if environ.get("DISPLAY"):
        return {}
    found: dict[str, str] = {}
    if not environ.get("WAYLAND_DISPLAY"):
        # This process's own runtime folder: it runs as the user logged in on the screen.
        runtime = Path(environ.get("XDG_RUNTIME_DIR") or
                       Path(runtime_root or RUNTIME_ROOT) / str(os.getuid()))
        waylands = sorted(p for p in runtime.glob("wayland-*") if _socket(p))
        if waylands:
            found.update(XDG_RUNTIME_DIR=str(runtime), WAYLAND_DISPLAY=waylands[0].name)
    xs = sorted((p for p in Path(x11_root or X11_ROOT).glob("X*")
                 if _socket(p) and p.name[1:].isdigit()),
                key=lambda p: int(p.name[1:]))
    if xs:
        # XWayland or X: Kivy's SDL2 window goes there (the X11 driver is SDL2's default).
        found["DISPLAY"] = f":{xs[0].name[1:]}"
        authority = Path.home() / ".Xauthority"
        if authority.is_file() and not environ.get("XAUTHORITY"):
            found["XAUTHORITY"] = str(authority)
    return found


def wait_for_screen(environ: Mapping[str, str], seconds: float,
                    find: Callable[[Mapping[str, str]], dict[str, str]] = find_screen,
                    sleep: Callable[[float], None] = time.sleep) -> dict[str, str] | None:
    """The desktop's variables once it is up (the service may start before it), or None
    after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        if environ.get("DISPLAY"):
            return {}
        found = find(environ)
        if found:
            return found
        if time.monotonic() >= deadline:
            return None
        sleep(1.0)
