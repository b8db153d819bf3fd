"""The terminal of the app: errors and the lines a person needs, not Kivy's start-up log.

Kivy prints some 25 lines as it starts (its version, OpenGL's, each provider chosen), and a
CRITICAL one when no cut buffer is found (the X primary selection, which Kivy reaches only
through the ``xclip`` or ``xsel`` programs). None of them tells a player or an installer
anything; a warning or an error does. So, unless ``TABLETOP_DEBUG=1`` asks for Kivy's whole
log, :func:`quiet_kivy` (called before Kivy is first imported) keeps Kivy's log off the
terminal and then lets through only its warnings, its errors and our own lines (messages
starting "tabletop:", such as the window's size and video driver). Kivy's log file
(``~/.kivy/logs``) still gets Kivy's own lines.

Copy and paste go through SDL2's clipboard, which needs no program installed; the cut
buffer (middle-click paste) stays where ``xclip`` or ``xsel`` is installed.

>>> debugging({"TABLETOP_DEBUG": "1"}), debugging({"TABLETOP_DEBUG": "0"}), debugging({})
(True, False, False)
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import MutableMapping

#: Set to 1 for Kivy's whole log (and OpenCV's) on the terminal, as Kivy prints it.
DEBUG_VARIABLE = "TABLETOP_DEBUG"
#: Messages of ours on Kivy's log that the terminal shows (INFO, like the window's line).
OURS = "tabletop:"
#: Kivy's CRITICAL when neither xclip nor xsel is installed: only middle-click paste is
#: missing (copy and paste work through the clipboard).
NO_CUT_BUFFER = "Cutbuffer: Unable to find any valuable Cutbuffer provider"


def debugging(environ: MutableMapping[str, str] | None = None) -> bool:
    """Whether ``TABLETOP_DEBUG`` asks for every log on the terminal."""
    environ = os.environ if environ is None else environ
    return environ.get(DEBUG_VARIABLE, "") not in ("", "0")


def quiet_kivy(environ: MutableMapping[str, str] | None = None) -> None:
    """Before Kivy is first imported: Kivy's terminal log cut down to what a person needs
    (see the module). Kivy settings already in the environment are kept, and so is a log
    set up already (a second call, or Kivy imported before): this is idempotent."""
    environ = os.environ if environ is None else environ
    environ.setdefault("KIVY_NO_ARGS", "1")      # our command line is not Kivy's
    environ.setdefault("KIVY_CLIPBOARD", "sdl2")
    if debugging(environ):
        environ.setdefault("KCFG_KIVY_LOG_LEVEL", "debug")
        return
    if "kivy" not in sys.modules and _unset(environ):
        # Kivy's handlers on its own logger, none on the terminal, and sys.stderr left as it
        # is (Kivy's default mode would take it over): ours is added once Kivy is in.
        environ.update(OWN_LOG)
        _ours.add(_OWNED)
    from kivy.logger import Logger

    if _OWNED in _ours:
        if not any(isinstance(handler, _Terminal) for handler in Logger.handlers):
            Logger.addHandler(_Terminal(sys.stderr))
    elif not {"KIVY_LOG_MODE", "KIVY_NO_CONSOLELOG"} & set(environ) and \
            not any(isinstance(kept, _Needed) for kept in Logger.filters):
        Logger.addFilter(_Needed())     # Kivy already in: its own terminal log, cut from now on


#: Kivy's log as :func:`quiet_kivy` sets it up (also inherited by a child process).
OWN_LOG = {"KIVY_LOG_MODE": "MIXED", "KIVY_NO_CONSOLELOG": "1"}


def _unset(environ: MutableMapping[str, str]) -> bool:
    """Whether Kivy's log is left to us: not set by hand, or set by us in a parent process."""
    given = {key: environ[key] for key in OWN_LOG if key in environ}
    return not given or given == OWN_LOG


#: Whether this process set Kivy's log up (so the terminal handler is ours to add).
_OWNED = "owned"
_ours: set[str] = set()


class _Needed(logging.Filter):
    """Kivy's warnings and errors, and our own lines; not the missing cut buffer."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if message.startswith(NO_CUT_BUFFER):
            return False
        return record.levelno >= logging.WARNING or message.startswith(OURS)


class _Terminal(logging.StreamHandler):
    """The terminal's share of Kivy's log: our lines as they are, Kivy's as "kivy: ..."."""

    def __init__(self, stream: object) -> None:
        super().__init__(stream)
        self.addFilter(_Needed())

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if message.startswith(OURS):
            return message
        return f"kivy {record.levelname.lower()}: {message}"
