"""The README's two set-up commands, ./scripts/demo and ./scripts/test, on a copy of the
repository whose Python, venv and dpkg are stand-ins that log what they were asked: what
the scripts decide (refuse, install, skip the install, pass arguments on) is checked
without pip or apt-get ever running."""
import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

LOGGING_PYTHON = """#!/bin/sh
echo "python $*" >> "{log}"
case "$*" in *version_info*) echo {version};; esac
exit 0
"""


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The scripts and pyproject.toml in a folder of their own, with no .venv."""
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copytree(REPO / "scripts", repo / "scripts")
    shutil.copy(REPO / "pyproject.toml", repo)
    return repo


def stand_in(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def fake_bin(tmp_path: Path, python_version: str) -> Path:
    """A python3 of the given version and a dpkg that says every package is installed."""
    log = tmp_path / "calls.log"
    stand_in(tmp_path / "bin" / "python3", LOGGING_PYTHON.format(log=log, version=python_version))
    stand_in(tmp_path / "bin" / "dpkg", "#!/bin/sh\nexit 0\n")
    return tmp_path / "bin"


def fake_venv(repo: Path, log: Path, installed: list[str], pyproject_hash: str | None = None) -> None:
    """A .venv whose python and tabletop log their arguments, stamped as holding these extras."""
    stand_in(repo / ".venv" / "bin" / "python", LOGGING_PYTHON.format(log=log, version="3.12"))
    stand_in(repo / ".venv" / "bin" / "tabletop", f'#!/bin/sh\necho "tabletop $*" >> "{log}"\n')
    digest = pyproject_hash or hashlib.sha256((repo / "pyproject.toml").read_bytes()).hexdigest()
    (repo / ".venv" / ".tabletop-installed").write_text(
        "".join(f"{digest} {extra}\n" for extra in installed))


def script_env(path: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("TABLETOP_PYTHON", None)
    if path is not None:
        env["PATH"] = f"{path}{os.pathsep}{env['PATH']}"
    return env


def run(repo: Path, script: str, *args: str, path: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(repo / "scripts" / script), *args], capture_output=True, text=True,
                          env=script_env(path), stdin=subprocess.DEVNULL, timeout=60)


def start(repo: Path, script: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([str(repo / "scripts" / script), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=script_env(),
                            stdin=subprocess.DEVNULL)


def calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("script", ["demo", "test"])
def test_a_python_older_than_3_11_is_refused_with_what_to_do(copy, tmp_path, script):
    result = run(copy, script, path=fake_bin(tmp_path, "3.9"))
    assert result.returncode == 1
    assert "python3 is Python 3.9; tabletop needs 3.11 or newer" in result.stderr
    assert "TABLETOP_PYTHON" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert not (copy / ".venv").exists()
    assert not [call for call in calls(tmp_path) if "venv" in call or "pip" in call]


def test_demo_help_says_what_the_first_run_does_without_making_anything(copy):
    result = run(copy, "demo", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: ./scripts/demo")
    assert ".venv" in result.stdout and "once the first run has made .venv" in result.stdout
    assert not (copy / ".venv").exists()


def test_a_second_demo_starts_at_once_and_passes_its_arguments_on(copy, tmp_path):
    fake_venv(copy, tmp_path / "calls.log", ["vision"])
    result = run(copy, "demo", "--seed", "3", "--headless")
    assert result.returncode == 0, result.stderr
    assert calls(tmp_path) == ["tabletop demo --seed 3 --headless"]
    assert result.stderr == ""


def test_a_changed_pyproject_installs_again_once(copy, tmp_path):
    fake_venv(copy, tmp_path / "calls.log", ["vision"], pyproject_hash="0" * 64)
    first = run(copy, "demo")
    assert first.returncode == 0, first.stderr
    assert "preparing" in first.stderr and "[vision]" in first.stderr
    installs = [call for call in calls(tmp_path) if "pip install" in call]
    assert installs == [f"python -m pip install -q -e {copy}[vision]"]
    assert calls(tmp_path)[-1] == "tabletop demo"
    (tmp_path / "calls.log").unlink()
    second = run(copy, "demo")
    assert calls(tmp_path) == ["tabletop demo"], second.stderr


def test_the_tests_install_their_extras_then_run_pytest_in_parallel(copy, tmp_path):
    fake_venv(copy, tmp_path / "calls.log", ["vision"])
    (copy / "tests" / "engine").mkdir(parents=True)
    result = run(copy, "test", "tests/engine", "-x", path=fake_bin(tmp_path, "3.12"))
    assert result.returncode == 0, result.stderr
    made = calls(tmp_path)
    assert f"python -m pip install -q -e {copy}[test,hardware,ui,tournament]" in made
    assert made[-1] == "python -m pytest -q -n auto --dist loadgroup tests/engine -x"
    stamp = (copy / ".venv" / ".tabletop-installed").read_text().split()
    assert {"vision", "test", "hardware", "ui", "tournament"} <= set(stamp)


def test_a_mistyped_test_path_is_named_before_anything_is_installed(copy, tmp_path):
    (copy / "tests" / "engine").mkdir(parents=True)
    shutil.copy(REPO / "tests" / "suite_paths.py", copy / "tests")
    result = run(copy, "test", "tests/engin", "-x", "tests/engine", "tests/ui/test_x.py::test_y")
    assert result.returncode == 1
    assert result.stderr == (
        "tabletop: no test file or folder tests/engin: did you mean tests/engine? (paths are "
        "from the repository's root)\n"
        "tabletop: no test file or folder tests/ui/test_x.py (paths are from the repository's "
        "root, e.g. tests/engine); under tests/ there are engine/\n")
    assert not (copy / ".venv").exists()


def test_a_mistyped_test_path_is_named_without_a_python_to_say_more(copy, tmp_path):
    """A Python that does not run tests/suite_paths.py (here a stand-in that does nothing):
    the path alone, still before anything is installed."""
    result = run(copy, "test", "tests/engin", "-x", path=fake_bin(tmp_path, "3.12"))
    assert result.returncode == 1
    assert result.stderr == ("tabletop: no test file or folder tests/engin (paths are from "
                             "the repository's root, e.g. tests/engine)\n")
    assert not (copy / ".venv").exists()
    assert not [call for call in calls(tmp_path) if "venv" in call or "pip" in call]


# --- two runs at once: one installs, the other waits for it ---------------------------------

#: A venv's python whose pip install lasts until the test lets it end (a file appears).
SLOW_PIP_PYTHON = """#!/bin/sh
echo "python $*" >> "{log}"
case "$*" in
  *version_info*) echo 3.12;;
  *"pip install"*) while [ ! -e "{release}" ]; do sleep 0.05; done;;
