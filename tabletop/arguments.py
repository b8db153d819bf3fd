"""The argument parser of every ``tabletop`` command: its own usage, and did-you-mean.

:class:`Parser` is the top-level parser's class, so ``add_subparsers`` makes every
command's parser one too (argparse's ``parser_class`` defaults to the parent's).
It changes three things a person meets after a typo:

* an unknown option is reported by the command it was given to, with that
  command's usage and the closest of its options (argparse leaves it to the
  top-level parser, whose usage says nothing about the command);
* an unknown command or choice names the closest one;
* a malformed number says what a number must look like.

:func:`rule_set` checks every argument that names a rule set (when the command runs, so
that its refusal reads as the command's own: ``tabletop: no rule set called ...``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from tabletop.errors import TabletopError
from tabletop.suggest import did_you_mean

_KINDS = {int: "a whole number", float: "a number"}


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` with the command's own usage on a typo and did-you-mean."""

    def parse_known_args(self, args: Sequence[str] | None = None,
                         namespace: argparse.Namespace | None = None,
                         ) -> tuple[argparse.Namespace, list[str]]:
        # A command's parser is run through parse_known_args by its parent; anything
        # it leaves is refused here, where its usage and its options are known.
        self._given = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(self._unrecognized(extras))
        return namespace, extras

    def error(self, message: str) -> NoReturn:
        # A typo'd option is the cause of what follows it ("--sorce sim": --source is
        # missing, "sim" unexpected): name the typo, not its consequence.
        unknown = self._unknown_options()
        if unknown and not message.startswith("unknown option"):
            message = self._unrecognized(unknown)
        super().error(message)

    def _unknown_options(self) -> list[str]:
        """The words given to this command that look like options and are none of its own
        (nor an abbreviation argparse takes); none for the top level, whose commands judge."""
        if any(isinstance(action, argparse._SubParsersAction) for action in self._actions):
            return []
        names = [name for action in self._actions for name in action.option_strings]
        given = getattr(self, "_given", [])
        words = given[:given.index("--")] if "--" in given else given
        return [word for word in words if word.startswith("-") and not _is_number(word)
                and not _known(word.partition("=")[0], names)]

    def _unrecognized(self, extras: list[str]) -> str:
        option = next((word.partition("=")[0] for word in extras
                       if word.startswith("-") and not _is_number(word)), None)
        if option is None:
            return f"unexpected argument {' '.join(extras)} (see {self.prog} --help)"
        names = [name for action in self._actions for name in action.option_strings]
        hint = did_you_mean(option, names)
        return f"unknown option {option}: " + (hint or f"see {self.prog} --help for its options")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is None or value in action.choices:
            return
        choices = ", ".join(map(str, action.choices))
        hint = did_you_mean(str(value), map(str, action.choices))
        if isinstance(action, argparse._SubParsersAction):
            raise argparse.ArgumentError(
                None, f"unknown command {value!r}" + (f": {hint}" if hint else "")
                + f" (commands: {choices}; {self.prog} --help says what each does)")
        raise argparse.ArgumentError(
            action, f"invalid choice {value!r}" + (f": {hint}" if hint else "")
            + f" (choose from {choices})")

    def _get_value(self, action: argparse.Action, text: str) -> Any:
        try:
            return super()._get_value(action, text)
        except argparse.ArgumentError:
            kind = _KINDS.get(action.type)   # type: ignore[call-overload]
            if kind is None:
                raise
            raise argparse.ArgumentError(action, f"must be {kind}, got {text!r}") from None


def _known(option: str, names: list[str]) -> bool:
    """An option of ``names``, or a long one's abbreviation that names exactly one."""
    return option in names or (option.startswith("--") and option != "--"
                               and sum(name.startswith(option) for name in names) == 1)


def _is_number(word: str) -> bool:
    """A negative number given as an argument is a value, not an option."""
    try:
        float(word)
    except ValueError:
        return False
    return True



def rule_set(text: str) -> str:
    """``text`` if it names a rule set (a shipped one, or a rule file's path ending in
    ``.toml``); else a TabletopError naming the closest, as a mistyped choice is named."""
    from tabletop.engine.ruleset import available_rules, names_file

    known = available_rules()
    if text in known or names_file(text):
        return text
    hint = did_you_mean(text, known)
    raise TabletopError(f"no rule set called {text!r}" + (f": {hint}" if hint else "")
                        + f" (available: {', '.join(known)})")
