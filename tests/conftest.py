"""What every test of the suite shares: the process starts as a command typed at a terminal.

A suite started in the background (``./scripts/test &``, ``nohup``, a CI runner's shell)
inherits Ctrl-C ignored, and every command a test starts would inherit it too: a test
that presses Ctrl-C (SIGINT) in ``simulate --games 100000`` would wait for all 100,000
games, then fail. Restored here, the tests' commands see Ctrl-C as at a terminal.

A person who stops the suite with Ctrl-C is told so in one line, with the count of what
ran, instead of pytest's banner naming the line of the standard library the keyboard
interrupted (``--full-trace`` still shows where).
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import sys
import tempfile

import pytest

# A Python started with PYTHONDONTWRITEBYTECODE set (some machines' images set it) would
# compile the whole project again in every worker and in every command a test starts:
# about a sixth of the suite's CPU. The suite keeps the compiled modules instead, in a
# folder of its own in the temporary directory (never beside the sources: the checkout
# stays as it was), which the workers and the commands inherit and which goes at the end:
# a compiled file cut short (a test's command under a file-size limit) spoils one run only.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None \
        and "PYTHONPYCACHEPREFIX" not in os.environ:
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(
        prefix="tabletop-pycache-")
    sys.dont_write_bytecode = False
    atexit.register(shutil.rmtree, sys.pycache_prefix, True)

# In a worker of a parallel run each worker is one core's work: OpenCV's own threads would
# only contend with the other workers (6% of the vision tests' CPU, most of it the kernel's),
# and numpy's OpenBLAS threads spin on after each small solve (calibration's lens fit took
# twice the CPU: 0.20 s a call against 0.09). Set before any test imports cv2 or numpy
# (neither is loaded yet here), and inherited by the commands the tests start.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OPENCV_FOR_THREADS_NUM", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if "cv2" in sys.modules:
        sys.modules["cv2"].setNumThreads(int(os.environ["OPENCV_FOR_THREADS_NUM"]))

#: Not a module of doctests: ``--doctest-modules`` would import it as ``conftest`` after the
#: folders' own conftest modules, and stop at the clash of names.
collect_ignore = ["conftest.py"]


@pytest.hookimpl(trylast=True)      # after the terminal reporter is made
def pytest_configure(config: pytest.Config) -> None:
    _no_missing_paths(config)
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        # A handler of Python's own: reset to the default in a command started (at exec).
        signal.signal(signal.SIGINT, signal.default_int_handler)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and not config.option.fulltrace:
        reporter._report_keyboardinterrupt = lambda: reporter.write_line(
            "stopped (Ctrl-C): the tests that ran are counted below; run the command again "
            "to run them all")


def _no_missing_paths(config: pytest.Config) -> None:
    """A test path given that does not exist stops the run with a message naming it and the
    nearest names (tests/suite_paths.py): in parallel, pytest-xdist's workers would find
    nothing and the run say only "no tests ran". Checked once, by the controller."""
    if os.environ.get("PYTEST_XDIST_WORKER") or config.option.pyargs \
            or config.args_source != pytest.Config.ArgsSource.ARGS:
        return
    where = config.invocation_params.dir
    gone = [arg.split("::", 1)[0] for arg in config.args
            if not (where / arg.split("::", 1)[0]).exists()]
    if gone:
        from suite_paths import advice

        raise pytest.UsageError(*(advice(arg, where, config.rootpath,
                                         config.getini("testpaths")) for arg in gone))


#: Why ``-n auto`` gave the count it did (set on the controller, for the workers' line).
_AUTO_WORKERS = pytest.StashKey[str]()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker a core and one more, as memory allows (tests/suite_workers.py)."""
    from suite_workers import auto_choice

    workers, why = auto_choice()
    config.stash[_AUTO_WORKERS] = why
    return workers


@pytest.hookimpl(tryfirst=True, optionalhook=True)   # before pytest-xdist's status line
def pytest_xdist_setupnodes(config: pytest.Config, specs: list) -> None:
    """A parallel run says how many workers run the tests, and why, in a line of its own:
    ./scripts/test passes ``-q``, under which pytest-xdist says only "bringing up nodes..."
    (and pytest shows no report header)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    workers, auto = len(specs), config.stash.get(_AUTO_WORKERS, None)
    how = f"-n auto: {auto}" if auto is not None else f"-n {workers}"
    reporter.write_line(f"tests run in {workers} worker{'s' if workers != 1 else ''} ({how})")
