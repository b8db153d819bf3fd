"""tabletop: the banker and stock broker for Acquire-family board games.

>>> import tabletop
>>> game = tabletop.Game("acquire", ["Ann", "Bob", "Cy"])
>>> _ = game.push(tabletop.Place(tile="6C"))
>>> tabletop.state_json(game)["board"]
{'6C': None}

The public API: :class:`Game` (``push`` an action, ``undo``), the actions,
:func:`load_rules`, :func:`replay` for table scripts and :func:`state_json`
and :func:`view` for screens.
"""

from tabletop.engine.actions import (Buy, Dead, Dispose, End, Found, Market, NextDefunct, NoTile,
                              Place, Survivor, Undo, parse_action)
from tabletop.engine.game import Game, Pending
from tabletop.errors import IllegalAction, RulesFileError, ScriptError, TabletopError
from tabletop.engine.ruleset import RuleSet, available_rules, load_rules
from tabletop.engine.table_script import Replay, replay
from tabletop.engine.state import state_json, view

__all__ = [
    "Buy", "Dead", "Dispose", "End", "Found", "Game", "IllegalAction", "Market", "NextDefunct",
    "NoTile", "Pending", "Place", "Replay", "RuleSet", "RulesFileError", "ScriptError", "Survivor", "TabletopError",
    "Undo", "available_rules", "load_rules", "parse_action", "replay", "state_json", "view",
]
__version__ = "0.1.0"
