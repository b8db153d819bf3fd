"""Test paths that do not exist: what to say instead of pytest-xdist's "no tests ran".

A mistyped path (``./scripts/test tests/engin``, ``./scripts/test engine``) left pytest
with nothing to collect, and in parallel pytest-xdist says only "no tests ran". The suite's
conftest names the path that is not there, with the nearest names (or, when none is near,
what there is under tests/), for every argument pytest takes as a path; ./scripts/test does
the same for the arguments shaped like paths before it installs anything, with the system
Python: this module needs the standard library only, and runs as a script::

    python3 tests/suite_paths.py tests/engin      # prints what to say, exit 1

>>> candidates = ["tests/engine", "tests/engine/test_payout.py", "tabletop/engine", "tests/ui"]
>>> nearest("tests/engin", candidates)
['tests/engine']
>>> nearest("engine", candidates)
['tests/engine', 'tabletop/engine']
>>> nearest("test_payot.py", candidates)
['tests/engine/test_payout.py']
>>> nearest("nonexistent_dir", candidates)
[]
"""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: How alike a path (or its last name) must be to one there is to be offered.
CUTOFF = 0.75
#: Folders never offered: Python's caches, the virtual environment, packaging's leftovers.
SKIPPED = {"__pycache__", ".venv", ".git", ".hypothesis", ".pytest_cache"}


def path_part(arg: str) -> str:
    """The file or folder of a pytest argument (``tests/x.py::test_y[1]`` -> ``tests/x.py``)."""
    return arg.split("::", 1)[0]


def missing(args: list[str], where: Path) -> list[str]:
    """The paths among ``args`` (as pytest takes them, from ``where``) that do not exist."""
    return [path_part(arg) for arg in args if not (where / path_part(arg)).exists()]


def candidates(root: Path, testpaths: list[str]) -> list[str]:
    """Every folder and Python file under the test paths, from ``root``, tests/ first."""
    found = []
    for top in testpaths:
        if not (root / top).is_dir():
            continue
        found.append(top)
        for folder, folders, files in os.walk(root / top):
            folders[:] = sorted(name for name in folders
                                if name not in SKIPPED and not name.endswith(".egg-info"))
            here = Path(folder).relative_to(root)
            found += [(here / name).as_posix() for name in folders]
            found += [(here / name).as_posix() for name in sorted(files) if name.endswith(".py")]
    return found


def nearest(typed: str, names: list[str]) -> list[str]:
    """The names ``typed`` was most likely meant to be: the whole path alike (a typo in it),
    else its last name alike wherever it is (a folder named without tests/); at most 3."""
    typed = typed.rstrip("/")
    whole = difflib.get_close_matches(typed, names, n=1, cutoff=CUTOFF)
    if whole:
        return whole
    last = typed.rsplit("/", 1)[-1]
    alike = []
    for order, name in enumerate(names):        # the most alike first, then in names' order
        ratio = difflib.SequenceMatcher(None, last, name.rsplit("/", 1)[-1]).ratio()
        if ratio >= CUTOFF:
            alike.append((-ratio, order, name))
    alike.sort()
    return [name for ratio, _, name in alike[:3] if ratio <= alike[0][0] + 0.05]  # the best only


def under_tests(root: Path) -> str:
    """What there is under tests/, folders first: ``assembly/, engine/, ..., test_x.py``."""
    tests = root / "tests"
    if not tests.is_dir():
        return "nothing"
    folders = sorted(f"{p.name}/" for p in tests.iterdir()
                     if p.is_dir() and p.name not in SKIPPED and not p.name.startswith("."))
    files = sorted(p.name for p in tests.glob("test_*.py"))
    return ", ".join(folders + files) or "nothing"


def advice(typed: str, where: Path, root: Path = ROOT,
           testpaths: list[str] | None = None) -> str:
    """The message for a test path ``typed`` (from ``where``) that does not exist."""
    where, root = where.resolve(), root.resolve()
    at_root = where == root
    start = "the repository's root" if at_root else str(where)
    asked = Path(os.path.normpath(where / typed))
    try:
        from_root = asked.relative_to(root).as_posix()
    except ValueError:
        from_root = typed
    found = nearest(from_root, candidates(root, testpaths or ["tests"]))
    said = f"no test file or folder {typed}"
    if found:
        offered = [os.path.relpath(root / name, where) for name in found]
        return (f"{said}: did you mean {' or '.join(offered)}? (paths are from {start})")
    tests = "tests/" if at_root else f"{root / 'tests'}/"
    return (f"{said} (paths are from {start}, e.g. {tests}engine); under {tests} there are "
            f"{under_tests(root)}")


def pyproject_testpaths(root: Path) -> list[str]:
    """pyproject.toml's ``testpaths`` (only tests/ where it cannot be read)."""
    try:
        import tomllib

        with open(root / "pyproject.toml", "rb") as project:
            paths = tomllib.load(project)["tool"]["pytest"]["ini_options"]["testpaths"]
        return [str(path) for path in paths]
    except (ImportError, OSError, KeyError, ValueError, TypeError):
        return ["tests"]


def main(argv: list[str]) -> int:
    """Print a line for each path of ``argv`` that is not there, from the working folder
    (./scripts/test says them on standard error); 1 if any, else 0."""
    where = Path.cwd()
    gone = missing(argv, where)
    for typed in gone:
        print(advice(typed, where, ROOT, pyproject_testpaths(ROOT)))
    return 1 if gone else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
