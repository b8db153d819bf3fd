"""The dependency rules between the rooms (docs/layout.md, "Who may import whom"), read from the sources.

Every module of ``tabletop/``, ``calibration/``, ``hardware/`` and ``ui/`` is
parsed with :mod:`ast`; every import counts, at the top of a module or inside
a function (lazy), and so does ``importlib.import_module("constant")``.
``from package import name`` counts as ``package.name`` when that is one of
our modules. The rules:

(a) ``tabletop/engine`` imports only the standard library and
    ``tabletop.engine``, ``tabletop.geometry``, ``tabletop.errors``, ``tabletop.messages``.
(b) ``tabletop/geometry`` imports only the standard library and
    ``tabletop.geometry``, ``tabletop.errors``, ``tabletop.messages``.
(c) ``tabletop/journal`` imports only the standard library,
    ``tabletop.engine``, ``tabletop.geometry``, ``tabletop.errors``, itself and
    ``cryptography`` (the score slips' Ed25519 signatures);
    ``tabletop/table`` may also import the journal (``tabletop.table.games``
    records and resumes a table's games), so the dependency points one way:
    table -> journal, never journal -> table. The journal reads no
    configuration: no ``tabletop.assembly``, no ``tomllib``/``configparser``,
    no ``os.environ``/``getenv``; its caller says where.
(d) In ``tabletop/`` only ``tabletop/assembly`` imports ``calibration``,
    ``hardware``, ``ui``, numpy, OpenCV or Kivy; ``tabletop.assembly`` is
    imported only by itself and, lazily, by ``tabletop/cli.py``. Inside
    ``tabletop/assembly`` those imports are lazy, except in the modules that
    ``tabletop/conftest.py`` leaves out of doctest collection when their
    optional dependencies are missing.
(e) ``hardware`` imports nothing of ours but ``hardware`` and the leaf ``tabletop.messages``
    (its sentences for people, translated by the screens), which imports nothing of ours.
(f) ``calibration`` imports of ours only ``calibration``,
    ``tabletop.geometry``, ``tabletop.engine.ruleset``, ``tabletop.errors`` and
    ``tabletop.messages``;
    nothing outside ``calibration/synthetic`` imports ``calibration.synthetic``
    (the renderer is for tests, benchmarks and the simulated camera).
(g) ``ui`` imports of ours only ``ui``, ``tabletop`` (but not
    ``tabletop.assembly``), ``calibration`` and ``hardware``.

>>> _within("tabletop.engine.game", ("tabletop.engine",)), _within("tabletop", ("tabletop.engine",))
(True, False)
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ("tabletop", "calibration", "hardware", "ui")
OURS = frozenset(ROOMS)
OPTIONAL = ("calibration", "hardware", "ui", "numpy", "cv2", "kivy")
CORE = ("tabletop.engine", "tabletop.geometry", "tabletop.errors", "tabletop.messages")
#: The leaf every room may import to make its sentences for people (it imports nothing of ours).
MESSAGES = "tabletop.messages"

#: At least this many modules per folder: a moved or renamed folder must not
#: leave a rule checking nothing.
AT_LEAST = {
    "tabletop": 30, "tabletop/engine": 8, "tabletop/geometry": 3, "tabletop/journal": 4,
    "tabletop/table": 4, "tabletop/assembly": 5, "calibration": 10,
    "calibration/synthetic": 4, "hardware": 10, "ui": 8,
}


@dataclass(frozen=True)
class Import:
    """One import of one module: where it is, what it names, and whether it is lazy."""

    path: str      # relative to the repository, with forward slashes
    line: int
    module: str    # absolute dotted name
    lazy: bool     # inside a function, so it runs only when called

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: imports {self.module}{' (lazily)' if self.lazy else ''}"


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def _stdlib(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


def _ours(module: str) -> bool:
    return module.split(".")[0] in OURS


def _is_our_module(dotted: str) -> bool:
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


class _Imports(ast.NodeVisitor):
    """Collects a module's imports, noting which sit inside a function."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rel = path.relative_to(ROOT).as_posix()
        self.package = _module_name(path) if path.name == "__init__.py" \
            else _module_name(path).rpartition(".")[0]
        self.depth = 0
        self.found: list[Import] = []

    def _add(self, node: ast.AST, module: str) -> None:
        self.found.append(Import(self.rel, node.lineno, module, self.depth > 0))

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            base = self.package.split(".")[: len(self.package.split(".")) - (node.level - 1)]
            module = ".".join(base + ([module] if module else []))
        for alias in node.names:
            named = f"{module}.{alias.name}"
            self._add(node, named if _ours(module) and _is_our_module(named) else module)

    def visit_Call(self, node: ast.Call) -> None:
        name = getattr(node.func, "attr", getattr(node.func, "id", None))
        if name in ("import_module", "__import__") and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            self._add(node, node.args[0].value)
        self.generic_visit(node)


def _files(folder: str) -> list[Path]:
    return sorted(path for path in (ROOT / folder).rglob("*.py") if "__pycache__" not in path.parts)


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(path: Path) -> list[Import]:
    visitor = _Imports(path)
    visitor.visit(_parse(path))
    return [found for found in visitor.found if found.module != "__future__"]


IMPORTS = {path.relative_to(ROOT).as_posix(): _imports(path)
           for room in ROOMS for path in _files(room)}


def _in(folder: str) -> Iterator[Import]:
    for path, found in IMPORTS.items():
        if path.startswith(folder + "/"):
            yield from found


