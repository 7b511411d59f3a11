"""OpenTafl game files (``.otg``): export a :class:`~companion.rules.game.Game`, import one back.

Source of the format: the OpenTafl project (Jay Slater, github.com/jslater89/OpenTafl):
``opentafl-notation-spec.txt`` §2 (move records), §3 (rules records) and §4 (game records);
``notation/GameSerializer.java`` (tags, move lines), ``RulesSerializer.java`` (rules string keys
and their defaults) and ``MoveSerializer.java`` (move regex); sample files in
``saved-games/replays/``. A game file is::

    [date:2024.05.01]
    [result:1]
    [compiler:tafl-companion]
    [variant:Copenhagen Hnefatafl]
    [termination:the king is captured]
    [companion-rules:id=copenhagen repetition=defenders_lose no_moves=loss ...]
    [rules:dim:11 name:Copenhagen_Hnefatafl esc:c surf:y atkf:y tfr:w ... start:/3ttttt3/.../]

    1. d1-d3 h6-h9
    2. Kf6-f10 g7-g10xf10/g11
    3. a4-a10xKa11++

- Tags are ``[key:value]``, one a line when written here; the ``rules`` tag comes last (spec
  §4). ``result`` is ``1`` (attackers won), ``-1`` (defenders won), ``0`` (draw) or ``?``. An
  optional ``[position:OTN]`` tag starts the game from another position (spec §4).
- The rules string is space-separated ``key:value`` entries, ``dim`` first and ``start`` last
  (the OTN position, first record = rank 1, exactly as in this project). Keys written: ``dim``
  ``name`` ``esc`` (c/e) ``surf`` (encirclement) ``atkf`` (attackers first) ``tfr``
  (repetition: ``i`` ignore, ``d`` draw, ``w`` the repeating player loses) ``ka`` (king armed)
  ``ks`` (``s`` strong, ``c`` strong on/next to the centre, ``w`` weak) ``cor`` (corner squares,
  only when not the 4 corners) ``cen`` (empty when there is no throne) ``cenp``/``cens``/
  ``cenre`` (who may pass / stop on / re-enter the throne) ``corh``/``cenh``/``cenhe`` (who the
  corners / the occupied throne / the empty throne are hostile to, as piece letters ``t`` ``T``
  ``K``) ``sw`` (shieldwall ``n``/``w``/``s``: ``s`` lets a corner close it) ``efe`` (edge fort
  escape) and ``linc`` (Linnaean capture, when on).
- Move lines are ``<turn>. <move> [<move>]`` (a turn is both sides' moves). A move is
  ``[piece]<from>-<to>[x<capture>[/<capture>]...][+|-|++|--]``; the king's moves are written
  ``Ke6-e7`` and a captured king ``xKe5``; ``++`` marks the capture of the king, ``--`` an escape
  (a corner, the edge or an exit fort); ``---`` is a resignation by the side to move. Comments
  ``[first|second]`` may follow a move line; variation lines (``2a.1.1a. ...``) are skipped.

Where OpenTafl cannot say a rule exactly (``defenders_lose`` repetition is "the repeating player
loses" there; ``no_moves``, ``sheltered_king`` and ``chain_capture`` have no key) the exact values
travel in the extension tag ``[companion-rules:...]``, which OpenTafl ignores; with
``[companion-turn:...]`` it also records the side to move of a ``position`` tag.

Import reads what OpenTafl writes (:mod:`companion.rules.otg_text` cuts the text up): tags in
any order before the first turn, a tag over several lines (``start-comment``), comments over
several lines, variation lines in either of the spec's forms, puzzles (``puzzle-mode``,
``puzzle-start``); files without the extension tags are read with OpenTafl's defaults (e.g.
``surf:y``) and its hostility by side (:func:`~companion.rules.otg_rules.parse_rules_string`).
``starti:`` is a start position written top row first (OpenTafl's ``RulesSerializer``). Rules
the core cannot play (berserk pieces, jumps, middleweight or hammer/anvil kings, fortresses,
special pieces, ...) raise :class:`RuleNotSupported` naming the rule.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO, TypedDict

from ..squares import parse_square
from .board import Board, MoveError, other
from .game import Game
from .otg_rules import (
    OtgError,
    RuleNotSupported,
    extension_string,
    house_rules,
    one_line,
    parse_rules_string,
    rules_string,
)
from .otg_text import address_ply, split_file
from .otn import PositionError
from .outcome import REASON_TEXT
from .ruleset import ATTACKERS, DEFENDERS, RuleSet

__all__ = ["OtgError", "OtgGame", "OtgMoveError", "RuleNotSupported", "export_otg", "import_otg",
           "parse_rules_string", "read_otg", "replay_otg", "rules_string", "write_otg"]


class OtgMoveError(OtgError):
    """A well-formed file whose game the rules refuse: a move record that is not a legal move
    (or not a move), captures or marks the rules do not make, a move after the end, a result
    the rules contradict. ``ply`` is the (1-based) ply at fault; one past the last move for the
    result."""

    def __init__(self, message: str, ply: int) -> None:
        super().__init__(message)
        self.ply = ply


class Puzzle(TypedDict):
    """An OpenTafl puzzle: its ``mode`` (loose, strict) and the ply it starts after."""

    mode: str
    start: int


class Disagreement(TypedDict):
    """A game of a ``rules replay`` that the rules disagree with, at ``ply`` (0: its rules)."""

    game: int
    ply: int
    reason: str


class ReplayReport(TypedDict):
    """``rules replay``'s document: how many games, how many agree, the others."""

    games: int
    agree: int
    disagree: list[Disagreement]


