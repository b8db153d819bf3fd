"""The Pi installer, run for real in a sandbox, against the desktop user it installs for.

The attack (issue 22, item 5): an install that gives ``$PREFIX`` (the venv included) to
the app's user lets that user drop a ``.pth`` file into the venv; the next ``sudo
install-pi.sh`` (an upgrade) runs ``$PREFIX/venv/bin/python`` as root, and the file runs
as uid 0. Here the real ``install-pi.sh`` runs twice as root, with a real venv, a real pip
and a real build of a small stand-in checkout, and between the runs the desktop user
(``nobody``, uid 65534, through a real setuid) tries to plant code everywhere it can, and
points a file of its home that the install writes at a file of root's.

Where this differs from a Pi (so these tests need root and skip without it):
- the desktop user is ``nobody`` (a Pi's is ``pi``), and a stand-in ``getent`` gives it a
  home in the sandbox;
- ``apt-get``, ``apt-cache``, ``usermod``, ``udevadm``, ``systemctl`` and ``raspi-config`` are
  stand-ins that only record their arguments and who ran them (there is no systemd, udev or
  desktop here), and so is ``visudo`` where sudo is not installed; ``ETC``, ``RUNTIME_ROOT``
  and ``LABWC_SESSION`` point /etc, /run/user and labwc-pi into the sandbox;
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
from dataclasses import dataclass
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
        return "needs a 'nobody' user to play the desktop user"
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
    "apt-get": "", "usermod": "", "udevadm": "",
    "apt-cache": 'if [ "$2" = rpicam-apps-lite ]; then echo "  Candidate: 1.5.0-1"; fi\n',
    "systemctl": 'echo "systemctl ran as $(id -u) with XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-}" >> {calls}\n',
    # raspi-config's own look at the desktop is `pgrep labwc` (see blanking_off in the script).
    "raspi-config": ('running=no; if pgrep labwc >/dev/null; then running=yes; fi\n'
                     'echo "raspi-config ran as $(id -u) for $SUDO_USER, desktop running: $running"'
                     ' >> {calls}\n'),
    # The checked file and its folder, as visudo sees them: owner and mode.
    "visudo": ('f="${@: -1}"; printf "checked %s %s %s\\n" "$f" "$(stat -c "%u %a" "$f")" '
               '"$(stat -c "%u %a" "$(dirname "$f")")" >> {calls}\n'
               'if [ -x /usr/sbin/visudo ]; then exec /usr/sbin/visudo "$@"; fi\n'),
    "getent": ('if [ "$1" = passwd ] && [ "$2" = nobody ]; then\n'
               '  echo "nobody:x:65534:65534:nobody:{home}:/usr/sbin/nologin"; exit 0\nfi\n'
               # An older install's service user, where the sandbox has one.
               'if [ "$1" = passwd ] && [ "$2" = tabletop ] && [ -e {root}/old-service-user ]; then\n'
               '  echo "tabletop:x:999:999::{root}/oldhome:/usr/sbin/nologin"; exit 0\nfi\n'
               'exec /usr/bin/getent "$@"\n'),
    # The system's numpy, as python3-numpy would answer; any other use is the real python3.
    "python3": (f'if [ "$*" = "-I -c import numpy; print(numpy.__version__)" ]; then\n'
                f'  echo {SYSTEM_NUMPY}; exit 0\nfi\n'
                f'exec {SYSTEM_PYTHON} "$@"\n'),
}

#: Raspberry Pi OS's labwc session wrapper (raspberrypi-ui-mods' /usr/bin/labwc-pi) and the
#: system autostart it merges with the user's.
LABWC_PI = "#!/bin/sh\n. /usr/bin/setup_env\nexec /usr/bin/labwc -m $@\n"
LABWC_SYSTEM = ("/usr/bin/lwrespawn /usr/bin/pcmanfm --desktop --profile LXDE-pi &\n"
                "/usr/bin/lwrespawn /usr/bin/wf-panel-pi &\n/usr/bin/kanshi &\n"
                "/usr/bin/lxsession-xdg-autostart\n")
WAYFIRE_TEMPLATE = "[command]\nbinding_terminal = <ctrl> <alt> KEY_T\n"

#: Python the desktop user plants: it leaves a mark, with the uid that ran it.
PLANT = "import os; open({marks!r} + '/' + {name!r}, 'a').write(str(os.getuid()))\n"


class Sandbox:
    """A folder tree for one install: checkout, prefix, /etc, the desktop user's home."""

    def __init__(self, root: Path, labwc_merges: bool = True) -> None:
        self.root = root
        self.checkout = root / "checkout"
        self.prefix = root / "opt" / "tabletop"
        self.etc = root / "etc"
        self.home = root / "home"
        self.marks = root / "marks"
        self.bin = root / "bin"
        self.calls = root / "calls.log"
        self.runtime = root / "run" / "user"
        self.labwc_pi = root / "usr" / "bin" / "labwc-pi"
        self.victim = self.etc / "victim"       # root's, for a link in the home to point at
        for folder in ("udev/rules.d", "sudoers.d", "systemd/system", "xdg/labwc", "wayfire"):
            (self.etc / folder).mkdir(parents=True)
        (self.etc / "xdg" / "labwc" / "autostart").write_text(LABWC_SYSTEM)
        (self.etc / "wayfire" / "template.ini").write_text(WAYFIRE_TEMPLATE)
        self.victim.write_text("root's\n")
        self.labwc_pi.parent.mkdir(parents=True)
        self.labwc_pi.write_text(LABWC_PI if labwc_merges else LABWC_PI.replace(" -m", ""))
        (root / "opt").mkdir()
        (root / "root").mkdir(mode=0o700)
        self.marks.mkdir()
        self.marks.chmod(0o1777)   # a mark left by anyone, root or not, shows code ran
        self.home.mkdir()
        os.chown(self.home, NOBODY.pw_uid, NOBODY.pw_gid)   # the desktop user's own home
        self.calls.touch()
        self.calls.chmod(0o666)    # stand-ins run as the desktop user record there too
        self.bin.mkdir()
        for name, body in SHIMS.items():
            self.shim(name, body)
        self._checkout()

    def shim(self, name: str, body: str) -> None:
        path = self.bin / name
        body = (body.replace("{calls}", str(self.calls)).replace("{home}", str(self.home))
                .replace("{root}", str(self.root)))
        path.write_text(SHIM.format(calls=self.calls) + body)
        path.chmod(0o755)

    def _checkout(self) -> None:
        (self.checkout / "hardware" / "pi").mkdir(parents=True)
        for path in PI.iterdir():
            if path.is_file():
                shutil.copy(path, self.checkout / "hardware" / "pi" / path.name)
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
                "PREFIX": str(self.prefix), "DESKTOP_USER": "nobody",
                "ETC": str(self.etc), "RUNTIME_ROOT": str(self.runtime),
                "LABWC_SESSION": str(self.labwc_pi),
                "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_ROOT_USER_ACTION": "ignore"}

    def install(self, trace: Path | None = None, **env: str) -> subprocess.CompletedProcess:
        """``sudo install-pi.sh`` from a folder the desktop user writes (its home)."""
        command = ["bash", str(self.checkout / "hardware" / "pi" / "install-pi.sh")]
        if trace is not None:
            command = [*strace_command(trace), *command]
        return subprocess.run(command, cwd=self.home, env={**self.env(), **env},
                              capture_output=True, text=True, timeout=300)

    def as_service_user(self, code: str, given: str = "") -> dict:
        """Run ``code`` as the desktop user (a real setuid to nobody) and return its JSON."""
        done = subprocess.run([str(SYSTEM_PYTHON), "-I", "-c", code], user=NOBODY.pw_uid,
                              group=NOBODY.pw_gid, extra_groups=[], capture_output=True,
                              text=True, timeout=60, cwd="/", input=given)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def marks_left(self) -> dict[str, str]:
        return {path.name: path.read_text() for path in self.marks.iterdir()}

    def placed(self) -> dict[str, bytes]:
        """What the install put in place for root, by path."""
        paths = [self.etc / "udev/rules.d/99-tabletop.rules", self.etc / "sudoers.d/tabletop",
                 self.etc / "systemd/user/tabletop.service", self.prefix / "bin/tabletop-session"]
        return {str(path): path.read_bytes() for path in paths}

    def calls_made(self) -> list[str]:
        return self.calls.read_text().splitlines()


