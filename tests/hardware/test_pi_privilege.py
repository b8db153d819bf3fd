"""The Pi installer, run for real in a sandbox, against the service user it installs for.

The attack (issue 22, item 5): an install that gives ``$PREFIX`` (the venv included) to
the service user lets that user drop a ``.pth`` file into the venv; the next ``sudo
install-pi.sh`` (an upgrade) runs ``$PREFIX/venv/bin/python`` as root, and the file runs
as uid 0. Here the real ``install-pi.sh`` runs twice as root, with a real venv, a real pip
and a real build of a small stand-in checkout, and between the runs the service user
(``nobody``, uid 65534, through a real setuid) tries to plant code everywhere it can.

Where this differs from a Pi (so these tests need root and skip without it):
- the service user is ``nobody`` (it exists here; ``useradd`` is not run), and a stand-in
  ``getent`` gives it a home in the sandbox, where a Pi's ``tabletop`` has ``/home/tabletop``;
- ``apt-get``, ``usermod``, ``udevadm`` and ``systemctl`` are stand-ins that only record their
  arguments (there is no systemd or udev here), and so is ``visudo`` where sudo is not
  installed; ``ETC`` points the udev rule, sudoers line and unit into the sandbox;
- the checkout is a stand-in project (stub cv2, numpy, gpiozero and serial) installed with
  pip offline, where a Pi fetches OpenCV, Kivy and the rest from PyPI, and the system's numpy
  is a stand-in ``python3`` answer, where a Pi has python3-numpy;
- the permission checks are the same kernel's as on a Pi: root writes, uid 65534 tries.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

PI = Path(__file__).resolve().parents[2] / "hardware" / "pi"
SYSTEM_PYTHON = Path("/usr/bin/python3")
SYSTEM_NUMPY = "1.24.2"   # python3-numpy on Raspberry Pi OS bookworm


def _missing() -> str:
    """Why this machine cannot run the installer for real, or "" when it can."""
    if os.geteuid() != 0:
        return "needs root: the installer chowns and the attack needs a real setuid"
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        return "needs a 'nobody' user to play the service user"
    if not shutil.which("runuser"):
        return "needs runuser (util-linux)"
    probe = "import ensurepip, setuptools, venv"
    if not SYSTEM_PYTHON.exists() or subprocess.run([str(SYSTEM_PYTHON), "-c", probe]).returncode:
        return "needs /usr/bin/python3 with venv, ensurepip and setuptools (python3-venv)"
    return ""


MISSING = _missing()
pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING or "runs")

NOBODY = pwd.getpwnam("nobody") if not MISSING else None

FAKE_PYPROJECT = """\
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "tabletop"
version = "0.0.1"

[project.optional-dependencies]
hardware = []
ui = []

[tool.setuptools]
packages = ["tabletop", "hardware", "calibration", "ui", "cv2", "numpy", "gpiozero", "serial"]

