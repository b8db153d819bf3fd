"""Shared set-ups for the vision tests: tables, their calibrations, and ``watch`` checking.

A table's first rendered frame costs about a second (its board and camera map
are drawn), so every table and calibration here is made once per test session
and shared by the modules through the ``vision`` fixture. The renderer itself
keeps only four tables drawn: tests render the frames of one table together.

Layouts are named for the board they show:

* ``square``: the 12x9 Acquire board;
* ``hex-odd`` / ``hex-even``: the 182-hex Mega Acquire board in both row parities;
* ``quadrant``: the four-quadrant Acquisitions board.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from calibration.calfile import Calibration
from calibration.calibrate import calibrate
from calibration.synthetic.render import FRAME_SIZE, Rendered, Table, make_table, render_empty
from calibration.synthetic.sequences import Event, FrameState, Sequence, warning_kind

#: One table per layout (seeded: the same table every run). The tile style is the
#: table's own; tests that need another style render tiles of that style by name.
LAYOUTS: dict[str, dict[str, Any]] = {
    "square": dict(rules="acquire", seed=11, tile_style="ivory"),
    "hex-odd": dict(rules="megacquire-gold", seed=12, tile_style="dark"),
    "hex-even": dict(rules="megacquire-gold", seed=14, options={"hex_offset": "even-r"},
                     tile_style="glossy"),
    "quadrant": dict(rules="acquisitions", seed=13, tile_style="low_contrast"),
}

#: Game sequences for ``watch`` are rendered at a quarter of the pixels: a sequence is
#: hundreds of frames, and the whole vision test set must stay within about a minute.
WATCH_SIZE = (640, 480)


@dataclasses.dataclass(frozen=True, eq=False)
class Setup:
    """A table, the calibration photo of its empty board, and the calibration made from it."""

    table: Table
    empty: Rendered
    calibration: Calibration

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.table.layout.geometry.labels)


class Vision:
    """The session's tables and calibrations, made on first use."""

    def __init__(self) -> None:
        self._tables: dict[tuple, Table] = {}
        self._setups: dict[tuple, Setup] = {}

    def table(self, layout: str, size: tuple[int, int] = FRAME_SIZE, **changes: Any) -> Table:
        key = (layout, size, tuple(sorted(changes.items())))
        if key not in self._tables:
            self._tables[key] = make_table(**{**LAYOUTS[layout], **changes}, size=size)
        return self._tables[key]

    def setup(self, layout: str, size: tuple[int, int] = FRAME_SIZE, **changes: Any) -> Setup:
        """The table of ``layout`` calibrated from a rendered photo of its empty board."""
        key = (layout, size, tuple(sorted(changes.items())))
        if key not in self._setups:
            table = self.table(layout, size, **changes)
            empty = render_empty(table, np.random.default_rng(0))
            options = dict(LAYOUTS[layout].get("options", {}))
            calibration = calibrate(empty.image, empty.truth.corners, table.rules, options)
            self._setups[key] = Setup(table, empty, calibration)
        return self._setups[key]


@pytest.fixture(scope="session")
def vision() -> Vision:
    return Vision()


# --- sequences for watch -----------------------------------------------------------------

def _active(state: FrameState) -> bool:
    """A frame in which something happens: a hand, a cup, a shadow, a jolt of the board."""
    scene = state.scene
    return bool(scene.hands or scene.cups or scene.shadows or scene.motion[0] > 0)


def trimmed(sequence: Sequence, keep: float = 1.2, lead: float = 1.0) -> Sequence:
    """The sequence with its quiet stretches cut short, to render fewer frames.

    A step's frames are kept up to its last busy frame (hand, cup, shadow,
    jolt) and, after that and after the hand left for good (``clear_from``),
    ``keep`` seconds of the still board: enough for ``watch`` (it commits
    after half a second of stillness, and must within a second). The opening
    still board is cut to ``lead`` seconds. Frames keep their own scene and
    noise, so what remains is exactly what the untrimmed sequence shows.
    """
    fps = sequence.fps
    kept: list[int] = []
    first = sequence.events[0].start if sequence.events else len(sequence)
    kept += range(min(first, max(1, round(lead * fps))))
    for event in sequence.events:
        busy = [i for i in range(event.start, event.end) if _active(sequence.states[i])]
        still_from = max(event.clear_from, (busy[-1] + 1) if busy else event.start + 1)
        kept += range(event.start, min(event.end, still_from + round(keep * fps)))
    index = {old: new for new, old in enumerate(kept)}
    events = []
    for event in sequence.events:
        inside = [index[i] for i in range(event.start, event.end) if i in index]
        events.append(dataclasses.replace(
            event, start=index[event.start], clear_from=index[event.clear_from],
            change=None if event.change is None else index[event.change], end=inside[-1] + 1))
    return Sequence(sequence.table, fps, [sequence.states[i] for i in kept], events)


def lingering(sequence: Sequence, event_number: int, seconds: float) -> Sequence:
    """The sequence with the hand of one step held still over the board for ``seconds`` more.

    The hand stops where it put the tile down (or took it), long past the
    tracker's hold time: nothing may be decided while it is there.
    """
    event = sequence.events[event_number]
    at = event.change
    assert at is not None and not sequence.states[at].clear, "the step has no hand to hold"
    extra = max(1, round(seconds * sequence.fps))
    copies = [dataclasses.replace(sequence.states[at], seed=10_000 + k) for k in range(extra)]
    states = sequence.states[:at + 1] + copies + sequence.states[at + 1:]

    def shift(frame: int | None) -> int | None:
        return frame if frame is None or frame <= at else frame + extra

    events = [dataclasses.replace(e, start=shift(e.start), change=shift(e.change),
                                  clear_from=shift(e.clear_from), end=shift(e.end))
              for e in sequence.events]
    return Sequence(sequence.table, sequence.fps, states, events)