def strace_command(trace: Path) -> list[str]:
    """strace of every program run and file opened, into ``trace``. Where strace can
    (5.3 and later, with the kernel's seccomp), only those calls stop the install: the
    same lines, without a stop at each of its other system calls (a third of the traced
    install's CPU, most of it the kernel's)."""
    command = ["strace", "-f", "-qq", "-y", "-s", "4096", "-e", "trace=execve,openat,open",
               "-o", str(trace)]
    return command[:1] + ["--seccomp-bpf"] + command[1:] if _seccomp_bpf() else command


def _seccomp_bpf() -> bool:
    """Whether this strace takes --seccomp-bpf (an older one stops at the unknown option)."""
    probe = subprocess.run(["strace", "--seccomp-bpf", "-f", "-qq", "-e", "trace=execve",
                            "-o", os.devnull, "true"], capture_output=True, text=True)
    return probe.returncode == 0 and "unavailable" not in probe.stderr


def tree(top: Path) -> dict[str, tuple]:
    """Every entry under ``top``: its owner, group, mode and (for a file) content."""
    found = {}
    for item in [top, *top.rglob("*")]:
        info = item.lstat()
        content = item.read_bytes() if stat.S_ISREG(info.st_mode) else None
        found[str(item.relative_to(top))] = (info.st_uid, info.st_gid, info.st_mode, content)
    return found