[tool.setuptools.package-dir]
cv2 = "ui/stubs/cv2"
numpy = "ui/stubs/numpy"
gpiozero = "ui/stubs/gpiozero"
serial = "ui/stubs/serial"
"""

SHIM = """#!/bin/bash
printf '%s\\n' "$(basename "$0") $*" >> {calls}
"""

SHIMS = {
    "apt-get": "", "useradd": "", "usermod": "", "udevadm": "",
    "systemctl": "",
    # The checked file and its folder, as visudo sees them: owner and mode.
    "visudo": ('f="${@: -1}"; printf "checked %s %s %s\\n" "$f" "$(stat -c "%u %a" "$f")" '
               '"$(stat -c "%u %a" "$(dirname "$f")")" >> {calls}\n'
               'if [ -x /usr/sbin/visudo ]; then exec /usr/sbin/visudo "$@"; fi\n'),
    "getent": ('if [ "$1" = passwd ] && [ "$2" = nobody ]; then\n'
               '  echo "nobody:x:65534:65534:nobody:{home}:/usr/sbin/nologin"; exit 0\nfi\n'
               'exec /usr/bin/getent "$@"\n'),
    # The system's numpy, as python3-numpy would answer; any other use is the real python3.
    "python3": (f'if [ "$*" = "-I -c import numpy; print(numpy.__version__)" ]; then\n'
                f'  echo {SYSTEM_NUMPY}; exit 0\nfi\n'
                f'exec {SYSTEM_PYTHON} "$@"\n'),
}

#: Python the service user plants: it leaves a mark, with the uid that ran it.
PLANT = "import os; open({marks!r} + '/' + {name!r}, 'a').write(str(os.getuid()))\n"


class Sandbox:
    """A folder tree for one install: checkout, prefix, /etc, the service user's home."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.checkout = root / "checkout"
        self.prefix = root / "opt" / "tabletop"
        self.etc = root / "etc"
        self.home = root / "home"
        self.marks = root / "marks"
        self.bin = root / "bin"
        self.calls = root / "calls.log"
        for folder in ("udev/rules.d", "sudoers.d", "systemd/system"):
            (self.etc / folder).mkdir(parents=True)
        (root / "opt").mkdir()
        (root / "root").mkdir(mode=0o700)
        self.marks.mkdir()
        self.marks.chmod(0o1777)   # a mark left by anyone, root or not, shows code ran
        self.home.mkdir()
        os.chown(self.home, NOBODY.pw_uid, NOBODY.pw_gid)  # useradd --create-home's
        self._shims()
        self._checkout()

    def _shims(self) -> None:
        self.bin.mkdir()
        for name, body in SHIMS.items():
            path = self.bin / name
            body = body.replace("{calls}", str(self.calls)).replace("{home}", str(self.home))
            path.write_text(SHIM.format(calls=self.calls) + body)
            path.chmod(0o755)

    def _checkout(self) -> None:
        (self.checkout / "hardware" / "pi").mkdir(parents=True)
        for name in ("install-pi.sh", "tabletop.service", "tabletop.sudoers", "99-tabletop.rules"):
            shutil.copy(PI / name, self.checkout / "hardware" / "pi" / name)
        (self.checkout / "pyproject.toml").write_text(FAKE_PYPROJECT)
        (self.checkout / "README.md").write_text("stand-in\n")
        for package in ("tabletop", "hardware", "calibration", "ui"):
            (self.checkout / package).mkdir(exist_ok=True)
            (self.checkout / package / "__init__.py").write_text("")
        for stub in ("cv2", "numpy", "gpiozero", "serial"):
            (self.checkout / "ui" / "stubs" / stub).mkdir(parents=True)
            stubbed = self.checkout / "ui" / "stubs" / stub / "__init__.py"
            stubbed.write_text("__version__ = '0'\n")

    def env(self) -> dict[str, str]:
        return {"PATH": f"{self.bin}:/usr/sbin:/usr/bin:/sbin:/bin",
                "HOME": str(self.root / "root"), "LC_ALL": "C.UTF-8",
                "PREFIX": str(self.prefix), "SERVICE_USER": "nobody",
                "ETC": str(self.etc), "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_ROOT_USER_ACTION": "ignore"}

    def install(self, trace: Path | None = None) -> subprocess.CompletedProcess:
        """``sudo install-pi.sh`` from a folder the service user writes (its home)."""
        command = ["bash", str(self.checkout / "hardware" / "pi" / "install-pi.sh")]
        if trace is not None:
            command = ["strace", "-f", "-qq", "-y", "-s", "4096", "-e", "trace=execve,openat,open",
                       "-o", str(trace), *command]
        return subprocess.run(command, cwd=self.home, env=self.env(), capture_output=True,
                              text=True, timeout=300)

    def as_service_user(self, code: str, given: str = "") -> dict:
        """Run ``code`` as the service user (a real setuid to nobody) and return its JSON."""
        done = subprocess.run([str(SYSTEM_PYTHON), "-I", "-c", code], user=NOBODY.pw_uid,
                              group=NOBODY.pw_gid, extra_groups=[], capture_output=True,
                              text=True, timeout=60, cwd="/", input=given)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def marks_left(self) -> dict[str, str]:
        return {path.name: path.read_text() for path in self.marks.iterdir()}