@dataclass
class OtgGame:
    """An imported game file: the game (moves replayed through the rules), all its tags, and
    the tags the companion uses, checked: the players' names (``""`` when not given) and the
    date (None when not given)."""

    game: Game
    tags: dict[str, str]
    attackers: str = ""
    defenders: str = ""
    date: _dt.date | None = None
    #: ply -> the file's comment on that move (0: the ``start-comment`` tag, before the first)
    comments: dict[int, str] = dataclasses.field(default_factory=dict)
    #: how many variation lines (``2a.1.1a. ...``) the file has; they are not replayed
    variations: int = 0
    #: an OpenTafl puzzle (``puzzle-mode`` loose or strict): ``{"mode", "start"}``, ``start``
    #: being the ply the puzzle starts after (``puzzle-start``); None for a game
    puzzle: Puzzle | None = None

    @property
    def rules(self) -> RuleSet:
        """The rule set the game was played under."""
        return self.game.rules


RESULT_TAG = {"attackers": "1", "defenders": "-1", "draw": "0", "ongoing": "?"}
#: A player's name, as everywhere in the companion: 1 to 40 printable characters.
MAX_NAME = 40
_NAME = re.compile(rf"[^\x00-\x1f\x7f]{{1,{MAX_NAME}}}")
#: The dates a game file may carry: YYYY.MM.DD from 1900 (what a timestamp can hold); an unknown
#: date may be written ``????.??.??`` (as in PGN) or left empty.
_DATE = re.compile(r"([0-9]{4})\.([0-9]{2})\.([0-9]{2})")
_TAG_LINE = re.compile(r"^\[([A-Za-z][A-Za-z0-9_-]*):(.*)\]\s*$")  # a tag written on export
_TURN_LINE = re.compile(r"^(\S+)\.(?:\s+(.*))?$")
_TURN_NUMBER = re.compile(r"[0-9]{1,6}")
_VARIATION = re.compile(r"[0-9]{1,6}[a-z]+(?:\.[0-9]{1,6}[a-z]*)*")
#: A variation line's address, also as the spec writes it without its last dot
#: (``3b.3.1a ..... a4-a3xa2``)
_VARIATION_LINE = re.compile(
    r"[0-9]{1,6}[a-z]+\.[0-9]{1,6}[a-z]*(?:\.[0-9]{1,6}[a-z]*)*\.?(?:\s|$)")
_SQUARE = r"[a-s][0-9]{1,2}"
_MOVE = re.compile(
    rf"^(?P<piece>[A-Za-z]?)(?P<frm>{_SQUARE})(?P<kind>[-^=]{{1,2}})(?P<to>{_SQUARE})"
    rf"(?:x(?P<caps>[A-Za-z]?{_SQUARE}(?:(?:/|x)[A-Za-z]?{_SQUARE})*))?(?P<info>[+-]{{1,2}})?$"
)


# -- export -------------------------------------------------------------------------------------