#: The desktop user's attack: a .pth in every folder of $PREFIX, the venv renamed, the
#: checkout changed, Python that root might pick up from the folders it does own, and its
#: wayfire.ini made a link to a file of root's, for a careless root to write through.
ATTACK = """
import json, os, sys
prefix, checkout, home, marks, victim = {args}
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
ini = os.path.join(home, ".config/wayfire.ini")
os.remove(ini)
os.symlink(victim, ini)
print(json.dumps(done))
"""


def attack(box: Sandbox) -> dict:
    args = repr((str(box.prefix), str(box.checkout), str(box.home), str(box.marks),
                 str(box.victim)))
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


@dataclass
class Installed:
    box: Sandbox
    checkout_before: dict
    first: subprocess.CompletedProcess
    after_first: list[str]
    placed_first: dict[str, bytes]
    calls_first: list[str]
    home_first: dict[str, tuple[int, str]]   # the autostart files, before the attack
    tried: dict
    second: subprocess.CompletedProcess
    trace: Path | None


#: The tests of one install run in one worker, which installs once (a real venv and pip).
INSTALLED = pytest.mark.xdist_group("pi-privilege-installed")


@pytest.fixture(scope="module")
def installed():
    """Install, let the desktop user attack, install again (under strace where it is)."""
    root = Path(tempfile.mkdtemp(prefix="tabletop-pi-"))
    root.chmod(0o755)   # the desktop user must reach its home inside
    try:
        box = Sandbox(root)
        checkout_before = tree(box.checkout)
        first = box.install()
        assert first.returncode == 0, first.stdout + first.stderr
        after_first, placed_first, calls_first = loose(box.prefix), box.placed(), box.calls_made()
        home_first = {name: ((box.home / name).stat().st_uid, (box.home / name).read_text())
                      for name in (".config/labwc/autostart", ".config/wayfire.ini")}
        tried = attack(box)
        box.calls.write_text("")
        trace = root / "second.trace" if shutil.which("strace") else None
        second = box.install(trace)
        yield Installed(box, checkout_before, first, after_first, placed_first, calls_first,
                        home_first, tried, second, trace)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@INSTALLED