#: The service user's attack: a .pth in every folder of $PREFIX, the venv renamed, the
#: checkout changed, and Python that root might pick up from the folders it does own.
ATTACK = """
import json, os, sys
prefix, checkout, home, marks = {args}
plant = {plant!r}
done = {{"planted": [], "refused": [], "own": []}}
def try_write(path, name):
    try:
        with open(path, "x") as file:
            file.write(plant.format(marks=marks, name=name))
        done["planted"].append(path)
    except OSError as error:
        done["refused"].append([path, error.errno])
for top in (prefix, checkout):
    for folder, dirs, files in os.walk(top):
        try_write(os.path.join(folder, "zz-planted.pth"), "pth")
        try_write(os.path.join(folder, "sitecustomize.py"), "sitecustomize")
        for name in files:
            try:
                open(os.path.join(folder, name), "a").close()
                done["planted"].append(os.path.join(folder, name))
            except OSError:
                pass
try:   # could it swap the venv for its own? (put back, so the planted files stay in it)
    os.rename(os.path.join(prefix, "venv"), os.path.join(prefix, "venv-moved"))
    os.rename(os.path.join(prefix, "venv-moved"), os.path.join(prefix, "venv"))
    done["planted"].append("renamed venv")
except OSError:
    pass
# Its own folders: the one root's second run starts in, its user site, its data folder.
site = os.path.join(home, ".local/lib/python3.11/site-packages")
os.makedirs(site, exist_ok=True)
for folder, name in ((home, "numpy.py"), (home, "venv.py"), (home, "ensurepip.py"),
                     (home, "pip.py"), (home, "sitecustomize.py"), (home, "usercustomize.py"),
                     (site, "zz-planted.pth"),
                     (os.path.join(home, ".local/share/tabletop"), "zz.pth")):
    path = os.path.join(folder, name)
    with open(path, "w") as file:
        file.write(plant.format(marks=marks, name=name))
    done["own"].append(path)
print(json.dumps(done))
"""


def attack(box: Sandbox) -> dict:
    args = repr((str(box.prefix), str(box.checkout), str(box.home), str(box.marks)))
    return box.as_service_user(ATTACK.format(args=args, plant=PLANT))


def loose(path: Path) -> list[str]:
    """Every file or folder under ``path`` (itself too) not root's or writable by others."""
    found = []
    for item in [path, *path.rglob("*")]:
        info = item.lstat()
        if stat.S_ISLNK(info.st_mode):
            continue
        if info.st_uid != 0 or info.st_gid != 0 or info.st_mode & 0o022:
            found.append(f"{item} uid={info.st_uid} mode={oct(info.st_mode)}")
    return found


@pytest.fixture(scope="module")
def installed():
    """Install, let the service user attack, install again (under strace where it is)."""
    root = Path(tempfile.mkdtemp(prefix="tabletop-pi-"))
    root.chmod(0o755)   # the service user must reach its home inside
    try:
        box = Sandbox(root)
        first = box.install()
        assert first.returncode == 0, first.stdout + first.stderr
        after_first = loose(box.prefix)
        tried = attack(box)
        box.calls.write_text("")
        trace = root / "second.trace" if shutil.which("strace") else None
        second = box.install(trace)
        yield box, first, after_first, tried, second, trace
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_first_install_leaves_the_program_roots_and_read_only_to_the_service(installed):
    box, first, after_first, _, _, _ = installed
    assert (box.prefix / "venv" / "bin" / "python").exists()
    site = next((box.prefix / "venv" / "lib").glob("python3*/site-packages"))
    assert (site / "tabletop").is_dir() and (site / "cv2").is_dir()
    assert after_first == []
    # The service user gets its data folder (only its) and its configuration folder.
    data = box.home / ".local" / "share" / "tabletop"
    assert data.stat().st_uid == NOBODY.pw_uid and stat.S_IMODE(data.stat().st_mode) == 0o700
    assert (box.home / ".config" / "tabletop").stat().st_uid == NOBODY.pw_uid
    # Nothing of root's is left in the service user's home, nor built in the checkout.
    assert [p for p in box.home.rglob("*") if p.lstat().st_uid == 0] == []
    assert not (box.checkout / "build").exists()
    assert not list(box.checkout.glob("*.egg-info"))


