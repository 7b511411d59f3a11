"""Reading an uploaded game file for ``POST /api/import``: an OpenTafl ``.otg`` file or CSV
records, every move replayed through the rules, each game with what the store keeps about its
origin and the identity that tells a game already stored (:func:`fingerprint`).

A refusal is an :class:`ImportRefused`: an English sentence (the log, scripts) plus a ``reason``
code and its values, from which the page words it in its own language (docs/http-api.md).

**Which rules.** A file's rules string is read completely (:mod:`companion.rules.otg_rules`);
rules that are a preset's board (size, setup, corners, throne square) are stored as the preset
that differs in the fewest rules, the differences as its house rules; any other rule set is
stored as a rule set of its own (variant ``opentafl``, its name from the file).

**The same game twice.** A game's identity is its rule set (every rule value), its start
position and side to move, every move, both players' names, the result, and the day the file
gives; for a CSV record, which gives no players and no date, also its place in the file (record
*n*), so two equal records of one file stay two games. The file's name, its comments and tags
other than these are not part of it: the same file renamed, or annotated differently, is the
same game.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from companion.rules import PRESETS, get_variant
from companion.rules.game import Game
from companion.rules.otg import OtgError, OtgMoveError, Puzzle, RuleNotSupported, import_otg
from companion.rules.otg_rules import as_preset
from companion.rules.outcome import Termination
from companion.rules.records import RecordError, read_records, replay_record
from companion.web.record_variant import find_variant

#: At most this many games from one CSV file.
MAX_IMPORT_GAMES = 50

#: ``(result, reason)`` for a game the rules did not end; reason None: the file says who won
#: but not how (nothing is made up).
Ending = tuple[str, str | None] | None


class RefusedJSON(TypedDict):
    """:meth:`ImportRefused.to_json`: the answer of a refused import (docs/http-api.md)."""

    error: str
    code: str
    reason: str
    values: NotRequired[dict[str, str | int]]


class Origin(TypedDict, total=False):
    """Where an imported game came from, as the store keeps it (its ``imported`` event): the
    file's ``format`` and ``name`` and the game's :func:`fingerprint`; an ``.otg`` file's tags,
    rules tag, comments (by ply), puzzle, variation count and house rules; a CSV record's number,
    status and variant (with how the variant was ``found`` and every one that ``fits``)."""

    format: str
    name: str
    fingerprint: str
    tags: dict[str, str]
    rules_tag: str
    comments: dict[str, str]
    puzzle: Puzzle
    variations: int
    house_rules: list[str]
    record: int
    status: str
    variant: str
    found: str
    fits: list[str]


@dataclass
class ImportRefused(Exception):
    """A file that is not imported: HTTP ``status``, the English ``message`` and, for the page's
    wording, ``reason`` (docs/http-api.md) with its ``values``."""

    status: int
    message: str
    reason: str
    values: dict[str, str | int] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message

    def to_json(self) -> RefusedJSON:
        out: RefusedJSON = {"error": self.message, "code": "import_refused",
                            "reason": self.reason}
        if self.values:
            out["values"] = self.values
        return out


@dataclass
class Upload:
    """One game of an uploaded file: the game, what the store keeps about its origin (name,
    format, tags, comments, the rules' house rules, its :func:`fingerprint`), and its ending
    when the rules did not end it."""

    game: Game
    origin: Origin
    ending: Ending = None
    players: tuple[str, str] = ("", "")


def fingerprint(game: Game, players: tuple[str, str], result: str, day: str,
                record: int = 0) -> str:
    """The identity of an imported game (see the module docstring), as a hex digest."""
    rules = {k: v for k, v in game.rules.shown_json().items() if k != "name"}
    doc = {"rules": rules, "start": [game.start_position, game.start_turn],
           "moves": game.moves, "players": list(players), "result": result, "day": day,
           "record": record}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def parse_upload(name: str, text: str, variant: str | None) -> list[Upload]:
    """The games of an uploaded file (``.otg`` or CSV records); ImportRefused says why not."""
    if not text.strip():
        raise ImportRefused(422, f"{name}: the file is empty", "empty")
    if text.lstrip().startswith("[") or name.lower().endswith(".otg"):
        return [_otg(name, text)]
    return _csv(name, text, variant)


def _otg(name: str, text: str) -> Upload:
    try:
        got = import_otg(text)
    except RuleNotSupported as exc:
        raise ImportRefused(422, f"{name}: {exc}", "rule", {"rule": exc.rule}) from None
    except OtgMoveError as exc:
        raise ImportRefused(422, f"{name}: {exc}", "disagrees", {"ply": exc.ply}) from None
    except OtgError as exc:
        raise ImportRefused(422, f"{name}: {exc}", "malformed") from None
    rules, house = as_preset(got.rules)
    game = got.game
    if rules is not game.rules:  # the same rules, called by the preset's name
        replayed = Game(rules, game.start_position, game.start_turn)
        for played in game.played:
            replayed.play(played.move)
        if game.manual_outcome is not None and not replayed.is_over():
            replayed.end(game.manual_outcome)
        game = replayed
    ending = _ending(game, got.tags.get("termination", ""))
    tags = {k: v for k, v in got.tags.items()
            if k not in ("rules", "companion-rules", "start-comment")}
    for side, player in (("attackers", got.attackers), ("defenders", got.defenders)):
        if side in tags:
            tags[side] = player  # checked by the reader: 1-40 printable characters
    players = (got.attackers, got.defenders)
    day = got.date.isoformat() if got.date else ""
    origin: Origin = {
        "format": "otg", "name": name, "tags": tags,
        "rules_tag": got.tags["rules"],
        "fingerprint": fingerprint(game, players, game.result, day),
    }
    if got.comments:
        origin["comments"] = {str(ply): note for ply, note in sorted(got.comments.items())}
    if got.puzzle is not None:
        origin["puzzle"] = got.puzzle
    if got.variations:
        origin["variations"] = got.variations  # not replayed: the main line is the game
    if house:
        origin["house_rules"] = sorted(house)
    return Upload(game, origin, ending, players)


#: Words of an OpenTafl ``termination`` tag (free text: "Black resigns") that say how a game
#: ended off the board.
_HOW = (("resign", Termination.RESIGNATION), ("time", Termination.TIME),
        ("clock", Termination.TIME), ("agree", Termination.AGREEMENT))


def _ending(game: Game, termination: str) -> Ending:
    """The ending of a game whose result tag decided it (the rules did not): the reason its
    ``termination`` tag gives, else none (the file says who won, not how)."""
    manual = game.manual_outcome
    if manual is None:
        return None
    words = termination.lower()
    for word, how in _HOW:
        if word in words and (how == Termination.AGREEMENT) == (manual.winner is None):
            return manual.result, str(how)
    return manual.result, None


def _csv(name: str, text: str, variant: str | None) -> list[Upload]:
    if variant is not None and variant not in PRESETS:
        raise ImportRefused(400, f"unknown variant {variant!r}", "variant", {"variant": variant})
    try:
        records = read_records(text)
    except RecordError as exc:
        raise ImportRefused(422, f"{name}: {exc}", "malformed") from None
    if not records:
        raise ImportRefused(422, f"{name}: no game records in the file", "no_games")
    if len(records) > MAX_IMPORT_GAMES:
        raise ImportRefused(422, f"{name}: {len(records)} games; import at most "
                            f"{MAX_IMPORT_GAMES} at a time", "too_many",
                            {"n": len(records), "most": MAX_IMPORT_GAMES})
    found: Origin = {}
    if variant is None:  # the file does not say it: found from its header or its moves
        fit = find_variant(text, records)
        if fit.variant is None:
            nearest = f" (nearest: {fit.nearest}, {fit.problem})" if fit.nearest else \
                f" ({fit.problem})"
            raise ImportRefused(422, f"{name}: the moves fit no variant{nearest}; choose the "
                                "variant on the import form", "no_variant",
                                {"nearest": fit.nearest or ""})
        variant, found = fit.variant, {"found": fit.how, "fits": list(fit.fits)}
    rules = get_variant(variant)
    out = []
    for i, record in enumerate(records, 1):
        game, problem = replay_record(rules, record)
        if problem:
            raise ImportRefused(422, f"{name}: game {i}, move {problem[0]}: {problem[1]}",
                                "disagrees", {"game": i, "ply": problem[0]})
        ending: Ending = None
        result = game.result
        if not game.is_over() and record.result in ("attackers", "defenders", "draw"):
            # the record says who won (or a draw) but the rules did not end the game: on time
            # with a "timeout" token, else it does not say how: stored without a reason
            ending = (record.result, "time" if record.timeout and record.result != "draw"
                      else None)
            result = record.result
        data: Origin = {"format": "csv", "name": name, "record": i, "status": record.status,
                        "variant": variant}
        data.update(found)
        data["fingerprint"] = fingerprint(game, ("", ""), result, "", i)
        out.append(Upload(game, data, ending))
    return out