def export_otg(
    game: Game, tags: Mapping[str, str] | None = None, date: _dt.date | None = None,
    comments: list[str] | None = None,
) -> str:
    """The game as an OpenTafl game file. ``tags`` adds or overrides tags (``event``, ``site``,
    ``attackers``, ``defenders``, ``time-control``, ...); ``rules`` and the extension tags cannot
    be overridden. ``comments[i]`` (if given) is written as the comment of ply i+1, in
    OpenTafl's ``[first|second]`` form after its turn (e.g. the clock readings)."""
    rules = game.rules
    out: dict[str, str] = {
        "date": (date or _dt.date.today()).strftime("%Y.%m.%d"),
        "result": RESULT_TAG[game.result],
        "compiler": "tafl-companion",
        "variant": one_line(rules.name),
    }
    outcome = game.outcome()
    if outcome is not None:
        out["termination"] = REASON_TEXT.get(outcome.reason, outcome.reason)
    for key, value in (tags or {}).items():
        if not _TAG_LINE.match(f"[{key}:x]"):
            raise ValueError(f"not a tag name: {key!r}")
        out[key] = one_line(value)
    for key in ("rules", "companion-rules", "position", "companion-turn"):
        out.pop(key, None)
    out["companion-rules"] = extension_string(rules)
    if game.start_position != rules.start or game.start_turn != rules.first:
        out["position"] = Board(rules, game.start_position).otn()
        out["companion-turn"] = game.start_turn
    out["rules"] = rules_string(rules)
    lines = [f"[{k}:{v}]" for k, v in out.items()] + [""]
    records = _move_records(game)
    for i in range(0, len(records), 2):
        line = f"{i // 2 + 1}. " + " ".join(records[i : i + 2])
        notes = [one_line(c).replace("[", "(").replace("]", ")").replace("|", "/")
                 for c in (comments or [])[i : i + 2]]
        if any(notes):
            line += " [" + "|".join(notes) + "]"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _move_records(game: Game) -> list[str]:
    board = Board(game.rules, game.start_position, game.start_turn)
    records = []
    for played in game.played:
        frm, to = played.move.frm, played.move.to
        king_before = board.king
        piece = "K" if frm == board.king else ""
        captured = board.push(played.move)
        caps = sorted(board.name(s) for s in captured if s != king_before)
        if king_before in captured:
            caps.append("K" + board.name(king_before))
        text = f"{piece}{board.name(frm)}-{board.name(to)}"
        if caps:
            text += "x" + "/".join(caps)
        outcome = board.outcome()
        if outcome is not None and outcome.reason == "king_captured":
            text += "++"
        elif outcome is not None and outcome.reason in ("escape", "exit_fort"):
            text += "--"
        records.append(text)
    manual = game.outcome()
    if manual is not None and manual.reason == "resignation" and manual.winner != game.turn:
        records.append("---")  # the side to move resigned: OpenTafl's resignation record
    return records


# -- import -------------------------------------------------------------------------------------


