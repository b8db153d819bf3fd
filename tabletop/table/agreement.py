"""An end by agreement: every player asked in turn, the proposer first; one refusal calls it off.

A part of :class:`~tabletop.table.assistant.Assistant` (as the engine's flows are parts
of its Game): the round of asking lives here, the assistant's state (``_asking``,
``_agreed``, ``_resume``) and its journaled ``_apply`` there. Never an option to cycle to:
one player can no longer end the game with NEXT and CONFIRM alone.

>>> from tabletop.engine.game import Game
>>> from tabletop.table.assistant import Assistant, UnjournaledTable
>>> desk = Assistant(UnjournaledTable(Game("acquire", ["Ann", "Bob"],
...                                        start_tiles={"Ann": "1A", "Bob": "12I"})))
>>> desk.propose_end(); desk.prompt.kind, desk.prompt.player
('agree', 'Ann')
>>> desk.press("confirm"); desk.prompt.player
'Bob'
>>> desk.press("next"); desk.press("confirm"); str(desk.prompt.message)
'Bob refused to end the game'
"""

from __future__ import annotations

from typing import Any

from tabletop.engine import actions as act
from tabletop.messages import Message
from tabletop.table.prompts import Option, Prompt

AGREE, REFUSE = "agree", "refuse"
#: The decisions during which the end may be proposed (the current player's own turn).
PROPOSABLE = ("place", "buy")


class AgreedEndFlow:
    """The asking round of an end by agreement (a part of the assistant)."""

    @property
    def end_proposable(self) -> bool:
        """Whether the current player may propose now that everyone agrees to end the game."""
        return self._unproposable() is None

    def _unproposable(self) -> Message | None:
        """Why an end by agreement may not be proposed now, or None."""
        game = self.game
        if not game.options.get("agreed_end"):
            return Message("this table plays without ending by agreement")
        if game.pending is None:
            return Message("the game is over")
        if game.end_declared:
            return Message("the end is already declared")
        if self._asking:
            return Message("the table is already asked whether to end the game")
        if self._proposal is not None:
            return Message("{tile} waits for CONFIRM or UNDO: finish it, then propose the end",
                           tile=self._proposal.tile)
        if game.pending.kind not in PROPOSABLE:
            return Message("finish this decision first, then propose the end")
        return None

    def propose_end(self) -> None:
        """Ask every player in turn, the current player (who proposes) first, to end the game now.

        The others are asked in turn order from the proposer. CONFIRM agrees, NEXT
        then CONFIRM refuses; when all agree the end is played (journaled), one
        refusal ends the asking and play goes on where it was.
        """
        refused = self._unproposable()
        if refused is not None:
            self._message = refused
            return
        game, n = self.game, len(self.game.names)
        self._asking = tuple((game.current + k) % n for k in range(n))
        self._agreed, self._resume, self._index, self._message = 0, self._index, 0, ""

    def _answer(self, command: str) -> None:
        names = self.game.names
        if command == REFUSE:
            who = names[self._asking[self._agreed]]
            self._stop_asking()
            self._message = Message("{player} refused to end the game", player=who)
            return
        self._agreed, self._index = self._agreed + 1, 0
        if self._agreed == len(self._asking):
            self._stop_asking()
            self._apply(act.End(agreed=True), Message("end by agreement of all players"))
            if self.game.pending is not None and self.game.end_declared:
                # The turn is finished first: the table must know the end is coming.
                self._message = Message("everyone agreed: the game ends once {player}'s turn "
                                        "is finished", player=names[self.game.current])

    def _stop_asking(self) -> None:
        self._asking, self._agreed, self._index, self._message = (), 0, self._resume, ""

    def _agree_prompt(self, common: dict[str, Any]) -> Prompt:
        names = self.game.names
        asked, proposer = names[self._asking[self._agreed]], names[self._asking[0]]
        title = Message("{player}: end the game now, if everyone agrees? Choose agree or "
                        "refuse, then CONFIRM", player=asked) if asked == proposer else \
            Message("{player}: {proposer} proposes to end the game now. Choose agree or "
                    "refuse, then CONFIRM", player=asked, proposer=proposer)
        if self._agreed and not common["message"]:
            common = dict(common, message=Message("agreed so far: {players}", players=", ".join(
                names[seat] for seat in self._asking[:self._agreed])))
        options = (Option(Message("agree"), None, command=AGREE),
                   Option(Message("refuse"), None, command=REFUSE))
        return Prompt("agree", asked, title, options, min(self._index, 1), **common)
