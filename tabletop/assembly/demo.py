"""``tabletop demo``: the whole pipeline on a simulated table, played by bots to the end.

Bots sit at a rendered table (:class:`calibration.synthetic.livetable.LiveTable`). They
draw turn-order tiles and put them down together; the camera
(:class:`~tabletop.assembly.simcamera.LiveCamera`) sees every frame, the eyes
(:class:`calibration.recognize.Watcher`) commit what was placed, the seating
and then the assistant propose, and the bots answer with button presses, as
people would: they place a tile from their hand with a hand that reaches in
and withdraws, CONFIRM what the screen proposes, cycle choices with NEXT,
take refused tiles off the board, and tap in a tile the camera missed. A bot
reaches in as soon as the table has taken the last action, without waiting out
the quiet moment the table planned after it (the camera has decided by then).
Every confirmed action goes to the journal; the game runs to its final standings.

What it prints (as the game goes, then a summary that adds up) is drawn by
:mod:`tabletop.assembly.demo_view`. Its games go to the demo journal,
``demo-journal.db`` in the data folder (:func:`demo_journal_path`), apart from the
table's own ``journal.db``: a demo never takes a game id of the table, is never
offered by ``tabletop run`` to resume, and never reaches a score slip.

Part of the composition root: it joins the renderer and the recognizer
(``calibration``) to the camera interface (``hardware``) and the game.
"""

from __future__ import annotations

import shlex
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from tabletop.table.assistant import CONFIRM, NEXT, UNDO, Assistant
from tabletop.table.bot import Bot
from tabletop.journal.journal import Journal
from tabletop.table.confirmed import folded
from tabletop.table.prompts import screen_lines
from tabletop.engine.ruleset import RuleSet, load_rules
from tabletop.table.seating import Seating
from tabletop.geometry.sightings import TileDoubted, TileSeen
from tabletop.engine.choices import DeadTiles
from tabletop.table.games import TableGames
from tabletop.table.loop import Seen, TableLoop
from tabletop.errors import JournalLocked, TabletopError
from tabletop.assembly.demo_view import (
    Style, action_lines, board_lines, bonus_lines, cash_lines, standings_lines, title_lines,
    worthless_lines)

def launched_as() -> str:
    """The ``tabletop`` command as the person can type it again: ``tabletop`` where that name
    finds this very program, else its path (``.venv/bin/tabletop`` from ./scripts/demo, whose
    virtual environment is not on the PATH)."""
    launched = Path(sys.argv[0])
    if launched.name != "tabletop":
        return "tabletop"                       # python -m tabletop: the installed name
    found = shutil.which("tabletop")
    if found and Path(found).resolve() == launched.resolve():
        return "tabletop"
    try:
        return shlex.quote(str(launched.resolve().relative_to(Path.cwd().resolve())))
    except ValueError:
        return shlex.quote(str(launched.resolve()))


NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo")
#: How many bots sit down when the command does not say (fewer where the rules seat fewer).
DEFAULT_PLAYERS = 4
#: The board is shown after every this many turns (and after each turn with a merger).
BOARD_EVERY = 10
#: The demo journal's name in the data folder (its copy: the same name ending .log).
DEMO_JOURNAL = "demo-journal.db"
#: Frames the table waits after a hand has left before a missed tile is tapped in by hand.
PATIENCE = 30
#: How a tile put down in play reached the game (DemoReport.how).
SEEN, ASKED, MISSED, MISREAD, CAMERA_OFF = "seen", "asked", "missed", "misread", "camera off"
TAPPED = (MISSED, MISREAD, CAMERA_OFF)


