"""One whole Acquire demo game, played once for every test that reads it.

tests/assembly/test_demo.py checks what the camera and the table did in it and that the
journal replays to its final state; tests/assembly/test_demo_output.py checks what it
printed. A whole game is a quarter of a minute of rendering and reading frames: playing it
once for both files proves the same and costs half. tests/assembly/conftest.py makes the
fixture theirs; tests using it carry ``WHOLE_ACQUIRE`` so that pytest-xdist runs them in one
worker, which plays it once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

WHOLE_ACQUIRE = pytest.mark.xdist_group("whole-acquire-demo")


@dataclass(frozen=True)
class WholeGame:
    """A finished demo game: the Demo (closed), its report, what it printed, its journal."""

    demo: Any
    report: Any
    out: str
    journal: Path
    game_id: int


@pytest.fixture(scope="session")
def whole_acquire_game(tmp_path_factory) -> WholeGame:
    """Four bots, seed 0 (mergers whose shares are kept to the end), printed as the command
    prints it into a pipe (no colour)."""
    pytest.importorskip("cv2")
    from tabletop.assembly.demo import Demo

    journal = tmp_path_factory.mktemp("whole-acquire") / "journal.db"
    lines: list[str] = []
    demo = Demo("acquire", 0, players=4, journal=journal, out=lines.append)
    try:
        report = demo.play()
    finally:
        demo.close()
    return WholeGame(demo, report, "\n".join(lines) + "\n", journal, report.game_id)
