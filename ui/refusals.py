"""Retired: the refusals' translations are in the gettext catalogues now (:mod:`ui.locale`).

The engine's and the devices' refusals are :class:`~tabletop.messages.Message`\\ s made where
they are raised; :func:`ui.i18n.say` renders them by template from the catalogues, and
matches a sentence not yet made a Message against the catalogues' templates. This list
stays empty for the modules that still import it, until they no longer do.

>>> from ui.i18n import say
>>> say("5C: that cell already holds a tile. Take it off the board.", "zh-TW")
'5C：這一格已經有地磚了。請把它從盤面拿走。'
>>> say("camera: a tile moved from 5C to 6C: not committed", "zh-TW")
'攝影機：有地磚從 5C 移到 6C：未採計'
>>> say("the bank has only 2 Tower shares", "de")
'die Bank hat nur 2 Tower-Aktien'
>>> say("printer unplugged; 1 slip waiting", "zh-TW")
'印表機未連接；1 張成績單等待列印'
"""

from __future__ import annotations

REFUSALS: list[tuple[str, str]] = []
