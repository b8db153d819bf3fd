"""The table's outbox: a slip is on disk before it is sent, and stays until the director answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabletop.errors import JournalError
from tabletop.journal.keys import signing_key_from_seed
from tabletop.journal.outbox import Outbox, slip_id
from tabletop.journal.signing import sign

KEY = signing_key_from_seed(bytes(32))


def slip(game: int) -> dict:
    return sign({"slip": 2, "game": game, "players": [{"name": "Ann", "cash": 100}]}, KEY)


def test_a_kept_slip_outlives_the_program_until_it_is_answered(tmp_path: Path) -> None:
    path = tmp_path / "data" / "outbox.db"
    box = Outbox.open(path)
    first, second = box.keep(slip(1)), box.keep(slip(2))
    assert box.keep(slip(1)) == first                   # kept twice: still one slip
    box.close()                                         # the table is switched off
    box = Outbox.open(path)
    assert [p.id for p in box.pending()] == [first, second]
    assert box.pending()[0].slip == slip(1)
    assert box.settle(first, "taken") and not box.settle(first, "taken")
    assert box.settle(second, "refused", "refused the slip of table 2: ...")
    assert box.pending() == []
    assert [(p.id, p.reason) for p in box.refused()] == [(second, "refused the slip of table 2: ...")]
    box.close()
    assert path.stat().st_mode & 0o077 == 0             # the table's own


def test_the_id_is_the_whole_signed_slip() -> None:
    changed = slip(1)
    changed["players"][0]["cash"] = 1000
    assert slip_id(slip(1)) == slip_id(slip(1)) != slip_id(changed)


def test_an_outbox_that_cannot_be_opened_is_said(tmp_path: Path) -> None:
    (tmp_path / "outbox.db").write_text("not a database, a note")
    with pytest.raises(JournalError, match="outbox"):
        Outbox.open(tmp_path / "outbox.db")


def test_a_table_without_paho_is_told_so_and_opens_no_outbox(tmp_path, monkeypatch):
    # Without the tournament extra the table plays on without a link: nothing of the link may
    # be left behind (the outbox is a SQLite file in the data folder).
    import sys

    import pytest

    from tabletop.assembly.broker import TableLink
    from tabletop.journal.keys import new_signing_key
    from tabletop.tournament.model import TournamentError

    monkeypatch.setitem(sys.modules, "paho", None)
    monkeypatch.setitem(sys.modules, "paho.mqtt", None)
    monkeypatch.setitem(sys.modules, "paho.mqtt.client", None)
    with pytest.raises(TournamentError, match="paho"):
        TableLink("127.0.0.1:1", "Spring Open", "3", tmp_path, new_signing_key())
    assert list(tmp_path.iterdir()) == []