def frames(sequence: Sequence) -> Iterator[tuple[int, float, np.ndarray]]:
    """``(index, seconds, image)`` for ``watch``, rendered one at a time (time = index / fps)."""
    for index in range(len(sequence)):
        yield index, index / sequence.fps, sequence.image(index)


def watch_problems(sequence: Sequence, lines: list[dict], within: float = 1.0,
                   events: slice = slice(None)) -> list[str]:
    """Everything in ``watch``'s output that the sequence's truth does not allow (empty: all right).

    Every placement committed exactly once, in order, at its cell, at a frame
    from its ``clear_from`` to ``within`` seconds after it; one warning of
    the right kind for each anomaly, decided within the anomaly's frames once
    the hand has left; nothing else (no warning for a lamp, a shadow, a bump
    or hidden markers); and nothing decided at a frame with a hand over the board.

    ``events`` limits the check to some of the steps and the lines decided
    during them (the first ones also own the frames before them).
    """
    problems: list[str] = []
    late = round(within * sequence.fps)
    chosen = sequence.events[events]
    if not chosen:
        return problems
    low = 0 if chosen[0] is sequence.events[0] else chosen[0].start
    lines = [line for line in lines if low <= line.get("frame", low) < chosen[-1].end]
    for line in lines:
        if set(line) not in ({"frame", "tile"}, {"frame", "warning"},
                             {"frame", "doubt", "reason"}) or \
                not isinstance(line["frame"], int):
            problems.append(f"malformed line {line}")
        elif not sequence.states[line["frame"]].clear:
            problems.append(f"decided while a hand is over the board: {line}")
    commits = [line for line in lines if "tile" in line]
    placements = [event for event in chosen if event.kind == "place"]
    placed = {label for event in placements for label in event.labels}
    for line in lines:      # a tile the camera is unsure of is asked: never one not placed
        if "doubt" in line and line["doubt"] not in placed:
            problems.append(f"asked about a tile not placed: {line}")
    expected = [event.labels[0] for event in placements]
    if [line["tile"] for line in commits] != expected:
        problems.append(f"committed {[(l['frame'], l['tile']) for l in commits]}, "
                        f"placed {[(e.clear_from, e.labels[0]) for e in placements]}")
    else:
        for line, event in zip(commits, placements):
            if not event.clear_from <= line["frame"] <= min(event.clear_from + late, event.end - 1):
                problems.append(f"{line['tile']} committed at frame {line['frame']}: the hand "
                                f"left at {event.clear_from}, the step ends at {event.end}")
    warnings = [line for line in lines if "warning" in line]
    matched: set[int] = set()
    for event in chosen:
        if event.warning is None:
            continue
        here = [k for k, line in enumerate(warnings)
                if event.clear_from <= line["frame"] < event.end]
        kinds = [warning_kind(warnings[k]["warning"]) for k in here]
        if kinds != [event.warning]:
            problems.append(f"{event.kind} {event.labels} (frames {event.clear_from}-{event.end}): "
                            f"expected one {event.warning} warning, got "
                            f"{[warnings[k] for k in here]}")
        matched.update(here)
    for k, line in enumerate(warnings):
        if k not in matched:
            problems.append(f"unexpected warning {line}")
    return problems


def event_at(sequence: Sequence, frame: int) -> Event | None:
    """The event whose frames hold ``frame`` (None before the first)."""
    for event in sequence.events:
        if event.start <= frame < event.end:
            return event
    return None


def cell_errors(observation, truth) -> dict[str, set[int]]:
    """A reading against the truth: tiles reported on empty cells, tiles neither seen nor doubted."""
    return {"false": set(observation.occupied - truth.occupied),
            "missed": set(truth.occupied - observation.occupied - observation.uncertain)}


def calibrated_from_empty(table: Table, seed: int, options: dict | None = None) -> Calibration:
    """``table`` calibrated from a photo of its empty board rendered from ``seed``."""
    empty = render_empty(table, np.random.default_rng(seed))
    return calibrate(empty.image, empty.truth.corners, table.rules, dict(options or {}))


def read_scattered(table: Table, calibration: Calibration, seed: int, nuisances: Any,
                   share: int = 5) -> tuple[Any, Any]:
    """(truth, a fresh Recognizer's reading) of a frame with one cell in ``share`` holding a
    tile, drawn from ``seed``, under ``nuisances``."""
    from calibration.recognize import Recognizer
    from calibration.synthetic.render import render
    rng = np.random.default_rng(seed)
    size = calibration.layout.size
    tiles = sorted(int(c) for c in rng.choice(size, size // share, replace=False))
    frame = render(table, tiles, rng, nuisances)
    return frame.truth, Recognizer(calibration).read(frame.image)


def pixels_per_unit(table: Table) -> float:
    """Pixels per board unit about the board (from the first row's two corner cells)."""
    points = table.layout.corner_points()
    pixels = table.project(points)
    return float(np.linalg.norm(pixels[1] - pixels[0]) / np.linalg.norm(points[1] - points[0]))


# The helpers reach the test modules through the fixture (conftest is not for importing).
for _helper in (trimmed, lingering, frames, warning_kind, watch_problems, event_at,
                cell_errors, calibrated_from_empty, read_scattered, pixels_per_unit):
    setattr(Vision, _helper.__name__, staticmethod(_helper))
Vision.LAYOUTS = LAYOUTS
Vision.WATCH_SIZE = WATCH_SIZE
