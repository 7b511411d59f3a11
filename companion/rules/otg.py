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
from typing import Any

from ..squares import coords_name, parse_square
from .board import Board, MoveError, other
from .game import Game
from .geometry import geometry_for
from .otn import PositionError
from .outcome import REASON_TEXT
from .ruleset import ATTACKERS, DEFENDERS, KING, PRESETS, RuleSet


class OtgError(ValueError):
    """A malformed or inconsistent game file; the message names the line when it can."""


@dataclass
class OtgGame:
    """An imported game file: the game (moves replayed through the rules) and all its tags."""

    game: Game
    tags: dict[str, str]

    @property
    def rules(self) -> RuleSet:
        """The rule set the game was played under."""
        return self.game.rules


RESULT_TAG = {"attackers": "1", "defenders": "-1", "draw": "0", "ongoing": "?"}
_LETTER = {ATTACKERS: "t", DEFENDERS: "T", KING: "K"}
# OpenTafl's tfr:w is "the player who makes the third repetition loses" (its code; the spec text
# has it the other way round); tfr:l, written by this project's earlier exports, is read the same.
_TFR = {"off": "i", "draw": "d", "defenders_lose": "w"}
_KS = {"strong": "s", "strong_by_throne": "c", "weak": "w"}
_SW = {"off": "n", "on": "w", "corners": "s"}
_EXTENSION_FIELDS = ("repetition", "no_moves", "sheltered_king", "chain_capture")
_TAG_LINE = re.compile(r"^\[([A-Za-z][A-Za-z0-9_-]*):(.*)\]\s*$")
_TURN_LINE = re.compile(r"^(\S+)\.(?:\s+(.*))?$")
_SQUARE = r"[a-s][0-9]{1,2}"
_MOVE = re.compile(
    rf"^(?P<piece>[A-Za-z]?)(?P<frm>{_SQUARE})(?P<kind>[-^=]{{1,2}})(?P<to>{_SQUARE})"
    rf"(?:x(?P<caps>[A-Za-z]?{_SQUARE}(?:(?:/|x)[A-Za-z]?{_SQUARE})*))?(?P<info>[+-]{{1,2}})?$"
)


# -- rules string -------------------------------------------------------------------------------


def _letters(sides: frozenset[str]) -> str:
    return "".join(_LETTER[s] for s in (ATTACKERS, DEFENDERS, KING) if s in sides)


def _yn(flag: bool) -> str:
    return "y" if flag else "n"


def _block_squares(rules: RuleSet) -> list[str]:
    geo = geometry_for(rules)
    return [geo.names[s] for s in geo.iter_bits(geo.corner)]


def rules_string(rules: RuleSet) -> str:
    """The OpenTafl rules string (``dim:11 name:... start:/.../``) of a rule set."""
    name = _one_line(rules.name).replace(":", " ").replace(" ", "_")
    parts = [f"dim:{rules.size}", f"name:{name}"]
    parts += [
        f"esc:{'c' if rules.escape == 'corners' else 'e'}",
        f"surf:{_yn(rules.encirclement)}",
        f"atkf:{_yn(rules.first == ATTACKERS)}",
        f"tfr:{_TFR[rules.repetition]}",
        f"ka:{_yn(rules.king_armed)}",
        f"ks:{_KS[rules.king_strength]}",
    ]
    if rules.corners == "none":
        parts.append("cor:")
    elif rules.corners == "block":
        parts.append("cor:" + "".join(s + "," for s in _block_squares(rules)))
    if rules.has_throne:
        parts.append("cenp:" + {"all": "tTK", "king": "K", "nobody": ""}[rules.throne_pass])
        parts.append("cens:" + ("" if rules.throne_stop == "nobody" else "K"))
        parts.append("cenre:" + ("K" if rules.throne_stop == "king" else ""))
        parts.append(f"cenh:{'t' if rules.king_armed else ''}")
    else:
        parts.append("cen:")
    parts.append(f"cenhe:{_letters(rules.hostile_throne_empty)}")
    parts.append(f"corh:{_letters(rules.hostile_corners)}")
    parts.append(f"sw:{_SW[rules.shieldwall]}")
    parts.append(f"efe:{_yn(rules.exit_fort)}")
    if rules.linnaean_capture:
        parts.append("linc:y")
    parts.append(f"start:{rules.start}")
    return " ".join(parts)


