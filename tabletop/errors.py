"""The errors a player, a table script or a rule file can meet."""


class TabletopError(Exception):
    """Base of every error the game reports in words a player can read."""


class IllegalAction(TabletopError, ValueError):
    """An action the rules do not allow now. The game is left untouched."""


class RulesFileError(TabletopError):
    """A rule file that is malformed or incomplete; the message names the key."""


class ScriptError(IllegalAction):
    """A table-script line that is not a well-formed action or setup."""