@dataclass
class DemoReport:
    """What a demo game did: the journal's game, and how the camera kept up.

    ``placed`` = ``draw`` + the tiles of ``how`` (in play), and each tile in play reached
    the game one way: committed by the camera (SEEN), asked about and confirmed (ASKED),
    or tapped in by hand (MISSED, MISREAD, CAMERA_OFF). The lists of the camera's own
    decisions (``committed``, ``unsure``) count what it said, right or wrong.
    """

    journal: Path
    game_id: int
    placed: list[str] = field(default_factory=list)      # tiles the bots put on the board
    draw: list[str] = field(default_factory=list)        # ... of which the turn-order draw's
    how: list[tuple[str, str]] = field(default_factory=list)  # (tile, SEEN...) for the rest
    committed: list[str] = field(default_factory=list)   # tiles the camera committed
    tapped: list[str] = field(default_factory=list)      # tiles entered by hand instead
    unsure: list[str] = field(default_factory=list)      # tiles the camera asked about
    removed: list[str] = field(default_factory=list)     # tiles the bots took off the board
    untracked: list[str] = field(default_factory=list)   # ... and had to say so by hand
    latencies: list[float] = field(default_factory=list)  # hand gone -> proposal, seconds
    frame_seconds: list[float] = field(default_factory=list)
    standings: list[str] = field(default_factory=list)

    def count(self, *ways: str) -> int:
        """Tiles put down in play that reached the game one of these ways."""
        return sum(1 for _, way in self.how if way in ways)

    def summary(self) -> list[str]:
        """Every figure with what it adds up to (the test checks the sums hold)."""
        draw, play = len(self.draw), len(self.how)
        draw_tapped = len(self.tapped) - self.count(*TAPPED)
        taken_off = len(self.removed)
        back = sum(1 for label in self.removed if label in self.draw)
        in_play, off = f"  in play: {play} ", f"  taken off: {taken_off} "
        lines = [
            "What the camera and the table did:",
            f"  tiles put down: {len(self.placed)} = {draw} for the turn-order draw "
            f"+ {play} in play",
            f"  draw: {draw} = {draw - draw_tapped} seen together by the camera "
            f"+ {draw_tapped} tapped in by hand",
            f"{in_play}= {self.count(SEEN)} committed by the camera "
            f"+ {self.count(ASKED)} asked about and confirmed",
            f"{' ' * len(in_play)}+ {self.count(*TAPPED)} tapped in by hand "
            f"({self.count(MISSED)} missed, {self.count(MISREAD)} misread, "
            f"{self.count(CAMERA_OFF)} with the camera off)",
            f"{off}= {back} turn-order tiles back in the bag + {taken_off - back} refused in play",
            f"{' ' * len(off)}= {taken_off - len(self.untracked)} seen going by the camera "
            f"+ {len(self.untracked)} told by hand"]
        if self.latencies:
            ordered = sorted(self.latencies)
            p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
            lines.append(f"  hand gone -> proposal: median {statistics.median(ordered):.2f} s, "
                         f"95th percentile {p95:.2f} s ({len(ordered)} proposals)")
        if self.frame_seconds:
            lines.append(f"  per camera frame (read, track, propose): median "
                         f"{statistics.median(self.frame_seconds) * 1000:.1f} ms "
                         f"({len(self.frame_seconds)} frames)")
        return lines


def demo_journal_path() -> Path:
    """Where demo games are kept: ``demo-journal.db`` in the configured data folder."""
    from tabletop.assembly.config import load_config

    return load_config().data_dir / DEMO_JOURNAL


def bot_names(count: int) -> list[str]:
    """``count`` players' names: short ones first, then numbered."""
    return list(NAMES[:count]) + [f"Bot {n}" for n in range(len(NAMES) + 1, count + 1)]


def demo_setup(rules: str, players: int | None = None,
               mode: str | None = None) -> tuple[RuleSet, list[str], dict[str, Any]]:
    """The rule set, the bots' names and the options of a demo; TabletopError saying what
    to give instead when the rule set seats fewer or more players or has no such mode."""
    ruleset = load_rules(rules)
    least, most = ruleset.min_players, ruleset.max_players
    if players is not None and not least <= players <= most:
        raise TabletopError(f"--players must be {least} or more and at most {most}, not "
                            f"{players}: {ruleset.title} seats {least} to {most} players "
                            f"(default {min(max(DEFAULT_PLAYERS, least), most)})")
    modes = ruleset.options["bonus_mode"].choices or ()
    if mode is not None and mode not in modes:
        raise TabletopError(f"--mode {mode}: {ruleset.title} is played in "
                            f"{' or '.join(modes)} mode; give one of them")
    count = players if players is not None else min(max(DEFAULT_PLAYERS, least), most)
    options = {} if mode is None else {"bonus_mode": mode}
    return ruleset, bot_names(count), options


