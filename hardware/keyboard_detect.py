"""Whether a real keyboard is plugged in: without one, names are typed on the touchscreen.

Linux names every keyboard's event device ``*-event-kbd`` under
``/dev/input/by-id`` (USB) or ``/dev/input/by-path`` (built in). A Pi with
only its touchscreen has none, and the app then docks an on-screen keyboard.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> keyboard_plugged([str(folder)])
False
>>> (folder / "usb-Logitech_K120-event-kbd").touch()
>>> keyboard_plugged([str(folder)])
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

INPUT_FOLDERS = ("/dev/input/by-id", "/dev/input/by-path")


def keyboard_plugged(folders: Iterable[str] = INPUT_FOLDERS) -> bool:
    """Whether any of ``folders`` names a keyboard's event device."""
    for folder in map(Path, folders):
        try:
            if any(entry.name.endswith("-event-kbd") for entry in folder.iterdir()):
                return True
        except OSError:      # no such folder (no input devices of that kind): look on
            continue
    return False