def _broken(imports: Iterator[Import], allowed: Callable[[Import], bool], rule: str) -> None:
    broken = [f"{found}: {rule}" for found in imports if not allowed(found)]
    if broken:
        pytest.fail("\n".join(broken), pytrace=False)


@pytest.mark.parametrize("folder, at_least", AT_LEAST.items())
def test_the_scan_sees_every_folder(folder: str, at_least: int) -> None:
    seen = [path for path in IMPORTS if path.startswith(folder + "/")]
    assert len(seen) >= at_least, f"{folder}: {len(seen)} modules scanned; has it moved?"


def test_the_scan_reads_lazy_and_from_imports() -> None:
    cli = {(found.module, found.lazy) for found in IMPORTS["tabletop/cli.py"]}
    assert ("tabletop.errors", False) in cli
    assert ("tabletop.assembly.config", True) in cli
    assert ("tabletop.engine.actions", False) in {
        (found.module, found.lazy) for found in IMPORTS["tabletop/engine/game.py"]}


def test_engine_imports_the_standard_library_and_core_only() -> None:
    _broken(_in("tabletop/engine"), lambda found: _stdlib(found.module) or _within(found.module, CORE),
            "the engine imports only the standard library and " + ", ".join(CORE))


def test_geometry_imports_nothing_but_itself_and_errors() -> None:
    allowed = ("tabletop.geometry", "tabletop.errors", MESSAGES)
    _broken(_in("tabletop/geometry"),
            lambda found: _stdlib(found.module) or _within(found.module, allowed),
            "geometry imports only the standard library and " + ", ".join(allowed))


@pytest.mark.parametrize("room, allowed", [
    # cryptography: the score slips' Ed25519 signatures (tabletop/journal/keys.py), a core
    # dependency of the distribution.
    ("journal", (*CORE, "tabletop.journal", "cryptography")),
    ("table", (*CORE, "tabletop.table", "tabletop.journal")),
])
def test_journal_and_table_import_the_core_and_themselves(room: str, allowed: tuple[str, ...]) -> None:
    _broken(_in(f"tabletop/{room}"),
            lambda found: _stdlib(found.module) or _within(found.module, allowed),
            f"the {room} imports only the standard library and " + ", ".join(allowed))


def test_the_journal_reads_no_configuration() -> None:
    _broken(_in("tabletop/journal"),
            lambda found: not _within(found.module, ("tomllib", "configparser", "tabletop.assembly")),
            "the journal reads no configuration: its caller says where")
    reads = [f"{path}:{node.lineno}: reads {node.attr}: the journal reads no configuration"
             for path in IMPORTS if path.startswith("tabletop/journal/")
             for node in ast.walk(_parse(ROOT / path))
             if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")]
    if reads:
        pytest.fail("\n".join(reads), pytrace=False)


def test_only_the_assembly_joins_the_parts() -> None:
    outside = (found for path, imports in IMPORTS.items() for found in imports
               if path.startswith("tabletop/") and not path.startswith("tabletop/assembly/"))
    _broken(outside, lambda found: not _within(found.module, OPTIONAL),
            "only tabletop/assembly imports " + ", ".join(OPTIONAL))


def test_only_the_command_line_imports_the_assembly_and_lazily() -> None:
    outside = (found for path, imports in IMPORTS.items() for found in imports
               if not path.startswith("tabletop/assembly/"))
    _broken(outside,
            lambda found: not _within(found.module, ("tabletop.assembly",))
            or (found.path == "tabletop/cli.py" and found.lazy),
            "only tabletop/cli.py imports tabletop.assembly, and only inside functions")


def test_the_assembly_imports_the_parts_lazily() -> None:
    from tabletop.conftest import NEEDS

    eager_allowed = {f"tabletop/{path}" for path in NEEDS}
    _broken(_in("tabletop/assembly"),
            lambda found: found.lazy or found.path in eager_allowed
            or not _within(found.module, OPTIONAL),
            "tabletop/assembly imports these inside functions, or tabletop/conftest.py's NEEDS "
            "lists the module so that doctests collect without them")


def test_hardware_imports_nothing_of_ours() -> None:
    _broken(_in("hardware"),
            lambda found: not _ours(found.module) or _within(found.module, ("hardware",))
            or found.module == MESSAGES,
            f"hardware imports nothing of ours but hardware and {MESSAGES}")


def test_the_messages_are_a_leaf() -> None:
    """Every room may import tabletop.messages because it imports nothing of ours."""
    _broken(IMPORTS["tabletop/messages.py"], lambda found: not _ours(found.module),
            f"{MESSAGES} imports nothing of ours (every room imports it)")


def test_calibration_imports_geometry_and_rule_loading_only() -> None:
    allowed = ("calibration", "tabletop.geometry", "tabletop.engine.ruleset", "tabletop.errors",
               MESSAGES)
    _broken(_in("calibration"), lambda found: not _ours(found.module) or _within(found.module, allowed),
            "calibration imports of ours only " + ", ".join(allowed))


def test_the_real_pipeline_never_imports_the_renderer() -> None:
    real = (found for path, imports in IMPORTS.items() for found in imports
            if path.startswith("calibration/") and not path.startswith("calibration/synthetic/"))
    _broken(real, lambda found: not _within(found.module, ("calibration.synthetic",)),
            "the real pipeline never imports calibration.synthetic")


def test_ui_imports_the_parts_but_not_the_assembly() -> None:
    _broken(_in("ui"),
            lambda found: not _ours(found.module) or not _within(found.module, ("tabletop.assembly",)),
            "ui imports of ours only ui, tabletop (not tabletop.assembly), calibration, hardware")
