#!/usr/bin/env bash
# Make the desktop start the table app at each login. install-pi.sh runs this AS THE DESKTOP
# USER (runuser), never as root: it writes in that user's home, where a link the user made must
# lead only to files the user could write anyway. A second run changes nothing.
#
#   autostart.sh CONFIG LAUNCHER LABWC_SYSTEM LABWC_MERGES WAYFIRE_TEMPLATE
#
# CONFIG           the user's configuration folder (~/.config)
# LAUNCHER         the command the session runs (/opt/tabletop/bin/tabletop-session)
# LABWC_SYSTEM     labwc's system autostart (/etc/xdg/labwc/autostart: panel, wallpaper, ...)
# LABWC_MERGES     "yes" when the session runs labwc -m (Raspberry Pi OS's labwc-pi does), which
#                  runs the system autostart and then the user's; otherwise labwc runs only the
#                  first it finds, so a new user file starts as a copy of the system one
# WAYFIRE_TEMPLATE the file a new ~/.config/wayfire.ini starts from (/etc/wayfire/template.ini),
#                  or "" where there is no wayfire
set -euo pipefail
config=$1 launcher=$2 labwc_system=$3 labwc_merges=$4 wayfire_template=$5
# In every line this installer adds, whatever the PREFIX: an older line is replaced, not doubled.
MARK=/bin/tabletop-session

write_over() {  # write_over FILE: standard input becomes FILE's content (its mode and links kept)
  local tmp
  tmp=$(mktemp "$(dirname "$1")/.tabletop-autostart.XXXXXX")
  cat > "$tmp"
  if ! cat "$tmp" > "$1"; then
    rm -f "$tmp"
    return 1
  fi
  rm -f "$tmp"
}

labwc_autostart() {
  local file="$config/labwc/autostart"
  local line="$launcher &  # the table app (tabletop's hardware/pi/install-pi.sh)"
  mkdir -p "$config/labwc"
  if [ ! -e "$file" ] && [ ! -L "$file" ] && [ "$labwc_merges" != yes ] && [ -f "$labwc_system" ]; then
    cp "$labwc_system" "$file"
    echo "labwc: $file starts as a copy of $labwc_system (labwc runs only one of them)"
  fi
  if [ -e "$file" ] && grep -qxF -- "$line" "$file"; then
    echo "labwc: $file already starts the app"
    return
  fi
  { if [ -e "$file" ]; then grep -vF -- "$MARK" "$file" || true; fi
    printf '%s\n' "$line"; } | write_over "$file"
  echo "labwc: $file starts the app"
}

wayfire_autostart() {
  local file="$config/wayfire.ini" line="tabletop = $launcher"
  [ -n "$wayfire_template" ] || return 0
  if [ ! -e "$file" ] && [ ! -L "$file" ] && [ -f "$wayfire_template" ]; then
    # As Raspberry Pi OS's own settings tools do: a user's wayfire.ini begins as the template.
    cp "$wayfire_template" "$file"
  fi
  [ -e "$file" ] || : > "$file"
  if grep -qxF -- "$line" "$file"; then
    echo "wayfire: $file already starts the app"
    return
  fi
  awk -v line="$line" -v mark="$MARK" '
    /^[ \t]*tabletop[ \t]*=/ && index($0, mark) { next }
    { print }
    /^\[autostart\][ \t]*$/ && !added { print line; added = 1 }
    END { if (!added) { print ""; print "[autostart]"; print line } }' "$file" | write_over "$file"
  echo "wayfire: $file starts the app"
}

cd /
labwc_autostart
wayfire_autostart
