"""Whole game sequences for ``watch``: hands placing tiles, and what should not be committed.

A script of steps (:class:`Place`, and anomalies: :class:`PlaceTwo`,
:class:`Remove`, :class:`Move`, :class:`Lamp`, :class:`Lean`, :class:`Bump`,
:class:`HideMarkers`, :class:`Wait`) becomes a :class:`Sequence`: a plan of
every frame, rendered lazily when iterated (a long game would not fit in
memory as images), and the ground truth: one :class:`Event` per step with
the frames it spans, for placements the cell and ``clear_from`` (the first
frame at which the hand has left the board for good), and for anomalies the
warning ``watch`` is expected to give instead of a commit.

A placement looks like a real one: a player's hand comes in from their side
of the table over 5-10 frames, the tile appears under the hand, the hand
withdraws over about 5 frames, and the board stays clear for 1-3 seconds.

>>> import numpy as np
>>> from calibration.synthetic.render import make_table
>>> table = make_table("acquire", seed=1, size=(320, 240))
>>> sequence = render_sequence(table, ["5C", Place("6C")], np.random.default_rng(0))
>>> [(e.kind, e.labels, e.warning) for e in sequence.events]
[('place', ('5C',), None), ('place', ('6C',), None)]
>>> first = sequence.events[0]
>>> sequence.states[first.clear_from].clear, sequence.states[first.clear_from - 1].clear
(True, False)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence as Seq

import cv2
import numpy as np

from calibration.synthetic.render import (Rendered, Table, frame_clear, render_image,
                                          render_scene, view_of)
from calibration.synthetic.scenes import (Hand, Nuisances, Scene, View, cup_over_marker,
                                          leaning_shadow, random_bump, sample_scene)

#: Warning kinds a sequence expects ``watch`` to give instead of committing.
WARN_EXTRA = "extra_tiles"      # more than one new tile at once
WARN_REMOVED = "tile_removed"   # a tile taken off the board
WARN_MOVED = "tile_moved"       # a tile taken off one cell and put on another


def warning_kind(message: str) -> str:
    """The kind (``WARN_*``) a ``watch`` warning message names, ``other`` if none.

    >>> warning_kind("2 new tiles at once (5C, 6D)")
    'extra_tiles'
    """
    if "moved from" in message:
        return WARN_MOVED
    if "new tiles at once" in message:
        return WARN_EXTRA
    if "gone from" in message:
        return WARN_REMOVED
    return "other"


@dataclass(frozen=True)
class Place:
    """A player places one tile on ``cell`` (a number or label). ``value`` as in ``render``'s ``occupied``."""

    cell: int | str
    value: str | None = None


@dataclass(frozen=True)
class PlaceTwo:
    """Anomaly: two tiles placed in one visit of the hand (``watch`` must warn, not commit)."""

    cells: tuple[int | str, int | str]


@dataclass(frozen=True)
class Remove:
    """Anomaly: a hand takes a tile off the board."""

    cell: int | str


@dataclass(frozen=True)
class Move:
    """Anomaly: a hand slides a tile from ``source`` to ``target``."""

    source: int | str
    target: int | str


@dataclass(frozen=True)
class Lamp:
    """A lamp switched on or off: the global brightness is multiplied by ``factor`` for good."""

    factor: float = 0.65


@dataclass(frozen=True)
class Lean:
    """A player leans over the table: a soft shadow for ``seconds``, no hand."""

    seconds: float = 2.0


@dataclass(frozen=True)
class Bump:
    """The board is knocked: ``(dx, dy, degrees)`` (random if None), for good."""

    bump: tuple[float, float, float] | None = None


@dataclass(frozen=True)
class HideMarkers:
    """Cups put down partly over these markers for ``seconds``."""

    ids: tuple[int, ...] = (0,)
    seconds: float = 3.0


@dataclass(frozen=True)
class Wait:
    """Nothing happens for ``seconds``."""

    seconds: float = 2.0


Step = Place | PlaceTwo | Remove | Move | Lamp | Lean | Bump | HideMarkers | Wait

#: The expected warning of each step kind (None: nothing to say, nothing to commit but a placement).
EXPECTED_WARNING = {"place": None, "place_two": WARN_EXTRA, "remove": WARN_REMOVED,
                    "move": WARN_MOVED, "lamp": None, "lean": None, "bump": None,
                    "hide_markers": None, "wait": None}