class Demo:
    """One bot game at the rendered table (see the module's docstring).

    ``speed`` paces frames at ``speed`` times real time (0: as fast as they
    come); ``out`` receives each line the headless screen prints; ``eyes``
    makes the recognizer from the calibration (tests wrap the real one);
    ``mode`` is the bonus mode (default: the rule set's); ``turns`` stops the game
    after that many turns (None: to the end); ``style`` colours the board; ``fps`` is the
    camera's frames a second (a slower camera sees each hand in fewer frames).
    """

    def __init__(self, rules: str = "acquire", seed: int = 0, players: int | None = None,
                 speed: float = 0.0, journal: str | Path | None = None,
                 size: tuple[int, int] | None = None,
                 out: Callable[[str], None] | None = print,
                 eyes: Callable[[Any], Any] | None = None, *, mode: str | None = None,
                 turns: int | None = None, style: Style | None = None,
                 fps: float = 10.0) -> None:
        began = time.perf_counter()
        ruleset, self.names, options = demo_setup(rules, players, mode)
        self.rules, self.seed, self.speed, self.turns = ruleset.source, seed, speed, turns
        self.style = style or Style()
        self.out = out or (lambda line: None)
        for line in title_lines(ruleset, ruleset.resolve_options(options), self.names, seed):
            self.out(line)
        journal = Path(journal) if journal is not None else demo_journal_path()
        try:
            self.journal = Journal.open(journal, table_name="demo")
        except JournalLocked as error:      # another demo still playing into it
            raise JournalLocked(f"{error}; or give --journal DB to record this demo "
                                f"elsewhere") from None
        try:
            self._prepare(seed, size, eyes, fps)
        except BaseException:           # Ctrl-C while it renders, too: the journal is let go
            self.journal.close()
            raise
        self.games = TableGames(self.journal, listener=self._told)
        self.seating = Seating(self.rules, self.names, options, seed=seed)
        self.loop = TableLoop(self.seating, self.camera, self.eyes, start=self._start)
        self.loop.observers.append(self)
        self.assistant: Assistant | None = None
        self.bot: Bot | None = None
        self.report = DemoReport(journal, 0)
        self.stopped = False      # by ``turns``, the game unfinished
        self._latest: dict[str, Seen] = {}    # each tile's last commit by the camera
        self._shown: list[str] = []
        self._turn_number = 1
        self._kept_said = False   # where the game is kept (printed at its end)
        self._merged = False      # a merger in the turn being played (the board is shown after)
        self._began = time.perf_counter()
        self.out(f"  ready in {self._began - began:.1f} s.")

    def _prepare(self, seed: int, size: tuple[int, int] | None,
                 eyes: Callable[[Any], Any] | None, fps: float) -> None:
        """The rendered table, its camera and the eyes calibrated to it (the slow part)."""
        self.out("Preparing the simulated table: rendering it and calibrating the camera...")
        from calibration.synthetic.livetable import DEMO_SIZE, LiveTable
        from calibration.recognize import Watcher
        from tabletop.assembly.simcamera import LiveCamera
        import numpy as np      # the rendered table's; the engine needs none

        self.rng = np.random.default_rng(seed)
        self.live = LiveTable.make(self.rules, seed=seed, size=size or DEMO_SIZE, fps=fps)
        self.camera = LiveCamera(self.live)
        self.eyes = (eyes or Watcher)(self.live.calibrate())

    # --- the game ---------------------------------------------------------------------------

    def play(self) -> DemoReport:
        """Seat the players, play to the end (or ``turns``), print the standings."""
        for _ in self.steps():
            pass
        return self.report

    def steps(self) -> Iterator[None]:
        """The whole game a camera frame at a time (the touchscreen advances it a tick each)."""
        yield from self._seat()
        while not self.over and not self.stopped:
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
        self.out("Turn-order draw: each bot puts a tile down, all at once; the camera watches...")
        game_geometry = self.seating.geometry
        tiles = self.rng.choice(len(game_geometry.cells_of), len(self.names), replace=False)
        labels = [game_geometry.labels[int(self.rng.choice(game_geometry.cells_of[t]))] for t in tiles]
        owner = dict(zip(labels, self.rng.permutation(self.names).tolist()))
        self.live.hurry()
        self.live.place_many(labels)
        self.report.placed += labels
        self.report.draw += labels
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
        """Print the final board and standings (or where the game stopped), the summary and
        where the game is kept."""
        game = self.assistant.game
        if self.stopped:
            self._board(f"board after turn {self.turns}")
            self.out(f"Stopped after turn {self.turns} (--turns): the game stays unfinished "
                     f"in the journal.")
        else:
            self._board("final board")
            self.report.standings = standings_lines(game)
            self.out("Final standings:")
            for line in self.report.standings:
                self.out(f"  {line}")
            for line in worthless_lines(game):
                self.out(line)
        for line in self.report.summary():
            self.out(line)
        self.where()

    def where(self, stopped: bool = False) -> None:
        """Print where the game is kept and the commands that show it (``stopped``: by
        Ctrl-C, saying so first: the one line of the command that says it stopped; where
        the game is kept follows unless it was printed already, the window left open on
        the game's end)."""
        path, game_id = self.report.journal, self.report.game_id
        if stopped:
            self.out(ctrl_c_line(game_id != 0, self._turn_number, self.over,
                                 self.turns if self.stopped else None))
            if self._kept_said:
                return
        if game_id == 0:
            if not stopped:
                self.out("Nothing was recorded: the game had not begun.")
            return
        quoted = shlex.quote(str(path))
        kept = "the demo journal, apart from the table's games" \
            if path.name == DEMO_JOURNAL else "the journal"
        self.out(f"Game {game_id} is kept in {kept}:")
        self.out(f"  {path}")
        command = launched_as()
        self.out(f"  list its games:   {command} games --journal {quoted}")
        self.out(f"  this game's log:  {command} export {game_id} --journal {quoted}")
        self.out(f"  its final state:  {command} replay --game {game_id} --journal {quoted}")
        self._kept_said = True

    def close(self) -> None:
        self.journal.close()

    # --- the bots' hands --------------------------------------------------------------------

    def _place(self, tile: str) -> Iterator[None]:
        """Put ``tile`` down; CONFIRM what the camera proposes, or tap it in if it was missed."""
        assistant = self.assistant
        # The bot reaches in once the table has taken the last action, not after the quiet
        # the table planned: the camera had decided, and frames nobody needs are most of
        # what a demo costs.
        self.live.hurry()
        event = self.live.place(tile)
        self.report.placed.append(tile)
        if assistant.manual:
            yield from self._frames(until=lambda: False, limit=self.live.planned)
        else:
            yield from self._frames(lambda: assistant.prompt.chosen.action is not None or
                                    tile in assistant.flagged, self.live.planned + PATIENCE)
        proposed = getattr(assistant.prompt.chosen.action, "tile", None)
        way = CAMERA_OFF if assistant.manual else MISSED     # the cable may go while it waits
        if proposed is not None and proposed != tile:
            self.out(f"  (table: the camera proposed {proposed}, the tile is {tile}: UNDO, tap {tile})")
            assistant.press(UNDO)
            way = MISREAD
        if getattr(assistant.prompt.chosen.action, "tile", None) != tile and tile not in assistant.flagged:
            if way == MISSED:
                self.out(f"  (table: the camera missed {tile}: tapped in by hand)")
            assistant.enter(tile)
            self.report.tapped.append(tile)
        else:
            seen = self._latest.get(tile)
            way = ASKED if seen is not None and isinstance(seen.decision, TileDoubted) else SEEN
            self._latency(tile, event)
        self.report.how.append((tile, way))
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
        self.live.hurry()
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
            self.report.latencies.append((seen.frame - event.clear_from) / self.live.fps +
                                         seen.seconds)

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

    # --- what the table told (the game's listener) ------------------------------------------

    def _start(self, seating: Seating) -> Assistant:
        self.assistant = self.games.start(seating)
        self.report.game_id = self.assistant.table.id
        tapped = [label for label in self.report.draw if label in self.report.tapped]
        seen = [label for label in seating.tiles if label not in tapped]
        self.out(f"  the camera saw {', '.join(seen) or 'none of them'}"
                 + (f"; tapped in by hand: {', '.join(tapped)}" if tapped else "") + ".")
        drawn = ", ".join(f"{name} {label}" for label, name in seating.drawn.items())
        self.out(f"Turn order: {seating.prompt.message}.")
        self.out(f"  drawn: {drawn}.")
        self.bot = Bot(self.assistant, seed=self.seed)
        if self.assistant.flagged:
            self.out("  These rules put the turn-order tiles back in the bag: the bots take "
                     "them off.")
        self._board("the board at the start", legend=True)
        return self.assistant

    def _told(self, what: str, events: list[dict[str, Any]]) -> None:
        game = self.assistant.game
        if not folded(game, events):
            for line in action_lines(self._turn_number, what):
                self.out(line)
        for line in bonus_lines(game, events):
            self.out(line)
        self._merged = self._merged or any(event.get("event") == "merger" for event in events)
        if game.turn > self._turn_number and game.pending is not None:
            self._turn_over(self._turn_number)
        self._turn_number = game.turn     # the turn the next action belongs to

    def _turn_over(self, turn: int) -> None:
        """After each turn the cash; the board after a merger and every few turns."""
        for line in cash_lines(self.assistant.game):
            self.out(line)
        if self.turns is not None and turn >= self.turns:
            self.stopped = True
        elif self._merged or turn % BOARD_EVERY == 0:
            self._board(f"board after turn {turn}")
        self._merged = False

    def _board(self, heading: str, legend: bool = False) -> None:
        self.out("")
        for line in board_lines(self.assistant.game, self.style, heading, legend):
            self.out(line)
        self.out("")

    def _show(self) -> None:
        lines = screen_lines(self.desk.prompt)
        extra = [line for line in lines if line.startswith(("**", "  !", "  -"))]
        if extra and extra != self._shown:
            for line in extra:
                self.out(f"  screen: {line.strip()}")
        self._shown = extra


