"""When the screen dims: after a quiet spell between games, never during one.

:class:`IdleDimmer` is the policy alone: it reads a clock it is given and calls a
:class:`~hardware.backlight.Backlight`; the app tells it of each touch
(:meth:`~IdleDimmer.touched`), whether dimming is allowed now
(:meth:`~IdleDimmer.set_allowed`: between games, yes; during one, no) and steps it on its
clock (:meth:`~IdleDimmer.tick`).

>>> from hardware.backlight import MockBacklight
>>> now = [0.0]
>>> idle = IdleDimmer(MockBacklight(), after=60, clock=lambda: now[0], allowed=True)
>>> now[0] = 59; idle.tick()
False
>>> now[0] = 60; idle.tick()
True
>>> idle.touched(), idle.backlight.calls
(True, ['dim', 'wake'])
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hardware.backlight import Backlight


class IdleDimmer:
    """Dims ``backlight`` once ``after`` seconds pass with no touch, while allowed.

    ``after`` of 0 or less never dims. Dimming starts disallowed unless ``allowed``: a
    table that forgets to say "between games" stays lit rather than dimming mid-game.
    """

    def __init__(self, backlight: Backlight, after: float,
                 clock: Callable[[], float] = time.monotonic, allowed: bool = False) -> None:
        self.backlight = backlight
        self.after = after
        self._clock = clock
        self._allowed = allowed
        self._since = clock()
        self._asleep = False        # dimmed by this policy, in this quiet spell

    @property
    def allowed(self) -> bool:
        return self._allowed

    def touched(self) -> bool:
        """A touch (or a key, or a button): wake and restart the quiet spell.

        True when this touch woke a dimmed panel: the app may swallow it, so that the
        finger waking a dim screen does not also press what was under it.
        """
        self._since = self._clock()
        return self._wake()

    def set_allowed(self, allowed: bool) -> None:
        """Between games (True) or in one (False); cheap to call on every tick.

        Disallowing wakes the panel at once. Allowing restarts the quiet spell: a game
        played with the camera and buttons may have had no touch for an hour, and its
        results must not go dark the moment it ends.
        """
        if allowed == self._allowed:
            return
        self._allowed = allowed
        self._since = self._clock()
        if not allowed:
            self._wake()

    def tick(self) -> bool:
        """Dim if the quiet spell is over and dimming is allowed; True once dimmed.

        One dim per quiet spell: a device that refused it is not asked again on every
        tick, only after the next touch and the next spell.
        """
        if self._allowed and not self._asleep and self.after > 0 \
                and self._clock() - self._since >= self.after:
            self._asleep = True
            self.backlight.dim()
        return self._asleep

    def _wake(self) -> bool:
        """Wake if this policy dimmed; True when the panel really was dim."""
        if not self._asleep:
            return False
        self._asleep = False
        was_dim = self.backlight.dimmed
        self.backlight.wake()
        return was_dim