@dataclass(frozen=True)
class Event:
    """The ground truth of one step.

    ``start`` and ``end`` are its first frame and the first frame after it;
    ``clear_from`` the first frame from which the board stays clear (no hand
    over the grid) until ``end``; ``change`` the frame at which the board
    (tiles, light, pose) changed, or None. ``cells``/``labels`` are what a
    placement put down (for a move: source then target). ``warning`` is what
    ``watch`` should say instead of committing (None for a placement, which
    it should commit, and for harmless events, where it should do nothing).
    """

    kind: str
    cells: tuple[int, ...]
    labels: tuple[str, ...]
    start: int
    change: int | None
    clear_from: int
    end: int
    warning: str | None

    @property
    def cell(self) -> int | None:
        """The cell of a placement (None for other kinds)."""
        return self.cells[0] if self.kind == "place" else None


@dataclass(frozen=True, eq=False)
class FrameState:
    """The plan of one frame: its tiles, its scene, its noise seed and whether it is clear."""

    occupied: tuple[tuple[int, str | None], ...]
    scene: Scene
    seed: int
    clear: bool


class Sequence:
    """A planned sequence of frames and its truth; frames are rendered when iterated.

    ``iter(sequence)`` yields BGR images; :meth:`rendered` yields
    :class:`~calibration.synthetic.render.Rendered` frames with their per-frame truth.
    Rendering is deterministic: frame ``i`` is the same however it is reached.
    """

    def __init__(self, table: Table, fps: float, states: list[FrameState],
                 events: list[Event]) -> None:
        self.table = table
        self.fps = fps
        self.states = states
        self.events = events

    def __len__(self) -> int:
        return len(self.states)

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self.image(index) for index in range(len(self.states)))

    def frame(self, index: int) -> Rendered:
        """Render frame ``index``."""
        state = self.states[index]
        return render_scene(self.table, dict(state.occupied), state.scene,
                            np.random.default_rng(state.seed))

    def image(self, index: int) -> np.ndarray:
        """Frame ``index``'s image alone (``frame(index).image``, without working out its truth)."""
        state = self.states[index]
        return render_image(self.table, dict(state.occupied), state.scene,
                            np.random.default_rng(state.seed))

    def rendered(self) -> Iterator[Rendered]:
        """Every frame, rendered one at a time."""
        return (self.frame(index) for index in range(len(self.states)))

    @property
    def placements(self) -> list[Event]:
        """The events ``watch`` should commit, in order."""
        return [event for event in self.events if event.kind == "place"]

    def truth_json(self) -> dict[str, Any]:
        """The truth as plain JSON: frames, fps, rules and the events."""
        return {"frames": len(self.states), "fps": self.fps, "rules": self.table.rules,
                "options": dict(self.table.options),
                "initial": sorted(self.table.layout.geometry.labels[c]
                                  for c, _ in self.states[0].occupied) if self.states else [],
                "events": [{"kind": e.kind, "labels": list(e.labels), "start": e.start,
                            "change": e.change, "clear_from": e.clear_from, "end": e.end,
                            "warning": e.warning} for e in self.events]}


@dataclass
class _Player:
    edge: int
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]
    left: bool


