#!/bin/sh
# The anchor matches (docs/engine.md, "Anchors"): the project's engine as an OTEP engine at its
# default (`tafl-companion engine`: full strength for the time its clock gives) against engines
# nobody here wrote, Copenhagen, paired random openings (4 plies), colours swapped on each,
# every move an overtime period of 2 s (OTEP `clock 2000* 2000* 2 99 99`), Elo with its 95 %
# interval from the pairs' scores (bench/selfplay.py).
#
#   TAFLZERO="python3 /path/to/otep-front-for-taflzero" OPENTAFL="/path/to/opentafl --engine" \
#       nice -n 10 sh bench/anchors.sh [PAIRS_TAFLZERO] [PAIRS_OPENTAFL]
#
# Each match runs only when its command is given. TaflZero-NNUE (sovelin/taflzero, the crate
# zevratafl-rust) and OpenTafl (jslater89/OpenTafl) are built by hand outside the project from
# their public sources; TaflZero speaks a UCI-like protocol, so it needs a small OTEP front
# (position + `go movetime`), also outside the project. Neither is part of the project.
set -eu
cd "$(dirname "$0")/.."
ENGINE="otep=tafl-companion engine"
GAMES=${GAMES:-/dev/null}  # GAMES=FILE appends every game's moves and result
if [ -n "${TAFLZERO:-}" ]; then
    echo "== against TaflZero-NNUE, 2 s a move; load $(cut -d' ' -f1-3 /proc/loadavg)"
    python3 bench/selfplay.py --variant copenhagen --a "$ENGINE" --b "otep=$TAFLZERO" \
        --pairs "${1:-10}" --byoyomi 2 --seed 1 --games "$GAMES"
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
if [ -n "${OPENTAFL:-}" ]; then
    echo "== against OpenTafl's AI, 2 s a move; load $(cut -d' ' -f1-3 /proc/loadavg)"
    python3 bench/selfplay.py --variant copenhagen --a "$ENGINE" --b "otep=$OPENTAFL" \
        --pairs "${2:-5}" --byoyomi 2 --seed 2 --games "$GAMES"
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
