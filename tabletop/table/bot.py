"""A bot table: players who act only through the assistant, as people at the table would.

It places tiles from its virtual hand (the engine deals them in virtual mode),
answers every prompt by pressing NEXT a random number of times and then
CONFIRM, and says a tile it cannot place is not playable. The demo drives the
camera with its placements; the tests drive the assistant with them directly.

>>> from tabletop.table.assistant import Assistant, UnjournaledTable
>>> from tabletop.engine.game import Game
>>> assistant = Assistant(UnjournaledTable(Game("acquire", ["Ann", "Bob"], seed=3)))
>>> bot = Bot(assistant, seed=3)
>>> bot.act(), bot.act()
('2H: a lone tile', 'buy nothing')
>>> while assistant.game.pending is not None:
...     _ = bot.act()
>>> len(assistant.game.standings)
2
"""

from __future__ import annotations

import random

from tabletop.table.assistant import CONFIRM, NEXT, UNDO, Assistant
from tabletop.engine.board import EMPTY, PUT_DEAD, PUT_NO_CHAIN


class Bot:
    """Random legal play through ``assistant``'s prompts (virtual mode: the game deals)."""

    def __init__(self, assistant: Assistant, seed: int | None = None) -> None:
        self.assistant = assistant
        self.rng = random.Random(seed)

    def tile(self) -> str | None:
        """The tile the player to act would place now, or None (no playable tile, or not placing)."""
        game = self.assistant.game
        pending = game.pending
        if pending is None or pending.kind not in ("place", "closing"):
            return None
        if pending.kind == "closing":
            remaining = game.remaining_cells()
            return game.geometry.labels[self.rng.choice(remaining)] if remaining else None
        cells = [c for c in game.playable(pending.player) if game.board.cells[c] == EMPTY
                 and game.board.classify(c)[0] not in (PUT_DEAD, PUT_NO_CHAIN)]
        return game.geometry.labels[self.rng.choice(cells)] if cells else None

    def dead(self) -> str | None:
        """A dead tile the player to place holds, on a free cell, to reveal; or None."""
        game = self.assistant.game
        pending = game.pending
        if pending is None or pending.kind != "place":
            return None
        for tile in game.hands[pending.player]:
            free = [c for c in game.geometry.cells_of[tile] if game.board.cells[c] == EMPTY]
            if free and game.is_dead(tile):
                return game.geometry.labels[free[0]]
        return None

    def act(self) -> str:
        """One step at the table: place a tile (seen at once), or answer the prompt. What it did."""
        assistant = self.assistant
        tile = self.tile()
        if tile is not None and assistant.prompt.chosen.action is None:
            assistant.tile_seen(tile)
            if assistant.prompt.chosen.action is not None:
                described = assistant.prompt.chosen.label
                assistant.press(CONFIRM)
                return described
            assistant.tile_removed(tile)    # refused: the player takes it back
        return self.answer()

    def answer(self) -> str:
        """Press NEXT a random number of times and CONFIRM what is then chosen."""
        assistant = self.assistant
        prompt = assistant.prompt
        options = prompt.options
        # A bot table never agrees to end early (the demo plays games to their end), and
        # leaves the board's differences to the table (it has none of its own).
        answers = [k for k, o in enumerate(options)
                   if (o.action is not None and not getattr(o.action, "agreed", False))
                   or o.builds]
        if not answers:
            raise RuntimeError(f"nothing to answer: {prompt.title}")
        wanted = options[self.rng.choice(answers)]
        while assistant.prompt.chosen != wanted:
            assistant.press(NEXT)
        assistant.press(CONFIRM)
        if wanted.builds:
            return f"{wanted.label}, then " + self.answer()
        if assistant.prompt.message and assistant.prompt.kind == prompt.kind == "buy":
            # The purchase was refused (a trade-in the rules do not allow): start it again.
            while assistant.basket:
                assistant.press(UNDO)
            return f"{wanted.label} (refused), then " + self.answer()
        return wanted.label
