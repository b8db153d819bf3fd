"""The touchscreen: a Kivy app over the assistant, for a 7-inch 800x480 screen and larger.

It holds no game logic: it shows what :class:`tabletop.table.assistant.Assistant`
asks (the prompt, the board, the books as far as the disclosure level allows)
and passes on taps, the three GPIO buttons and the keyboard. Layouts (``.kv``)
lie beside their screens; strings go through :mod:`ui.i18n` (English and
Traditional Chinese, switchable live).
"""
