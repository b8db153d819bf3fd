"""A rendered table that players act on as the game goes: the demo's physical table.

Unlike :func:`~calibration.synthetic.sequences.render_sequence`, which plans a whole
game up front, a :class:`LiveTable` plans each placement when a player makes
it (the bot decides as the game unfolds): a hand reaches in, leaves the tile,
withdraws, and the board stays quiet a moment. Frames are rendered one at a
time when the camera asks for the next; an idle table goes on giving quiet
frames, as a camera over a real one does. A player who acts as soon as the
table has taken the last action cuts that quiet moment short (:meth:`LiveTable.hurry`).

>>> table = LiveTable.make("acquire", seed=1, size=(320, 240))
>>> event = table.place("5C")
>>> event.labels, event.clear_from > event.change
(('5C',), True)
>>> index, seconds, image = table.next_frame()
>>> index, image.shape
(0, (240, 320, 3))
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping

import numpy as np

from calibration.calfile import Calibration
from calibration.synthetic.render import Table, make_table, render_empty, render_image
from calibration.synthetic.scenes import Nuisances
from calibration.synthetic.sequences import Event, Place, Remove, Wait, _Planner

#: The demo's frame size: small enough to render and read fast, large enough to read well.
DEMO_SIZE = (800, 600)


class LiveTable:
    """A table whose placements are planned on demand (see the module's docstring)."""

    def __init__(self, table: Table, rng: np.random.Generator, fps: float = 10.0,
                 initial: Mapping[Any, str | None] | None = None,
                 nuisances: Nuisances | None = None,
                 pause: tuple[float, float] = (0.8, 1.5)) -> None:
        if nuisances is None:
            nuisances = Nuisances(lighting=0.3, gradient=0.4, glare=0.3, noise=0.4, blur=0.2)
        self.table, self.fps = table, fps
        cells = {table.layout.cell(c): v for c, v in (initial or {}).items()}
        self._planner = _Planner(table, rng, fps, cells, nuisances)
        self._planner.pause = pause
        self._planner.quiet(self._planner.seconds(1.5, 2.5))
        self._next = 0

    @classmethod
    def make(cls, rules: str = "acquire", seed: int = 0, size: tuple[int, int] = DEMO_SIZE,
             options: Mapping[str, Any] | None = None, **kwargs: Any) -> "LiveTable":
        """A random plausible table for ``rules`` (deterministic for ``seed``)."""
        table = make_table(rules, seed=seed, size=size, options=options)
        return cls(table, np.random.default_rng(seed), **kwargs)

    def calibrate(self) -> Calibration:
        """The table's calibration, made as a player would: from a photo of the empty board."""
        from calibration.calibrate import calibrate

        empty = render_empty(self.table, np.random.default_rng(0))
        return calibrate(empty.image, empty.truth.corners, self.table.rules,
                         dict(self.table.options))

    # --- what players do -------------------------------------------------------------------------

    def place(self, label: str | int, value: str | None = None) -> Event:
        """A player places one tile; the event says when the hand left the board for good."""
        self._planner.run(Place(label, value))
        return self._planner.events[-1]

    def place_many(self, labels: Iterable[str | int]) -> Event:
        """Several tiles put down in one go (the turn-order draw): no still board between them."""
        planner = self._planner
        start = planner.count
        cells = [planner._empty(label) for label in labels]

        def put(cell: int) -> None:
            planner.occupied[cell] = None

        planner.hand_visit([(cell, put) for cell in cells])
        planner.quiet(planner.seconds(*planner.pause))
        clear_from = max((i + 1 for i in range(start, planner.count)
                          if not planner.state(i).clear), default=start)
        names = self.table.layout.geometry.labels
        event = Event("place_many", tuple(cells), tuple(names[c] for c in cells), start, None,
                      clear_from, planner.count, None)
        planner.events.append(event)
        return event

    def remove(self, label: str | int) -> Event:
        """A player takes a tile off the board."""
        self._planner.run(Remove(label))
        return self._planner.events[-1]

    def wait(self, seconds: float) -> None:
        """Nothing happens for a while."""
        self._planner.run(Wait(seconds))

    def hurry(self) -> int:
        """The next player does not wait out the pause: the quiet frames planned at the end
        and not yet shown are dropped, and the last step's event ends where they began.
        How many were dropped.

        The board they showed is the board as it stands, so nothing a camera could see is
        lost; the frames shown stay the very same pictures (each was planned, its noise
        seed drawn, when its step was), only fewer. Nothing is cut while a hand is still to
        leave: the quiet after it is where a camera sees the board still.
        """
        planner = self._planner
        last = planner.events[-1] if planner.events else None
        # Only the last step's own quiet end: the steps before it keep their frames.
        floor = max(self._next, last.clear_from if last is not None else 0)
        cut = planner.count
        while cut > floor and not planner.state(cut - 1).scene.occluded:
            cut -= 1
        if cut > self._next and planner.state(cut - 1).scene.occluded:
            return 0        # the hand is still to leave: the quiet after it is the board's still
        dropped = planner.count - cut
        if dropped:
            del planner.states[cut - planner.forgotten:]
            if last is not None:
                planner.events[-1] = replace(last, end=cut)
        return dropped

    # --- what the camera sees --------------------------------------------------------------------

    @property
    def tiles(self) -> set[str]:
        """The cells holding a tile once every planned frame has been shown."""
        names = self.table.layout.geometry.labels
        return {names[cell] for cell in self._planner.occupied}

    @property
    def events(self) -> list[Event]:
        return self._planner.events

    @property
    def planned(self) -> int:
        """Frames planned and not yet shown."""
        return self._planner.count - self._next

    @property
    def position(self) -> int:
        """The index of the next frame to be shown."""
        return self._next

    def skip(self) -> int:
        """Let a frame's time pass unseen (the camera is unplugged); its index."""
        if self._next >= self._planner.count:
            self._planner.frame()
        self._next += 1
        self._planner.forget(self._next)
        return self._next - 1

    def next_frame(self) -> tuple[int, float, np.ndarray]:
        """The next frame ``(index, seconds, BGR image)``; an idle table shows a quiet one."""
        planner = self._planner
        if self._next >= planner.count:
            planner.frame()
        state = planner.state(self._next)
        image = render_image(self.table, dict(state.occupied), state.scene,
                             np.random.default_rng(state.seed))
        index, self._next = self._next, self._next + 1
        planner.forget(self._next)      # shown: never shown again
        return index, index / self.fps, image
