"""Every refusal and note the table screen can show, and what the devices and services say on
the other screens, has a Traditional Chinese pattern.

Two halves:

* statically, from the sources: each message is found where it is written
  (an error raised, an assistant's ``self._message = ...``, a camera fault),
  made into a sample by putting a plausible value in each ``{...}`` of its
  f-string, and must come out of :func:`ui.i18n.say` in Chinese with no
  English left but the values put in. A new English message without a
  pattern fails here, named by its file and line;
* by playing: a real :class:`~tabletop.engine.game.Game` and a real
  :class:`~tabletop.table.assistant.Assistant` are driven into refusals, and what
  the assistant then shows is read in Chinese; so are a real switch-off, an
  unplugged and a silent printer, a runner's services, seats and taps refused.

What is scanned, and what is not (the scope):

* ``tabletop/*.py``: every message of a :class:`~tabletop.errors.TabletopError`
  made there (raised, or returned to be raised). Left out by class, as they
  never reach the table screen: :data:`OFF_TABLE` (table scripts, rule files,
  configuration, score slips). Journal errors count only where a confirmed
  action is written during play (:data:`JOURNAL_IN_PLAY`); the others come
  from opening, reading or exporting a journal at start-up or on the command
  line. Other exceptions (``ValueError``, ``RuntimeError``...) are faults of
  the program: the assistant catches only ``TabletopError`` and never shows them.
* ``tabletop/table/assistant.py`` and ``tabletop/table/seating.py``: what they say
  themselves (``self._message``, ``self._banner``, ``_flag``, ``_tell``; the
  seating's prompt titles and options), but for a message with no words of its
  own (``f"{actor}: {label}"``). The assistant's prompts and options are
  :data:`ui.i18n.PATTERNS`' and not checked here.
* camera faults (``CameraError`` in ``hardware/camera`` and the ``sim``
  source), as the banner shows them; the tracker's warnings, as "camera: ...".

The devices and services, as the other screens show them (what is scanned is
what reaches a screen as text, by the path it takes there):

* the table's services (:data:`SERVICES`, the methods of
  ``tabletop/assembly/services.py`` the results and calibration screens call): every
  string they ``return``. ``shutdown`` returns ``safe_shutdown(...).message``,
  so:
* every :class:`~hardware.status.Status` message made in ``hardware/power.py``
  (switching off) and ``hardware/printer.py`` (the banner shows the printer's
  status on a fault; all its states are scanned, not only the faults). Other
  devices' statuses (the panel, the buttons, the camera but for its fault
  above) are not on any screen.
* ``calibration``: the ``CalibrationError`` messages of ``calibration/calibrate.py``
  raised in :func:`~calibration.calibrate.calibrate` and the functions of that
  file it calls (followed by name), as the calibration screen shows what it
  raises. Not the command line's (``parse_corners``), nor ``calfile``'s (a file
  read at start-up or by a command, or a frame of the wrong size), which the
  screen never catches.
* The setup screen's refusals (``Game(...)`` refusing the seats and options)
  are the engine's, scanned above.
* Errors the services let through (an OS error writing a USB stick, a slip that
  cannot be made) are the program's faults, not messages: nothing shows them.
"""

from __future__ import annotations

import ast
import itertools
import os
import re
import sys
import tty
from pathlib import Path

import pytest

from tabletop.engine import actions as act
from tabletop.table.assistant import CONFIRM, UNDO, Assistant, UnjournaledTable
from tabletop.engine.game import Game
from tabletop.errors import IllegalAction, TabletopError
from tabletop.table.seating import Seating
from ui.i18n import PATTERNS, _compile, say
from ui.refusals import REFUSALS

ROOT = Path(__file__).resolve().parents[2]
ZH = "zh-TW"

#: Error classes whose messages never reach the table screen, and why.
OFF_TABLE = {
    "ScriptError": "a table-script line (a file, the command line): the assistant builds actions",
    "RulesFileError": "a rule file, read before any game starts",
    "ConfigError": "the configuration, read at start-up",
    "SlipError": "a score slip, made and read after the game (results screen, command line)",
}
#: The journal's functions a confirmed action goes through during play (Table.push).
JOURNAL_IN_PLAY = {"_append", "_check_last", "_failure", "_connection", "_replayed"}

#: English that stays in Chinese: software names, a card's label written in the message,
#: a configuration key and a command to run.
KEPT = ("picamera2", "libcamera", "uint8", "A-1", "USB", "[printer] url", "`tabletop markers`")
#: The runner's services whose answers a screen shows (ui/results.py, ui/calibscreen.py).
SERVICES = ("print_slip", "export", "shutdown", "save_calibration")

# --- turning an f-string into sample messages ---------------------------------------------------

