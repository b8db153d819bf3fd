"""The dependency rules of the tournament's rooms (docs/layout.md), read from the sources with
tests/test_dependencies.py's scan: the model needs no network, the director no table."""

from __future__ import annotations

from test_dependencies import CORE, _broken, _in, _stdlib, _within

#: The ``tournament`` extra (paho-mqtt; Flask and its werkzeug for the director's screen):
#: imported only inside functions (lazily), so that the rooms import, and their doctests
#: run, without it.
EXTRA = ("paho", "flask", "werkzeug")


def test_the_tournament_model_imports_no_network() -> None:
    allowed = (*CORE, "tabletop.journal", "tabletop.tournament")
    _broken(_in("tabletop/tournament"),
            lambda found: _stdlib(found.module) and found.module.split(".")[0] != "socket"
            or _within(found.module, allowed),
            "the tournament model imports only the standard library (no sockets), the core, "
            "the journal and itself")


def test_the_director_imports_the_model_and_its_extra_lazily() -> None:
    allowed = (*CORE, "tabletop.journal", "tabletop.tournament", "tabletop.director")
    _broken(_in("tabletop/director"),
            lambda found: _stdlib(found.module) or _within(found.module, allowed)
            or (_within(found.module, EXTRA) and found.lazy),
            "the director imports the standard library, the core, the journal, the tournament, "
            "itself, and paho-mqtt and Flask lazily (never the table or the assembly)")
