"""Whole games played only through the assistant's prompts, journaled in a real SQLite file."""

from __future__ import annotations

import pytest

from tabletop.table.assistant import UNDO, Assistant
from tabletop.table.bot import Bot
from tabletop.journal.journal import Journal
from tabletop.engine.table_script import replay
from tabletop.engine.state import state_json

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
#: Far more steps than any game of these rule sets takes: a game that loops fails.
STEP_LIMIT = 5000


def play(journal: Journal, rules: str, seed: int, players: list[str]):
    table = journal.start({"setup": {"rules": rules, "players": players, "seed": seed}})
    bot = Bot(Assistant(table), seed)
    for _ in range(STEP_LIMIT):
        if table.game.pending is None:
            return table
        bot.act()
    raise AssertionError(f"{rules}: no end after {STEP_LIMIT} steps")


@pytest.mark.parametrize("rules, players", [("acquire", PLAYERS), ("acquire", PLAYERS[:2]),
                                            ("megacquire-gold", PLAYERS),
                                            ("acquisitions", PLAYERS[:3])])
def test_a_game_played_through_the_prompts_ends_and_its_journal_replays_to_the_same_state(
        tmp_path, rules, players):
    with Journal.open(tmp_path / "journal.db") as journal:
        table = play(journal, rules, seed=7, players=players)
        final = state_json(table.game)
        game_id = table.id
    assert table.game.standings and len(table.game.standings) == len(players)
    with Journal.open(tmp_path / "journal.db") as journal:
        resumed = journal.resume(game_id)
        assert state_json(resumed.game) == final
        clean = replay(resumed.lines)
        assert not clean.errors and state_json(clean.game) == final


def test_undo_through_the_prompts_gives_back_the_state_before(tmp_path):
    with Journal.open(tmp_path / "journal.db") as journal:
        table = journal.start({"setup": {"rules": "acquire", "players": PLAYERS, "seed": 3}})
        assistant = Assistant(table)
        bot = Bot(assistant, seed=3)
        for _ in range(40):
            bot.act()
        before = state_json(table.game)
        bot.act()
        assert state_json(table.game) != before
        assistant.press(UNDO)
        assert state_json(table.game) == before