#: Values for what a message formats, by (function, expression) or expression: a list of
#: (text, opaque). Opaque text is a name, tile, figure or foreign text, kept as it is;
#: the rest is English (a message within the message) and must be translated too.
CAMERA_FAULT = "camera 0 unplugged; retrying"
TRACKER_WARNING = "a tile moved from 5C to 6C: not committed"
OVERRIDES: dict[tuple[str, str] | str, list[tuple[str, bool]]] = {
    ("camera_lost", "message"): [(CAMERA_FAULT, False)],
    ("changes_seen", "message"): [(TRACKER_WARNING, False)],
    ("_start", "error"): [("two players tie for first with 1A: they draw again", False)],
    ("_replayed", "reason"): [("5C is already on the board", False)],
    # The title the table is asked, without its player (see Assistant.tile_seen).
    ("tile_seen", "asked"): [(text, False) for text in (
        "place a tile", "place a closing tile", "buy shares (so far nothing)",
        "buy shares (so far 2 Tower)", "which chain to found?", "which chain to keep as the survivor?",
        "which chain to dispose of next?", "your Tower shares",
        "draw a tile for the stock market and place it", "the market draws 5C",
        "Ann placed 6C", "Ann reveals 6C", "The board and the game differ")],
    # The kinds of action Game._actor checks.
    ("_actor", "action.kind"): [(kind, False) for kind in (
        "place", "no_tile", "found", "survivor", "next_defunct", "market", "dispose", "buy")],
    "action": [("Undo(player=None)", True)],
    # The devices and services.
    ("export", "stick"): [("/media/pi/STICK", True)],
    ("save_calibration", "path"): [("/home/pi/.local/share/tabletop/calibration.json", True)],
    ("safe_shutdown", "error"): [("[Errno 2] No such file or directory: 'sudo'", True)],
    ("safe_shutdown", "done.stderr.strip()"): [("sudo: a password is required", True)],
    ("_check_corners", "', '.join(outside)"): [("1A, 12A", True)],
    ("_check_corners", "' '.join(labels)"): [("1A 12A 12I 1I", True)],
    ("_check_corners", "labels[0]"): [("1A", True)],
    ("_check_corners", "width"): [("640", True)],
    ("_check_corners", "height"): [("480", True)],
    ("calibrate", "', '.join(map(str, missing))"): [("2", True), ("0, 3", True)],
}


def _heuristic(expr: str) -> str:
    """A plausible value for a formatted expression, by its name."""
    low = expr.lower()
    for words, sample in ((("len(", "bank[", "count", "size", "held", "total", "ratio", "limit",
                            "left", "timeout", "game_id", "seq", "last", "number"), "3"),
                          (("money(",), "$300"), (("path",), "/home/pi/journal.db"),
                          (("example",), "1A..12I"),
                          (("error", "reason", "strerror"), "disk I/O error"),
                          (("title",), "Acquire"), (("source",), "0"),
                          (("names[", "player", "first", "actor", "who"), "Ann"),
                          (("join(", "known", "allowed", "names"), "Tower, Luxor"),
                          (("label", "tile", "card", "cell", "text"), "5C"),
                          (("name", "chain", "survivor", "defunct"), "Tower")):
        if any(word in low for word in words):
            return sample
    return "3"


