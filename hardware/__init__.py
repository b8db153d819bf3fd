"""Devices beside the board: cameras, buttons and lights, serial printer and panel.

Shaped like gpiozero: one interface per kind of device and interchangeable
backends (Pi device, USB device, file, simulator, mock) chosen by a source
string, configuration or environment. Nothing here imports the rest of
tabletop: the composition root (``tabletop/cli.py``) joins the parts.

A device fault (a camera unplugged, a printer out of paper, noise on a serial
line) never raises into the game: the device reports a :class:`Status` the
screen can show, and keeps trying.
"""

from hardware.status import FAULT, READY, WAITING, Status

__all__ = ["FAULT", "READY", "Status", "WAITING"]

# Device modules import OpenCV, gpiozero or pyserial: import the one you need,
# e.g. ``from hardware.camera import open_camera``, ``from hardware.controls import
# open_controls``, ``from hardware.printer import ReceiptPrinter``.
