"""The ``panel`` backend of :mod:`hardware.controls`: the serial button panel.

:class:`PanelControls` wraps :class:`hardware.panel.SerialPanel` (protocol in
``hardware/PANEL.md``) so a panel is interchangeable with the GPIO buttons:
``P``/``L`` lines come out of :meth:`~Controls.events` as the same
``ButtonEvent(button, "press" | "long_press", time)``, :meth:`~Controls.show`
sends ``LED READY|WAITING|FAULT|OFF`` and :meth:`~Controls.beep` sends
``BEEP SHORT`` (``tile_seen``) or ``BEEP LONG`` (``error``).

This module imports pyserial; :func:`hardware.controls.open_controls` imports
it only when the ``panel`` backend is asked for. ``hardware.panel`` imports
nothing from here, so there is no import cycle.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import serial

from hardware.controls.base import ButtonEvent, Controls, ControlsUnavailable
from hardware.panel import PanelEvent, SerialPanel
from hardware.serial_link import Opener
from hardware.status import Status

#: The environment variable naming the panel's port when no ``url=`` is given.
PANEL_ENV_VAR = "TABLETOP_PANEL"

#: Controls beep -> the panel's ``BEEP`` word.
PANEL_BEEPS = {"tile_seen": "short", "error": "long"}


class PanelControls(Controls):
    """Buttons, light and beeper on a serial panel (``hardware/PANEL.md``).

    ``url`` is the port (``/dev/tabletop-panel``, ``loop://``, ...), by
    default ``$TABLETOP_PANEL``. The panel is read by
    :class:`~hardware.panel.SerialPanel`'s daemon thread, which reconnects
    on its own; :attr:`status` is the panel's (FAULT while unplugged, WAITING
    until it says ``HELLO``). The firmware decides long presses, at
    ``DEFAULT_HOLD_TIME`` (1.5 s) like the GPIO buttons.

    >>> controls = PanelControls(url="loop://")
    >>> controls.panel.feed(b"L NEXT\\n")
    >>> event = controls.events(timeout=1)
    >>> event.button, event.kind
    ('NEXT', 'long_press')
    >>> controls.close(); controls.panel.connected
    False
    """

    kind = "panel"

    def __init__(
        self,
        *,
        url: str | None = None,
        baudrate: int = 115200,
        reconnect_interval: float = 1.0,
        opener: Opener = serial.serial_for_url,
        on_status: Callable[[Status], None] | None = None,
        on_event: Callable[[ButtonEvent], Any] | None = None,
    ) -> None:
        super().__init__(on_event=on_event)
        url = url or os.environ.get(PANEL_ENV_VAR, "").strip()
        if not url:
            raise ControlsUnavailable(
                f"panel controls need a serial port: url=... or ${PANEL_ENV_VAR}"
            )
        self.url = url
        self.panel = SerialPanel(
            url,
            baudrate,
            reconnect_interval=reconnect_interval,
            on_status=on_status,
            on_event=self._on_panel_event,
            opener=opener,
        )

    def _on_panel_event(self, event: PanelEvent) -> None:
        self._emit(event.button, event.kind, at=event.time)

    @property
    def status(self) -> Status:
        """The panel's status (see :attr:`hardware.panel.SerialPanel.status`)."""
        if self._closed:
            return self._status
        return self.panel.status

    def _show_light(self, state: str) -> None:
        self.panel.show(state)  # kept and re-sent on reconnect if the port is down

    def _sound(self, kind: str) -> None:
        self.panel.beep(PANEL_BEEPS[kind])

    def _release(self) -> None:
        self.panel.close()