def _strish(node: ast.AST) -> bool:
    """Whether ``node`` is a string written in the source (or a choice of them)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.IfExp):
        return _strish(node.body) and _strish(node.orelse)
    return False


def _stringy(node: ast.AST) -> bool:
    """Whether ``node`` is a string written in the source, or one added to or or-ed with
    something else (``"printer offline" + suffix``, ``stderr or f"exit code {n}"``)."""
    if _strish(node):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _stringy(node.left) or _stringy(node.right)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return any(_stringy(value) for value in node.values)
    return False


class Source:
    """One scanned file: its tree, its functions by name, and the enclosing function of a node."""

    def __init__(self, path: Path, scope: list[Source]) -> None:
        self.path, self.scope = path, scope
        self.tree = ast.parse(path.read_text(encoding="utf-8"))
        self.functions: dict[str, ast.FunctionDef] = {}
        self.enclosing: dict[ast.AST, ast.FunctionDef | None] = {}
        self._index(self.tree, None)

    def _index(self, node: ast.AST, function: ast.FunctionDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            self.enclosing[child] = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(child.name, child)
                self._index(child, child)
            else:
                self._index(child, function)

    def samples(self, node: ast.AST) -> list[tuple[str, frozenset[str]]]:
        """Sample messages of a string expression, each with its opaque values."""
        if isinstance(node, ast.Constant):
            return [(node.value, frozenset())]
        if isinstance(node, ast.IfExp):
            return [s for branch in (node.body, node.orelse) if _strish(branch)
                    for s in self.samples(branch)]
        if isinstance(node, ast.BinOp):
            return [(left + right, a | b) for (left, a), (right, b) in itertools.islice(
                itertools.product(self._part(node.left), self._part(node.right)), 200)]
        if isinstance(node, ast.BoolOp):
            return [s for value in node.values for s in self._part(value)]
        assert isinstance(node, ast.JoinedStr), ast.dump(node)
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append([(value.value, frozenset())])
            else:
                parts.append(self._values(value))
        combined = []
        for choice in itertools.islice(itertools.product(*parts), 200):
            combined.append(("".join(text for text, _ in choice),
                             frozenset().union(*(opaque for _, opaque in choice))))
        return combined

    def _values(self, value: ast.FormattedValue) -> list[tuple[str, frozenset[str]]]:
        return self._value(value.value, value.conversion)

    def _part(self, node: ast.AST) -> list[tuple[str, frozenset[str]]]:
        """Samples of a part of a built string (``a + b``, ``a or b``): either branch of a
        choice in it (``waiting if n else "not checked yet"``), a value by its name."""
        if isinstance(node, ast.IfExp):
            return [s for branch in (node.body, node.orelse) for s in self._part(branch)]
        return self.samples(node) if _stringy(node) else self._value(node, -1)

    def _value(self, node: ast.AST, conversion: int) -> list[tuple[str, frozenset[str]]]:
        expr = ast.unparse(node)
        function = self.enclosing.get(node)
        name = function.name if function is not None else ""
        given = OVERRIDES.get((name, expr)) or OVERRIDES.get(expr)
        if given is not None:
            return [(text, frozenset([text]) if opaque else frozenset()) for text, opaque in given]
        found = self._written(node, function)
        if found:
            return found
        sample = _heuristic(expr)
        if conversion == ord("r"):
            sample = repr(sample)
        return [(sample, frozenset([sample]))]

    def _written(self, node: ast.AST, function: ast.FunctionDef | None
                 ) -> list[tuple[str, frozenset[str]]]:
        """The strings the source itself gives an expression, if it does (else [])."""
        if _strish(node):
            return self.samples(node)
        if isinstance(node, ast.Name) and function is not None:
            # A local assigned a string ("size = f'...' if ... else ''").
            for statement in ast.walk(function):
                if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                        isinstance(statement.targets[0], ast.Name) and \
                        statement.targets[0].id == node.id and _stringy(statement.value):
                    return self.samples(statement.value)
            # A parameter: the strings its callers pass (a caller passing anything else
            # gets a value by its name).
            params = [a.arg for a in function.args.args]
            if node.id in params:
                return self._passed(function.name, params.index(node.id), params[0] == "self",
                                    node.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == "self" and \
                node.func.attr in self.functions:
            # A method of this module that picks one of the strings it holds (_waiting_for).
            held = [s for n in ast.walk(self.functions[node.func.attr]) if isinstance(n, ast.Dict)
                    for v in n.values if _strish(v) for s in self.samples(v)]
            return held
        return []

    def _passed(self, function: str, index: int, method: bool, param: str
                ) -> list[tuple[str, frozenset[str]]]:
        passed, other = [], False
        for source in self.scope:
            for call in ast.walk(source.tree):
                if not isinstance(call, ast.Call):
                    continue
                callee = call.func.attr if isinstance(call.func, ast.Attribute) else \
                    call.func.id if isinstance(call.func, ast.Name) else None
                if callee != function:
                    continue
                position = index - 1 if method and isinstance(call.func, ast.Attribute) else index
                if 0 <= position < len(call.args) and isinstance(call.args[position], ast.Constant) \
                        and isinstance(call.args[position].value, str):
                    passed.append((call.args[position].value, frozenset()))
                else:
                    other = True
        if not passed:
            return []
        if other:
            sample = _heuristic(param)
            passed.append((sample, frozenset([sample])))
        return passed


def _error_classes(sources: list[Source]) -> dict[str, set[str]]:
    """Every TabletopError class defined in the sources, with its ancestors' names."""
    bases = {node.name: {ast.unparse(b).split(".")[-1] for b in node.bases}
             for source in sources for node in ast.walk(source.tree) if isinstance(node, ast.ClassDef)}
    family = {"TabletopError": {"TabletopError"}}
    changed = True
    while changed:
        changed = False
        for name, parents in bases.items():
            if name not in family and parents & family.keys():
                family[name] = {name}.union(*(family[p] for p in parents if p in family))
                changed = True
    return family


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _messages(source: Source, node: ast.AST) -> list[tuple[str, str, frozenset[str]]]:
    """(where, sample, opaque values) of the message written at ``node``."""
    if isinstance(node, ast.JoinedStr) and not any(
            isinstance(v, ast.Constant) and re.search("[A-Za-z]", v.value) for v in node.values):
        return []       # no words of its own ("{actor}: {label}"): its parts are translated
    where = f"{source.path.relative_to(ROOT)}:{node.lineno}"
    return [(where, sample, opaque) for sample, opaque in source.samples(node) if sample]