def test_first_install_leaves_the_program_roots_and_read_only_to_the_desktop_user(installed):
    box = installed.box
    assert (box.prefix / "venv" / "bin" / "python").exists()
    site = next((box.prefix / "venv" / "lib").glob("python3*/site-packages"))
    assert (site / "tabletop").is_dir() and (site / "cv2").is_dir()
    assert installed.after_first == []
    # The desktop user gets its data folder (only its) and its configuration folder.
    data = box.home / ".local" / "share" / "tabletop"
    assert data.stat().st_uid == NOBODY.pw_uid and stat.S_IMODE(data.stat().st_mode) == 0o700
    assert (box.home / ".config" / "tabletop").stat().st_uid == NOBODY.pw_uid
    # Nothing of root's is left in the desktop user's home, nor built in the checkout.
    assert [p for p in box.home.rglob("*") if p.lstat().st_uid == 0] == []
    assert tree(box.checkout) == installed.checkout_before


@INSTALLED
def test_the_app_is_a_user_service_started_by_the_desktops_autostart(installed):
    box, first = installed.box, installed.first
    unit = (box.etc / "systemd" / "user" / "tabletop.service").read_text()
    assert f"ExecStart={box.prefix}/venv/bin/tabletop run --screen" in unit
    assert not (box.etc / "systemd" / "system" / "tabletop.service").exists()
    launcher = box.prefix / "bin" / "tabletop-session"
    info = launcher.stat()
    assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (0, 0o755)
    assert "systemctl --user restart tabletop.service" in launcher.read_text()
    # Raspberry Pi OS's labwc-pi runs labwc -m: the user's autostart adds to the system one.
    autostart = installed.home_first[".config/labwc/autostart"]
    assert autostart == (NOBODY.pw_uid,
                         f"{launcher} &  # the table app (tabletop's hardware/pi/install-pi.sh)\n")
    owner, wayfire = installed.home_first[".config/wayfire.ini"]
    assert owner == NOBODY.pw_uid and wayfire.startswith(WAYFIRE_TEMPLATE)
    assert f"\n[autostart]\ntabletop = {launcher}\n" in wayfire
    # Nobody is logged in: nothing to reload; the app comes at the next login.
    assert "nobody is not logged in now: the app starts at its next login" in first.stdout
    assert not any(call.startswith("systemctl") for call in installed.calls_first)
    assert "apt-get install -y " in "\n".join(installed.calls_first)
    assert any(call.startswith("apt-get install") and call.endswith(" rpicam-apps-lite")
               for call in installed.calls_first)
    assert "journalctl --user-unit tabletop -f" in first.stdout


@INSTALLED
def test_with_no_desktop_running_raspi_config_blanks_nothing_in_the_home_as_root(installed):
    assert "raspi-config nonint do_blanking 1" in installed.calls_first
    # As root it may only take its X11 branch (files in /etc): it is shown no running desktop.
    assert "raspi-config ran as 0 for nobody, desktop running: no" in installed.calls_first


@INSTALLED
def test_the_service_user_cannot_plant_a_pth_file_in_the_venv(installed):
    box, tried = installed.box, installed.tried
    site = next((box.prefix / "venv" / "lib").glob("python3*/site-packages"))
    assert tried["planted"] == []
    refused = {path: errno for path, errno in tried["refused"]}
    assert refused[str(site / "zz-planted.pth")] == 13   # EACCES
    assert str(box.prefix / "zz-planted.pth") in refused
    assert (box.prefix / "venv").is_dir()


@INSTALLED
def test_the_second_install_runs_none_of_the_desktop_users_code(installed):
    box, second = installed.box, installed.second
    assert len(installed.tried["own"]) == 8   # it did plant where it could: its home, user site, data
    assert second.returncode == 0, second.stdout + second.stderr
    assert box.marks_left() == {}
    assert loose(box.prefix) == []


