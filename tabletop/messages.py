"""Messages for people as data: an English sentence that keeps its template and parameters.

A :class:`Message` is a ``str`` (the English sentence, so logs, table scripts and
the headless runner print it unchanged) that also carries the template it was
made from and the values put into it, so a screen can render it in another
language from a catalogue instead of parsing the English back.

>>> said = Message("{player}: place a tile", player="Ann")
>>> said
'Ann: place a tile'
>>> Message("{0}...{1}").format("Sam", "son")
'Sam...son'
>>> said.template, said.params
('{player}: place a tile', {'player': 'Ann'})
>>> said == "Ann: place a tile"
True
"""

from __future__ import annotations

from typing import Any


class Message(str):
    """``Message(template, **params)``: ``template.format(**params)``, with both kept.

    A parameter may itself be a :class:`Message` (a refusal inside a camera
    report); a translator renders it in turn.
    """

    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, **params: Any) -> "Message":
        # Without values the template is the text: ``type(text)('{0}...{1}')`` (Kivy's
        # shortening of a label) must not format it.
        made = super().__new__(cls, template.format(**params) if params else template)
        made.template = template
        made.params = params
        return made

    def __reduce__(self) -> tuple:
        return _remake, (self.template, self.params)


def _remake(template: str, params: dict[str, Any]) -> Message:
    return Message(template, **params)


def message_of(error: BaseException) -> str:
    """An error's message, a :class:`Message` when it was made as one (``str(error)`` is plain).

    >>> from tabletop.errors import IllegalAction
    >>> message_of(IllegalAction(Message("{tile} is already on the board", tile="5C"))).template
    '{tile} is already on the board'
    """
    first = error.args[0] if error.args else ""
    return first if isinstance(first, str) else str(error)
