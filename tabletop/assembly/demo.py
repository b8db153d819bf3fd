"""``tabletop demo``: the whole pipeline on a simulated table, played by bots to the end.

Bots sit at a rendered table (:class:`calibration.synthetic.livetable.LiveTable`). They
draw turn-order tiles and put them down together; the camera
(:class:`~tabletop.assembly.simcamera.LiveCamera`) sees every frame, the eyes
(:class:`calibration.recognize.Watcher`) commit what was placed, the seating
and then the assistant propose, and the bots answer with button presses, as
people would: they place a tile from their hand with a hand that reaches in
and withdraws, CONFIRM what the screen proposes, cycle choices with NEXT,
take refused tiles off the board, and tap in a tile the camera missed. Every
confirmed action goes to the journal; the game runs to its final standings.

Part of the composition root: it joins the renderer and the recognizer
(``calibration``) to the camera interface (``hardware``) and the game.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from tabletop.table.assistant import CONFIRM, NEXT, UNDO, Assistant
from tabletop.table.bot import Bot
from tabletop.journal.journal import Journal
from tabletop.table.prompts import screen_lines
from tabletop.engine.ruleset import load_rules
from tabletop.table.seating import Seating
from tabletop.geometry.sightings import TileDoubted, TileSeen
from tabletop.engine.choices import DeadTiles
from tabletop.table.games import TableGames
from tabletop.table.loop import Seen, TableLoop

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")
#: Frames the table waits after a hand has left before a missed tile is tapped in by hand.
PATIENCE = 30


@dataclass
class DemoReport:
    """What a demo game did: the journal's game, and how the camera kept up."""

    journal: Path
    game_id: int
    placed: list[str] = field(default_factory=list)      # tiles the bots put on the board
    committed: list[str] = field(default_factory=list)   # tiles the camera committed
    tapped: list[str] = field(default_factory=list)      # tiles entered by hand instead
    unsure: list[str] = field(default_factory=list)      # tiles the camera asked about
    removed: list[str] = field(default_factory=list)     # tiles the bots took off the board
    untracked: list[str] = field(default_factory=list)   # ... and had to say so by hand
    latencies: list[float] = field(default_factory=list)  # hand gone -> proposal, seconds
    frame_seconds: list[float] = field(default_factory=list)
    standings: list[str] = field(default_factory=list)

    def summary(self) -> list[str]:
        lines = [f"placements: {len(self.placed)}, committed by the camera: {len(self.committed)}, "
                 f"tapped in by hand: {len(self.tapped)}, asked as unsure: {len(self.unsure)}"]
        if self.latencies:
            ordered = sorted(self.latencies)
            p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
            lines.append(f"hand gone -> proposal: median {statistics.median(ordered):.2f} s, "
                         f"95th percentile {p95:.2f} s ({len(ordered)} placements)")
        if self.frame_seconds:
            lines.append(f"per frame (read, track, propose): median "
                         f"{statistics.median(self.frame_seconds) * 1000:.1f} ms")
        return lines