def test_the_service_user_cannot_plant_a_pth_file_in_the_venv(installed):
    box, _, _, tried, _, _ = installed
    site = next((box.prefix / "venv" / "lib").glob("python3*/site-packages"))
    assert tried["planted"] == []
    refused = {path: errno for path, errno in tried["refused"]}
    assert refused[str(site / "zz-planted.pth")] == 13   # EACCES
    assert str(box.prefix / "zz-planted.pth") in refused
    assert (box.prefix / "venv").is_dir()


def test_the_second_install_runs_none_of_the_service_users_code(installed):
    box, _, _, tried, second, _ = installed
    assert len(tried["own"]) == 8   # it did plant where it could: its home, user site, data
    assert second.returncode == 0, second.stdout + second.stderr
    assert box.marks_left() == {}
    assert loose(box.prefix) == []


def test_the_second_install_executes_and_imports_nothing_the_service_user_could_write(installed):
    box, _, _, _, second, trace = installed
    if trace is None:
        pytest.skip("strace is not installed: the marks test above covers the planted files")
    assert second.returncode == 0, second.stderr
    used = set()
    for line in trace.read_text().splitlines():
        # strace -y shows the file an open really reached: "= 3</real/path>".
        run = re.search(r'execve\("([^"]+)", .* = 0$', line)
        opened = re.search(r' = \d+<([^>]+)>$', line)
        if run:
            used.add(run[1])
        elif opened and re.search(r"\.(py|pyc|pth|so)(\.|$)", opened[1]):
            used.add(opened[1])
    assert all(path.startswith("/") for path in used)
    assert any(path.endswith("site-packages/tabletop/__init__.py") for path in used)
    assert any(path.endswith("/venv/bin/python") for path in used)
    assert any("site-packages/pip/" in path for path in used), sorted(used)[:50]
    writable = box.as_service_user(
        "import json, os, sys\n"
        "paths = json.load(sys.stdin)\n"
        "def changeable(path):\n"
        "    path = os.path.abspath(path)\n"
        "    while True:\n"
        "        if os.path.lexists(path):\n"
        "            info = os.lstat(path)\n"
        "            sticky = os.path.isdir(path) and info.st_mode & 0o1000\n"
        "            if info.st_uid == os.getuid() or (os.access(path, os.W_OK) and not sticky):\n"
        "                return True\n"
        "        if path == '/':\n"
        "            return False\n"
        "        path = os.path.dirname(path)\n"
        "print(json.dumps([p for p in paths if changeable(p)]))\n", json.dumps(sorted(used)))
    assert writable == []


def test_the_sudoers_line_is_checked_in_a_root_only_temporary_folder(installed):
    box, _, _, _, second, _ = installed
    checked = [line.split() for line in box.calls.read_text().splitlines()
               if line.startswith("checked ")]
    assert len(checked) == 1
    _, path, uid, mode, folder_uid, folder_mode = checked[0]
    assert (uid, mode, folder_uid, folder_mode) == ("0", "440", "0", "700")
    assert not path.startswith((str(box.prefix), str(box.home), str(box.etc)))
    assert not Path(path).exists()   # the temporary folder is gone
    sudoers = box.etc / "sudoers.d" / "tabletop"
    assert sudoers.read_text().splitlines()[-1] == \
        "nobody ALL=(root) NOPASSWD: /usr/bin/systemctl poweroff"
    info = sudoers.stat()
    assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (0, 0o440)
    assert sorted(p.name for p in (box.etc / "sudoers.d").iterdir()) == ["tabletop"]
    # Nothing for root is written where the service user used to have a say.
    assert not (box.prefix / "constraints.txt").exists()
    assert not (box.prefix / "tabletop.sudoers").exists()