esac
exit 0
"""


def wait_for(condition, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)


@contextlib.contextmanager
def installing_elsewhere(repo: Path):
    """The install lock held, as ./scripts/test (this process) would while installing."""
    lock = repo / ".venv.lock"
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        lock.write_text(f"{os.getpid()}\t./scripts/test\ttabletop into {repo}/.venv\n")
        yield held


def test_a_run_waits_for_an_install_under_way_and_says_so(copy, tmp_path):
    """.venv is up to date, but another run holds the lock (its pip is writing into .venv):
    the demo waits, saying for which process, and starts once the lock is let go."""
    fake_venv(copy, tmp_path / "calls.log", ["vision"])
    with installing_elsewhere(copy) as held:
        demo = start(copy, "demo", "--headless")
        try:
            said = demo.stderr.readline()
            assert said == (f"tabletop: waiting for ./scripts/test (process {os.getpid()}) to "
                            f"finish installing tabletop into {copy}/.venv; this run goes on "
                            f"after it\n")
            time.sleep(0.3)
            assert demo.poll() is None and calls(tmp_path) == []
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
        _, rest = demo.communicate(timeout=60)
    assert demo.returncode == 0, rest
    assert rest == "" and calls(tmp_path) == ["tabletop demo --headless"]


def test_a_run_that_waited_installs_if_the_install_it_waited_for_failed(copy, tmp_path):
    """.venv was up to date when the demo looked, but another run held the lock: that run
    made .venv again and its pip failed (no stamp). Once the lock is let go the demo looks
    again and installs, instead of starting tabletop from a .venv without it."""
    log = tmp_path / "calls.log"
    fake_venv(copy, log, ["vision"])
    with installing_elsewhere(copy) as held:
        demo = start(copy, "demo", "--headless")
        try:
            said = demo.stderr.readline()
            assert said.startswith("tabletop: waiting for ./scripts/test"), said
            shutil.rmtree(copy / ".venv")
            fake_venv(copy, log, [])       # made again, then its pip failed: stamped for none
            (copy / ".venv.lock").write_text("")
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
        _, rest = demo.communicate(timeout=60)
    assert demo.returncode == 0, rest
    assert "preparing" in rest and "[vision]" in rest
    made = [call for call in calls(tmp_path) if "pip install" in call or call.startswith("tabletop")]
    assert made == [f"python -m pip install -q -e {copy}[vision]", "tabletop demo --headless"]
    assert "vision" in (copy / ".venv" / ".tabletop-installed").read_text().split()


#: Appended to a stand-in: it logs "WHO inherited the lock" when it has .venv.lock open.
INHERITS_LOCK = """for fd in /proc/$$/fd/*; do
  case "$(readlink "$fd")" in *.venv.lock) echo "{who} inherited the lock" >> "{log}";; esac
done
"""


@pytest.mark.skipif(shutil.which("flock") is None, reason="no flock: no lock to inherit")
def test_pip_runs_under_the_lock_without_holding_it_open_itself(copy, tmp_path):
    """The run installing holds .venv.lock; pip (and whatever it starts) gets no copy of
    its file descriptor, so nothing outlives the run holding the lock."""
    log = tmp_path / "calls.log"
    fake_venv(copy, log, ["vision"], pyproject_hash="0" * 64)
    python = copy / ".venv" / "bin" / "python"
    stand_in(python, python.read_text().replace(
        "exit 0\n", INHERITS_LOCK.format(who="python $*", log=log) + "exit 0\n"))
    done = run(copy, "demo")
    assert done.returncode == 0, done.stderr
    made = calls(tmp_path)
    pip = f"python -m pip install -q -e {copy}[vision]"
    assert pip in made and f"{pip} inherited the lock" not in made, made


def test_two_runs_needing_an_install_install_once(copy, tmp_path):
    """Two demos started together on a .venv whose pyproject.toml changed: the first
    installs, the second waits for it (saying so), then finds nothing left to install."""
    log = tmp_path / "calls.log"
    fake_venv(copy, log, ["vision"], pyproject_hash="0" * 64)
    release = tmp_path / "pip may end"
    stand_in(copy / ".venv" / "bin" / "python", SLOW_PIP_PYTHON.format(log=log, release=release))
    first = start(copy, "demo", "--seed", "1")
    # Should the second run never say it waits, its pip still ends, and the test with it.
    timer = threading.Timer(30, release.touch)
    timer.start()
    try:
        wait_for(lambda: any("pip install" in call for call in calls(tmp_path)),
                 "the first run's pip started")
        second = start(copy, "demo", "--seed", "2")
        try:
            said = second.stderr.readline()
            assert said == (f"tabletop: waiting for {copy}/scripts/demo (process {first.pid}) "
                            f"to finish installing tabletop into {copy}/.venv; this run goes "
                            f"on after it\n")
            assert [call for call in calls(tmp_path) if "pip install" in call] == \
                [f"python -m pip install -q -e {copy}[vision]"]
            release.touch()
            _, second_rest = second.communicate(timeout=60)
        finally:
            if second.poll() is None:
                second.kill()
        _, first_said = first.communicate(timeout=60)
    finally:
        timer.cancel()
        release.touch()
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0 and second.returncode == 0, first_said + second_rest
    assert "preparing" in first_said and second_rest == ""
    made = calls(tmp_path)
    assert [call for call in made if "pip install" in call] == \
        [f"python -m pip install -q -e {copy}[vision]"]
    assert sorted(call for call in made if call.startswith("tabletop")) == \
        ["tabletop demo --seed 1", "tabletop demo --seed 2"]
    assert (copy / ".venv.lock").read_text() == ""       # no installer named any more


FRESH_PYTHON = """#!/bin/sh
echo "python3 $*" >> "{log}"
case "$*" in *version_info*) echo 3.12;; esac
case "$*" in *"import ensurepip"*) exit 1;; esac
if [ "$1" = -m ] && [ "$2" = venv ]; then
  mkdir -p "$3/bin"
  cat > "$3/bin/python" <<'VENV'
#!/bin/sh
case "$*" in *version_info*) echo 3.12;; esac
case "$*" in *"pip install"*)
  if flock -n "{lock}" true; then echo "pip ran with the lock free" >> "{log}";
  else echo "pip ran under the lock" >> "{log}"; fi
  for fd in /proc/$$/fd/*; do
    case "$(readlink "$fd")" in *.venv.lock) echo "pip inherited the lock" >> "{log}";; esac
  done;;
esac
exit 0
VENV
  printf '#!/bin/sh\\nexit 0\\n' > "$3/bin/tabletop"
  chmod +x "$3/bin/python" "$3/bin/tabletop"
fi
exit 0
"""


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("flock") is None,
                    reason="apt-get is run directly only as root; the lock needs flock")
def test_the_first_install_keeps_the_lock_through_apt_get_and_pip(copy, tmp_path):
    """A fresh Debian without python3-venv: making .venv installs it with apt-get under the
    install lock, and pip still runs under that lock (apt-get's step let it go once, and a
    second run could have removed .venv under pip); neither holds the lock's file open."""
    log, lock = tmp_path / "calls.log", copy / ".venv.lock"
    installed = tmp_path / "python3-venv installed"
    stand_in(tmp_path / "bin" / "python3", FRESH_PYTHON.format(log=log, lock=lock))
    stand_in(tmp_path / "bin" / "dpkg", f'#!/bin/sh\n[ -e "{installed}" ]\n')
    stand_in(tmp_path / "bin" / "apt-get",
             f'#!/bin/sh\necho "apt-get $*" >> "{log}"\n'
             + INHERITS_LOCK.format(who="apt-get", log=log) +
             f'case "$*" in *install*) touch "{installed}";; esac\n')
    done = run(copy, "demo", "--headless", path=tmp_path / "bin")
    assert done.returncode == 0, done.stderr
    made = calls(tmp_path)
    assert any(call.startswith("apt-get") and "python3-venv" in call for call in made), made
    assert "pip ran under the lock" in made and "pip ran with the lock free" not in made
    # ... and neither they nor what they start hold the lock file open themselves.
    assert "apt-get inherited the lock" not in made and "pip inherited the lock" not in made
