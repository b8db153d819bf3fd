"""``bench/vision.py``'s games of ``watch``: played as the table's loop plays them, and scored.

A game is a rendered sequence (``calibration.synthetic.sequences``) with its
truth: :func:`play` feeds its frames to a Watcher, telling it the board after
each tile the table would confirm; :func:`score` matches the sightings with
the placements and anomalies of the sequence (see ``bench/vision.py``'s
docstring for what counts as correct).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from calibration.recognize import Watcher
from calibration.synthetic.sequences import warning_kind
from tabletop.geometry.sightings import (
    BoardSeen,
    ChangesSeen,
    Sighting,
    TileDoubted,
    TileSeen,
)


def score(sequence, seen: list[Sighting]) -> dict:
    """``watch``'s commits and warnings against a sequence's truth (see the module docstring).

    ``seen``: every sighting of the game; reference boards are not ``watch``'s and are left out.
    """
    fps = sequence.fps
    placements = [event for event in sequence.events if event.kind == "place"]
    lines = [line for line in seen if not isinstance(line, BoardSeen)]
    commits = [line for line in lines if isinstance(line, TileSeen)]
    # A tile proposed as a question (``TileDoubted``): one CONFIRM away, counted apart.
    doubts = [line for line in lines if not isinstance(line, (TileSeen, ChangesSeen))
              and hasattr(line, "tile")]
    warnings = [line for line in lines if isinstance(line, ChangesSeen)]
    used: set[int] = set()
    asked_used: set[int] = set()
    delays, missed, asked_delays = [], [], []
    for number, event in enumerate(placements):
        until = placements[number + 1].start if number + 1 < len(placements) else len(sequence)
        hits = [k for k, line in enumerate(commits) if k not in used
                and line.tile == event.labels[0] and event.clear_from <= line.frame < until]
        asks = [k for k, line in enumerate(doubts) if k not in asked_used
                and line.tile == event.labels[0] and event.clear_from <= line.frame < until]
        if hits:
            used.add(hits[0])
            delays.append((commits[hits[0]].frame - event.clear_from) / fps)
        elif asks:
            asked_used.add(asks[0])
            asked_delays.append((doubts[asks[0]].frame - event.clear_from) / fps)
        else:
            missed.append(event.labels[0])
    matched: set[int] = set()
    warned = expected = 0
    for event in sequence.events:
        if event.warning is None:
            continue
        expected += 1
        here = [k for k, line in enumerate(warnings) if k not in matched
                and event.clear_from <= line.frame < event.end
                and warning_kind(line.message) == event.warning]
        if here:
            warned += 1
            matched.add(here[0])
    return {"frames": len(sequence), "placed": len(placements), "correct": len(delays),
            "missed": len(missed), "wrong": len(commits) - len(used), "delays": delays,
            "asked": len(asked_delays), "asked_delays": asked_delays,
            "asked_wrong": len(doubts) - len(asked_used),
            "cannot_tell": sum(1 for line in warnings if not line.new and not line.gone),
            "warnings_expected": expected, "warnings_given": warned,
            "warnings_other": len(warnings) - len(matched),
            "decided_with_hand": sum(1 for line in lines
                                     if not sequence.states[line.frame].clear),
            "wrong_lines": [commits[k].as_json() for k in range(len(commits)) if k not in used],
            "asked_wrong_lines": [doubts[k].as_json() for k in range(len(doubts))
                                  if k not in asked_used],
            "missed_tiles": missed}


def play(sequence, calibration: Any, frames: Iterable, learn: bool) -> tuple[list[Sighting], dict]:
    """A game through a Watcher as the table runs it; its sightings, and what learning did.

    The Watcher is told the game's board at the start and, as the table's loop
    tells it, after each tile the table would confirm: one committed or asked
    that truly lies there (a wrong one the table would UNDO is never told).
    After the 3rd confirmed placement, every truly still frame's uncertain
    cells are counted (frames nothing could be read in apart), and the cells
    the table's own examples decided (``learned_wrong``: decided against the
    truth).
    """
    watcher = Watcher(calibration, learn=learn)
    labels = watcher.labels
    board = {labels[c] for c, _ in sequence.states[0].occupied}
    watcher.expect(sorted(board))
    seen: list[Sighting] = []
    confirmed = 0
    counts = {"still_frames": 0, "still_cells": 0, "still_uncertain": 0, "learned_cells": 0,
              "learned_wrong": 0, "unreadable_frames": 0}
    for index, seconds, image in frames:
        decided = watcher.feed(index, seconds, image)
        seen += decided
        state = sequence.states[index]
        truth = {c for c, _ in state.occupied}
        there = {labels[c] for c in truth}
        new = [s.tile for s in decided if isinstance(s, (TileSeen, TileDoubted))
               and s.tile in there and s.tile not in board]
        if new:
            board.update(new)
            confirmed += len(new)
            watcher.expect(sorted(board & there))
        last = watcher.last
        if confirmed >= 3 and state.clear and last is not None and not last.readable:
            # A frame nothing could be read in (a knock, a lamp) is the tracker's to skip, and
            # no cell of it says anything about learning: counted apart.
            counts["unreadable_frames"] += 1
        elif confirmed >= 3 and state.clear and last is not None:
            counts["still_frames"] += 1
            counts["still_cells"] += len(labels)
            counts["still_uncertain"] += len(last.uncertain)
            counts["learned_cells"] += len(last.learned)
            counts["learned_wrong"] += sum(1 for c in last.learned
                                           if (c in last.occupied) != (c in truth))
    return seen, counts


def learned_share(result: dict) -> float:
    """The share of cells uncertain on the still frames after the 3rd confirmed placement."""
    cells = result.get("still_cells", 0)
    return result["still_uncertain"] / cells if cells else float("nan")
