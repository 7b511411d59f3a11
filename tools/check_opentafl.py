"""Import every OpenTafl game file (``*.otg``) under a directory as the page does, and say which
import and replay, and which are refused (naming the rule the rules core cannot play).

    python tools/check_opentafl.py DIR [--store PATH]

For each file: the upload is read as ``POST /api/import`` reads it
(:func:`companion.web.imports.parse_upload`: every move replayed through the rules), stored in a
real SQLite store (a temporary one unless ``--store``), reviewed back from the store (the game
replayed again from its stored rules and moves, as the page's review does), and exported as an
``.otg`` file and read back, which must give the same moves. Importing the file a second time
must find it stored already. Exit status 0 when every file imports, 1 otherwise.

This is a check to run by hand against OpenTafl's own ``saved-games/`` (not part of CI: those
files are not the project's). Symbolic links are followed; the same file reached twice is
checked twice.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from companion.rules.otg import import_otg
from companion.session.export import game_otg
from companion.session.library import Library
from companion.store import Store
from companion.web.imports import ImportRefused, parse_upload


def check(path: Path, store: Store) -> tuple[bool, str]:
    """``(imported, one line saying what happened)`` for one file."""
    text = path.read_text(encoding="utf-8")
    try:
        (upload,) = parse_upload(path.name, text, None)
    except ImportRefused as exc:
        rule = exc.values.get("rule")
        return False, f"refused ({exc.reason}{': ' + rule if rule else ''}): {exc.message}"
    row = (upload.game, upload.players, 0.0, upload.origin, upload.ending)
    (gid,) = store.import_games([row])
    review = Library(store).review(gid)
    game = upload.game
    problems = []
    if [m["text"] for m in review["moves"]] != game.moves:
        problems.append("the review's moves differ from the file's")
    if review["result"] != game.result and upload.ending is None:
        problems.append(f"stored result {review['result']}, the file's {game.result}")
    back = import_otg(game_otg(store, gid))
    if back.game.moves != game.moves or back.rules != game.rules:
        problems.append("its export does not read back the same")
    (again,) = store.import_games([row])
    if again != gid:
        problems.append("imported twice")
    rules = game.rules
    house = upload.origin.get("house_rules")
    what = (f"{rules.id}" + (f" with {', '.join(house)}" if house else "")
            + f" ({rules.name}, {rules.size}x{rules.size})")
    puzzle = upload.origin.get("puzzle")
    notes = len(upload.origin.get("comments", {}))
    summary = (f"game {gid}: {what}, {len(game.played)} moves, {review['result']}"
               f" ({review['reason']}), {notes} comments"
               + (f", a puzzle from ply {puzzle['start']}" if puzzle else ""))
    if problems:
        return False, summary + ": " + "; ".join(problems)
    return True, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--store", type=Path, help="the SQLite store to import into")
    args = parser.parse_args(argv)
    files = sorted(p for p in args.directory.rglob("*.otg") if p.is_file())
    if not files:
        print(f"no .otg files under {args.directory}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(args.store or Path(tmp) / "check.sqlite")
        try:
            good = 0
            for path in files:
                ok, line = check(path, store)
                good += ok
                print(f"{'ok     ' if ok else 'REFUSED'} {path.relative_to(args.directory)}: "
                      f"{line}")
        finally:
            store.close()
    print(f"{good} of {len(files)} files import and replay")
    return 0 if good == len(files) else 1


if __name__ == "__main__":
    sys.exit(main())
