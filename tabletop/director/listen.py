"""``tabletop director listen``: the director's side of the broker.

It subscribes to every table's live state and slips (:mod:`tabletop.tournament.topics`),
takes each slip through the intake (verified, once by its id, or refused naming the
table), answers each slip on the table's ``ack`` topic so the table stops resending
it, and says on its terminal what it took or refused and which tables a round still
waits for. The slips taken are in the intake's file before the answer goes out: a
director restarted loses nothing, and a table that never heard the answer sends the
slip again and is answered "already taken".

:class:`Director` is the part without a network (tests and the director's screen use it);
:func:`listen` joins it to the broker, and with ``web`` serves the director's screen
(:mod:`tabletop.director.web`) from the same process.
"""

from __future__ import annotations

import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from tabletop.errors import SlipError, TabletopError
from tabletop.tournament import model
from tabletop.tournament.intake import (ALREADY, REFUSED, TAKEN, Entry, Intake, Outcome,
                                        slips_file)
from tabletop.tournament.topics import (Answer, LiveState, ack_topic, subscriptions,
                                        table_of_topic, topic_name)

MAX_PAYLOAD = 1 << 20


@dataclass(frozen=True)
class Snapshot:
    """What the director holds at one moment, read whole under its lock (the screen's source).

    ``entries`` are the intake's file, in the order taken; ``unrecorded`` the latest refusal
    of each table that the file does not keep (not answered: no key registered, or no round
    seated for the table; or not a slip at all), until that table's next slip is recorded.
    """

    tournament: model.Tournament
    states: Mapping[str, LiveState]
    entries: tuple[Entry, ...]
    unrecorded: Mapping[str, Outcome]


class Director:
    """The director's handling of the broker's messages, without the network.

    ``send(topic, payload)`` publishes an answer. :attr:`states` holds the latest live
    state of each table (by its name in the tournament). The broker's thread and the
    screen's threads meet here: what they share is changed and read under one lock
    (:meth:`snapshot` reads it whole).
    """

    def __init__(self, tournament_file: str | Path, send: Callable[[str, bytes], Any],
                 out: Callable[[str], None] = print) -> None:
        self.file = Path(tournament_file)
        self.intake = Intake(self._tournament, slips_file(self.file))
        self.send, self.out = send, out
        self.states: dict[str, LiveState] = {}
        self._unrecorded: dict[str, Outcome] = {}
        self._lock = threading.RLock()
        self._cached: tuple[float, model.Tournament] | None = None

    def _tournament(self) -> model.Tournament:
        """The tournament file as it is now (re-read when it changed: `seat` may run meanwhile)."""
        with self._lock:
            stamp = self.file.stat().st_mtime if self.file.exists() else 0.0
            if self._cached is None or self._cached[0] != stamp:
                self._cached = (stamp, model.load(self.file))
            return self._cached[1]

    def snapshot(self) -> Snapshot:
        """The tournament, the tables' live states and the slips, as one moment holds them."""
        with self._lock:
            return Snapshot(self._tournament(), dict(self.states),
                            tuple(self.intake.entries()), dict(self._unrecorded))

    @property
    def name(self) -> str:
        return self._tournament().name

    def handle(self, topic: str, payload: bytes) -> Outcome | None:
        """One message from the broker: a slip taken or refused (answered), a state kept."""
        where = table_of_topic(topic)
        if where is None:
            return None
        table = self._table(where[0])
        if where[1] == "state":
            self._state(table, payload)
            return None
        if where[1] != "slip":
            return None
        with self._lock:
            outcome = self.intake.take(_parsed(payload, table), table)
            self._remember(outcome)
        if outcome.slip_id is not None and outcome.final:
            self.send(ack_topic(self.name, table),
                      Answer(outcome.slip_id, outcome.kind,
                             None if outcome.kind != "refused" else outcome.message).to_bytes())
        self.out(outcome.message)
        if outcome.kind == TAKEN and outcome.result is not None:
            self._progress(outcome.result.round)
        return outcome

    def _remember(self, outcome: Outcome) -> None:
        """Keep a refusal the intake's file does not (for the screen); forget it once recorded."""
        if outcome.kind == REFUSED and (not outcome.final or outcome.slip_id is None):
            self._unrecorded[outcome.table] = outcome
        else:
            self._unrecorded.pop(outcome.table, None)

    def _table(self, level: str) -> str:
        """The tournament's name of the table a topic level names (``Table A`` for ``table-a``)."""
        tables = self._tournament().tables
        return next((name for name in tables if topic_name(name) == level), level)

    def _state(self, table: str, payload: bytes) -> None:
        try:
            state = LiveState.from_bytes(payload)
        except ValueError:
            return
        with self._lock:
            before = self.states.get(table)
            self.states[table] = state
        if before is None:
            self.out(f"table {table} is online: round {state.round}, game {state.game}"
                     + (f", {state.undelivered} slip(s) not yet delivered"
                        if state.undelivered else ""))
        if (before is None or before.game != state.game) and not state.over:
            self._check_round(table, state)

    def _check_round(self, table: str, state: LiveState) -> None:
        """Say at once when a table starts a game for a round other than the one seated: its
        slip would be refused at the end, and the game would have to be played again."""
        current = self._tournament().current
        if current and state.round != current:
            self.out(f"table {table} is playing game {state.game} for round {state.round}, but "
                     f"round {current} is seated: its slip will not count. Stop it and set the "
                     f"table to round {current} (the setup screen's +, or tabletop run --round "
                     f"{current})")

    def _progress(self, number: int) -> None:
        try:
            missing = self.intake.missing(number)
        except TabletopError:
            return
        if missing:
            self.out(f"round {number}: waiting for {model.tables_text(missing)}")
        else:
            self.out(f"round {number} is complete: `tabletop director standings` shows them")


def _parsed(payload: bytes, table: str) -> Any:
    """The slip in a message's payload, or None when it is not one (refused as such)."""
    from tabletop.journal.slipfile import parse_slip

    if len(payload) > MAX_PAYLOAD:
        return None
    try:
        return parse_slip(payload, f"the slip of table {table}")
    except SlipError:
        return None


def listen(tournament_file: str | Path, broker: str, out: Callable[[str], None] = print,
           stop: threading.Event | None = None, web: str | None = None) -> int:
    """Listen until Ctrl-C or SIGTERM (or ``stop`` is set); 0 when stopped. ``web``
    (``[HOST:]PORT``) also serves the director's screen there, from this process."""
    from tabletop.director.mqtt import BrokerAddress, Link

    address = BrokerAddress.parse(broker)
    screen_at = None
    if web is not None:
        from tabletop.director.web import WebAddress

        screen_at = WebAddress.parse(web)
    holder: dict[str, Link] = {}
    director = Director(tournament_file, lambda topic, payload:
                        holder["link"].publish(topic, payload, qos=1), out)
    name = director.name
    link = Link(address, f"tabletop-director-{topic_name(name)}", out,
                subscriptions=[(topic, 1) for topic in subscriptions(name)],
                on_message=director.handle)
    holder["link"] = link
    screen = None
    if screen_at is not None:
        from tabletop.director.web import Screen

        screen = Screen(director, screen_at, out)
        screen.start()                 # a port in use is said here, before the broker
    stop = stop or threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set()) \
        if threading.current_thread() is threading.main_thread() else None
    out(f"listening for the tables of {name} on {address} (Ctrl-C stops)")
    link.start()
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        link.stop()
        if screen is not None:
            screen.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    out("stopped: every slip taken is in " + str(slips_file(tournament_file)))
    return 0


__all__ = ["ALREADY", "TAKEN", "Director", "listen"]
