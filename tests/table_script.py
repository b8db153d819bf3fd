"""A table script built line by line on a live game, for the variant scenario tests.

Each line is played as ``tabletop replay`` plays it; ``refused`` checks that
an illegal line leaves the game, and the replayed script, exactly as they were.
"""

from __future__ import annotations

import json

import pytest

from tabletop import IllegalAction, parse_action, replay, state_json


class Table:
    """A table script built line by line and played on a live game as replay does."""

    rules = "acquire"

    def __init__(self, players, start_tiles=None, options=None, rules=None):
        setup = {"rules": rules or self.rules, "players": list(players)}
        if options:
            setup["options"] = options
        if start_tiles:
            setup["start_tiles"] = start_tiles
        self.lines = [json.dumps({"setup": setup})]
        result = replay(self.lines)
        assert result.errors == [], result.errors
        self.game = result.game
        self.events = []

    def do(self, kind, **fields):
        line = {"do": kind, **fields}
        self.events = self.game.push(parse_action(line))
        self.lines.append(json.dumps(line))
        return self.events

    def refused(self, kind, match=None, **fields):
        """The line is refused, live and in a replayed script, and changes nothing."""
        line = {"do": kind, **fields}
        before = self.state()
        with pytest.raises(IllegalAction, match=match) as info:
            self.game.push(parse_action(line))
        assert self.state() == before
        result = replay(self.lines + [json.dumps(line)], keep_going=True)
        assert [number for number, _ in result.errors] == [len(self.lines) + 1]
        assert state_json(result.game) == before
        return str(info.value)

    def turn(self, tile, found=None, buy=None):
        """The player asked to place does: place, found if asked, buy."""
        who = self.pending()[1]
        self.do("place", tile=tile, player=who)
        if found is not None:
            assert self.pending() == ("found", who)
            self.do("found", chain=found, player=who)
        self.do("buy", shares=buy or {}, player=who)

    def region(self, cells, chain):
        """Place ``cells`` in order, players rotating; found ``chain`` when asked; buy nothing."""
        for cell in cells:
            who = self.pending()[1]
            self.do("place", tile=cell, player=who)
            if self.pending()[0] == "found":
                self.do("found", chain=chain, player=who)
            assert self.pending() == ("buy", who), f"{cell} asked for {self.pending()}"
            self.do("buy", shares={}, player=who)

    def state(self):
        return state_json(self.game)

    def pending(self):
        pending = self.state()["pending"]
        return None if pending is None else (pending["kind"], pending["player"])

    def cash(self):
        return {p["name"]: p["cash"] for p in self.state()["players"]}

    def player(self, name):
        (player,) = [p for p in self.state()["players"] if p["name"] == name]
        return player

    def shares(self, name):
        return self.player(name)["shares"]

    def chain(self, name):
        return self.state()["chains"][name]

    def books(self):
        """Every player's cash and shares: {name: (cash, shares)}."""
        return {p["name"]: (p["cash"], p["shares"]) for p in self.state()["players"]}

    def board(self):
        return self.state()["board"]

    def bank(self, name):
        """Shares left in the bank, also for a chain not on the board."""
        return self.game.bank[self.game.rules.chain_index(name)]

    def replayed(self):
        """The whole script replayed from scratch gives the live state."""
        result = replay(self.lines)
        assert result.errors == []
        assert state_json(result.game) == self.state()
        return self.state()