def import_otg(text: str) -> OtgGame:
    """Read a game file: tags, rules, and every move replayed (and checked) through the rules.
    Raises :class:`OtgError` naming the line or tag at fault (:class:`OtgMoveError` when the
    file is well formed but the rules refuse its game; :class:`RuleNotSupported` naming the
    rule the rules core cannot play)."""
    parts = split_file(text)
    tags = parts.tags
    if "rules" not in tags:
        raise OtgError("no [rules:...] tag")
    # a file OpenTafl wrote (no extension tag) reads hostility by side, as OpenTafl does
    rules = parse_rules_string(tags["rules"], tags.get("companion-rules"),
                               by_side="companion-rules" not in tags)
    turn = tags.get("companion-turn") or rules.first
    if turn not in (ATTACKERS, DEFENDERS):
        raise OtgError(f"companion-turn tag: attackers or defenders, not {_clip(turn)!r}")
    position = tags.get("position") or rules.start
    try:
        game = Game(rules, position, turn)
    except PositionError as exc:
        raise OtgError(f"position tag: {exc}") from None
    players = {side: _player(tags, side) for side in (ATTACKERS, DEFENDERS)}
    date = _date(tags.get("date", ""))
    lines = [(number, body) for number, kind, body in parts.body if kind == "line"]
    main_lines = [n for n, line in lines if _TURN_NUMBER.fullmatch(line.split(".", 1)[0])
                  and not _VARIATION_LINE.match(line)]
    comments: dict[int, str] = {}
    if tags.get("start-comment", "").strip():
        comments[0] = tags["start-comment"].strip()
    expected, variations = 1, 0
    last_turn: list[int] | None = None  # the plies of the turn line a comment belongs to
    for number, kind, line in parts.body:
        if kind == "comment":
            for ply, note in zip(last_turn or (), line.split("|"), strict=False):
                if note.strip():
                    comments[ply] = note.strip()
            last_turn = None
            continue
        if _VARIATION_LINE.match(line):
            variations += 1
            last_turn = None  # a variation (e.g. 2a.1.1a.): not part of the game
            continue
        match = _TURN_LINE.match(line)
        if not match:
            raise OtgError(f"line {number}: expected a turn like '1. d1-d3 h6-h9', not "
                           f"{_clip(line)!r}")
        label, rest = match.group(1), (match.group(2) or "").split()
        if not _TURN_NUMBER.fullmatch(label):
            if _VARIATION.fullmatch(label):
                variations += 1
                last_turn = None  # a variation (e.g. 2a.1.1a.): not part of the game
                continue
            raise OtgError(f"line {number}: expected a turn number like '12.', not "
                           f"{_clip(label)!r}")
        if int(label) != expected:
            raise OtgError(f"line {number}: turn {label} where turn {expected} was expected")
        if not 1 <= len(rest) <= 2:
            raise OtgError(f"line {number}: a turn holds one or two moves, found {len(rest)}")
        if len(rest) == 1 and number != main_lines[-1]:
            raise OtgError(f"line {number}: only the last turn may have a single move")
        last_turn = []
        for record in rest:
            _play_record(game, record, number)
            if record != "---":
                last_turn.append(len(game.played))
        expected += 1
    _apply_result(game, tags.get("result", "?"))
    puzzle: Puzzle | None = None
    if tags.get("puzzle-mode", "").strip() in ("loose", "strict"):
        start = address_ply(tags.get("puzzle-start", "0a"))
        puzzle = {"mode": tags["puzzle-mode"].strip(),
                  "start": start if start is not None and start <= len(game.played) else 0}
    return OtgGame(game, tags, players[ATTACKERS], players[DEFENDERS], date, comments,
                   variations, puzzle)


def _clip(text: str, n: int = 40) -> str:
    """``text`` cut to ``n`` characters (what an error message quotes of a line)."""
    return text if len(text) <= n else text[:n] + "..."


def _player(tags: Mapping[str, str], side: str) -> str:
    """The name a side's tag gives (``""`` when there is none); OtgError if it is not 1 to 40
    printable characters."""
    name = tags.get(side, "").strip()
    if name and not _NAME.fullmatch(name):
        raise OtgError(f"{side} tag: a player's name is 1 to {MAX_NAME} printable characters "
                       f"(this one has {len(name)})")
    return name


def _date(text: str) -> _dt.date | None:
    """The date tag's date (None when unknown); OtgError if it is not a date."""
    text = text.strip()
    if text in ("", "????.??.??"):
        return None
    match = _DATE.fullmatch(text)
    try:
        if match is None:
            raise ValueError("not YYYY.MM.DD")
        day = _dt.date(*(int(g) for g in match.groups()))
    except ValueError as exc:
        raise OtgError(f"date tag: expected a date written YYYY.MM.DD like 2024.05.01, not "
                       f"{_clip(text)!r} ({exc})") from None
    if day.year < 1900:
        raise OtgError(f"date tag: {text} is before 1900")
    return day


