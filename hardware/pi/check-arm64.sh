#!/usr/bin/env bash
# Check tabletop on an emulated Raspberry Pi userland: arm64 Debian bookworm under qemu.
#
# Not part of CI: it takes tens of minutes (every arm64 instruction is emulated).
# Run `sudo hardware/pi/check-arm64.sh --help` for what it does and how to tune it.
set -euo pipefail
umask 022

usage() {
  cat <<'EOF'
usage: sudo hardware/pi/check-arm64.sh [--help]

Builds an arm64 Debian bookworm userland (the base of Raspberry Pi OS Bookworm
64-bit) with debootstrap, runs it under qemu-user-static through binfmt_misc,
and installs this checkout there the way `sudo hardware/pi/install-pi.sh` does
on a Pi:
  1. Debian's python3-venv, python3-pip, python3-numpy and the other packages of
     install-pi.sh's APT_PACKAGES that Debian has (picamera2, libcamera, lgpio and
     rpicam-apps come from archive.raspberrypi.com and are reported as skipped);
  2. a venv in /opt/tabletop/venv made with --system-site-packages;
  3. `pip install` of a copy of the checkout with the [hardware,ui,test] extras,
     numpy held at the system's version and opencv-python-headless<4.12 (the
     wheels from PyPI a Pi would download), then /opt/tabletop made root's;
then runs, inside it:
  4. the hardware tests (tests/hardware), as root (the installer sandboxes need it);
  5. the engine tests (tests/engine);
  6. a short headless bot game (`tabletop demo --headless`) as an ordinary user,
     then `tabletop slip` and `tabletop verify` on its journal.
It prints a summary (each step, its result and duration, the pytest counts and
the versions pip chose) and exits 0 only if every step passed.

What it cannot show (only a real Pi can): picamera2 and the CSI camera, lgpio and
the GPIO buttons, the compositor (labwc/wayfire), XWayland, the touchscreen, the
backlight. See docs/pi-acceptance.md for those.

Needs: root, a Linux host with network access to the Debian mirror and PyPI,
about 3 GB of disk, and (on a host that is not arm64)
  apt-get install debootstrap qemu-user-static binfmt-support
The script mounts binfmt_misc and enables qemu-aarch64 itself if it can. pip in
the userland trusts the host's /etc/ssl/certs/ca-certificates.crt (so a host behind
a TLS-inspecting proxy reaches PyPI as well).

Settings (environment variables):
  KEEP=1           keep the chroot (and print its path) instead of removing it;
                   a later run with CHROOT=<that path> reuses its bootstrap
  CHROOT=DIR       where to build the userland (default: a new folder in /var/tmp);
                   a new or empty folder, or one a KEEP=1 run left
  LOGDIR=DIR       where each step's full log goes (default: a new folder in /tmp)
  MIRROR=URL       Debian mirror (default: http://deb.debian.org/debian)
  SECURITY=URL     Debian security mirror (default: http://deb.debian.org/debian-security)
  PYTEST_ARGS=...  extra pytest arguments for both test steps (e.g. "-x")
EOF
}

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  "") ;;
  *) echo "check-arm64.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac

