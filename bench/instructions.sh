#!/usr/bin/env bash
# Instructions per random game, counted by valgrind's callgrind: unlike seconds,
# the count repeats exactly on a busy or shared machine, so it shows what a
# change to the engine really costs.   Usage: bench/instructions.sh [GAMES] [PLAYERS]
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-30}
players=${2:-4}
py=$(python3 -c 'import sys; print(sys.executable)')
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$py" -c "
import sys
from tabletop import load_rules
from tabletop.engine.random_play import play_random_game
rules, names = load_rules('acquire'), [f'P{i}' for i in range($players)]
for seed in range($1): play_random_game(rules, names, seed)
" 2>&1 | awk '/Collected/ {print $4}'
}
start=$(count 0)
total=$(count "$games")
echo "acquire, $players players: $(( (total - start) / games )) instructions a random game ($games games)"