def _refusals() -> list[tuple[str, str, frozenset[str]]]:
    """(where, sample, opaque values) of every message the table screen can show."""
    game = []
    sources = [Source(path, game) for path in sorted((ROOT / "tabletop").rglob("*.py"))]
    game.extend(sources)
    family = _error_classes(sources)
    found = []

    def add(source: Source, node: ast.AST) -> None:
        found.extend(_messages(source, node))

    for source in sources:
        for call in ast.walk(source.tree):
            if not isinstance(call, ast.Call) or _callee(call) not in family or not call.args \
                    or not _strish(call.args[0]):
                continue
            kind = _callee(call)
            if family[kind] & OFF_TABLE.keys():
                continue
            function = source.enclosing.get(call)
            if "JournalError" in family[kind] and (
                    source.path.name != "journal.py" or function is None
                    or function.name not in JOURNAL_IN_PLAY):
                continue
            add(source, call.args[0])
        if source.path.name not in ("assistant.py", "seating.py"):
            continue
        for node in ast.walk(source.tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    pairs = zip(target.elts, node.value.elts) \
                        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                        else [(target, node.value)]
                    for name, value in pairs:
                        if ast.unparse(name) in ("self._message", "self._banner") and _strish(value):
                            add(source, value)
            elif isinstance(node, ast.Call):
                callee, args = _callee(node), node.args
                message = args[2] if callee == "_flag" and len(args) > 2 else \
                    args[0] if callee == "_tell" and args else \
                    args[2] if callee == "Prompt" and source.path.name == "seating.py" and \
                    len(args) > 2 else \
                    args[0] if callee == "Option" and source.path.name == "seating.py" and args \
                    else None
                if message is not None and _strish(message):
                    add(source, message)
    # Camera faults, as the banner shows them (hardware/camera/base.py: Camera._fault).
    cameras = [Source(path, []) for path in sorted((ROOT / "hardware" / "camera").glob("*.py"))]
    cameras.append(Source(ROOT / "tabletop" / "assembly" / "simcamera.py", []))
    for source in cameras:
        for node in ast.walk(source.tree):
            reasons = []
            if isinstance(node, ast.Call) and _callee(node) == "CameraError" and node.args and \
                    _strish(node.args[0]):
                reasons = source.samples(node.args[0])
            elif isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "reason":
                # Camera._fault: reason = str(exc) if ... else f"failed ({exc})"
                branches = [node.value.body, node.value.orelse] \
                    if isinstance(node.value, ast.IfExp) else [node.value]
                reasons = [s for b in branches if _strish(b) for s in source.samples(b)]
            for reason, opaque in reasons:
                found.append((f"{source.path.relative_to(ROOT)}:{node.lineno}",
                              f"camera off (camera 0 {reason}; retrying): "
                              f"tap each tile's cell to enter it", opaque | {"0"}))
    return found


def _devices() -> list[tuple[str, str, frozenset[str]]]:
    """(where, sample, opaque values) of what the runner's services and the devices say."""
    found = []
    runner = Source(ROOT / "tabletop" / "assembly" / "services.py", [])
    for name in SERVICES:
        for node in ast.walk(runner.functions[name]):
            if isinstance(node, ast.Return) and node.value is not None and _stringy(node.value):
                found += _messages(runner, node.value)
    for name in ("power.py", "printer.py"):
        source = Source(ROOT / "hardware" / name, [])
        for call in ast.walk(source.tree):
            if isinstance(call, ast.Call) and _callee(call) == "Status" and len(call.args) > 1 \
                    and _stringy(call.args[1]):
                found += _messages(source, call.args[1])
    return found


def _calibration_errors() -> list[tuple[str, str, frozenset[str]]]:
    """(where, sample, opaque values) of what ``calibrate`` raises (the calibration screen's):
    calibrate and what it calls, by name, of its own file and of the warps it uses."""
    sources = [Source(ROOT / "calibration" / name, []) for name in ("calibrate.py", "warp.py")]
    owner = {name: source for source in reversed(sources) for name in source.functions}
    reached, todo = set(), ["calibrate"]
    while todo:
        name = todo.pop()
        if name not in reached and name in owner:
            reached.add(name)
            todo += [call.func.id for call in ast.walk(owner[name].functions[name])
                     if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)]
    assert {"calibrate", "homography"} <= reached, reached
    return [message for name in sorted(reached)
            for call in ast.walk(owner[name].functions[name])
            if isinstance(call, ast.Call) and _callee(call) == "CalibrationError" and call.args
            and _stringy(call.args[0]) for message in _messages(owner[name], call.args[0])]