class _Planner:
    """Builds the frame plan step by step, keeping the table's state between steps."""

    def __init__(self, table: Table, rng: np.random.Generator, fps: float,
                 initial: Mapping[int, str | None], nuisances: Nuisances) -> None:
        self.table, self.rng, self.fps = table, rng, fps
        self.layout = table.layout
        self.view: View = view_of(table)
        # The room: light, glare, lens blur, compression stay put for the whole game.
        calm = replace(nuisances, shadow=0.0, hand=0.0, bump=0.0, marker_cover=0.0)
        self.base = sample_scene(self.view, calm, rng)
        self.occupied = dict(initial)
        self.brightness = self.base.brightness
        self.bump = (0.0, 0.0, 0.0)
        self.states: list[FrameState] = []
        #: Frames forgotten from the front of ``states`` (a live table's shown frames):
        #: frame ``i`` is ``states[i - forgotten]``, and events keep counting from the first.
        self.forgotten = 0
        self.events: list[Event] = []
        seats = rng.permutation(4)[: int(rng.integers(2, 5))]
        #: Seconds the board stays quiet after each step (drawn between the two).
        self.pause = (1.0, 3.0)
        skins, sleeves = self.view.skins, self.view.sleeves
        self.players = [_Player(int(edge), skins[int(rng.integers(len(skins)))],
                                sleeves[int(rng.integers(len(sleeves)))], bool(rng.random() < 0.15))
                        for edge in seats]
        self.turn = 0

    # -- frames ---------------------------------------------------------------------------
    @property
    def count(self) -> int:
        """Frames planned so far, the forgotten ones included: the next frame's index."""
        return self.forgotten + len(self.states)

    def state(self, index: int) -> FrameState:
        """Frame ``index`` (one not forgotten)."""
        if index < self.forgotten:
            raise IndexError(f"frame {index} was forgotten")
        return self.states[index - self.forgotten]

    def forget(self, before: int) -> None:
        """Let go of the frames before ``before``: a live table never shows them again, and a
        game of hours would otherwise keep every frame's plan for the life of the process."""
        drop = min(before - self.forgotten, len(self.states))
        if drop > 0:
            del self.states[:drop]
            self.forgotten += drop

    def frame(self, **changes: Any) -> None:
        """Append one frame: the room's scene with ``changes`` (hands, cups, shadows)."""
        flicker = 1.0 + float(self.rng.normal(0, 0.003))  # auto-exposure never sits still
        scene = replace(self.base, brightness=self.brightness * flicker, bump=self.bump, **changes)
        self.states.append(FrameState(tuple(sorted(self.occupied.items())), scene,
                                      int(self.rng.integers(2 ** 31)),
                                      frame_clear(self.table, scene)))

    def quiet(self, seconds: float) -> None:
        for _ in range(max(1, int(round(seconds * self.fps)))):
            self.frame()

    def seconds(self, low: float, high: float) -> float:
        return float(self.rng.uniform(low, high))

    # -- hands ----------------------------------------------------------------------------
    def centre(self, cell: int) -> np.ndarray:
        return self.table.project(self.layout.centres[cell], self.bump)

    def hand_visit(self, targets: list[tuple[int, Any]]) -> None:
        """A hand comes in, visits each ``(cell, action)`` in turn, and leaves.

        ``action(cell)`` changes the board while the hand is over the cell
        (the tile appears or vanishes under it).
        """
        player = self.players[self.turn % len(self.players)]
        self.turn += 1
        rng = self.rng
        first = self.centre(targets[0][0])
        width, height = self.table.size
        entry = np.array(_edge_point(player.edge, (width, height), rng))
        direction = first - entry
        direction /= max(float(np.linalg.norm(direction)), 1e-9)
        hand = Hand(grip=tuple(first), angle=math.atan2(direction[1], direction[0]),
                    width=float(rng.uniform(3.0, 3.6) * self.view.unit * 1.08),
                    skin=player.skin, sleeve=player.sleeve, left=player.left,
                    sleeve_gap=float(rng.uniform(0.3, 2.0)), curl=float(rng.uniform(0.2, 0.6)),
                    spread=float(rng.uniform(0.6, 1.2)), height=float(rng.uniform(0.2, 0.5)))
        # Off-frame start: the fingertips just outside the frame, the rest further out.
        outside = entry - direction * 0.9 * hand.width
        position = outside
        for cell, action in targets:
            goal = self.centre(cell)
            self.glide(hand, position, goal, self.hand_frames(int(rng.integers(5, 11))))
            action(cell)
            for _ in range(self.hand_frames(int(rng.integers(2, 5)))):
                jitter = rng.normal(0, 0.03 * self.view.unit, 2)
                self.frame(hands=(hand.moved(goal + jitter),))
            position = goal
        self.glide(hand, position, outside, self.hand_frames(int(rng.integers(4, 7))))

    def hand_frames(self, tenths: int) -> int:
        """How many frames a hand's ``tenths`` of a second take at this camera's rate: a hand
        takes as long at any rate (the draws are in tenths, a frame each at 10 a second, so
        a 10-a-second plan is frame for frame what it was)."""
        return max(1, int(tenths * self.fps / 10 + 0.5))      # halves up: as long on average

    def glide(self, hand: Hand, start: np.ndarray, goal: np.ndarray, frames: int) -> None:
        for k in range(1, frames + 1):
            t = k / frames
            eased = t * t * (3 - 2 * t)
            point = start + (goal - start) * eased
            self.frame(hands=(hand.moved(point),))

    # -- steps ----------------------------------------------------------------------------
    def run(self, step: Step) -> None:
        start = self.count
        change: list[int] = []

        def put(value: Any) -> Any:
            def action(cell: int) -> None:
                if value is _REMOVE:
                    del self.occupied[cell]
                else:
                    self.occupied[cell] = value
                change.append(self.count)
            return action

        if isinstance(step, Place):
            kind, cells = "place", (self._empty(step.cell),)
            self.hand_visit([(cells[0], put(step.value))])
        elif isinstance(step, PlaceTwo):
            kind, cells = "place_two", tuple(self._empty(c) for c in step.cells)
            if cells[0] == cells[1]:
                raise ValueError("PlaceTwo needs two different cells")
            self.hand_visit([(cells[0], put(None)), (cells[1], put(None))])
        elif isinstance(step, Remove):
            kind, cells = "remove", (self._full(step.cell),)
            self.hand_visit([(cells[0], put(_REMOVE))])
        elif isinstance(step, Move):
            source, target = self._full(step.source), self._empty(step.target)
            kind, cells = "move", (source, target)
            value = self.occupied[source]
            self.hand_visit([(source, put(_REMOVE)), (target, put(value))])
        elif isinstance(step, Lamp):
            kind, cells = "lamp", ()
            change.append(self.count)
            # The camera's exposure lags a frame or two behind the lamp.
            old, new = self.brightness, self.brightness * step.factor
            self.brightness = old + (new - old) * 0.6
            self.frame()
            self.brightness = new
        elif isinstance(step, Lean):
            kind, cells = "lean", ()
            shadow = leaning_shadow(self.table.size, self.rng)
            ramp = [0.25, 0.5, 0.75]
            for level in ramp:
                self.frame(shadows=(replace(shadow, darkness=shadow.darkness * level),))
            for _ in range(max(1, int(round(step.seconds * self.fps)))):
                self.frame(shadows=(shadow,))
            for level in ramp[::-1]:
                self.frame(shadows=(replace(shadow, darkness=shadow.darkness * level),))
        elif isinstance(step, Bump):
            kind, cells = "bump", ()
            bump = step.bump or random_bump(self.view, self.rng)
            old = self.bump
            new = (old[0] + bump[0], old[1] + bump[1], old[2] + bump[2])
            change.append(self.count)
            # One frame mid-jolt, smeared by the motion, then the board at rest.
            self.bump = tuple((a + b) / 2 for a, b in zip(old, new))
            self.frame(motion=(float(self.rng.uniform(4, 9)), float(self.rng.uniform(0, math.pi))))
            self.bump = new
        elif isinstance(step, HideMarkers):
            kind, cells = "hide_markers", ()
            view = replace(self.view, grid=self.table.project(self.layout.outline(), self.bump),
                           markers={m.marker_id: self.table.project(m.corners(), self.bump)
                                    for m in self.table.markers})
            cups = tuple(cup_over_marker(view, marker_id, self.rng) for marker_id in step.ids)
            for _ in range(max(1, int(round(step.seconds * self.fps)))):
                self.frame(cups=cups)
        elif isinstance(step, Wait):
            kind, cells = "wait", ()
        else:
            raise TypeError(f"not a sequence step: {step!r}")
        self.quiet(self.seconds(*self.pause) if kind != "wait" else step.seconds)
        end = self.count
        clear_from = start
        for index in range(start, end):
            if not self.state(index).clear:
                clear_from = index + 1
        labels = self.layout.geometry.labels
        self.events.append(Event(kind, cells, tuple(labels[c] for c in cells), start,
                                 change[0] if change else None, clear_from, end,
                                 EXPECTED_WARNING[kind]))

    def _empty(self, cell: int | str) -> int:
        number = self.layout.cell(cell)
        if number in self.occupied:
            raise ValueError(f"{self.layout.geometry.labels[number]} already holds a tile")
        return number

    def _full(self, cell: int | str) -> int:
        number = self.layout.cell(cell)
        if number not in self.occupied:
            raise ValueError(f"{self.layout.geometry.labels[number]} holds no tile")
        return number