SUITE=bookworm
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY=${SECURITY:-http://deb.debian.org/debian-security}
KEEP=${KEEP:-}
PYTEST_ARGS=${PYTEST_ARGS:-}
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
PREFIX=/opt/tabletop           # as install-pi.sh
DESKTOP_USER=pi                # the demo runs as a user, as the app does on a Pi
# Debian's names for what install-pi.sh installs, if its list cannot be read.
FALLBACK_APT=(python3-venv python3-pip python3-numpy fonts-noto-cjk alsa-utils espeak-ng)

die() {
  echo "check-arm64.sh: $*" >&2
  exit 1
}

# ---------------------------------------------------------------- the host
preflight() {
  [ "$(id -u)" -eq 0 ] || die "run it as root (sudo): debootstrap and chroot need it"
  command -v debootstrap >/dev/null ||
    die "debootstrap is missing: apt-get install debootstrap qemu-user-static binfmt-support"
  [ -f "$SOURCE/pyproject.toml" ] && [ -d "$SOURCE/tests/hardware" ] ||
    die "$SOURCE is not a tabletop checkout (no pyproject.toml or tests/hardware)"
  if [ "$(uname -m)" = aarch64 ]; then
    return  # an arm64 host runs the userland natively
  fi
  command -v qemu-aarch64-static >/dev/null ||
    die "qemu-aarch64-static is missing: apt-get install qemu-user-static binfmt-support"
  local binfmt=/proc/sys/fs/binfmt_misc
  if [ ! -e "$binfmt/status" ]; then
    mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null ||
      die "binfmt_misc is not mounted and could not be (mount -t binfmt_misc binfmt_misc $binfmt" \
          "was refused: in a container, the host must mount it, or run this on the host)"
  fi
  [ "$(cat "$binfmt/status")" = enabled ] || die "binfmt_misc is disabled: echo 1 > $binfmt/status"
  if ! grep -qx enabled "$binfmt/qemu-aarch64" 2>/dev/null; then
    if command -v update-binfmts >/dev/null; then
      update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    fi
    grep -qx enabled "$binfmt/qemu-aarch64" 2>/dev/null ||
      die "the kernel has no qemu-aarch64 binfmt entry:" \
          "apt-get install qemu-user-static binfmt-support, then update-binfmts --enable qemu-aarch64"
  fi
}

# Without the F flag the kernel opens the interpreter inside the chroot: put it there.
place_interpreter() {
  local entry=/proc/sys/fs/binfmt_misc/qemu-aarch64 interpreter
  [ -e "$entry" ] || return 0
  grep -q '^flags:.*F' "$entry" && return 0
  interpreter=$(sed -n 's/^interpreter //p' "$entry")
  install -D -m 0755 "$(readlink -f "$interpreter")" "$ROOT$interpreter"
}

# ---------------------------------------------------------------- the chroot
ROOT=""
MOUNTED=()
HOST_CA=""

inside() {  # inside CMD...: run CMD in the userland with a clean environment
  chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ${HOST_CA:+PIP_CERT=$HOST_CA} "$@"
}

mount_into() {  # mount_into DIR TYPE|rbind SOURCE [OPTIONS]
  local dir="$ROOT$1"
  mkdir -p "$dir"
  if [ "$2" = rbind ]; then
    mount --rbind "$3" "$dir"
    # A slave: nothing mounted or unmounted under it reaches the host's /dev or /sys.
    mount --make-rslave "$dir"
  else
    mount -t "$2" ${4:+-o "$4"} "$3" "$dir"
  fi
  MOUNTED+=("$dir")
}

mount_all() {
  mount_into /proc proc proc
  mount_into /sys rbind /sys
  mount_into /dev rbind /dev
  mount_into /run tmpfs tmpfs mode=0755
  cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
  # pip trusts what the host trusts: behind a TLS-inspecting proxy, Debian's own
  # certificates are not enough to reach PyPI.
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    cp -L /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/host-ca-certificates.crt"
    HOST_CA=/etc/ssl/host-ca-certificates.crt
  fi
}

stop_chroot_processes() {  # whatever this script started in the chroot (gpg-agent, ...)
  local link pid
  for link in /proc/[0-9]*/root; do
    pid=${link#/proc/}; pid=${pid%/root}
    [ "$(readlink "$link" 2>/dev/null)" = "$ROOT" ] && kill "$pid" 2>/dev/null || true
  done
}

cleanup() {
  local status=$? i
  [ -n "$ROOT" ] || exit "$status"
  stop_chroot_processes
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
    umount -R "${MOUNTED[$i]}" 2>/dev/null || umount -R -l "${MOUNTED[$i]}" 2>/dev/null || true
  done
  if [ -n "$KEEP" ]; then
    echo "kept the chroot: $ROOT (reuse it: sudo KEEP=1 CHROOT=$ROOT $0)"
  elif grep -q " $ROOT/" /proc/mounts; then
    echo "check-arm64.sh: something is still mounted under $ROOT: not removing it" >&2
  else
    rm -rf --one-file-system "$ROOT"
  fi
  exit "$status"
}

# ---------------------------------------------------------------- steps
bootstrap() {
  if [ -e "$ROOT/.tabletop-bootstrapped" ]; then
    echo "reusing the userland in $ROOT"
    return
  fi
  # --foreign, then the second stage inside: the same on an arm64 host and under qemu.
  debootstrap --foreign --arch=arm64 --variant=minbase --include=ca-certificates \
    "$SUITE" "$ROOT" "$MIRROR"
  place_interpreter
  chroot "$ROOT" /bin/true ||
    die "the kernel did not run an arm64 program in $ROOT: is qemu-aarch64 registered with binfmt_misc?"
  chroot "$ROOT" /debootstrap/debootstrap --second-stage
  touch "$ROOT/.tabletop-bootstrapped"
}

apt_wanted() {  # install-pi.sh's APT_PACKAGES, one per line (it is the truth of the Pi install)
  sed -n '/^APT_PACKAGES=(/,/^)/p' "$SOURCE/hardware/pi/install-pi.sh" |
    sed -e 's/#.*//' -e 's/^APT_PACKAGES=(//' -e 's/)//' | tr -s ' \t' '\n\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' || true
}

packages() {
  cat > "$ROOT/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY $SUITE-security main
EOF
  # Nothing a package installs may start a service in the chroot.
  printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d"
  chmod 0755 "$ROOT/usr/sbin/policy-rc.d"
  inside apt-get update
  local wanted=() have=() skipped=() name
  mapfile -t wanted < <(apt_wanted)
  [ "${#wanted[@]}" -gt 0 ] || wanted=("${FALLBACK_APT[@]}")
  for name in "${wanted[@]}"; do
    if inside apt-cache show --no-all-versions "$name" >/dev/null 2>&1; then have+=("$name"); else skipped+=("$name"); fi
  done
  echo "from Debian: ${have[*]}"
  echo "not in Debian (Raspberry Pi archive only), skipped: ${skipped[*]:-none}"
  echo "${skipped[*]:-none}" > "$ROOT/.tabletop-skipped-apt"
  # sudo for install-pi.sh's visudo check in the installer tests; passwd for useradd.
  inside apt-get install -y --no-install-recommends "${have[@]}" sudo passwd
  inside apt-get clean
}

copy_checkout() {  # copy_checkout DEST: the working tree, without what git or a build leaves
  mkdir -p "$ROOT$1"
  tar -C "$SOURCE" --exclude=.git --exclude='*.egg-info' --exclude=__pycache__ \
      --exclude=.pytest_cache --exclude=.hypothesis --exclude=build --exclude=dist -cf - . |
    tar -C "$ROOT$1" -xf -
}

install_tabletop() {
  rm -rf "$ROOT/root/build" "$ROOT/src/checkout" "$ROOT$PREFIX"
  copy_checkout /root/build       # what pip builds (as install-pi.sh, never the checkout itself)
  copy_checkout /src/checkout     # what the tests are run from
  inside python3 -I -m venv --system-site-packages "$PREFIX/venv"
  local numpy
  numpy=$(inside python3 -I -c 'import numpy; print(numpy.__version__)')
  printf 'numpy==%s\nopencv-python-headless<4.12\n' "$numpy" > "$ROOT/root/constraints.txt"
  echo "constraints: $(tr '\n' ' ' < "$ROOT/root/constraints.txt")"
  inside "$PREFIX/venv/bin/python" -I -m pip install --upgrade pip
  inside "$PREFIX/venv/bin/python" -I -m pip install --constraint /root/constraints.txt \
    "/root/build[hardware,ui,test]"
  chown -R root:root "$ROOT$PREFIX"
  chmod -R go-w "$ROOT$PREFIX"
  # Versions from the package metadata: gpiozero has no __version__.
  inside env KIVY_NO_ARGS=1 KIVY_HOME=/tmp/kivy "$PREFIX/venv/bin/python" -I -c '
import platform, importlib.metadata as meta
import cv2, numpy, gpiozero, serial, kivy, tabletop
print("machine", platform.machine(), "Python", platform.python_version())
print(", ".join(f"{name} {meta.version(name)}" for name in
      ("numpy", "opencv-python-headless", "Kivy", "gpiozero", "pyserial", "segno")))
print("tabletop from", tabletop.__file__)' | grep -v '^\[' | tee "$ROOT/.tabletop-versions"
}

tests() {  # tests DIR: pytest on DIR of the checkout's copy, against the installed tabletop
  # The venv's pytest, not `python -m pytest`: that would put the copy's tabletop first.
  # shellcheck disable=SC2086  # PYTEST_ARGS is a list of words on purpose
  inside sh -c "cd /src/checkout && exec $PREFIX/venv/bin/pytest -p no:cacheprovider -q $PYTEST_ARGS $1"
}

demo() {  # a short bot game as an ordinary user, then its signed slip
  inside sh -c "id -u $DESKTOP_USER >/dev/null 2>&1 || useradd --create-home $DESKTOP_USER"
  local home="/home/$DESKTOP_USER" bin="$PREFIX/venv/bin"
  local run="cd $home && export HOME=$home && rm -rf demo && mkdir demo &&
    $bin/tabletop demo --headless --seed 7 --players 3 --journal demo/journal.db > demo/out.txt &&
    $bin/tabletop games --journal demo/journal.db &&
    $bin/tabletop slip --journal demo/journal.db --out demo/slip.json 1 &&
    $bin/tabletop verify demo/slip.json"
  local start=$SECONDS
  inside runuser -u "$DESKTOP_USER" -- sh -c "$run" || { cat "$ROOT$home/demo/out.txt"; return 1; }
  tail -n 25 "$ROOT$home/demo/out.txt"
  echo "NOTE: $(grep -m 1 'tiles put down:' "$ROOT$home/demo/out.txt"), $((SECONDS - start)) s with slip and verify"
}

# ---------------------------------------------------------------- bookkeeping
NAMES=(); RESULTS=(); TIMES=(); NOTES=()
FAILED=0

elapsed() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# step NAME FUNCTION [ARGS]: runs it with its output in LOGDIR/NAME.log; a failed step is
# recorded, and REQUIRED=1 (the default) stops the run there. In the background and
# waited for, so that set -e holds inside the function (an `if f` would switch it off).
step() {
  local name=$1 log="$LOGDIR/$1.log" start=$SECONDS pid note=""
  shift
  printf '%-10s ... ' "$name"
  ( "$@" ) >"$log" 2>&1 &
  pid=$!
  if wait "$pid"; then RESULTS+=(passed); else RESULTS+=(FAILED); FAILED=1; fi
  NAMES+=("$name"); TIMES+=("$((SECONDS - start))")
  # pytest's last line ("12 passed, 1 skipped in 3.4s"), or a step's own "NOTE: ..." line.
  note=$(grep -E '[0-9]+ (passed|failed|errors?|skipped).* in [0-9.]+s|^NOTE: ' "$log" | tail -n 1 |
         sed -e 's/^NOTE: //' -e 's/=//g' -e 's/^ *//' -e 's/ *$//' || true)
  NOTES+=("$note")
  echo "${RESULTS[-1]} ($(elapsed "${TIMES[-1]}"))${note:+  $note}"
  if [ "${RESULTS[-1]}" = FAILED ]; then
    echo "---- last lines of $log"
    tail -n 25 "$log"
    echo "----"
    [ "${REQUIRED:-1}" = 0 ] || { summary; exit 1; }
  fi
}

summary() {
  local i total=$((SECONDS - START))
  echo
  echo "== tabletop on arm64 Debian $SUITE under $(emulation) — $(date -u '+%Y-%m-%d %H:%M UTC')"
  for i in "${!NAMES[@]}"; do
    printf '  %-10s %-7s %7s  %s\n' "${NAMES[$i]}" "${RESULTS[$i]}" "$(elapsed "${TIMES[$i]}")" "${NOTES[$i]}"
  done
  [ -f "$ROOT/.tabletop-versions" ] && sed 's/^/  /' "$ROOT/.tabletop-versions"
  [ -f "$ROOT/.tabletop-skipped-apt" ] && echo "  apt packages skipped (Pi archive only): $(cat "$ROOT/.tabletop-skipped-apt")"
  [ -f "$LOGDIR/install.log" ] &&
    echo "  OpenCV wheels pip downloaded: $(grep -c 'Downloading opencv' "$LOGDIR/install.log" || true)"
  echo "  total $(elapsed "$total"); logs in $LOGDIR"
  if [ "$FAILED" = 0 ]; then echo "RESULT: all steps passed"; else echo "RESULT: FAILED"; fi
}

emulation() {
  if [ "$(uname -m)" = aarch64 ]; then echo "a native arm64 host"
  else echo "$(qemu-aarch64-static --version | head -n 1)"; fi
}

# ---------------------------------------------------------------- the run
preflight
START=$SECONDS
if [ -n "${CHROOT:-}" ]; then
  mkdir -p "$CHROOT"
  ROOT=$(cd "$CHROOT" && pwd)
  # The end of the run removes it: only an empty folder or a userland of this script.
  if [ -n "$(ls -A "$ROOT")" ] && [ ! -e "$ROOT/.tabletop-bootstrapped" ]; then
    die "CHROOT=$ROOT holds other things: give a new or empty folder, or one a KEEP=1 run left"
  fi
else
  ROOT=$(mktemp -d /var/tmp/tabletop-arm64.XXXXXX)
fi
[ "$ROOT" != / ] || die "CHROOT=/ would install into this machine"
chmod 0755 "$ROOT"
trap cleanup EXIT
trap 'exit 130' INT TERM
LOGDIR=${LOGDIR:-$(mktemp -d /tmp/tabletop-arm64-logs.XXXXXX)}
mkdir -p "$LOGDIR"
echo "userland: $ROOT   logs: $LOGDIR   checkout: $SOURCE"

step bootstrap bootstrap
mount_all
step packages packages
step install install_tabletop
REQUIRED=0 step hardware tests tests/hardware
REQUIRED=0 step engine tests tests/engine
REQUIRED=0 step demo demo
summary
[ "$FAILED" = 0 ]