def _tracker_warnings() -> list[str]:
    """What calibration/tracker.py warns of, for changes of every shape (its own wording)."""
    from calibration.tracker import MANY, StabilityTracker

    labels = [f"{n}C" for n in range(1, 13)]
    tracker = StabilityTracker(label=lambda cell: labels[cell])
    shapes = [(2, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (MANY, MANY)]
    warnings = [tracker._describe(list(range(new)), list(range(6, 6 + gone))) for new, gone in shapes]
    warnings += [tracker._doubt_warning(0, frozenset(cells)).message for cells in ({4}, {4, 5})]
    return warnings


REFUSAL_SAMPLES = _refusals() + _devices() + _calibration_errors()


def _leftover(chinese: str, opaque: frozenset[str]) -> list[str]:
    """English words left in ``chinese`` once the values kept as they are are taken out."""
    chinese = re.sub(r"\d+x\d+", " ", chinese)       # a size in pixels (640x480)
    # The names in the samples written above ("buy shares (so far 2 Tower)") are kept too.
    for kept in sorted(opaque | set(KEPT) | {"Ann", "Tower"}, key=len, reverse=True):
        chinese = chinese.replace(kept, " ")
    # Letters after a digit are a tile's label ("5C" in a message within the message).
    return re.findall(r"(?<![0-9A-Za-z])[A-Za-z][A-Za-z_']*", chinese)


def _params(samples):
    for where, sample, opaque in samples:
        yield pytest.param(sample, opaque, id=f"{where} {sample[:60]}")


@pytest.mark.parametrize("sample,opaque", list(_params(REFUSAL_SAMPLES)))
def test_every_message_of_the_sources_is_translated(sample, opaque):
    chinese = say(sample, ZH)
    assert chinese != sample, f"no pattern for {sample!r}"
    assert not _leftover(chinese, opaque), f"English left in {chinese!r} (from {sample!r})"


@pytest.mark.parametrize("warning", _tracker_warnings())
def test_every_camera_warning_is_translated(warning):
    chinese = say(f"camera: {warning}", ZH)
    assert chinese.startswith("攝影機：") and not _leftover(chinese, frozenset()), chinese


def test_the_scan_finds_the_messages():
    """The scan still finds what it is for (a refactor must not make the test above vacuous)."""
    files = {where.split(":")[0] for where, _, _ in REFUSAL_SAMPLES}
    # The modules whose messages are Messages are scanned by tests/ui/test_catalogues.py.
    for name in ("tabletop/geometry/base", "tabletop/geometry/hexgrid",
                 "tabletop/engine/ruleset", "tabletop/journal/journal", "tabletop/table/assistant",
                 "tabletop/table/seating", "tabletop/assembly/simcamera"):
        assert f"{name}.py" in files, name
    assert len(REFUSAL_SAMPLES) > 40
    from tabletop.assembly.services import TableServices
    from ui.services import Services

    assert set(SERVICES) <= {name for name in vars(Services) if not name.startswith("_")}
    assert all(callable(getattr(TableServices, name, None)) for name in SERVICES)


def test_the_patterns_are_well_formed():
    english = {e for e, _ in PATTERNS}
    for pattern, chinese in REFUSALS:
        assert pattern not in english, f"{pattern!r} is in PATTERNS already"
        names = re.findall(r"\{(\w+)\}", pattern)
        assert len(names) == len(set(names)), pattern
        assert set(re.findall(r"(?<!\{)\{(\w+)\}(?!\})", chinese)) == set(names), pattern
        assert re.search(r"[\u4e00-\u9fff]", chinese), pattern
    assert len({e for e, _ in REFUSALS}) == len(REFUSALS), "a pattern given twice"


def test_every_pattern_is_used():
    """No pattern outlives the English it was for (a message reworded leaves one behind)."""
    messages = [sample for _, sample, _ in REFUSAL_SAMPLES] + \
        [f"camera: {warning}" for warning in _tracker_warnings()]
    compiled = [(_compile(english), english) for english, _ in REFUSALS]
    used = set()

    def walk(message: str) -> None:
        for regex, english in compiled:
            found = regex.match(message)
            if found:
                used.add(english)
                for key in ("b", "m"):
                    if key in found.groupdict():
                        walk(found.group(key))
                return

    for message in messages:
        walk(message)
    spare = {"{k} is not possible now: {m}"}        # a fallback
    unused = {english for english, _ in REFUSALS} - used - spare
    assert not unused, unused


def test_refusals_take_no_message_of_patterns():
    """ui.i18n tries REFUSALS before PATTERNS: no title of PATTERNS may be taken by a refusal."""
    values = {"p": "Ann", "t": "5C", "c": "Tower", "n": "300", "b": "2 Tower", "a": "Luxor (2)"}
    for english, _ in PATTERNS:
        message = re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "1"), english)
        taken = [pattern for pattern, _ in REFUSALS if _compile(pattern).match(message)]
        assert not taken, f"{taken} take {message!r}"


