"""The store's rows as plain data: a stored game (:class:`GameRow`) and match
(:class:`MatchRow`), read by :mod:`companion.store_reads`, and the rule set a stored game is
replayed by (:func:`rules_of`). Nothing here touches SQLite."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from companion.rules import PRESETS, RuleSet, get_variant
from companion.rules.otg_rules import OWN_RULES
from companion.rules.ruleset import RulesJSON
from companion.store_types import (
    GameJSON,
    GameSettingsJSON,
    ImportedJSON,
    MatchResult,
    MatchRowJSON,
    MatchSettings,
    PlayerJSON,
)

#: Endings that are not on the board; replayed onto a loaded Game.
MANUAL_REASONS = ("agreement", "resignation", "time")
#: Reasons of a closed game that are not an ending (no result to restore).
NOT_ENDINGS = (None, "abandoned", "imported")

class StoreError(LookupError):
    """A game or match that does not exist, or a change a finished game does not allow."""


@dataclass(frozen=True)
class GameRow:
    """One stored game (without its moves)."""

    id: int
    variant: str
    start_position: str
    start_turn: str
    started: float
    ended: float | None
    result: str
    reason: str | None
    attackers: str
    defenders: str
    plies: int = 0
    settings: str = "{}"
    players_json: str = "{}"
    time_control: str | None = None
    clock: str | None = None
    match_id: int | None = None
    match_game: int | None = None
    hints_json: str | None = None
    analysed: int = 0
    pending_json: str | None = None
    remote_json: str | None = None
    imported_json: str | None = None  # the ``imported`` event's data: where the game came from

    def imported(self) -> ImportedJSON | None:
        """For a game imported from a file: its ``name``, ``format`` and ``date`` (the day its
        file gives, ``2024-05-01``, or None: a file gives no time of day, and a CSV record no
        date at all); None for a game played here."""
        if not self.imported_json:
            return None
        data = json.loads(self.imported_json)
        if not isinstance(data, dict):
            data = {}
        tags = data.get("tags")
        if not isinstance(tags, dict):
            tags = {}
        return {"name": str(data.get("name") or ""), "format": str(data.get("format") or ""),
                "date": file_date(str(tags.get("date") or ""))}

    def remote(self) -> dict[str, Any] | None:  # JSON edge: parsed, checked by terms_from_json
        """The terms of a game with a player at a distance (``ref``, ``kind``, ``local_side``,
        ``opponent``, ...), or None for a game played here."""
        if not self.remote_json:
            return None
        data = json.loads(self.remote_json)
        return data if isinstance(data, dict) else None

    def pending(self) -> dict[str, Any] | None:  # JSON edge: parsed, checked by the session
        """The move to make stored with the game (chosen off the board, not yet made at the
        board; ``ply`` says for which position), or None."""
        if not self.pending_json:
            return None
        data = json.loads(self.pending_json)
        return data if isinstance(data, dict) else None

    @property
    def finished(self) -> bool:
        return self.ended is not None

    def players(self) -> dict[str, PlayerJSON]:
        """Side -> ``{name, kind, ...}`` (kinds default to ``board`` for old games)."""
        stored = json.loads(self.players_json or "{}")
        names = {"attackers": self.attackers, "defenders": self.defenders}
        out: dict[str, PlayerJSON] = {}
        for side, name in names.items():
            player: PlayerJSON = {"kind": "board", "name": name}
            player.update(stored.get(side, {}))  # the store's own JSON (a PlayerJSON)
            player["name"] = name
            out[side] = player
        return out

    def hints(self) -> dict[str, int]:
        """Hints given per side in this game."""
        data = json.loads(self.hints_json or "{}")
        return {s: int(data.get(s, 0)) for s in ("attackers", "defenders")}

    def settings_json(self) -> GameSettingsJSON:
        """Variant and options (house rules); for an imported rule set of its own
        (:data:`OWN_RULES`) also its ``name``."""
        data = json.loads(self.settings or "{}")
        out: GameSettingsJSON = {"variant": data.get("variant", self.variant),
                                 "options": data.get("options", {})}
        whole = data.get("rules")
        if out["variant"] == OWN_RULES and isinstance(whole, dict):
            out["name"] = str(whole.get("name") or "")
        return out

    def to_json(self) -> GameJSON:
        return {
            "id": self.id, "variant": self.variant, "started": self.started,
            "ended": self.ended, "result": self.result, "reason": self.reason,
            "players": {s: p["name"] for s, p in self.players().items()},
            "player_kinds": {s: p["kind"] for s, p in self.players().items()},
            "plies": self.plies, "finished": self.finished,
            "settings": self.settings_json(), "time_control": self.time_control,
            "match": self.match_id, "match_game": self.match_game,
            "hints": self.hints(), "analysed": bool(self.analysed),
            "imported": self.imported(),
        }


def file_date(tag: str) -> str | None:
    """An ``.otg`` date tag (``2024.05.01``) as an ISO day (``2024-05-01``), or None."""
    try:
        return _dt.datetime.strptime(tag.strip(), "%Y.%m.%d").date().isoformat()
    except ValueError:
        return None


@dataclass(frozen=True)
class MatchRow:
    id: int
    started: float
    ended: float | None
    players: tuple[str, str]
    tie_break: tuple[str, ...]
    settings: MatchSettings
    time_control: str | None
    result: MatchResult | None

    def to_json(self) -> MatchRowJSON:
        return {"id": self.id, "started": self.started, "ended": self.ended,
                "players": list(self.players), "tie_break": list(self.tie_break),
                "settings": self.settings, "time_control": self.time_control,
                "result": self.result, "finished": self.ended is not None}


LINK_KEYS = ("token", "game_id", "match_id", "side", "seat")
LINK_COLS = ", ".join(LINK_KEYS)
GAME_COLS = (
    "g.id, g.variant, g.start_position, g.start_turn, g.started, g.ended, g.result, g.reason, "
    "g.attackers, g.defenders, (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id), "
    "g.settings, g.players, g.time_control, g.clock, g.match_id, g.match_game, g.hints, "
    "(SELECT COUNT(*) FROM analyses a WHERE a.game_id = g.id), g.pending, g.remote, "
    # an imported game's first event is its ``imported`` one (Store.import_games): one look
    "(SELECT CASE WHEN e.kind = 'imported' THEN e.data END FROM events e "
    "WHERE e.game_id = g.id ORDER BY e.id LIMIT 1)"
)


def rules_of(row: GameRow) -> RuleSet:
    """A stored game's rule set: an imported game's own (stored whole, :func:`imported_settings`),
    else its variant with its stored options (the variant alone when they cannot be applied)."""
    stored = json.loads(row.settings or "{}")
    whole = stored.get("rules") if isinstance(stored, dict) else None
    if isinstance(whole, dict):
        try:
            return RuleSet.from_json(whole)
        except (TypeError, ValueError):
            pass
    data = row.settings_json()
    base = PRESETS.get(str(data.get("variant") or row.variant))
    options = data.get("options")
    if base is not None and isinstance(options, dict):
        try:
            return base.with_options(**options) if options else base
        except (TypeError, ValueError):
            pass
    return PRESETS[row.variant] if row.variant in PRESETS else get_variant(row.variant)


class ImportedSettings(TypedDict):
    """:func:`imported_settings`: the variant, its house rules and the whole rule set."""

    variant: str
    options: dict[str, object]
    rules: RulesJSON


def imported_settings(rules: RuleSet) -> ImportedSettings:
    """What an imported game's settings store: its variant (the preset of its rules' id, else
    :data:`OWN_RULES`), the rules that differ from the preset (its house rules, JSON values)
    and the whole rule set, which :func:`rules_of` reads back."""
    whole = rules.shown_json()
    preset = PRESETS.get(rules.id)
    options: dict[str, object] = {}
    if preset is not None:
        base: dict[str, object] = dict(preset.to_json())
        options = {k: v for k, v in whole.items()
                   if k not in ("id", "name", "source") and v != base.get(k)}
    return {"variant": rules.id if preset is not None else OWN_RULES, "options": options,
            "rules": whole}


def match_row(r: tuple[Any, ...]) -> MatchRow:
    players = json.loads(r[3])
    return MatchRow(r[0], r[1], r[2], (players[0], players[1]), tuple(json.loads(r[4])),
                    json.loads(r[5] or "{}"), r[6], json.loads(r[7]) if r[7] else None)




@dataclass(frozen=True)
class PuzzleAttemptRow:
    """One finished attempt at a puzzle, with the ratings before and after it."""

    puzzle: str
    game_id: int | None
    started: float
    ended: float
    solved: bool
    moves: tuple[str, ...]
    player_before: float
    player_after: float
    puzzle_before: float
    puzzle_after: float


@dataclass(frozen=True)
class StoredPuzzle:
    """A puzzle read from a file, as kept: its id, variant and JSON (companion.coach.puzzles)."""

    id: str
    variant: str
    data: Mapping[str, object]


@dataclass(frozen=True)
class PuzzleStanding:
    """A tried puzzle's rating, attempts and solves."""

    rating: float
    attempts: int
    solved: int


@dataclass(frozen=True)
class PuzzleProgress:
    """The player's puzzle rating (None before the first attempt), attempts, solves, and the
    tried puzzles by id."""

    rating: float | None
    attempts: int
    solved: int
    puzzles: dict[str, PuzzleStanding]