_REMOVE = object()


def _edge_point(edge: int, size: tuple[int, int], rng: np.random.Generator) -> tuple[float, float]:
    width, height = size
    t = rng.uniform(0.25, 0.75)
    return [(t * width, 0.0), (float(width), t * height), (t * width, float(height)),
            (0.0, t * height)][edge]


def render_sequence(table: Table, steps: Seq[Step | int | str], rng: np.random.Generator,
                    fps: float = 10, initial: Mapping[Any, str | None] | None = None,
                    nuisances: Nuisances | None = None) -> Sequence:
    """Plan a game on ``table``: ``steps`` in order (a bare cell or label means :class:`Place`).

    The board starts with ``initial``'s tiles and stays clear for 1.5-2.5 s
    (``watch`` takes its reference there). ``nuisances`` sets the room (light,
    gradient, glare, noise, blur, JPEG; default mild) for the whole sequence;
    the events in it come from the steps only. Nothing is rendered until the
    sequence is iterated.
    """
    if nuisances is None:
        nuisances = Nuisances(lighting=0.3, gradient=0.4, glare=0.3, noise=0.4, blur=0.2)
    cells = {table.layout.cell(c): v for c, v in (initial or {}).items()}
    planner = _Planner(table, rng, fps, cells, nuisances)
    planner.quiet(planner.seconds(1.5, 2.5))
    for step in steps:
        planner.run(Place(step) if isinstance(step, (int, str)) else step)
    return Sequence(table, fps, planner.states, planner.events)