# --- by playing ---------------------------------------------------------------------------------

NAMES = {"Ann", "Bob", "Cy", "Tower", "Luxor", "American", "Worldwide", "Festival", "Imperial",
         "Continental", "Skyline", "Acquire"}


def chinese(message: str) -> str:
    """``message`` in Chinese, checked: CJK characters, none of its English words left."""
    assert message, "nothing was said"
    text = say(message, ZH)
    assert re.search(r"[\u4e00-\u9fff]", text), f"not translated: {message!r}"
    words = set(re.findall(r"(?<![0-9A-Za-z])[A-Za-z][A-Za-z_]+", message)) - NAMES - set(KEPT)
    left = [w for w in words if re.search(rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])", text)]
    assert not left, f"{left} left in {text!r} (from {message!r})"
    return text


def new_game(**options) -> Game:
    return Game("acquire", ["Ann", "Bob"], options, start_tiles={"Ann": "1A", "Bob": "12I"})


def play(game: Game, *tiles: str) -> None:
    """Each tile placed in turn: a chain it founds takes the first free name; nobody buys."""
    for tile in tiles:
        game.push(act.Place(tile=tile))
        if game.pending.kind == "found":
            game.push(act.Found(chain=game.rules.chains[game.pending.choices[0]].name))
        game.push(act.Buy())


def refusal(game: Game, action: act.Action) -> str:
    with pytest.raises(IllegalAction) as refused:
        game.push(action)
    return str(refused.value)


def test_a_tile_on_a_taken_cell():
    assistant = Assistant(UnjournaledTable(new_game()))
    assistant.tile_seen("1A")
    assert chinese(assistant.prompt.message) == "1A：這一格已經有地磚了。請把它從盤面拿走。"
    assert "1A 已經在盤面上了" == chinese(refusal(assistant.game, act.Place(tile="1A")))


def test_an_eighth_chain():
    game = new_game()
    # Seven chains of two tiles (1A is on the board already), then a lone tile at 9A.
    play(game, "2A", "1C", "2C", "1E", "2E", "1G", "2G", "5A", "6A", "5C", "6C", "5E", "6E", "9A")
    assistant = Assistant(UnjournaledTable(game))
    assistant.tile_seen("10A")
    assert chinese(assistant.prompt.message).startswith("10A：它會成立新公司")
    assert "10A" in assistant.prompt.flagged
    chinese(refusal(game, act.Place(tile="10A")))


def test_an_illegal_found():
    game = new_game()
    play(game, "2A")                                   # Tower, the first free name
    game.push(act.Place(tile="1C"))
    game.push(act.Buy())
    game.push(act.Place(tile="2C"))
    text = chinese(refusal(game, act.Found(chain="Tower")))
    assert text.startswith("Tower 已經在盤面上了：請從 Luxor, American")
    chinese(refusal(game, act.Found(chain="Skyline")))        # no such chain


def test_buying_too_many_shares_or_with_too_little_cash():
    game = new_game()
    play(game, "2A")
    game.push(act.Place(tile="5E"))
    assert chinese(refusal(game, act.Buy(shares={"Tower": 4}))) == "每回合最多買 3 股，不能買 4 股"
    chinese(refusal(game, act.Buy(shares={"Luxor": 1})))                 # not on the board
    assistant = Assistant(UnjournaledTable(game))
    game.cash[game.pending.player] = 100
    assistant.set_purchase(0, 2)
    assistant.press(CONFIRM)
    assert chinese(assistant.prompt.message) == "Bob 只有 $100，這些股票要 $400"


def test_a_tile_out_of_turn_is_refused():
    game = new_game()
    game.push(act.Place(tile="5E"))
    assistant = Assistant(UnjournaledTable(game))
    assistant.tile_seen("6E")
    assert assistant.prompt.message.startswith("6E was placed while the table is asked to buy")
    assert "6E" in assistant.prompt.flagged


def test_a_tile_out_of_turn_in_chinese():
    game = new_game()
    game.push(act.Place(tile="5E"))
    assistant = Assistant(UnjournaledTable(game))
    assistant.tile_seen("6E")
    chinese(assistant.prompt.message)


