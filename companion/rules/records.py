"""Game records: the CSV form of docs/interfaces.md and replaying records against the rules."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from .board import MoveError
from .game import Game
from .ruleset import RuleSet

STATUS_RESULT = {"White": "defenders", "Black": "attackers", "Draw": "draw", "Ongoing": "ongoing"}
RESULT_STATUS = {v: k for k, v in STATUS_RESULT.items()}


class RecordError(ValueError):
    """A malformed record line."""


@dataclass(frozen=True)
class Record:
    """One game record: move texts, capture counts, final status, and whether it ended on
    a ``timeout`` token."""

    moves: tuple[str, ...]
    attacker_captures: int
    defender_captures: int
    status: str
    timeout: bool = False

    @property
    def result(self) -> str | None:
        """The status as a result (``defenders``/``attackers``/``draw``/``ongoing``); None
        when the record has no status (an empty field)."""
        return STATUS_RESULT.get(self.status)


def parse_record_line(line: str) -> Record:
    """Parse one CSV record line: ``moves,attacker_captures,defender_captures,status``.

    >>> record = parse_record_line("d2-e2 d3-d2 e2-e3,0,0,Ongoing")
    >>> record.moves, record.result
    (('d2-e2', 'd3-d2', 'e2-e3'), 'ongoing')
    >>> parse_record_line("d2-e2,0,Ongoing")
    Traceback (most recent call last):
    ...
    companion.rules.records.RecordError: expected 4 comma-separated fields, found 3
    """
    try:
        row = next(csv.reader([line.strip()]), [])
    except csv.Error as exc:  # e.g. a field over the csv module's size limit (128 KiB)
        raise RecordError(f"not a CSV record line ({exc})") from None
    if len(row) != 4:
        raise RecordError(f"expected 4 comma-separated fields, found {len(row)}")
    tokens = row[0].split()
    timeout = bool(tokens) and tokens[-1] == "timeout"
    if timeout:
        tokens = tokens[:-1]
    try:
        att, dfn = int(row[1]), int(row[2])
    except ValueError:
        raise RecordError(f"capture counts must be integers: {row[1]!r}, {row[2]!r}") from None
    status = row[3].strip()
    if status and status not in STATUS_RESULT:
        raise RecordError(f"unknown status {status!r} (expected {', '.join(STATUS_RESULT)})")
    return Record(tuple(tokens), att, dfn, status, timeout)


def read_records(text: str) -> list[Record]:
    """All records of a CSV file's text (blank lines and ``#`` comment lines, such as the header
    lines of the companion's game exports, skipped); RecordError names the line.

    >>> [r.status for r in read_records("# a header\\nd2-e2,0,0,Ongoing\\n\\nb4-b3,0,0,Black")]
    ['Ongoing', 'Black']
    """
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            out.append(parse_record_line(line))
        except RecordError as exc:
            raise RecordError(f"line {i}: {exc}") from None
    return out


def game_to_record_line(game: Game) -> str:
    """The CSV record line of a game (status ``Ongoing`` while it goes on).

    >>> game = Game("brandubh")
    >>> _ = game.play_text("d2-e2")
    >>> game_to_record_line(game)
    'd2-e2,0,0,Ongoing'
    """
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(
        [
            " ".join(game.moves),
            sum(p.text.count("x") for p in game.played if p.side == "attackers"),
            sum(p.text.count("x") for p in game.played if p.side == "defenders"),
            RESULT_STATUS[game.result],
        ]
    )
    return buf.getvalue()


def replay_record(rules: RuleSet, record: Record) -> tuple[Game, tuple[int, str] | None]:
    """Play a record through the rules. Returns the game and, on disagreement, ``(ply,
    reason)`` (ply 1-based; ``len(moves) + 1`` for a disagreement on the final status).

    >>> from companion.rules import PRESETS
    >>> game, problem = replay_record(PRESETS["brandubh"], parse_record_line("d2-e2,0,0,"))
    >>> game.moves, problem
    (['d2-e2'], None)
    >>> replay_record(PRESETS["brandubh"], parse_record_line("d2-e2 d2-d1,0,0,"))[1]
    (2, 'illegal move d2-d1: there is no piece on d2')
    """
    game = Game(rules)
    for ply, text in enumerate(record.moves, 1):
        outcome = game.outcome()
        if outcome is not None:
            return game, (
                ply, f"the game was already over ({game.result} by {outcome.reason}) before {text}"
            )
        try:
            played = game.play_text(text)
        except MoveError as exc:
            return game, (ply, str(exc))
        if "x" not in text and "x" in played.text:
            # Game.play checks listed captures only; a record must list every one
            taken = played.text.split("x", 1)[1].replace("x", ", ")
            return game, (ply, f"move {text} captures {taken}, which the record does not list")
    end = len(record.moves) + 1
    result = game.result
    if result == "ongoing":
        # The rules have not ended the game: a decided status means it ended off the board
        # (resignation, time, agreement), which a record does not mark. Not a disagreement.
        return game, None
    if record.result != result:
        outcome = game.outcome()
        why = f" ({outcome.reason})" if outcome else ""
        said = record.status or ("timeout" if record.timeout else "no status")
        return game, (end, f"record says {said} but the rules say {result}{why}")
    return game, None
