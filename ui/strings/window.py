"""The screen's new fixed strings (by key) and message templates, while they move to catalogues.

TEXTS: key -> {language: text}, as :data:`ui.i18n.TEXTS`. MESSAGES: a
:class:`~tabletop.messages.Message` template (its English) -> {language: template}.
"""

TEXTS: dict[str, dict[str, str]] = {}
MESSAGES: dict[str, dict[str, str]] = {}
