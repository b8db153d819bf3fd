"""The errors a player, a table script or a rule file can meet."""


class TabletopError(Exception):
    """Base of every error the game reports in words a player can read."""


class IllegalAction(TabletopError, ValueError):
    """An action the rules do not allow now. The game is left untouched."""


class RulesFileError(TabletopError):
    """A rule file that is malformed or incomplete; the message names the key."""


class ScriptError(IllegalAction):
    """A table-script line that is not a well-formed action or setup."""


class JournalError(TabletopError):
    """The journal cannot do what was asked; the message says why. Nothing confirmed is lost."""


class JournalLocked(JournalError):
    """Another program holds the journal (or its database lock) longer than the wait allows."""


class JournalFull(JournalError):
    """The disk (or the database's size limit) is full: the action was not recorded."""


class SlipError(TabletopError):
    """A score slip or signing key that cannot be read or made."""