def two_safe_chains() -> Game:
    """Tower on 1A-11A, Luxor on 1C-11C (safe at 11): 1B between them is dead."""
    game = new_game()
    play(game, *(f"{n}A" for n in range(2, 12)), *(f"{n}C" for n in range(1, 12)))
    return game


def test_a_dead_tile():
    game = two_safe_chains()
    assert chinese(refusal(game, act.Place(tile="1B"))).startswith("1B 會合併兩家安全公司：它是死磚")
    assistant = Assistant(UnjournaledTable(game))
    assistant.tile_seen("1B")                  # proposed as dead: CONFIRM reveals it
    assistant.press(CONFIRM)
    assert chinese(assistant.prompt.message) == "1B 已出局：請把它拿走，再抽一張"
    assert chinese(refusal(game, act.Dead(tile="5E"))) == "5E 不是死磚：它不會連接兩家安全公司"


def test_a_dead_tile_not_revealed():
    assistant = Assistant(UnjournaledTable(two_safe_chains()), seen=[])
    assistant.tile_seen("1B")
    assistant.press(UNDO)                      # not revealed: it still cannot stay
    assert assistant.prompt.message.startswith("1B cannot be placed")
    assert chinese(assistant.prompt.message).startswith("1B 不能放")


def test_undo_and_confirm_with_nothing_to_do():
    assistant = Assistant(UnjournaledTable(new_game()))
    assistant.press(UNDO)
    assert chinese(assistant.prompt.message) == "沒有可以復原的動作"
    assistant.press(CONFIRM)
    assert chinese(assistant.prompt.message).startswith("還沒有可以確認的事")


def test_undo_stops_at_the_turn():
    game = new_game(incorrect_placement="same_turn")
    play(game, "5E")
    assistant = Assistant(UnjournaledTable(game))
    assistant.press(UNDO)
    assert chinese(assistant.prompt.message).startswith("已經換下一回合了")


def test_a_label_that_is_no_cell():
    assistant = Assistant(UnjournaledTable(new_game()))
    assistant.enter("13J")
    assert chinese(assistant.prompt.message) == "'13J' 不是這個盤面上的格子（格子編號為 1A..12I）"


def test_ending_too_early():
    game = new_game()
    play(game, "2A")                                   # Tower, 2 tiles: not safe
    text = chinese(refusal(game, act.End()))
    assert text == "還不能宣告結束：需要有一家公司達到 41 塊以上，或盤面上每家公司都已安全（11 塊以上）"
    game = new_game(agreed_end=False)
    assert chinese(refusal(game, act.End(agreed=True))) == "這張牌桌不採用全體同意結束"


def test_the_camera():
    assistant = Assistant(UnjournaledTable(new_game()), seen=["1A", "12I"])
    assistant.changes_seen(["5C", "6D"], [], "2 new tiles at once (5C, 6D): not committed; "
                                             "place one tile at a time")
    assert chinese(assistant.prompt.message) == \
        "攝影機：同時出現 2 張新地磚（5C, 6D）：未採計；請一次只放一張"
    assistant.camera_lost("camera 0 gives no frames; retrying")
    assert chinese(assistant.prompt.banner) == \
        "攝影機已關閉（攝影機 0 沒有傳來畫面；正在重試）：請點選每張地磚所在的格子來輸入"


def test_the_turn_order_draw():
    seating = Seating("acquire", ["Ann", "Bob"])
    seating.changes_seen(["5C", "9I", "1D"], [])
    assert chinese(seating.prompt.message) == "3 張地磚、2 位玩家：請拿走多出來的地磚"
    chinese(seating.prompt.title)
    seating.changes_seen([], ["1D"])
    assert chinese(seating.prompt.title) == "誰抽到 5C？"
    seating.press(CONFIRM)
    assert chinese(seating.prompt.message) == "Ann 抽到最接近 1A 的地磚：由 Ann 先開始"
    assert chinese(seating.prompt.title) == "由 Ann 先開始"

    tie = Seating("acquisitions", ["Ann", "Bob"])          # a card in each quadrant
    tie.changes_seen(["1/A-1", "2/A-1"], [])
    tie.press(CONFIRM)
    assert chinese(tie.prompt.message).endswith("；請把地磚拿走，重新抽")
    chinese(tie.prompt.title)


# --- the devices and services, for real ---------------------------------------------------------