class Demo:
    """One bot game at the rendered table (see the module's docstring).

    ``speed`` paces frames at ``speed`` times real time (0: as fast as they
    come); ``out`` receives each line the headless screen prints; ``eyes``
    makes the recognizer from the calibration (tests wrap the real one).
    """

    def __init__(self, rules: str = "acquire", seed: int = 0, players: int | None = None,
                 speed: float = 0.0, journal: str | Path | None = None,
                 size: tuple[int, int] | None = None,
                 out: Callable[[str], None] | None = print,
                 eyes: Callable[[Any], Any] | None = None) -> None:
        from calibration.synthetic.livetable import DEMO_SIZE, LiveTable
        from calibration.recognize import Watcher
        from tabletop.assembly.simcamera import LiveCamera

        ruleset = load_rules(rules)
        count = players or min(4, ruleset.max_players)
        self.names = list(NAMES[:count])
        self.rules, self.seed, self.speed = ruleset.source, seed, speed
        self.out = out or (lambda line: None)
        import numpy as np      # the rendered table's; the engine needs none

        self.rng = np.random.default_rng(seed)
        self.live = LiveTable.make(self.rules, seed=seed, size=size or DEMO_SIZE)
        self.camera = LiveCamera(self.live)
        self.eyes = (eyes or Watcher)(self.live.calibrate())
        if journal is None:
            journal = Path(tempfile.mkdtemp(prefix="tabletop-demo-")) / "journal.db"
        self.journal = Journal.open(journal, table_name="demo")
        self.games = TableGames(self.journal, listener=self._told)
        self.seating = Seating(self.rules, self.names, seed=seed)
        self.loop = TableLoop(self.seating, self.camera, self.eyes, start=self._start)
        self.loop.observers.append(self)
        self.assistant: Assistant | None = None
        self.bot: Bot | None = None
        self.report = DemoReport(Path(journal), 0)
        self._latest: dict[str, Seen] = {}    # each tile's last commit by the camera
        self._shown: list[str] = []
        self._turn_number = 1
        self._note = ""       # how long the last placement took to be proposed
        self._began = time.perf_counter()

    # --- the game ---------------------------------------------------------------------------

    def play(self) -> DemoReport:
        """Seat the players, play to the end, print the standings."""
        for _ in self.steps():
            pass
        return self.report

    def steps(self) -> Iterator[None]:
        """The whole game a camera frame at a time (the touchscreen advances it a tick each)."""
        yield from self._seat()
        while not self.over:
            yield from self._turn()
        self.finish()

    def seat(self) -> None:
        """The turn-order draw: every player puts a tile down at once; the table says whose."""
        _drain(self._seat())

    def turn(self) -> None:
        """One step of play: take a refused tile off, place a tile, or answer what is asked."""
        _drain(self._turn())

    @property
    def over(self) -> bool:
        return self.assistant is not None and self.assistant.game.pending is None

    def _seat(self) -> Iterator[None]:
        yield from self._frames(until=lambda: self.eyes.board is not None, limit=60)
        game_geometry = self.seating.geometry
        tiles = self.rng.choice(len(game_geometry.cells_of), len(self.names), replace=False)
        labels = [game_geometry.labels[int(self.rng.choice(game_geometry.cells_of[t]))] for t in tiles]
        owner = dict(zip(labels, self.rng.permutation(self.names).tolist()))
        self.live.place_many(labels)
        self.report.placed += labels
        yield from self._frames(lambda: self.seating.prompt.kind != "draw",
                                self.live.planned + PATIENCE)
        for label in labels:
            if label not in self.seating.tiles:
                self.seating.enter(label)
                self.report.tapped.append(label)
        while self.seating.setup is None:
            asked = self.seating.prompt.title.removeprefix("Who drew ").rstrip("?")
            self._choose(lambda option: option.label == owner[asked])
        self._show()
        for label in list(self.assistant.flagged):      # turn-order tiles back in the bag
            yield from self._take_off(label)

    def _turn(self) -> Iterator[None]:
        assistant, bot = self.assistant, self.bot
        for label in list(assistant.flagged):
            yield from self._take_off(label)
        prompt = assistant.prompt
        if prompt.kind == "settle":
            # The bots never disagree with the camera: a difference is the camera's mistake.
            self.out(f"  (table: the camera differs: {'; '.join(prompt.differences)})")
            self._choose(lambda option: option.command == "dismiss")
        elif prompt.chosen is not None and prompt.chosen.action is None and \
                prompt.kind in ("place", "closing"):
            dead = bot.dead()
            tile = bot.tile()
            if dead is not None and self.rng.random() < 0.5:
                yield from self._reveal(dead)
            elif tile is not None:
                yield from self._place(tile)
            else:
                bot.answer()
        else:
            bot.answer()
        self._show()

    def finish(self) -> None:
        game = self.assistant.game
        self.report.standings = [f"{rank}. {game.names[seat]}: {game.rules.money(game.cash[seat])}"
                                 for seat, rank in game.standings]
        self.out("Final standings:")
        for line in self.report.standings:
            self.out(f"  {line}")
        for line in self.report.summary():
            self.out(line)
        self.out(f"journal: {self.report.journal} (game {self.report.game_id}; "
                 f"`tabletop replay --journal {self.report.journal} --game {self.report.game_id}`)")

    def close(self) -> None:
        self.journal.close()

    # --- the bots' hands --------------------------------------------------------------------

    def _place(self, tile: str) -> Iterator[None]:
        """Put ``tile`` down; CONFIRM what the camera proposes, or tap it in if it was missed."""
        assistant = self.assistant
        event = self.live.place(tile)
        self.report.placed.append(tile)
        if assistant.manual:
            yield from self._frames(until=lambda: False, limit=self.live.planned)
        else:
            yield from self._frames(lambda: assistant.prompt.chosen.action is not None or
                                    tile in assistant.flagged, self.live.planned + PATIENCE)
        proposed = getattr(assistant.prompt.chosen.action, "tile", None)
        if proposed is not None and proposed != tile:
            self.out(f"  (table: the camera proposed {proposed}, the tile is {tile}: UNDO, tap {tile})")
            assistant.press(UNDO)
        if getattr(assistant.prompt.chosen.action, "tile", None) != tile and tile not in assistant.flagged:
            if not assistant.manual:
                self.out(f"  (table: the camera missed {tile}: tapped in by hand)")
            assistant.enter(tile)
            self.report.tapped.append(tile)
        else:
            self._latency(tile, event)
        if assistant.prompt.chosen.action is not None:
            assistant.press(CONFIRM)

    def _reveal(self, tile: str) -> Iterator[None]:
        """Show a dead tile: where the rules turn it over on the board it is put down, else tapped."""
        assistant = self.assistant
        if assistant.game.rules.dead_tiles == DeadTiles.TURNOVER:
            yield from self._place(tile)
        else:
            assistant.reveal_dead(tile)
            assistant.press(CONFIRM)

    def _take_off(self, label: str) -> Iterator[None]:
        assistant = self.desk
        if label not in self.live.tiles:
            assistant.tile_removed(label)
            return
        self.live.remove(label)
        self.report.removed.append(label)
        yield from self._frames(lambda: label not in assistant.flagged,
                                self.live.planned + PATIENCE)
        if label in assistant.flagged:        # the camera did not see it go: say so by hand
            self.out(f"  (table: the camera did not see {label} taken off: told by hand)")
            self.report.untracked.append(label)
            assistant.tile_removed(label)

    def _latency(self, tile: str, event: Any) -> None:
        seen = self._latest.get(tile)
        if seen is not None:
            latency = (seen.frame - event.clear_from) / self.live.fps + seen.seconds
            self.report.latencies.append(latency)
            self._note = f"  ({latency:.2f} s from the hand leaving to the proposal)"

    # --- what the camera did (the loop's observer) ------------------------------------------

    def seen(self, seen: Seen) -> None:
        if isinstance(seen.decision, TileSeen):
            self.report.committed.append(seen.decision.tile)
            self._latest[seen.decision.tile] = seen
        elif isinstance(seen.decision, TileDoubted):
            self.report.unsure.append(seen.decision.tile)
            self._latest[seen.decision.tile] = seen

    def frame_done(self, seconds: float) -> None:
        self.report.frame_seconds.append(seconds)

    # --- time passing -----------------------------------------------------------------------

    @property
    def desk(self) -> Any:
        return self.loop.desk

    def _choose(self, wanted: Callable[[Any], bool]) -> None:
        """NEXT until the wanted option is chosen, then CONFIRM (the buttons at the table)."""
        for _ in range(len(self.desk.prompt.options)):
            if wanted(self.desk.prompt.chosen):
                break
            self.loop.press(NEXT)
        self.loop.press(CONFIRM)

    def frames(self, until: Callable[[], bool], limit: int) -> None:
        """Let the camera run until ``until()`` or ``limit`` frames (the tests wait so)."""
        _drain(self._frames(until, limit))

    def _frames(self, until: Callable[[], bool], limit: int) -> Iterator[None]:
        """Let the camera run (paced by ``speed``) until ``until()`` or ``limit`` frames."""
        for _ in range(max(limit, 0)):
            if until():
                return
            if self.speed > 0:
                due = self._began + self.live.position / (self.live.fps * self.speed)
                time.sleep(max(0.0, due - time.perf_counter()))
            self.loop.step()
            self._show()
            yield

    def _start(self, seating: Seating) -> Assistant:
        self.assistant = self.games.start(seating)
        self.report.game_id = self.assistant.table.id
        self.out(f"{', '.join(self.names)} play {load_rules(self.rules).title} "
                 f"(seed {self.seed}); {seating.prompt.message}")
        self.bot = Bot(self.assistant, seed=self.seed)
        return self.assistant

    def _told(self, what: str, events: list[dict[str, Any]]) -> None:
        self.out(f"turn {self._turn_number:>3}  {what}{self._note}")
        self._note = ""
        self._turn_number = self.assistant.game.turn     # the turn the next action belongs to

    def _show(self) -> None:
        lines = screen_lines(self.desk.prompt)
        extra = [line for line in lines if line.startswith(("**", "  !", "  -"))]
        if extra and extra != self._shown:
            for line in extra:
                self.out(f"  screen: {line.strip()}")
        self._shown = extra


def run(rules: str = "acquire", seed: int = 0, players: int | None = None, speed: float = 0.0,
        journal: str | Path | None = None, out: Callable[[str], None] = print) -> DemoReport:
    """Play one demo game headless, printing each action and the standings."""
    demo = Demo(rules, seed, players, speed, journal, out=out)
    try:
        return demo.play()
    finally:
        demo.close()


def _drain(steps: Iterator[None]) -> None:
    for _ in steps:
        pass
