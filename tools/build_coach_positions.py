"""Build the coach's test positions from the corpus of real games.

    python tools/build_coach_positions.py   # tests/data/{copenhagen,brandubh}.csv
                                            # -> tests/data/coach_positions.json

From games that ended by the rules with the king escaping or captured:

- ``at_once``: the loser's last move (the winner's next move ends the game);
- ``in_two``: the loser's move before that, where the winner had no win at once but a forced
  win of two moves that a search (depth ORACLE) confirms;

each kept only where the position before the move was not lost already (a deeper search, depth
DEEP, finds no forced loss there: another move saved it), with the game's own ending as the
threat to name. ``quiet``: moves from the middle of games (plies 8 to 40, one a game) after
which the deeper search finds neither a forced loss nor an evaluation drop of 0.5 soldier from
the best move. Every entry names its origin: the file and line of its game.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.coach.local import LocalLooker  # noqa: E402
from companion.coach.look import at_once  # noqa: E402
from companion.rules import PRESETS, Board, MoveError, Termination  # noqa: E402

ORACLE = 5   # the search that confirms a forced win in two
DEEP = 7     # the search that says a position was not lost, or a move is quiet
PER_KIND = {"copenhagen": 30, "brandubh": 20}
QUIET = {"copenhagen": 40, "brandubh": 25}
ORIGIN = {"copenhagen": "aagenielsen.dk games (CC0-1.0, via the hnefatafl-copenhagen project)",
          "brandubh": "hnefatafl-rs test resources (MIT)"}


def games(variant: str):
    path = ROOT / "tests" / "data" / f"{variant}.csv"
    with path.open(newline="") as fh:
        for line, row in enumerate(csv.reader(fh), 1):
            if row and not row[0].startswith("#"):
                yield line, [m for m in row[0].split() if m != "timeout"]


def replay(variant: str, moves: list[str]) -> list[Board] | None:
    """The boards before each move and after the last (None if the rules refuse a move)."""
    board = Board(PRESETS[variant])
    boards = [board.copy()]
    for text in moves:
        if board.outcome() is not None:
            return None
        try:
            board.push(board.parse_move(text.partition("x")[0])[0])
        except MoveError:
            return None
        boards.append(board.copy())
    return boards


def entry(variant: str, line: int, ply: int, board: Board, move: str, **more: object) -> dict:
    return {"variant": variant, "origin": f"tests/data/{variant}.csv line {line}, ply {ply + 1}",
            "position": board.otn(), "turn": str(board.turn), "move": move, **more}


def main() -> None:
    out: dict[str, list[dict]] = {"at_once": [], "in_two": [], "quiet": []}
    for variant in ("copenhagen", "brandubh"):
        looker = LocalLooker(PRESETS[variant], ORACLE)
        deep = LocalLooker(PRESETS[variant], DEEP)
        counts = {"at_once": 0, "in_two": 0, "quiet": 0}
        for line, moves in games(variant):
            boards = replay(variant, moves)
            if boards is None:
                continue
            end = boards[-1].outcome()
            n = len(moves)
            if (end is not None and end.termination in (Termination.ESCAPE,
                                                         Termination.KING_CAPTURED)
                    and n >= 6):
                kind = "escape" if end.termination == Termination.ESCAPE else "capture"
                final = boards[-2].parse_move(moves[-1].partition("x")[0])[0]
                target = (boards[-1].name(final.to) if kind == "escape"
                          else boards[-2].name(boards[-2].king))
                for label, back in (("at_once", 2), ("in_two", 4)):
                    if counts[label] >= PER_KIND[variant]:
                        continue
                    i = n - back
                    before, move = boards[i], moves[i].partition("x")[0]
                    warned = at_once(before, move)
                    if (warned is not None) != (label == "at_once"):
                        continue
                    saved = deep.look(before)
                    if saved is None or (saved.forced_plies or 0) < 0:
                        continue  # lost already: not this move's fault
                    if label == "in_two":
                        after = looker.look(boards[i + 1])
                        if after is None or not 0 < (after.forced_plies or 0) <= 3:
                            continue
                    counts[label] += 1
                    out[label].append(entry(variant, line, i, before, move, kind=kind,
                                            target=target, game_line=moves[i:]))
            if counts["quiet"] < QUIET[variant] and n > 12:
                i = min(8 + line % 32, n - 2)
                before, move = boards[i], moves[i].partition("x")[0]
                best, after = deep.look(before), deep.look(boards[i + 1])
                if (best is None or after is None or best.forced_plies is not None
                        or after.forced_plies is not None):
                    continue
                drop = best.score + after.score
                if drop < 0.5:
                    counts["quiet"] += 1
                    out["quiet"].append(entry(variant, line, i, before, move,
                                              drop=round(drop, 2)))
        print(variant, counts)
    doc = {"origin": {v: f"tests/data/{v}.csv: {o}" for v, o in ORIGIN.items()},
           "built_by": "tools/build_coach_positions.py", "oracle_depth": ORACLE,
           "deep_depth": DEEP, **out}
    path = ROOT / "tests" / "data" / "coach_positions.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(path, sum(len(v) for v in out.values()), "positions")


if __name__ == "__main__":
    main()