def test_switching_off():
    from hardware.power import safe_shutdown

    def close_fails() -> None:
        raise OSError("disk I/O error")

    python = [sys.executable, "-c"]
    said = [safe_shutdown(close, command=python + [code]).message for close, code in (
        (lambda: None, "pass"), (lambda: None, "raise SystemExit(3)"),
        (lambda: None, "raise SystemExit('no poweroff here')"), (close_fails, "pass"))]
    assert [say(message, ZH) for message in said] == [
        "遊戲已儲存；正在關機", "遊戲已儲存，但關機失敗：結束代碼 3",
        "遊戲已儲存，但關機失敗：no poweroff here", "沒有關機：關閉遊戲時失敗（disk I/O error）"]
    missing = safe_shutdown(lambda: None, command=["/nonexistent/poweroff"]).message
    assert say(missing, ZH).startswith("遊戲已儲存，但關機失敗：[Errno 2]")


def test_the_printer_unplugged_or_silent():
    from hardware.printer import ReceiptPrinter

    printer = ReceiptPrinter("/dev/nonexistent-printer", retry_interval=60)
    try:
        printer.print_slip("Ann wins")
        status = printer.retry()
        assert status.state == "fault"
        assert chinese(status.message) == "印表機未連接；1 張成績單等待列印"
    finally:
        printer.close()
    device, port = os.openpty()             # a printer that never answers the paper query
    tty.setraw(port)
    printer = ReceiptPrinter(os.ttyname(port), timeout=0.05)
    try:
        assert chinese(printer.retry().message) == "印表機離線"
    finally:
        printer.close()
        os.close(device)
        os.close(port)


def test_the_results_screen_services(tmp_path, monkeypatch):
    """A real runner (a resumed game, an unplugged printer, a USB stick in a folder)."""
    from assembly.test_run import resumed_runner

    harmless = (sys.executable, "-c", "pass")
    monkeypatch.setattr("hardware.power.POWER_OFF", harmless)      # never the real one
    runner = resumed_runner(tmp_path, {"rules": "acquire", "players": ["Ann", "Bob"],
                                       "start_tiles": {"Ann": "1A", "Bob": "12I"}},
                            "/dev/nonexistent-printer")
    data = runner.data
    runner.services.power_off = harmless
    try:
        assert chinese(runner.services.print_slip()) == "遊戲結束後才能列印成績單"
        assert chinese(runner.services.printer_status().message) == "印表機：尚未檢查"
        runner.services._printer().retry()
        assert chinese(runner.services.printer_status().message) == "印表機未連接"
        media = tmp_path / "media"
        assert chinese(runner.services.export((str(media),))) == "找不到 USB 隨身碟：請插上一支再試一次"
        stick = media / "pi" / "STICK"
        stick.mkdir(parents=True)
        said = runner.services.export((str(media),), mounted=lambda folder: folder.name == "STICK")
        assert say(said, ZH) == f"第 1 局已存到 STICK（{stick / 'tabletop-exports'}）"
        said = runner.services.save_calibration(runner.loop.eyes.calibration)
        assert say(said, ZH) == f"已儲存到 {data / 'calibration.json'}"
        assert chinese(runner.services.shutdown()) == "遊戲已儲存；正在關機"
    finally:
        runner.close()


@pytest.mark.parametrize("players,expected", [
    (["Ann", "Ann"], "有兩位玩家同名"),
    (["Ann", " "], "每位玩家都需要名字"),
    (["Ann"], "{title} 需要 2-6 位玩家，不是 1 位"),
    (["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus"], "{title} 需要 2-6 位玩家，不是 7 位"),
])
def test_the_setup_screen_refusing_the_seats(players, expected):
    """What ui/setup.py shows when Start is refused: the engine's own refusal."""
    from tabletop.engine.ruleset import load_rules

    rules = load_rules("acquire")
    with pytest.raises(TabletopError) as refused:
        Game(rules, players)
    assert say(str(refused.value), ZH) == expected.format(title=rules.title)


def test_a_calibration_refused():
    """What ui/calibscreen.py shows when the taps make no calibration."""
    import numpy as np

    from calibration.calibrate import calibrate

    image = np.zeros((480, 640, 3), np.uint8)
    good = [(40, 40), (600, 40), (600, 440), (40, 440)]
    for picture, taps, expected in (
            (image[:, :, 0], good, "校正用的影像必須是彩色的"),
            (image, [(-5, 40), *good[1:]], "角落格子 1A 在 640x480 的影像範圍之外"),
            (image, [good[0], good[2], good[1], good[3]],
             "角落必須依 1A 12A 12I 1I 的順序點選（照盤面擺放的方向繞一圈）；這幾點交叉、摺疊或繞反了"),
            (image, [(40, 40), (44, 40), (44, 43), (40, 43)],
             "這些角落幾乎沒有圍出範圍：請點選四個角落格子的中心"),
            (image, good, "校正影像中找不到標記 0, 1, 2, 3：四個標記都必須看得到"
                          "（可用 `tabletop markers` 列印）")):
        with pytest.raises(TabletopError) as refused:
            calibrate(picture, taps)
        assert say(str(refused.value), ZH) == expected
