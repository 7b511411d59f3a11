"""A board-to-board game on the broker: what each board publishes for the other.

Each board of a pair publishes ONE retained document on ``tafl/{club}/{me}/play/{peer}``
(QoS 1), its whole side of the game, with a sequence number that only grows::

    {"v": 1, "from": "table-1", "to": "table-2", "seq": 42,
     "offer": null | {"id": "table-1/8f3a...", "terms": TERMS},     a proposal for a new game
     "game": null | {"ref": "table-1/8f3a...", "terms": TERMS,      the agreed game
                     "moves": ["d4-d2", ...],                        every move, in order
                     "takebacks": 0,                                 takebacks made at this board
                     "draw": null | {"n": 1, "side": "attackers", "action": "offer"},
                     "resign": null | "defenders",
                     "flag": null | "attackers",                     this board's side lost on time
                     "ended": null | {"result": "draw", "reason": "agreement"},   as ended here
                     "clock": null | {"attackers": 291.4, "defenders": 300.0,
                                      "running": "defenders", "wall": 1700000000.0}}}
    TERMS = {"variant": "brandubh", "options": {...house rules}, "time_control": "5+3"|"none",
             "sides": {"table-1": "attackers", "table-2": "defenders"}}

Because every document carries the whole game, a lost, repeated or late message changes
nothing: the receiver keeps the one with the highest ``seq`` and compares the game with its
own. The checks here are structural; the moves are checked by the rules in the club player.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from companion.club.topics import PayloadError, float_field, int_field, str_field
from companion.rules import ATTACKERS, DEFENDERS, other
from companion.session.remote import (
    GameSettings,
    RemoteDraw,
    RemoteEnd,
    RemoteEvent,
    RemoteResign,
    SettingsError,
    TimeControl,
)

SIDES = (ATTACKERS, DEFENDERS)
MAX_MOVES = 2000


class TermsJSON(TypedDict):
    """TERMS of the module docstring."""

    variant: str
    options: dict[str, object]
    time_control: str
    sides: dict[str, str]


class OfferJSON(TypedDict):
    """A proposal for a new game: its id and terms."""

    id: str
    terms: TermsJSON


class DrawJSON(TypedDict):
    """A draw offer or answer at a board (numbered: a new one has a higher ``n``)."""

    n: int
    side: str
    action: str


class EndedJSON(TypedDict):
    """How the agreed game ended at the board that says so."""

    result: str
    reason: str | None


class ClockReading(TypedDict):
    """A board's clock reading: seconds left per side, the side whose clock runs, and the wall
    time it was read (None: a peer sent none)."""

    attackers: float | None
    defenders: float | None
    running: str | None
    wall: float | None


class GameJSON(TypedDict):
    """The agreed game in a board's document (``ended`` and ``flag`` once they happened)."""

    ref: str
    terms: TermsJSON
    moves: list[str]
    takebacks: int
    draw: DrawJSON | None
    resign: str | None
    clock: ClockReading | None
    ended: NotRequired[EndedJSON]
    flag: NotRequired[str]


class PlayJSON(TypedDict):
    """A board's document for its peer without the envelope (``v``, ``from``, ``to``,
    ``accepts``): its sequence number, its offer, the agreed game."""

    seq: int
    offer: OfferJSON | None
    game: GameJSON | None


class Seen(TypedDict, total=False):
    """What a board has read of the peer's document: its ``seq``, the agreed game's ``ref``,
    the peer's takebacks counted, its latest draw number, its resignation and flag, the wall
    time of its last clock reading."""

    seq: int
    ref: str
    takebacks: int
    draw: int
    resign: str | None
    flag: str | None
    clock: float | None


@dataclass(frozen=True)
class Terms:
    """What both boards agree on before the first move."""

    settings: GameSettings
    time_control: TimeControl | None
    sides: tuple[tuple[str, str], ...]  # (board, side), sorted by board

    def side_of(self, board: str) -> str:
        return dict(self.sides)[board]

    def to_json(self) -> TermsJSON:
        return {"variant": self.settings.variant, "options": dict(self.settings.options),
                "time_control": self.time_control.text if self.time_control else "none",
                "sides": dict(self.sides)}

    def mirrors(self, other: Terms) -> bool:
        return self == other


def terms_from_json(doc: object, boards: tuple[str, str]) -> Terms:
    """Checked terms between ``boards`` (PayloadError naming the problem)."""
    if not isinstance(doc, Mapping):
        raise PayloadError("terms must be an object")
    options = doc.get("options") or {}
    if not isinstance(options, Mapping) or len(options) > 20:
        raise PayloadError("terms.options must be an object of house rules")
    try:
        settings = GameSettings.make(doc.get("variant"), dict(options), "terms: ")
    except SettingsError as exc:
        raise PayloadError(str(exc)) from None
    tc_text = doc.get("time_control", "none")
    if not isinstance(tc_text, str) or len(tc_text) > 40:
        raise PayloadError("terms.time_control must be a text such as 5+3 or none")
    try:
        tc = TimeControl.parse(tc_text)
    except ValueError as exc:
        raise PayloadError(f"terms: {exc}") from None
    sides = doc.get("sides")
    if (not isinstance(sides, Mapping) or set(sides) != set(boards)
            or sorted(str(v) for v in sides.values()) != sorted(SIDES)):
        raise PayloadError(f"terms.sides must give {boards[0]} and {boards[1]} one side each")
    return Terms(settings, tc, tuple(sorted((str(k), str(v)) for k, v in sides.items())))


