# Shared by scripts/demo and scripts/test (sourced, not run): the repository's own virtual
# environment, .venv, made with the system python3 and filled only when pyproject.toml or
# the extras asked for changed. A venv because Debian 12 and Raspberry Pi OS refuse
# `pip install` into the system Python (PEP 668); nothing here relies on that refusal.

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
stamp="$venv/.tabletop-installed"
# Beside .venv, not in it: making .venv again removes the folder.
lock="$repo/.venv.lock"
lock_fd=
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore

say() {
  echo "tabletop: $*" >&2
}

die() {
  say "$*"
  exit 1
}

# Ctrl-C during set-up: one line, no pip or Python traceback; the stamp is written only
# after a complete install, so the next run picks up where this one stopped.
trap 'echo >&2; say "stopped; run the same command again to finish setting up"; exit 130' INT

# Two runs at once (./scripts/demo and ./scripts/test in two terminals) must not install
# together: two pips writing into one .venv trip over each other's half-written files. A
# run that installs (into .venv, or Debian packages) holds the lock file .venv.lock; another
# run waits for it, saying so, then looks again at what is missing (often nothing by then).
# flock is util-linux's, on every Debian and Raspberry Pi OS; without it, no lock.
#
# setup_lock WHAT: wait for the lock and hold it, to install WHAT ("tabletop into .venv");
# the holder's process id, command and WHAT are written into the file (tab-separated), for
# the line a waiting run says. setup_lock -s: shared, only to wait for an install under
# way to end. setup_unlock lets it go; so does the end of the run.
setup_lock() {
  local mode=-x what="$1" holder
  if [ "$1" = -s ]; then
    mode=-s what=
  fi
  [ -z "$lock_fd" ] || return 0
  command -v flock >/dev/null 2>&1 || return 0
  { exec {lock_fd}>>"$lock"; } 2>/dev/null || { lock_fd=; return 0; }   # a read-only clone
  if ! flock -n "$mode" "$lock_fd"; then
    holder="$(lock_holder)"
    # No installer named: a run that only looks holds it an instant; waited for quietly.
    if [ -n "$holder" ] || ! flock -w 2 "$mode" "$lock_fd"; then
      say "waiting for ${holder:-another run to finish installing}; this run goes on after it"
      flock "$mode" "$lock_fd"
    fi
  fi
  if [ "$mode" = -x ]; then
    printf '%s\t%s\t%s\n' "$$" "$0" "$what" > "$lock"
  fi
}

setup_unlock() {
  [ -n "$lock_fd" ] || return 0
  local pid
  IFS=$'\t' read -r pid _ 2>/dev/null < "$lock" || true
  if [ "$pid" = "$$" ]; then
    : > "$lock"            # no installer named any more
  fi
  exec {lock_fd}>&-
  lock_fd=
}

# lock_holder: "./scripts/test (process 1234) to finish installing tabletop into .venv",
# when the lock file names a process still running; else nothing.
lock_holder() {
  local pid command what
  IFS=$'\t' read -r pid command what 2>/dev/null < "$lock" || true
  if [[ "$pid" =~ ^[0-9]+$ ]] && [ -d "/proc/$pid" ] && [ -n "$command" ]; then
    echo "$command (process $pid) to finish installing ${what:-what it needs}"
  fi
}

# as_root COMMAND...: directly as root, else through sudo (which asks for a password if
# it must); apt-get gets no questions either way. Call can_be_root first.
as_root() {
  if [ "$(id -u)" = 0 ]; then
    env DEBIAN_FRONTEND=noninteractive "$@"
  else
    sudo env DEBIAN_FRONTEND=noninteractive "$@"
  fi
}

can_be_root() {
  [ "$(id -u)" = 0 ] || command -v sudo >/dev/null 2>&1 ||
    die "installing $1 needs root: run this as root, or install sudo (or install $1 yourself), then run this again"
}

# apt_need WHY PACKAGE...: installs those of the Debian packages that are missing.
apt_need() {
  local why="$1" deb
  shift
  local missing=()
  if ! command -v dpkg >/dev/null 2>&1; then
    say "not a Debian system: $why needs the equivalents of Debian's $*; install them if something fails"
    return 0
  fi
  for deb in "$@"; do
    dpkg -s "$deb" >/dev/null 2>&1 || missing+=("$deb")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  # Another run may be installing them: wait for it, then look again. A caller that
  # already holds the lock (ensure_venv making .venv) keeps it: only a lock taken here
  # is given back here, or pip would run unlocked after apt-get.
  local took=
  [ -n "$lock_fd" ] || took=1
  setup_lock "Debian's ${missing[*]}"
  missing=()
  for deb in "$@"; do
    dpkg -s "$deb" >/dev/null 2>&1 || missing+=("$deb")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    [ -z "$took" ] || setup_unlock
    return 0
  fi
  can_be_root "${missing[*]}"
  local how="apt-get"
  [ "$(id -u)" = 0 ] || how="sudo apt-get"
  say "$why needs Debian's ${missing[*]}: installing with $how"
  quietly "apt-get update failed (see above): check the network and /etc/apt/sources.list" \
    as_root apt-get update -q
  quietly "apt-get could not install ${missing[*]} (see above)" \
    as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
  [ -z "$took" ] || setup_unlock
}

