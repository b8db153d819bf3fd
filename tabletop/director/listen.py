"""``tabletop director listen``: the director's side of the broker.

It subscribes to every table's live state and slips (:mod:`tabletop.tournament.topics`),
takes each slip through the intake (verified, once by its id, or refused naming the
table), answers each slip on the table's ``ack`` topic so the table stops resending
it, and says on its terminal what it took or refused and which tables a round still
waits for. The slips taken are in the intake's file before the answer goes out: a
director restarted loses nothing, and a table that never heard the answer sends the
slip again and is answered "already taken".

:class:`Director` is the part without a network (tests and a web page use it);
:func:`listen` joins it to the broker.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any, Callable

from tabletop.errors import SlipError, TabletopError
from tabletop.tournament import model
from tabletop.tournament.intake import ALREADY, TAKEN, Intake, Outcome, slips_file
from tabletop.tournament.topics import (Answer, LiveState, ack_topic, subscriptions,
                                        table_of_topic, topic_name)

MAX_PAYLOAD = 1 << 20


class Director:
    """The director's handling of the broker's messages, without the network.

    ``send(topic, payload)`` publishes an answer. :attr:`states` holds the latest live
    state of each table (by its name in the tournament).
    """

    def __init__(self, tournament_file: str | Path, send: Callable[[str, bytes], Any],
                 out: Callable[[str], None] = print) -> None:
        self.file = Path(tournament_file)
        self.intake = Intake(self._tournament, slips_file(self.file))
        self.send, self.out = send, out
        self.states: dict[str, LiveState] = {}
        self._lock = threading.Lock()
        self._cached: tuple[float, model.Tournament] | None = None

    def _tournament(self) -> model.Tournament:
        """The tournament file as it is now (re-read when it changed: `seat` may run meanwhile)."""
        stamp = self.file.stat().st_mtime if self.file.exists() else 0.0
        if self._cached is None or self._cached[0] != stamp:
            self._cached = (stamp, model.load(self.file))
        return self._cached[1]

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
        if outcome.slip_id is not None and outcome.final:
            self.send(ack_topic(self.name, table),
                      Answer(outcome.slip_id, outcome.kind,
                             None if outcome.kind != "refused" else outcome.message).to_bytes())
        self.out(outcome.message)
        if outcome.kind == TAKEN and outcome.result is not None:
            self._progress(outcome.result.round)
        return outcome

    def _table(self, level: str) -> str:
        """The tournament's name of the table a topic level names (``Table A`` for ``table-a``)."""
        tables = self._tournament().tables
        return next((name for name in tables if topic_name(name) == level), level)

    def _state(self, table: str, payload: bytes) -> None:
        try:
            state = LiveState.from_bytes(payload)
        except ValueError:
            return
        first = table not in self.states
        self.states[table] = state
        if first:
            self.out(f"table {table} is online: round {state.round}, game {state.game}"
                     + (f", {state.undelivered} slip(s) not yet delivered"
                        if state.undelivered else ""))

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
           stop: threading.Event | None = None) -> int:
    """Listen until Ctrl-C or SIGTERM (or ``stop`` is set); 0 when stopped."""
    from tabletop.director.mqtt import BrokerAddress, Link

    address = BrokerAddress.parse(broker)
    holder: dict[str, Link] = {}
    director = Director(tournament_file, lambda topic, payload:
                        holder["link"].publish(topic, payload, qos=1), out)
    name = director.name
    link = Link(address, f"tabletop-director-{topic_name(name)}", out,
                subscriptions=[(topic, 1) for topic in subscriptions(name)],
                on_message=director.handle)
    holder["link"] = link
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
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    out("stopped: every slip taken is in " + str(slips_file(tournament_file)))
    return 0


__all__ = ["ALREADY", "TAKEN", "Director", "listen"]