@dataclass(frozen=True)
class Draw:
    n: int
    side: str
    action: str


@dataclass(frozen=True)
class PeerGame:
    ref: str
    terms: Terms
    moves: tuple[str, ...]
    takebacks: int
    draw: Draw | None
    resign: str | None
    clock: ClockReading | None
    flag: str | None = None


@dataclass(frozen=True)
class PeerDoc:
    """A checked document of the other board."""

    seq: int
    offer: tuple[str, Terms] | None
    game: PeerGame | None
    accepts: bool = False  # the peer accepts this board's offers by itself


def _side(value: object, what: str) -> str:
    if value not in SIDES:
        raise PayloadError(f"{what} must be attackers or defenders")
    return str(value)


def parse_peer_doc(doc: Mapping[str, object], peer: str, me: str) -> PeerDoc:
    """The other board's document, checked (PayloadError: ignored, nothing changes)."""
    if doc.get("v") != 1:
        raise PayloadError(f"unknown version {doc.get('v')!r} (this board speaks 1)")
    if doc.get("from") != peer or doc.get("to") != me:
        raise PayloadError(f"a document from {doc.get('from')!r} to {doc.get('to')!r} on the "
                           f"topic of {peer} to {me}")
    boards = (me, peer)
    seq = int_field(doc, "seq", 1)
    offer = None
    raw = doc.get("offer")
    if raw is not None:
        if not isinstance(raw, Mapping):
            raise PayloadError("offer must be an object")
        oid = str_field(raw, "id", 80)
        assert oid is not None
        offer = (oid, terms_from_json(raw.get("terms"), boards))
    game = None
    raw = doc.get("game")
    if raw is not None:
        if not isinstance(raw, Mapping):
            raise PayloadError("game must be an object")
        ref = str_field(raw, "ref", 80)
        assert ref is not None
        moves = raw.get("moves")
        if (not isinstance(moves, list) or len(moves) > MAX_MOVES
                or not all(isinstance(m, str) and 0 < len(m) < 40 for m in moves)):
            raise PayloadError(f"game.moves must be a list of at most {MAX_MOVES} move texts")
        draw = None
        if raw.get("draw") is not None:
            d = raw["draw"]
            if not isinstance(d, Mapping) or d.get("action") not in ("offer", "accept",
                                                                     "decline"):
                raise PayloadError("game.draw must be {n, side, action: offer|accept|decline}")
            draw = Draw(int_field(d, "n", 1), _side(d.get("side"), "game.draw.side"),
                        str(d["action"]))
        resign = None if raw.get("resign") is None else _side(raw["resign"], "game.resign")
        clock: ClockReading | None = None
        c = raw.get("clock")
        if c is not None:
            if not isinstance(c, Mapping):
                raise PayloadError("game.clock must be an object")
            clock = {"attackers": max(0.0, float_field(c, ATTACKERS) or 0.0),
                     "defenders": max(0.0, float_field(c, DEFENDERS) or 0.0),
                     "wall": float_field(c, "wall"),
                     "running": None if c.get("running") is None else _side(
                         c.get("running"), "game.clock.running")}
        flag = None if raw.get("flag") is None else _side(raw["flag"], "game.flag")
        game = PeerGame(ref, terms_from_json(raw.get("terms"), boards), tuple(moves),
                        int_field(raw, "takebacks", 0, 10**6), draw, resign, clock, flag)
    return PeerDoc(seq, offer, game, doc.get("accepts") is True)


def decisions(peer: PeerGame, peer_side: str, seen: Seen) -> list[RemoteEvent]:
    """The peer's decisions not seen yet (``seen`` is updated): its draw offer or answer, its
    resignation, its side's loss on time there."""
    out: list[RemoteEvent] = []
    if peer.draw is not None and peer.draw.n > int(seen.get("draw", 0)):
        seen["draw"] = peer.draw.n
        out.append(RemoteDraw(peer.draw.side, peer.draw.action))
    if peer.resign and seen.get("resign") != peer.resign:
        seen["resign"] = peer.resign
        out.append(RemoteResign(peer.resign))
    if peer.flag == peer_side and seen.get("flag") != peer.flag:
        seen["flag"] = peer.flag
        out.append(RemoteEnd(other(peer_side), "time"))
    return out
