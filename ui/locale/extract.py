"""Keep the catalogues in step with the code: ``python -m ui.locale.extract COMMAND``.

Commands (Babel is needed here, never on the table):

* ``check``: print what :func:`problems` finds (the catalogue test's findings); exit 1 if any;
* ``update``: add every message made in the code and every fixed string missing from a
  catalogue, untranslated (msgstr empty), for a translator to fill; nothing is removed;
* ``absorb``: move the translations of the areas still being written
  (:data:`ui.i18n.PENDING`, ``ui/strings/window.py``: ``TEXTS`` keys with their ``zh-TW``,
  ``MESSAGES`` templates with theirs) into the catalogues (a translation already there is
  kept); then their keys' English moves to :data:`ui.i18n.ENGLISH`, the area is dropped
  from ``PENDING`` and its module goes;
* ``compile``: write each ``tabletop.mo`` from its ``.po`` (after any edit of a ``.po``).

What counts as a message of the code: every ``Message("literal template", ...)`` call in
``tabletop/``, ``hardware/``, ``calibration/`` and ``ui/`` (:func:`code_messages`). A
template built at run time is not a message a catalogue can hold: write each one out.
"""

from __future__ import annotations

import ast
import string
import sys
from pathlib import Path

from ui.locale import CODES, LOCALE, po_path

ROOT = LOCALE.parent.parent
ROOMS = ("tabletop", "hardware", "calibration", "ui")

Key = tuple[str | None, str]        # (msgctxt, msgid)


def code_messages(root: Path = ROOT) -> dict[str, list[str]]:
    """Every template given to ``Message`` as a literal, with where (``path:line``) it is made."""
    found: dict[str, list[str]] = {}
    for room in ROOMS:
        for path in sorted((root / room).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and _named(node.func) == "Message" and node.args \
                        and isinstance(node.args[0], ast.Constant) \
                        and isinstance(node.args[0].value, str):
                    where = f"{path.relative_to(root).as_posix()}:{node.lineno}"
                    found.setdefault(node.args[0].value, []).append(where)
    return found


def _named(func: ast.AST) -> str:
    return func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else ""


def fixed_strings() -> dict[Key, str]:
    """Every fixed string as (key, English) and every option value as (``value:<v>``, English)."""
    from ui.i18n import ENGLISH, PENDING, VALUE_ENGLISH

    areas = {key: f"ui/strings/{area.__name__.rpartition('.')[2]}.py"
             for area in PENDING for key in area.TEXTS}
    found: dict[Key, str] = {(key, english): f"{areas.get(key, 'ui/i18n.py')} TEXTS[{key!r}]"
                             for key, english in ENGLISH.items() if key != "language"}
    found.update({(f"value:{value}", english): f"ui/i18n.py VALUE_ENGLISH[{value!r}]"
                  for value, english in VALUE_ENGLISH.items()})
    return found


def wanted() -> dict[Key, str]:
    """Every entry a catalogue must translate, with where it comes from."""
    found: dict[Key, str] = {(None, template): ", ".join(where)
                             for template, where in code_messages().items()}
    found.update(fixed_strings())
    return found


def placeholders(template: str) -> set[str]:
    """The ``{named}`` placeholders of a template (``{{`` is a brace)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def read(language: str):
    """The ``.po`` catalogue of ``language`` (Babel's :class:`~babel.messages.catalog.Catalog`)."""
    from babel.messages.pofile import read_po

    with open(po_path(language), "rb") as file:
        return read_po(file, locale=CODES[language])


def write(language: str, catalog) -> None:
    from babel.messages.pofile import write_po

    with open(po_path(language), "wb") as file:
        write_po(file, catalog, width=100, sort_output=False, omit_header=False)


def pending() -> set[Key]:
    """The entries of the areas still being written (:data:`ui.i18n.PENDING`)."""
    from ui.i18n import PENDING

    return {(key, entry["en"]) for area in PENDING for key, entry in area.TEXTS.items()} | \
        {(None, template) for area in PENDING for template in area.MESSAGES}


def problems(skip: set[Key] = frozenset()) -> list[str]:
    """What is wrong with the catalogues: each entry missing, untranslated or with other
    placeholders than its English, and a ``.mo`` that does not say what its ``.po`` says.
    Entries in ``skip`` may be missing or untranslated."""
    from ui.locale import entries

    found = []
    need = {key: where for key, where in wanted().items() if key not in skip}
    for language in CODES:
        catalog = read(language)
        held = {(m.context, m.id): m for m in catalog if m.id}
        for key, where in need.items():
            entry = held.get(key)
            label = f"{language}: {key[1]!r}" + (f" (msgctxt {key[0]!r})" if key[0] else "")
            if entry is None:
                found.append(f"{label} is missing (from {where})")
            elif not entry.string or entry.fuzzy:
                found.append(f"{label} is untranslated (from {where})")
        for key, entry in held.items():
            if entry.string and placeholders(entry.string) != placeholders(key[1]):
                found.append(f"{language}: {key[1]!r} -> {entry.string!r}: the placeholders differ")
        compiled = {key: m.string for key, m in held.items() if m.string and not m.fuzzy}
        entries.cache_clear()
        if entries(language) != compiled:
            found.append(f"{language}: {po_path(language).with_suffix('.mo')} is not the compiled "
                         f"{po_path(language).name}: run python -m ui.locale.extract compile")
    return found


def update() -> None:
    need = wanted()
    for language in CODES:
        catalog = read(language)
        for (context, msgid), where in need.items():
            if catalog.get(msgid, context=context) is None:
                catalog.add(msgid, "", context=context, auto_comments=[where[:200]])
        write(language, catalog)


def absorb() -> None:
    from ui.i18n import PENDING

    for language in CODES:
        catalog = read(language)
        for area in PENDING:
            pairs = [((key, entry["en"]), entry.get(language)) for key, entry in area.TEXTS.items()]
            pairs += [((None, template), entry.get(language))
                      for template, entry in area.MESSAGES.items()]
            for (context, msgid), said in pairs:
                held = catalog.get(msgid, context=context)
                if held is None:
                    catalog.add(msgid, said or "", context=context,
                                auto_comments=[f"from {area.__name__}"])
                elif said and not held.string:
                    held.string = said
        write(language, catalog)


def compile_all() -> None:
    from babel.messages.mofile import write_mo

    for language in CODES:
        catalog = read(language)
        with open(po_path(language).with_suffix(".mo"), "wb") as file:
            write_mo(file, catalog, use_fuzzy=False)


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "check":
        found = problems()
        print("\n".join(found) or "the catalogues are complete")
        return 1 if found else 0
    actions = {"update": update, "absorb": absorb, "compile": compile_all}
    if command not in actions:
        print(__doc__)
        return 2
    actions[command]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