@INSTALLED
def test_the_second_install_is_harmless_and_follows_no_link_of_the_users(installed):
    box, second = installed.box, installed.second
    assert box.placed() == installed.placed_first      # udev, sudoers, unit, launcher: the same
    autostart = (box.home / ".config" / "labwc" / "autostart").read_text()
    assert autostart.count("tabletop-session") == 1
    # wayfire.ini became a link to a file of root's: written as the user, it is refused.
    assert box.victim.read_text() == "root's\n"
    assert "could not write nobody's autostart" in second.stderr
    assert [p for p in box.home.rglob("*") if p.lstat().st_uid == 0] == []
    assert tree(box.checkout) == installed.checkout_before


@INSTALLED
def test_the_second_install_executes_and_imports_nothing_the_service_user_could_write(installed):
    box, second, trace = installed.box, installed.second, installed.trace
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


@INSTALLED
def test_the_sudoers_line_is_checked_in_a_root_only_temporary_folder(installed):
    box = installed.box
    checked = [line.split() for line in box.calls_made() if line.startswith("checked ")]
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
    # Nothing for root is written where the desktop user used to have a say.
    assert not (box.prefix / "constraints.txt").exists()
    assert not (box.prefix / "tabletop.sudoers").exists()


def test_upgrading_the_old_service_install_for_a_logged_in_desktop_user_who_runs_sudo():
    """The usual Pi: ``pi`` cloned the project into its home and runs sudo, its desktop is up
    (labwc without -m here), and an older install left a system service and its user."""
    root = Path(tempfile.mkdtemp(prefix="tabletop-pi-"))
    root.chmod(0o755)
    try:
        box = Sandbox(root, labwc_merges=False)
        subprocess.run(["chown", "-R", "nobody:", str(box.checkout)], check=True)
        before = tree(box.checkout)
        (box.etc / "systemd" / "system" / "tabletop.service").write_text("[Service]\nUser=tabletop\n")
        (root / "old-service-user").touch()
        (box.runtime / str(NOBODY.pw_uid)).mkdir(parents=True)
        os.chown(box.runtime / str(NOBODY.pw_uid), NOBODY.pw_uid, NOBODY.pw_gid)
        box.shim("pgrep", 'for a; do [ "$a" = labwc ] && exit 0; done; exit 1\n')   # labwc runs
        done = box.install(SUDO_USER="nobody")
        assert done.returncode == 0, done.stdout + done.stderr
        calls = box.calls_made()
        # Its own checkout is built from a root-owned copy and left exactly as it was.
        assert "nobody runs sudo" in done.stdout
        assert tree(box.checkout) == before
        # The old system service is gone; its user and data stay, and it says where and how.
        assert not (box.etc / "systemd" / "system" / "tabletop.service").exists()
        assert calls.index("systemctl disable --now tabletop.service") < calls.index(
            "systemctl daemon-reload")
        assert f"{root}/oldhome/.local/share/tabletop" in done.stdout
        assert f"sudo tar -C {root}/oldhome/.local/share -cf - tabletop | tar -C ~/.local/share" \
            in done.stdout
        # The running desktop's blanking is switched off by the user itself, not by root.
        assert "raspi-config ran as 65534 for nobody, desktop running: yes" in calls
        # Its systemd manager reads the new unit now, as the user, through its runtime folder.
        runtime = box.runtime / str(NOBODY.pw_uid)
        assert calls.count(f"systemctl ran as 65534 with XDG_RUNTIME_DIR={runtime}") == 2
        assert "systemctl --user daemon-reload" in calls
        assert "systemctl --user try-restart tabletop.service" in calls
        # labwc reads only the user's autostart: the desktop's own lines come first.
        autostart = (box.home / ".config" / "labwc" / "autostart").read_text()
        assert autostart.startswith(LABWC_SYSTEM) and autostart.count("tabletop-session") == 1
        assert [p for p in box.home.rglob("*") if p.lstat().st_uid == 0] == []
    finally:
        shutil.rmtree(root, ignore_errors=True)


def old_install(box: Sandbox, victim: Path) -> None:
    """What an install before issue 22 left: $PREFIX the app user's, a .pth planted in
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


def test_upgrading_an_install_the_app_user_owned_makes_the_venv_anew_without_running_it():
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


def test_a_checkout_another_user_than_the_one_running_sudo_can_change_is_refused_before_root_builds_it():
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