# The Python the venv is made with: python3 on PATH, or $TABLETOP_PYTHON.
system_python() {
  local py="${TABLETOP_PYTHON:-python3}" version
  command -v "$py" >/dev/null 2>&1 ||
    die "no $py found: tabletop needs Python 3.11 or newer (on Debian: apt-get install python3)"
  version="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" ||
    die "$py does not run: tabletop needs Python 3.11 or newer"
  if ! version_ok "$version"; then
    die "$py is Python $version; tabletop needs 3.11 or newer (Debian 12 and Raspberry Pi OS 12 have it): install a newer Python, or set TABLETOP_PYTHON to one"
  fi
  command -v "$py"
}

version_ok() {
  local major="${1%%.*}" minor="${1#*.}"
  [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || return 1
  [ "$major" -gt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -ge 11 ]; }
}

# A .venv left half-made (an interrupted first run, a Python since removed) is made again.
venv_works() {
  [ -x "$venv/bin/python" ] || return 1
  local version
  version="$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" &&
    version_ok "$version" && "$venv/bin/python" -m pip --version >/dev/null 2>&1
}

make_venv() {
  local py
  py="$(system_python)" || exit 1
  if [ -e "$venv" ]; then
    say "$venv does not work (half-made, or its Python is gone): making it again"
    rm -rf "$venv"
  fi
  # Debian keeps venv's pip bootstrap (ensurepip) in a package of its own, python3-venv.
  if ! "$py" -c 'import ensurepip' >/dev/null 2>&1; then
    apt_need "making the virtual environment .venv" python3-venv
  fi
  quietly "could not make $venv with $py (see above)" "$py" -m venv "$venv"
}

# ensure_venv EXTRA...: .venv exists and has the repository installed editable with these
# extras. The stamp holds pyproject.toml's hash and the extras installed with it, so a
# second run starts at once and a changed pyproject.toml installs again.
ensure_venv() {
  local extras hash
  if venv_has "$@"; then
    # Installed; but another run may be installing into it this moment (its pip rewrites
    # tabletop's own files): wait for that to end, then look again: that install may have
    # made .venv again and failed (its stamp gone with the old .venv), and then this run
    # installs, as below.
    setup_lock -s
    setup_unlock
    if venv_has "$@"; then
      return 0
    fi
  fi
  setup_lock "tabletop into $venv"
  if venv_has "$@"; then        # installed by the run this one waited for
    setup_unlock
    return 0
  fi
  extras="$(IFS=,; echo "$*")"
  # Said before anything slow (making the venv takes seconds), so that nothing is silent.
  say "preparing $venv: installing tabletop with [$extras] (the first time takes a few minutes)"
  hash="$(pyproject_hash)"          # what the stamp will say was installed
  venv_works || make_venv
  quietly "pip could not install .[$extras] into $venv: check the network, then run this again" \
    "$venv/bin/python" -m pip install -q -e "$repo[$extras]"
  { grep -s "^$hash " "$stamp" || true; printf "$hash %s\n" "$@"; } | sort -u > "$stamp.new"
  mv "$stamp.new" "$stamp"
  setup_unlock
}

pyproject_hash() {
  sha256sum "$repo/pyproject.toml" | cut -d' ' -f1
}

# venv_has EXTRA...: .venv has a Python, and its stamp lists these extras with this
# pyproject.toml.
venv_has() {
  local hash extra
  [ -x "$venv/bin/python" ] || return 1
  hash="$(pyproject_hash)"
  for extra in "$@"; do
    grep -qxF "$hash $extra" "$stamp" 2>/dev/null || return 1
  done
}

# quietly FAILURE COMMAND...: the command's output is shown only if it fails, so that a
# Ctrl-C (see the trap above) shows no traceback from it. The command does not inherit the
# lock's file descriptor: a daemon it starts (a package's service, apt-get's or pip's
# helpers) would otherwise hold the lock after this run has ended.
quietly() {
  local failure="$1" log status=0
  shift
  log="$(mktemp)"
  if [ -n "$lock_fd" ]; then
    "$@" {lock_fd}>&- >"$log" 2>&1 || status=$?
  else
    "$@" >"$log" 2>&1 || status=$?
  fi
  if [ "$status" != 0 ]; then
    cat "$log" >&2
    rm -f "$log"
    die "$failure"
  fi
  rm -f "$log"
}
