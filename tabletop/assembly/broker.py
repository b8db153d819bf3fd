"""The table's link to the tournament's MQTT broker: its live state, and its signed slips.

A game set up for a tournament carries its seat (round, table) in its setup line.
After each confirmed action of such a game the table publishes its live state
(retained, on ``tabletop/<tournament>/table/<table>/state``); when the game is
over it signs the slip, keeps it in its outbox (``outbox.db`` in the data
folder, on disk before anything is sent) and sends it (QoS 1) on ``.../slip``.
The slip stays in the outbox until the director answers for it on ``.../ack``;
until then it is sent again at every connection to the broker and every
``resend`` seconds. The venue's Wi-Fi may drop for as long as it likes: nothing
is lost, and the director counts a slip sent twice once (by its id).

A game without a seat publishes nothing. The journal stays the record: a slip
can always be made again from it (``tabletop slip GAME``), and carried on a USB
stick (``tabletop director import``).
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Callable

from tabletop.director.mqtt import BrokerAddress, Link
from tabletop.journal.journal import Journal
from tabletop.journal.keys import SigningKey
from tabletop.journal.outbox import OUTBOX_FILE, Outbox
from tabletop.journal.seat import Seat
from tabletop.tournament.topics import (Answer, LiveState, PlayerState, ack_topic, slip_topic,
                                        state_topic, table_of_topic, topic_name)

RESEND_SECONDS = 30.0


class TableLink:
    """One table's side of the broker (``tournament``: its name, as the director's file has it)."""

    def __init__(self, broker: BrokerAddress | str, tournament: str, table: str,
                 data_dir: str | Path, key: SigningKey, out: Callable[[str], None] = print,
                 resend: float = RESEND_SECONDS) -> None:
        self.address = broker if isinstance(broker, BrokerAddress) else BrokerAddress.parse(broker)
        self.tournament, self.table, self.key, self.out = tournament, table, key, out
        self._state: LiveState | None = None
        self._stop = threading.Event()
        self._send_lock = threading.Lock()
        self._answer_lock = threading.Lock()    # an answer settled and its state published
        # The link first: without paho-mqtt it refuses, and no outbox is left open.
        self.link = Link(self.address, f"tabletop-{topic_name(tournament)}-{topic_name(table)}",
                         out, subscriptions=[(ack_topic(tournament, table), 1)],
                         on_connect=self._connected, on_message=self._answer)
        self.outbox = Outbox.open(Path(data_dir) / OUTBOX_FILE)
        self._resender = threading.Thread(target=self._resend_every, args=(resend,),
                                          name=f"slips of table {table}", daemon=True)

    @property
    def connected(self) -> bool:
        return self.link.connected

    def start(self) -> None:
        self.link.start()
        self._resender.start()

    def stop(self) -> None:
        # An answer being taken publishes its state first: a table stopped just as the
        # director answered its last slip left "1 slip not yet delivered" retained.
        with self._answer_lock:
            self._stop.set()
        self.link.stop()
        if self._resender.is_alive():
            self._resender.join(timeout=5)
        self.outbox.close()

    # -- what the table tells it ---------------------------------------------------------

    def confirmed(self, journal: Journal, game_id: int) -> None:
        """After each confirmed action of game ``game_id``: its live state published, and its
        slip kept and sent once it is over. A game without a tournament seat is left alone."""
        game = journal.resume(game_id).game
        seat_value = game.setup_json()["setup"].get("seat")
        if seat_value is None:
            return
        seat = Seat.from_json(seat_value)
        if seat.table != self.table:
            self.out(f"tournament: game {game_id} is seated at table {seat.table}, and this "
                     f"table is {self.table}: it is not published")
            return
        if game.over:
            self.finished(journal, game_id)
        pending = game.pending
        self._state = LiveState(
            self.tournament, seat.round, seat.table, game_id, game.turn,
            None if pending is None else game.names[pending.player],
            tuple(PlayerState(name, cash) for name, cash in zip(game.names, game.cash)),
            game.over, len(self.outbox.pending()))
        self._publish_state()

    def finished(self, journal: Journal, game_id: int) -> str:
        """Sign game ``game_id``'s slip, keep it in the outbox (durably), send it; its id."""
        from tabletop.journal.slip import make_slip

        ident = self.outbox.keep(make_slip(journal, game_id, self.key))
        self.send_pending()
        return ident

    # -- sending -------------------------------------------------------------------------

    def send_pending(self) -> int:
        """Send every slip not yet answered for; how many were handed to the broker."""
        import json

        sent = 0
        with self._send_lock:
            for parcel in self.outbox.pending():
                payload = json.dumps(parcel.slip, ensure_ascii=False).encode("utf-8")
                sent += self.link.publish(slip_topic(self.tournament, self.table), payload, qos=1)
        return sent

    def _publish_state(self) -> None:
        if self._state is not None:
            self.link.publish(state_topic(self.tournament, self.table), self._state.to_bytes(),
                              qos=0, retain=True)

    def _connected(self) -> None:
        self._publish_state()
        count = self.send_pending()
        if count:
            self.out(f"tournament: sent {count} slip(s) kept while the broker was away")

    def _answer(self, topic: str, payload: bytes) -> None:
        where = table_of_topic(topic)
        if where is None or where[1] != "ack":
            return
        try:
            answer = Answer.from_bytes(payload)
        except ValueError:
            return
        with self._answer_lock:
            if self._stop.is_set():     # (stopping: the slip stays kept, is sent again, and
                return                  # the director, which takes each slip once, answers again)
            self._settle(answer)

    def _settle(self, answer: Answer) -> None:
        if self.outbox.settle(answer.slip, answer.outcome, answer.reason):
            if answer.outcome == "refused":
                self.out(f"tournament: the director refused slip {answer.slip}: {answer.reason}")
            else:
                self.out(f"tournament: the director has slip {answer.slip}")
            # The retained state must not go on saying the slip is undelivered.
            if self._state is not None:
                self._state = replace(self._state, undelivered=len(self.outbox.pending()))
                self._publish_state()

    def _resend_every(self, seconds: float) -> None:
        while not self._stop.wait(seconds):
            try:
                self.send_pending()
            except Exception as error:   # noqa: BLE001 - said; the next round tries again
                self.out(f"tournament: {error}")


def pending_count(data_dir: str | Path) -> int:
    """How many slips of this table's outbox the director has not answered for."""
    outbox = Outbox.open(Path(data_dir) / OUTBOX_FILE)
    try:
        return len(outbox.pending())
    finally:
        outbox.close()


__all__ = ["RESEND_SECONDS", "TableLink", "pending_count"]
