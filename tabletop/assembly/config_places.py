"""Where a configuration file sets each key, and how a message quotes a value.

``tomllib`` gives values without their lines, and a person fixing a file looks for a line:
this reads the file's headers and ``key =`` lines for the configuration's messages. A key it
cannot place (inside a multi-line value) is named without a line, never wrongly.

>>> places = Places('[camera]\\nfps = "ten"\\n\\n[table.options]\\nbonus_mode = "tykoon"\\n')
>>> places.line(("camera", "fps")), places.line(("table", "options", "bonus_mode"))
(2, 5)
>>> places.line(("camera", "source")), places.line(("screen", "size"))
(1, None)
>>> shown("a\\x1bb"), shown([1, True, {"x": 2.5}]), shown(float("nan"))
('"a\\\\u001bb"', '[1, true, {x = 2.5}]', 'nan')
"""

from __future__ import annotations

import math
import re
from typing import Any

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"|\'[^\']*\''
_PART = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_PART}(?:\s*\.\s*{_PART})*"
_HEADER = re.compile(rf"^\s*\[\s*({_DOTTED})\s*\]\s*(?:#.*)?$")
_ARRAY_HEADER = re.compile(rf"^\s*\[\[\s*({_DOTTED})\s*\]\]")
_KEY = re.compile(rf"^\s*({_DOTTED})\s*=")
_PARTS = re.compile(_PART)


class Places:
    """The line (from 1) of each header and each key the TOML text ``text`` sets."""

    def __init__(self, text: str) -> None:
        self._lines: dict[tuple[str, ...], int] = {}
        table: tuple[str, ...] = ()
        open_quote: str | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            if open_quote is not None:    # inside a multi-line string: no key starts here
                if line.count(open_quote) % 2:
                    open_quote = None
                continue
            header = _HEADER.match(line) or _ARRAY_HEADER.match(line)
            if header:
                table = _parts(header.group(1))
                self._lines.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if key:
                self._lines.setdefault(table + _parts(key.group(1)), number)
            for quote in ('"""', "'''"):
                if line.count(quote) % 2:
                    open_quote = quote
                    break

    def line(self, path: tuple[str, ...]) -> int | None:
        """The line that sets ``path`` (section, key, ...), else the nearest enclosing one
        the file names (an inline table's line, the section's header), else None."""
        for length in range(len(path), 0, -1):
            if path[:length] in self._lines:
                return self._lines[path[:length]]
        return None


def _parts(dotted: str) -> tuple[str, ...]:
    return tuple(part[1:-1] if part[0] in "\"'" else part for part in _PARTS.findall(dotted))


def shown(value: Any, limit: int = 80) -> str:
    """``value`` as TOML writes it, cut at ``limit`` characters, with no character that
    would move a terminal's cursor or turn its text around."""
    text = _toml(value, depth=0, budget=limit + 1)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def escaped(text: str) -> str:
    """``text`` with its unprintable characters (escapes, line breaks, bidi controls)
    written as ``\\uXXXX``."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


def _toml(value: Any, depth: int, budget: int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        inner = value[:budget].replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped(inner)}"'
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") \
            if math.isinf(value) else repr(value)
    if isinstance(value, int):
        text = str(value) if value.bit_length() < 200 else f"{str(value)[:20]}…"
        return text
    if depth > 3:
        return "…"
    if isinstance(value, dict):
        items = _items((f"{escaped(str(k))} = {_toml(v, depth + 1, budget)}"
                        for k, v in value.items()), budget)
        return "{" + items + "}"
    if isinstance(value, list):
        return "[" + _items((_toml(v, depth + 1, budget) for v in value), budget) + "]"
    return escaped(repr(value))


def _items(texts: Any, budget: int) -> str:
    """The texts joined by commas, stopped once past ``budget`` characters."""
    out: list[str] = []
    length = 0
    for text in texts:
        out.append(text)
        length += len(text) + 2
        if length > budget:
            break
    return ", ".join(out)