def test_the_second_install_restarts_the_service_to_run_the_new_code(installed):
    box, *_ = installed
    calls = box.calls.read_text().splitlines()
    assert calls.index("systemctl enable tabletop.service") < \
        calls.index("systemctl restart tabletop.service")
    unit = (box.etc / "systemd" / "system" / "tabletop.service").read_text()
    assert f"ExecStart={box.prefix}/venv/bin/tabletop run --screen" in unit


def old_install(box: Sandbox, victim: Path) -> None:
    """What an install before this fix left: $PREFIX the service user's, a .pth planted in
    its venv, and constraints.txt a link to a file of root's."""
    made = subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", "--without-pip",
                           str(box.prefix / "venv")], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    subprocess.run(["chown", "-R", "nobody:", str(box.prefix)], check=True)
    plant = PLANT.format(marks=str(box.marks), name="old-pth")
    box.as_service_user(
        "import json, os, glob\n"
        f"site = glob.glob({str(box.prefix)!r} + '/venv/lib/python3*/site-packages')[0]\n"
        f"open(site + '/zz-planted.pth', 'w').write({plant!r})\n"
        f"os.symlink({str(victim)!r}, {str(box.prefix / 'constraints.txt')!r})\n"
        "print(json.dumps('planted'))\n")


def test_upgrading_an_install_the_service_user_owned_makes_the_venv_anew_without_running_it():
    root = Path(tempfile.mkdtemp(prefix="tabletop-pi-"))
    root.chmod(0o755)
    try:
        box = Sandbox(root)
        victim = root / "root" / "victim"
        victim.write_text("root's\n")
        old_install(box, victim)
        done = box.install()
        assert done.returncode == 0, done.stdout + done.stderr
        assert "nobody could change" in done.stdout and "making it anew" in done.stdout
        assert box.marks_left() == {}
        assert victim.read_text() == "root's\n"
        assert loose(box.prefix) == []
        assert not list(box.prefix.rglob("zz-planted.pth"))
        assert list(root.glob("opt/.tabletop-old.*")) == []
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_checkout_the_service_user_can_change_is_refused_before_root_builds_it():
    root = Path(tempfile.mkdtemp(prefix="tabletop-pi-"))
    root.chmod(0o755)
    try:
        box = Sandbox(root)
        os.chown(box.checkout / "tabletop", NOBODY.pw_uid, NOBODY.pw_gid)
        done = box.install()
        assert done.returncode == 1
        assert "nobody can change" in done.stderr and "checkout" in done.stderr
        assert "Traceback" not in done.stderr
        assert not (box.prefix / "venv").exists()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_prefix_holding_other_things_is_refused_not_taken():
    root = Path(tempfile.mkdtemp(prefix="tabletop-pi-"))
    root.chmod(0o755)
    try:
        box = Sandbox(root)
        box.prefix.mkdir()
        (box.prefix / "photos").mkdir()
        os.chown(box.prefix, NOBODY.pw_uid, NOBODY.pw_gid)
        done = box.install()
        assert done.returncode == 1 and "did not make" in done.stderr
        assert box.prefix.stat().st_uid == NOBODY.pw_uid   # left as it was
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_the_script_copies_every_package_the_pyproject_builds():
    import tomllib
    project = tomllib.loads((PI.parents[1] / "pyproject.toml").read_text())
    script = (PI / "install-pi.sh").read_text()
    parts = re.search(r"^SOURCE_PARTS=\((.*)\)$", script, re.M)[1].split()
    include = project["tool"]["setuptools"]["packages"]["find"]["include"]
    wanted = {name.rstrip("*") for name in include}
    assert wanted | {"pyproject.toml", project["project"]["readme"]} == set(parts)


if __name__ == "__main__":   # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