def _play_record(game: Game, record: str, number: int) -> None:
    where = f"line {number}: {_clip(record)}"
    ply = len(game.played) + 1

    def refused(why: str, at: int = ply) -> OtgMoveError:
        return OtgMoveError(f"{where}: {why}", at)

    outcome = game.outcome()
    if outcome is not None:
        raise refused(f"the game is already over ({game.result} by {outcome.reason})")
    if record == "---":
        game.resign(game.turn)
        return
    match = _MOVE.match(record)
    if not match:
        raise refused("not a move record like e5-e8 or Ke5-e8xe9/f8")
    if match.group("kind") != "-":
        raise OtgError(f"{where}: jumps and berserk moves are not supported")
    piece = match.group("piece")
    if piece and piece not in "tTK":
        raise OtgError(f"{where}: piece {piece!r} (commander/knight) is not supported")
    board = game.board
    try:
        frm, to = parse_square(match.group("frm"), board.size), parse_square(
            match.group("to"), board.size)
    except ValueError as exc:
        raise refused(str(exc)) from None
    actual = board.piece_at(frm)
    if piece and actual is not None and piece != actual:
        raise refused(f"the record says {piece} moves but {actual} stands on {board.name(frm)}")
    soldiers, king_listed = [], False
    for cap in re.split(r"[/x]", match.group("caps") or ""):
        if not cap:
            continue
        if cap[0] == "K":
            king_listed = True
            if cap[1:] != (board.name(board.king) if board.king >= 0 else ""):
                raise refused(f"the king does not stand on {cap[1:]}")
        else:
            soldiers.append(cap.lstrip("tT"))
    text = f"{board.name(frm)}-{board.name(to)}" + "".join("x" + s for s in soldiers)
    had_king = board.king >= 0
    try:
        game.play_text(text)
    except MoveError as exc:
        raise refused(str(exc)) from None
    king_taken = had_king and game.board.king < 0
    if king_listed and not king_taken:
        raise refused("the record captures the king but the rules do not")
    info = match.group("info") or ""
    outcome = game.outcome()
    if info == "++" and not king_taken:
        raise refused("'++' marks a king capture, but the king was not captured")
    if info == "--" and (outcome is None or outcome.winner != DEFENDERS):
        raise refused("'--' marks an escape, but the defenders did not win")


def _apply_result(game: Game, result: str) -> None:
    want = {"1": "attackers", "-1": "defenders", "0": "draw", "?": None, "": None}.get(result, "")
    if want == "":
        raise OtgError(f"result tag: expected 1, -1, 0 or ?, not {_clip(result)!r}")
    if want is None:
        return
    outcome = game.outcome()
    if outcome is not None:
        if game.result != want:
            raise OtgMoveError(f"result tag says {want} but the rules say {game.result} "
                               f"({outcome.reason})", len(game.played) + 1)
        return
    # the rules have not ended the game: it ended off the board
    if want == "draw":
        game.agree_draw()
    else:
        game.resign(other(want))


def read_otg(handle: TextIO) -> OtgGame:
    """Import a game file from an open text stream (python-chess's ``read_game(handle)``: the
    caller opens the file, UTF-8). The rules package itself opens no file."""
    return import_otg(handle.read())


def write_otg(game: Game, handle: TextIO, tags: Mapping[str, str] | None = None) -> None:
    """Export a game to an open text stream (the caller opens the file, UTF-8)."""
    handle.write(export_otg(game, tags))


def replay_otg(rules: RuleSet | None, text: str) -> ReplayReport:
    """``rules replay`` for a game file: ``{"games": 1, "agree": 0|1, "disagree": [...]}`` as
    for CSV records. Every move is replayed and checked by :func:`import_otg`; a move or result
    the rules refuse disagrees at its ply (:class:`OtgMoveError`), and a file whose rules differ
    from ``rules`` (the preset named on the command line; None: the file's own rules) disagrees
    at ply 0, naming the rules that differ (values that cannot matter on the board, such as
    the hostility of corners it does not have, left out). A malformed file raises
    :class:`OtgError` (bad input, not a disagreement)."""
    try:
        got = import_otg(text)
    except OtgMoveError as exc:
        return {"games": 1, "agree": 0,
                "disagree": [{"game": 1, "ply": exc.ply, "reason": str(exc)}]}
    if rules is None:
        return {"games": 1, "agree": 1, "disagree": []}
    diff = house_rules(got.rules, rules)
    if diff is None:
        layout = [k for k in ("size", "start", "corners", "corner_squares", "throne_square")
                  if getattr(got.rules, k) != getattr(rules, k)]
        diff = dict.fromkeys(layout)
    if diff:
        why = f"the file's rules differ from {rules.id} in: {', '.join(diff)}"
        return {"games": 1, "agree": 0, "disagree": [{"game": 1, "ply": 0, "reason": why}]}
    return {"games": 1, "agree": 1, "disagree": []}