def ctrl_c_line(began: bool, turn: int, over: bool, cut_at: int | None) -> str:
    """The one line a Ctrl-C says, true at the moment it came: before the game began;
    during ``turn``; after the game ended (``over``: the final standings, the summary, the
    window left open on the results); or after ``--turns`` stopped the game at turn
    ``cut_at``.

    >>> ctrl_c_line(True, 7, over=False, cut_at=None)
    'Stopped (Ctrl-C) during turn 7: every confirmed action is in the journal, the game unfinished.'
    >>> ctrl_c_line(True, 31, over=True, cut_at=None)
    'Stopped (Ctrl-C) after the game ended: every confirmed action is in the journal.'
    >>> ctrl_c_line(True, 5, over=False, cut_at=4)
    'Stopped (Ctrl-C) after turn 4 (--turns): every confirmed action is in the journal, the game unfinished.'
    >>> ctrl_c_line(False, 1, over=False, cut_at=None)
    'Stopped (Ctrl-C) before the game began: nothing was recorded.'
    """
    if not began:
        return BEFORE_THE_GAME
    if over:
        return "Stopped (Ctrl-C) after the game ended: every confirmed action is in the journal."
    when = f"after turn {cut_at} (--turns)" if cut_at is not None else f"during turn {turn}"
    return (f"Stopped (Ctrl-C) {when}: every confirmed action is in the journal, the game "
            f"unfinished.")


#: What a Ctrl-C says before the game began (while the table renders, too).
BEFORE_THE_GAME = "Stopped (Ctrl-C) before the game began: nothing was recorded."


def run(rules: str = "acquire", seed: int = 0, players: int | None = None, speed: float = 0.0,
        journal: str | Path | None = None, out: Callable[[str], None] = print, *,
        mode: str | None = None, turns: int | None = None,
        style: Style | None = None) -> DemoReport:
    """Play one demo game headless, printing each action, the cash after each turn, the
    board now and then, the standings and the summary. Stopped by Ctrl-C, it says so and
    where the game is kept before the KeyboardInterrupt goes on (the caller need not say
    "stopped" again)."""
    try:
        demo = Demo(rules, seed, players, speed, journal, out=out, mode=mode, turns=turns,
                    style=style)
    except KeyboardInterrupt:
        out(BEFORE_THE_GAME)
        raise
    try:
        return demo.play()
    except KeyboardInterrupt:
        demo.where(stopped=True)
        raise
    finally:
        demo.close()


def _drain(steps: Iterator[None]) -> None:
    for _ in steps:
        pass
