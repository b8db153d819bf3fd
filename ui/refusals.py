"""Retired: what the table says is made as :class:`~tabletop.messages.Message`\\ s and rendered by
template from the gettext catalogues (:func:`ui.i18n.say`, :mod:`ui.locale`); nothing is
matched by pattern any more. ``REFUSALS`` stays, empty, while a test still imports it.

>>> from tabletop.messages import Message
>>> from ui.i18n import say
>>> say(Message("{tile}: that cell already holds a tile. Take it off the board.", tile="5C"),
...     "zh-TW")
'5C：這一格已經有地磚了。請把它從盤面拿走。'
>>> say(Message("the bank has only {count} {chain} shares", count=2, chain="Tower"), "de")
'die Bank hat nur 2 Tower-Aktien'
"""

from __future__ import annotations

REFUSALS: list[tuple[str, str]] = []