def _extension_string(rules: RuleSet) -> str:
    values = []
    for name in _EXTENSION_FIELDS:
        value = getattr(rules, name)
        values.append(f"{name}={('on' if value else 'off') if isinstance(value, bool) else value}")
    return f"id={_one_line(rules.id).replace(' ', '_')} " + " ".join(values)


def _one_line(text: str) -> str:
    """A tag value: one line, without the brackets that delimit tags and comments."""
    return " ".join(re.sub(r"[\[\]]", " ", text).split())


def _rules_map(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in text.split():
        key, _, value = part.partition(":")
        out[key] = value
    return out


def _sides(letters: str, key: str) -> frozenset[str]:
    out = set()
    for ch in letters:
        if ch == "t":
            out.add(ATTACKERS)
        elif ch == "T":
            out.add(DEFENDERS)
        elif ch == "K":
            out.add(KING)
        elif ch not in "cnkCN":  # commanders and knights: pieces this project does not have
            raise OtgError(f"rules tag: {key}: unknown piece letter {ch!r}")
    return frozenset(out)


def parse_rules_string(text: str, extension: str | None = None) -> RuleSet:
    """A RuleSet from an OpenTafl rules string (and the optional ``companion-rules`` tag value).

    The result is the matching preset when the extension names one and every rule agrees."""
    m = _rules_map(text)
    if "dim" not in m or ("start" not in m and "starti" not in m):
        raise OtgError("rules tag: needs dim: and start:")
    try:
        size = int(m["dim"])
    except ValueError:
        raise OtgError(f"rules tag: dim must be a number, not {m['dim']!r}") from None
    if "start" in m:
        start = m["start"]
    else:  # starti: the same record written top row first
        start = "/" + "/".join(reversed(m["starti"].strip("/").split("/"))) + "/"
    for key, default in (("ber", "n"), ("kj", "n")):
        if m.get(key, default) not in ("", default):
            raise OtgError(f"rules tag: {key}:{m[key]} (berserk moves, jumps) is not supported")
    if m.get("spd", "-1") not in ("", "-1"):
        raise OtgError("rules tag: speed limits (spd) are not supported")
    fields: dict[str, object] = {
        "escape": {"c": "corners", "e": "edge"}.get(m.get("esc", "c")),
        "encirclement": m.get("surf", "y") == "y",
        "first": ATTACKERS if m.get("atkf", "y") == "y" else DEFENDERS,
        "repetition": {"i": "off", "d": "draw", "w": "defenders_lose", "l": "defenders_lose"}.get(
            m.get("tfr", "d")),
        "king_armed": {"y": True, "n": False}.get(m.get("ka", "y")),
        "king_strength": {"s": "strong", "y": "strong", "c": "strong_by_throne", "w": "weak",
                          "n": "weak"}.get(m.get("ks", "s")),
        "shieldwall": {"n": "off", "w": "on", "s": "corners"}.get(m.get("sw", "n")),
        "exit_fort": m.get("efe", "n") == "y",
        "linnaean_capture": m.get("linc", "n") == "y",
        "hostile_corners": _sides(m.get("corh", "tTK"), "corh"),
        "hostile_throne_empty": _sides(m.get("cenhe", "tTK"), "cenhe"),
    }
    for key, name in (("esc", "escape"), ("tfr", "repetition"), ("ka", "king_armed"),
                      ("ks", "king_strength"), ("sw", "shieldwall")):
        if fields[name] is None:
            raise OtgError(f"rules tag: {key}:{m[key]} is not supported")
    fields["corners"] = _corners(m.get("cor", "default"), size)
    centre = m.get("cen", "default")
    if centre == "":
        fields["throne_stop"] = "anyone"
        fields["throne_pass"] = "all"
    else:
        mid = coords_name(size // 2, size // 2, size)
        if centre not in ("default", mid, mid + ","):
            raise OtgError(f"rules tag: cen:{centre}: only the middle square can be the throne")
        stop = _sides(m.get("cens", "K"), "cens")
        again = _sides(m.get("cenre", "tTK"), "cenre")
        passing = _sides(m.get("cenp", "tTK"), "cenp")
        if stop - {KING}:
            raise OtgError("rules tag: cens: soldiers stopping on the throne is not supported")
        if KING not in stop:
            fields["throne_stop"] = "nobody"
        else:
            fields["throne_stop"] = "king" if KING in again else "king_once"
        if {ATTACKERS, DEFENDERS} <= passing:
            fields["throne_pass"] = "all"
        elif passing & {ATTACKERS, DEFENDERS}:
            raise OtgError("rules tag: cenp: one side only passing the throne is not supported")
        else:
            fields["throne_pass"] = "king" if KING in passing else "nobody"
    rule_id, name = "opentafl", m.get("name", "").replace("_", " ") or "OpenTafl rules"
    if extension is not None:
        for part in extension.split():
            key, eq, value = part.partition("=")
            if not eq:
                raise OtgError(f"companion-rules tag: expected key=value, not {part!r}")
            if key == "id":
                rule_id = value
            elif key in ("sheltered_king", "chain_capture"):
                if value not in ("on", "off"):
                    raise OtgError(f"companion-rules tag: {key} must be on or off")
                fields[key] = value == "on"
            elif key in ("repetition", "no_moves"):
                fields[key] = value
            else:
                raise OtgError(f"companion-rules tag: unknown key {key!r}")
    try:
        rules = RuleSet(id=rule_id, name=name, size=size, start=start, **fields)  # type: ignore[arg-type]
        Board(rules)
    except (ValueError, TypeError) as exc:
        raise OtgError(f"rules tag: {exc}") from None
    preset = PRESETS.get(rule_id)
    if preset is not None and dataclasses.replace(rules, name=preset.name) == preset:
        return preset
    return rules


def _corners(value: str, size: int) -> str:
    if value == "default":
        return "single"
    squares = {s for s in value.split(",") if s}
    if not squares:
        return "none"
    last = size - 1
    ends, near = (0, last), (0, 1, last - 1, last)
    single = {coords_name(f, r, size) for f in ends for r in ends}
    block = {coords_name(f, r, size) for f in near for r in near}
    if squares == single:
        return "single"
    if squares == block:
        return "block"
    raise OtgError(f"rules tag: cor:{value}: only the 4 corners or the 2x2 blocks are supported")


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
        "variant": _one_line(rules.name),
    }
    outcome = game.outcome()
    if outcome is not None:
        out["termination"] = REASON_TEXT.get(outcome.reason, outcome.reason)
    for key, value in (tags or {}).items():
        if not _TAG_LINE.match(f"[{key}:x]"):
            raise ValueError(f"not a tag name: {key!r}")
        out[key] = _one_line(value)
    for key in ("rules", "companion-rules", "position", "companion-turn"):
        out.pop(key, None)
    out["companion-rules"] = _extension_string(rules)
    if game.start_position != rules.start or game.start_turn != rules.first:
        out["position"] = Board(rules, game.start_position).otn()
        out["companion-turn"] = game.start_turn
    out["rules"] = rules_string(rules)
    lines = [f"[{k}:{v}]" for k, v in out.items()] + [""]
    records = _move_records(game)
    for i in range(0, len(records), 2):
        line = f"{i // 2 + 1}. " + " ".join(records[i : i + 2])
        notes = [_one_line(c).replace("[", "(").replace("]", ")").replace("|", "/")
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
        caps = sorted(board.name(s) for s in board.geo.iter_bits(captured) if s != king_before)
        if king_before >= 0 and captured >> king_before & 1:
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
    Raises :class:`OtgError` naming the line at fault."""
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
        raise OtgError(f"companion-turn tag: attackers or defenders, not {turn!r}")
    position = tags.get("position") or rules.start
    try:
        game = Game(rules, position, turn)
    except PositionError as exc:
        raise OtgError(f"position tag: {exc}") from None
    body = _strip_comments(lines[i:], i)
    main_lines = [n for n, line in body if line.split(".", 1)[0].isdigit()]
    expected = 1
    for number, line in body:
        match = _TURN_LINE.match(line)
        if not match:
            raise OtgError(f"line {number}: expected a turn like '1. d1-d3 h6-h9', not {line!r}")
        label, rest = match.group(1), (match.group(2) or "").split()
        if not label.isdigit():
            continue  # a variation (e.g. 2a.1.1a.): not part of the game
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
    return OtgGame(game, tags)


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
    where = f"line {number}: {record}"
    outcome = game.outcome()
    if outcome is not None:
        raise OtgError(f"{where}: the game is already over ({game.result} by "
                       f"{outcome.reason})")
    if record == "---":
        game.resign(game.turn)
        return
    match = _MOVE.match(record)
    if not match:
        raise OtgError(f"{where}: not a move record like e5-e8 or Ke5-e8xe9/f8")
    if match.group("kind") != "-":
        raise OtgError(f"{where}: jumps and berserk moves are not supported")
    board = game.board
    try:
        frm, to = parse_square(match.group("frm"), board.size), parse_square(
            match.group("to"), board.size)
    except ValueError as exc:
        raise OtgError(f"{where}: {exc}") from None
    piece = match.group("piece")
    actual = board.piece_at(frm)
    if piece and piece not in "tTK":
        raise OtgError(f"{where}: piece {piece!r} (commander/knight) is not supported")
    if piece and actual is not None and piece != actual:
        raise OtgError(f"{where}: the record says {piece} moves but {actual} stands on "
                       f"{board.name(frm)}")
    soldiers, king_listed = [], False
    for cap in re.split(r"[/x]", match.group("caps") or ""):
        if not cap:
            continue
        if cap[0] == "K":
            king_listed = True
            if cap[1:] != (board.name(board.king) if board.king >= 0 else ""):
                raise OtgError(f"{where}: the king does not stand on {cap[1:]}")
        else:
            soldiers.append(cap.lstrip("tT"))
    text = f"{board.name(frm)}-{board.name(to)}" + "".join("x" + s for s in soldiers)
    had_king = board.king >= 0
    try:
        game.play_text(text)
    except MoveError as exc:
        raise OtgError(f"{where}: {exc}") from None
    king_taken = had_king and game.board.king < 0
    if king_listed and not king_taken:
        raise OtgError(f"{where}: the record captures the king but the rules do not")
    info = match.group("info") or ""
    outcome = game.outcome()
    if info == "++" and not king_taken:
        raise OtgError(f"{where}: '++' marks a king capture, but the king was not captured")
    if info == "--" and (outcome is None or outcome.winner != DEFENDERS):
        raise OtgError(f"{where}: '--' marks an escape, but the defenders did not win")


def _apply_result(game: Game, result: str) -> None:
    want = {"1": "attackers", "-1": "defenders", "0": "draw", "?": None, "": None}.get(result, "")
    if want == "":
        raise OtgError(f"result tag: expected 1, -1, 0 or ?, not {result!r}")
    if want is None:
        return
    outcome = game.outcome()
    if outcome is not None:
        if game.result != want:
            raise OtgError(f"result tag says {want} but the rules say {game.result} "
                           f"({outcome.reason})")
        return
    # the rules have not ended the game: it ended off the board
    if want == "draw":
        game.agree_draw()
    else:
        game.resign(other(want))


def read_otg(path: str) -> OtgGame:
    """Import a game file from disk."""
    with open(path, encoding="utf-8") as fh:
        return import_otg(fh.read())


def write_otg(game: Game, path: str, tags: Mapping[str, str] | None = None) -> None:
    """Export a game to a file."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(export_otg(game, tags))


def replay_otg(rules: RuleSet, text: str) -> dict[str, Any]:
    """``rules replay`` for a game file: ``{"games": 1, "agree": 0|1, "disagree": [...]}`` as
    for CSV records. Every move is replayed and checked by :func:`import_otg` (a failure names
    its line; ``ply`` is then null); a file whose rules differ from ``rules`` (the preset named
    on the command line) disagrees at ply 0, naming the fields that differ."""
    try:
        got = import_otg(text)
    except OtgError as exc:
        return {"games": 1, "agree": 0, "disagree": [{"game": 1, "ply": None, "reason": str(exc)}]}
    mine = dataclasses.replace(got.rules, id=rules.id, name=rules.name)
    if mine != rules:
        fields = [f.name for f in dataclasses.fields(rules)
                  if f.compare and getattr(mine, f.name) != getattr(rules, f.name)]
        why = f"the file's rules differ from {rules.id} in: {', '.join(fields)}"
        return {"games": 1, "agree": 0, "disagree": [{"game": 1, "ply": 0, "reason": why}]}
    return {"games": 1, "agree": 1, "disagree": []}