def random_steps(table: Table, rng: np.random.Generator, placements: int = 10,
                 anomalies: Seq[str] = ("place_two", "remove", "move", "lamp", "lean", "bump",
                                        "hide_markers"),
                 initial: Mapping[Any, str | None] | None = None) -> list[Step]:
    """A random game script: ``placements`` placements with each anomaly kind once, shuffled in.

    Cells are chosen so that every step is possible when it comes (a removal
    takes a tile that is there, a placement an empty cell).
    """
    layout = table.layout
    occupied = {layout.cell(c) for c in (initial or {})}
    kinds = ["place"] * placements + list(anomalies)
    order = [kinds[i] for i in rng.permutation(len(kinds))]
    steps: list[Step] = []

    def empty() -> int:
        free = [c for c in range(layout.size) if c not in occupied]
        return int(rng.choice(free))

    for kind in order:
        if kind in ("remove", "move") and not occupied:
            kind = "place"
        if kind == "place":
            cell = empty()
            occupied.add(cell)
            steps.append(Place(cell))
        elif kind == "place_two":
            a = empty()
            occupied.add(a)
            b = empty()
            occupied.add(b)
            steps.append(PlaceTwo((a, b)))
        elif kind == "remove":
            cell = int(rng.choice(sorted(occupied)))
            occupied.discard(cell)
            steps.append(Remove(cell))
        elif kind == "move":
            source = int(rng.choice(sorted(occupied)))
            target = empty()
            occupied.discard(source)
            occupied.add(target)
            steps.append(Move(source, target))
        elif kind == "lamp":
            steps.append(Lamp(float(rng.choice([rng.uniform(0.55, 0.8), rng.uniform(1.2, 1.4)]))))
        elif kind == "lean":
            steps.append(Lean(float(rng.uniform(1.0, 3.0))))
        elif kind == "bump":
            steps.append(Bump())
        elif kind == "hide_markers":
            count = int(rng.integers(1, 3))
            ids = tuple(int(i) for i in rng.choice([m.marker_id for m in table.markers], count,
                                                   replace=False))
            steps.append(HideMarkers(ids, float(rng.uniform(2.0, 4.0))))
        else:
            raise ValueError(f"unknown anomaly kind {kind!r}")
    return steps


def write_frames(sequence: Sequence, folder: Path | str, truth: bool = True) -> list[Path]:
    """Write every frame as ``frame_00000.png``, ... (name order is frame order) for ``dir:``.

    With ``truth``, ``truth.json`` (:meth:`Sequence.truth_json`) goes beside
    them; camera sources read only image files. Returns the frames' paths.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, image in enumerate(sequence):
        path = folder / f"frame_{index:05d}.png"
        # Fast PNG compression: a game is thousands of frames.
        if not cv2.imwrite(str(path), image, [cv2.IMWRITE_PNG_COMPRESSION, 1]):
            raise OSError(f"could not write {path}")
        paths.append(path)
    if truth:
        (folder / "truth.json").write_text(json.dumps(sequence.truth_json(), indent=1) + "\n",
                                           encoding="utf-8")
    return paths
