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

- Tags are ``[key:value]``, one a line; the ``rules`` tag comes last (spec §4). ``result`` is
  ``1`` (attackers won), ``-1`` (defenders won), ``0`` (draw) or ``?``. An optional
  ``[position:OTN]`` tag starts the game from another position (spec §4 position-tag).
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
``[companion-turn:...]`` it also records the side to move of a ``position`` tag. Import reads
files without the extension tags with OpenTafl's defaults (e.g. ``surf:y``). ``starti:`` is
accepted as a start position written top row first: not in the spec, inferred from OpenTafl's
sample puzzle files, whose moves only fit the position read that way. Rules that
this project cannot play (berserk pieces, jumps, middleweight or hammer/anvil kings, other
corner or centre layouts) are rejected with a clear :class:`OtgError`.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from ..squares import parse_square
from .board import Board, MoveError, other
from .game import Game
from .otg_rules import OtgError, extension_string, one_line, parse_rules_string, rules_string
from .otn import PositionError
from .outcome import REASON_TEXT
from .ruleset import ATTACKERS, DEFENDERS, RuleSet

__all__ = ["OtgError", "OtgGame", "OtgMoveError", "export_otg", "import_otg",
           "parse_rules_string", "read_otg", "replay_otg", "rules_string", "write_otg"]


class OtgMoveError(OtgError):
    """A well-formed file whose game the rules refuse: a move record that is not a legal move
    (or not a move), captures or marks the rules do not make, a move after the end, a result
    the rules contradict. ``ply`` is the (1-based) ply at fault; one past the last move for the
    result."""

    def __init__(self, message: str, ply: int) -> None:
        super().__init__(message)
        self.ply = ply


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
_TAG_LINE = re.compile(r"^\[([A-Za-z][A-Za-z0-9_-]*):(.*)\]\s*$")
_TURN_LINE = re.compile(r"^(\S+)\.(?:\s+(.*))?$")
_TURN_NUMBER = re.compile(r"[0-9]{1,6}")
_VARIATION = re.compile(r"[0-9]{1,6}[a-z]+(?:\.[0-9]{1,6}[a-z]*)*")
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
    file is well formed but the rules refuse its game)."""
    lines = text.splitlines()
    tags: dict[str, str] = {}
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and lines[i].strip():
        match = _TAG_LINE.match(lines[i].strip())
        if not match:
            if not tags:
                raise OtgError(f"line {i + 1}: expected a tag like [rules:dim:11 ... start:...]")
            break
        tags[match.group(1)] = match.group(2)
        i += 1
    if "rules" not in tags:
        raise OtgError("no [rules:...] tag")
    rules = parse_rules_string(tags["rules"], tags.get("companion-rules"))
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
    body = _strip_comments(lines[i:], i)
    main_lines = [n for n, line in body if _TURN_NUMBER.fullmatch(line.split(".", 1)[0])]
    expected = 1
    for number, line in body:
        match = _TURN_LINE.match(line)
        if not match:
            raise OtgError(f"line {number}: expected a turn like '1. d1-d3 h6-h9', not "
                           f"{_clip(line)!r}")
        label, rest = match.group(1), (match.group(2) or "").split()
        if not _TURN_NUMBER.fullmatch(label):
            if _VARIATION.fullmatch(label):
                continue  # a variation (e.g. 2a.1.1a.): not part of the game
            raise OtgError(f"line {number}: expected a turn number like '12.', not "
                           f"{_clip(label)!r}")
        if int(label) != expected:
            raise OtgError(f"line {number}: turn {label} where turn {expected} was expected")
        if not 1 <= len(rest) <= 2:
            raise OtgError(f"line {number}: a turn holds one or two moves, found {len(rest)}")
        if len(rest) == 1 and number != main_lines[-1]:
            raise OtgError(f"line {number}: only the last turn may have a single move")
        for record in rest:
            _play_record(game, record, number)
        expected += 1
    _apply_result(game, tags.get("result", "?"))
    return OtgGame(game, tags, players[ATTACKERS], players[DEFENDERS], date)


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


def _strip_comments(lines: list[str], offset: int) -> list[tuple[int, str]]:
    """The body's non-empty lines with ``[...]`` comments (possibly multi-line) removed, each
    with its 1-based line number in the file."""
    out = []
    opened = 0  # line number of the open comment's "[", 0 outside comments
    for k, raw in enumerate(lines, offset + 1):
        kept = []
        for ch in raw:
            if opened:
                if ch == "]":
                    opened = 0
            elif ch == "[":
                opened = k
            else:
                kept.append(ch)
        line = "".join(kept).strip()
        if line:
            out.append((k, line))
    if opened:
        raise OtgError(f"line {opened}: the comment opened here with '[' is never closed")
    return out


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


def replay_otg(rules: RuleSet, text: str) -> dict[str, Any]:
    """``rules replay`` for a game file: ``{"games": 1, "agree": 0|1, "disagree": [...]}`` as
    for CSV records. Every move is replayed and checked by :func:`import_otg`; a move or result
    the rules refuse disagrees at its ply (:class:`OtgMoveError`), and a file whose rules differ
    from ``rules`` (the preset named on the command line) disagrees at ply 0, naming the fields
    that differ. A malformed file raises :class:`OtgError` (bad input, not a disagreement)."""
    try:
        got = import_otg(text)
    except OtgMoveError as exc:
        return {"games": 1, "agree": 0,
                "disagree": [{"game": 1, "ply": exc.ply, "reason": str(exc)}]}
    mine = dataclasses.replace(got.rules, id=rules.id, name=rules.name)
    if mine != rules:
        fields = [f.name for f in dataclasses.fields(rules)
                  if f.compare and getattr(mine, f.name) != getattr(rules, f.name)]
        why = f"the file's rules differ from {rules.id} in: {', '.join(fields)}"
        return {"games": 1, "agree": 0, "disagree": [{"game": 1, "ply": 0, "reason": why}]}
    return {"games": 1, "agree": 1, "disagree": []}
