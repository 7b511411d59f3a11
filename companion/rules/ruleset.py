"""Rule sets as values, and the named presets (docs/rules.md describes every field and preset).

A :class:`RuleSet` has exactly the fields of the rules specification's schema; a preset is a
named instance. Users may build more with :meth:`RuleSet.with_options`.

>>> PRESETS["brandubh"].size
7
>>> PRESETS["copenhagen"].with_options(chain_capture=True).chain_capture
True
>>> Side.ATTACKERS == "attackers"            # a Side is its string (JSON, the store, the page)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any, NotRequired, TypedDict

from ..squares import SquareError, parse_square


class Side(StrEnum):
    """The two sides. A ``StrEnum``: each member *is* its string (``Side.ATTACKERS ==
    "attackers"``, also as a dict key and in JSON), so plain strings from files and the network
    compare equal to it.

    >>> Side("defenders")
    <Side.DEFENDERS: 'defenders'>
    >>> Side.ATTACKERS.opponent
    <Side.DEFENDERS: 'defenders'>
    >>> f"the {Side.DEFENDERS} move"
    'the defenders move'
    """

    ATTACKERS = "attackers"  #: the larger army, around the edge
    DEFENDERS = "defenders"  #: the king's side

    @property
    def opponent(self) -> Side:
        """The other side.

        >>> Side.DEFENDERS.opponent
        <Side.ATTACKERS: 'attackers'>
        """
        return Side.DEFENDERS if self is Side.ATTACKERS else Side.ATTACKERS


ATTACKERS = Side.ATTACKERS
DEFENDERS = Side.DEFENDERS
KING = "king"


def other(side: str) -> Side:
    """The opponent of ``side`` (a :class:`Side` or its string).

    >>> other("attackers")
    <Side.DEFENDERS: 'defenders'>
    """
    return DEFENDERS if side == ATTACKERS else ATTACKERS
SIDES = (ATTACKERS, DEFENDERS)
#: The board sizes a rule set may have (5x5 for OpenTafl's small puzzles; the presets are 7+).
MIN_SIZE, MAX_SIZE = 5, 19
ALL_HOSTILE = frozenset({ATTACKERS, DEFENDERS, KING})
KING_ONLY = frozenset({KING})
NONE_HOSTILE: frozenset[str] = frozenset()

_CHOICES = {
    "first": SIDES,
    "escape": ("corners", "edge"),
    # strong_on_throne: strong on the throne only, weak elsewhere (hnefatafl.org's brandubh)
    "king_strength": ("strong", "strong_by_throne", "strong_on_throne", "weak"),
    "throne_stop": ("king", "king_once", "nobody", "anyone"),
    "throne_pass": ("all", "king", "nobody"),
    # restricted squares: none, the 4 corner squares, the 2x2 block at each corner, or the
    # squares ``corner_squares`` names (an OpenTafl rule set's own corners, e.g. one corner)
    "corners": ("none", "single", "block", "custom"),
    "shieldwall": ("off", "on", "corners"),  # "corners": on, and a corner may close one end
    "repetition": ("off", "draw", "defenders_lose"),
    "no_moves": ("loss", "draw"),
}


class RulesJSON(TypedDict):
    """:meth:`RuleSet.to_json`: every field, sets as sorted lists, ``first`` a plain string."""

    id: str
    name: str
    size: int
    start: str
    first: str
    escape: str
    king_strength: str
    king_armed: bool
    throne_stop: str
    throne_pass: str
    corners: str
    hostile_corners: list[str]
    hostile_throne_empty: list[str]
    linnaean_capture: bool
    shieldwall: str
    exit_fort: bool
    encirclement: bool
    repetition: str
    no_moves: str
    sheltered_king: bool
    chain_capture: bool
    corner_squares: list[str]
    throne_square: str
    source: NotRequired[str]  # dropped where a game's rules are shown


@dataclass(frozen=True)
class RuleSet:
    """One tafl rule set (see docs/rules.md, "What each rule value means"). Equal rule sets
    have the same rules (``source`` aside); values are checked when it is made.

    >>> mine = RuleSet(id="mine", name="Brandubh, edge escape", size=7,
    ...                start=PRESETS["brandubh"].start, escape="edge", corners="none",
    ...                hostile_corners=frozenset())
    >>> mine.escape, mine.first
    ('edge', <Side.ATTACKERS: 'attackers'>)
    >>> RuleSet(id="x", name="x", size=7, start="/7/7/7/3K3/7/7/7/", escape="sideways")
    Traceback (most recent call last):
    ...
    ValueError: rule set 'x': escape must be one of corners, edge, not 'sideways'
    """

    id: str
    name: str
    size: int
    start: str
    first: str = ATTACKERS
    escape: str = "corners"
    king_strength: str = "strong"
    king_armed: bool = True
    throne_stop: str = "king"
    throne_pass: str = "all"
    corners: str = "single"
    hostile_corners: frozenset[str] = ALL_HOSTILE
    hostile_throne_empty: frozenset[str] = ALL_HOSTILE
    linnaean_capture: bool = False
    shieldwall: str = "off"
    exit_fort: bool = False
    encirclement: bool = False
    repetition: str = "draw"
    no_moves: str = "loss"
    sheltered_king: bool = False
    chain_capture: bool = False
    #: with ``corners == "custom"``: the restricted (corner) squares, by name
    corner_squares: frozenset[str] = frozenset()
    #: the throne's square by name; ``""`` is the middle square (every preset)
    throne_square: str = ""
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.first in SIDES:
            object.__setattr__(self, "first", Side(self.first))
        if not MIN_SIZE <= self.size <= MAX_SIZE:
            raise ValueError(f"rule set {self.id!r}: size must be {MIN_SIZE}..{MAX_SIZE}, not "
                             f"{self.size}")
        if self.size % 2 == 0 and self.throne_stop != "anyone" and not self.throne_square:
            raise ValueError(f"rule set {self.id!r}: a throne needs an odd board size")
        self._check_squares()
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(
                    f"rule set {self.id!r}: {name} must be one of {', '.join(allowed)}, "
                    f"not {value!r}"
                )
        if self.escape == "corners" and self.corners == "none":
            raise ValueError(f"rule set {self.id!r}: corner escape needs corners (not 'none')")
        for name in ("hostile_corners", "hostile_throne_empty"):
            value = getattr(self, name)
            if not isinstance(value, frozenset) or not value <= ALL_HOSTILE:
                raise ValueError(
                    f"rule set {self.id!r}: {name} must be a subset of attackers/defenders/king"
                )

    def _check_squares(self) -> None:
        if not isinstance(self.corner_squares, frozenset):
            raise ValueError(f"rule set {self.id!r}: corner_squares must be a frozenset")
        if (self.corners == "custom") != bool(self.corner_squares):
            raise ValueError(f"rule set {self.id!r}: corner_squares are given with corners "
                             "'custom', and only then")
        named = [("corner", s) for s in _names(self.corner_squares)]
        if self.throne_square:
            named.append(("throne", self.throne_square))
        for what, name in named:
            try:
                parse_square(name, self.size)
            except (SquareError, TypeError) as exc:
                raise ValueError(f"rule set {self.id!r}: {what} square: {exc}") from None
        if self.throne_square in self.corner_squares:
            raise ValueError(f"rule set {self.id!r}: the throne {self.throne_square} is a corner")

    @property
    def has_throne(self) -> bool:
        """Whether the centre square is special (``throne_stop`` is not ``anyone``).

        >>> PRESETS["copenhagen"].has_throne, PRESETS["tawlbwrdd"].has_throne
        (True, False)
        """
        return self.throne_stop != "anyone"

    def to_json(self) -> RulesJSON:
        """JSON-ready dict of every field (sets as sorted lists).

        >>> doc = PRESETS["brandubh"].to_json()
        >>> doc["id"], doc["size"], doc["hostile_corners"]
        ('brandubh', 7, ['attackers', 'defenders', 'king'])
        >>> list(doc) == [f.name for f in fields(RuleSet)]
        True
        """
        return {
            "id": self.id, "name": self.name, "size": self.size, "start": self.start,
            "first": str(self.first),  # plain strings, not Side members
            "escape": self.escape, "king_strength": self.king_strength,
            "king_armed": self.king_armed, "throne_stop": self.throne_stop,
            "throne_pass": self.throne_pass, "corners": self.corners,
            "hostile_corners": _names(self.hostile_corners),
            "hostile_throne_empty": _names(self.hostile_throne_empty),
            "linnaean_capture": self.linnaean_capture, "shieldwall": self.shieldwall,
            "exit_fort": self.exit_fort, "encirclement": self.encirclement,
            "repetition": self.repetition, "no_moves": self.no_moves,
            "sheltered_king": self.sheltered_king, "chain_capture": self.chain_capture,
            "corner_squares": _names(self.corner_squares),
            "throne_square": self.throne_square, "source": self.source,
        }

    def shown_json(self) -> RulesJSON:
        """:meth:`to_json` without the specification's source notes (what a page shows).

        >>> "source" in PRESETS["brandubh"].shown_json(), "source" in PRESETS["brandubh"].to_json()
        (False, True)
        """
        out = self.to_json()
        del out["source"]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RuleSet:  # JSON edge: parsed, not checked yet
        """The rule set :meth:`to_json` wrote (unknown keys ignored; ValueError/TypeError for
        values that do not make a rule set).

        >>> RuleSet.from_json(PRESETS["brandubh"].to_json()) == PRESETS["brandubh"]
        True
        >>> corner = PRESETS["brandubh"].with_options(corners="custom", corner_squares={"g7"})
        Traceback (most recent call last):
        ...
        ValueError: rule set 'brandubh': corner_squares must be a frozenset
        """
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        for key in ("hostile_corners", "hostile_throne_empty", "corner_squares"):
            if key in values:
                if not isinstance(values[key], list | tuple):
                    raise TypeError(f"{key} must be a list")
                values[key] = frozenset(values[key])
        return cls(**values)

    def with_options(self, **changes: Any) -> RuleSet:
        """A copy with some fields changed (checked like a new rule set).

        >>> mine = PRESETS["copenhagen"].with_options(id="mine", shieldwall="off")
        >>> mine.shieldwall, PRESETS["copenhagen"].shieldwall
        ('off', 'corners')
        >>> PRESETS["copenhagen"].with_options(size=12)
        Traceback (most recent call last):
        ...
        ValueError: rule set 'copenhagen': a throne needs an odd board size
        """
        return replace(self, **changes)


def _names(values: frozenset[str]) -> list[str]:
    """A set of sides/pieces/squares as JSON: plain strings (not Side members), sorted."""
    return sorted(str(v) for v in values)


_COPENHAGEN_START = "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
_NINE_START = "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/"
_ALEA_START = (
    "/2t2t7t2t2/19/t4t7t4t/7t1t1t7/6t1T1T1t6/t1t2t7t2t1t/4t4T4t4/3t4T1T4t3/"
    "4T2T1T1T2T4/3t2T1TKT1T2t3/4T2T1T1T2T4/3t4T1T4t3/4t4T4t4/t1t2t7t2t1t/"
    "6t1T1T1t6/7t1t1t7/t4t7t4t/19/2t2t7t2t2/"
)

COPENHAGEN = RuleSet(
    id="copenhagen", name="Copenhagen Hnefatafl", size=11, start=_COPENHAGEN_START,
    shieldwall="corners", exit_fort=True, encirclement=True, repetition="defenders_lose",
    no_moves="loss", source="seed 000/004 §Copenhagen, WTF rules",
)

_BUILT_IN = (
        COPENHAGEN,
        RuleSet(
            id="fetlar", name="Fetlar Hnefatafl", size=11, start=_COPENHAGEN_START,
            repetition="draw", no_moves="draw", source="seed 000/004 §Fetlar",
        ),
        RuleSet(
            id="koenigszabel", name="Königszabel Hnefatafl", size=11,
            start=_COPENHAGEN_START, hostile_throne_empty=KING_ONLY, repetition="draw",
            no_moves="draw", source="seed 001",
        ),
        RuleSet(
            id="helmfrid-11", name="Helmfrid Hnefatafl 11×11", size=11,
            start=_COPENHAGEN_START, king_strength="strong_by_throne", repetition="off",
            no_moves="loss", source="seed 003",
        ),
        RuleSet(
            id="helmfrid-9", name="Helmfrid Hnefatafl 9×9", size=9,
            start=_NINE_START, king_strength="strong_by_throne", repetition="off",
            no_moves="loss", source="seed 003",
        ),
        RuleSet(
            id="tablut", name="Tablut", size=9, start=_NINE_START,
            escape="edge", throne_stop="king_once", hostile_throne_empty=KING_ONLY,
            repetition="off", no_moves="loss", source="seed 002, seed 000 §Tablut",
        ),
        RuleSet(
            id="tablut-linnaeus", name="Tablut, weak king",
            size=9, start=_NINE_START, escape="edge", king_strength="strong_by_throne",
            throne_stop="nobody", corners="none", hostile_corners=NONE_HOSTILE,
            linnaean_capture=True, repetition="draw", no_moves="draw",
            source="seed 000 §Geschichte; OpenTafl's Tablut",
        ),
        RuleSet(
            id="brandubh", name="Brandubh", size=7, start="/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
            king_strength="strong_by_throne", encirclement=True, repetition="defenders_lose",
            no_moves="loss", source="seed 000/004 board list; aagenielsen.dk",
        ),
        RuleSet(
            id="ard-ri", name="Ard Rí", size=7,
            start="/2ttt2/3t3/t1TTT1t/ttTKTtt/t1TTT1t/3t3/2ttt2/",
            escape="edge", corners="none", hostile_corners=NONE_HOSTILE, repetition="draw",
            no_moves="loss", source="seed 000 board list",
        ),
        RuleSet(
            id="tawlbwrdd", name="Tawlbwrdd", size=11,
            start="/4ttt4/4t1t4/5t5/5T5/tt2TTT2tt/t1tTTKTTt1t/tt2TTT2tt/5T5/5t5/4t1t4/4ttt4/",
            escape="edge", king_strength="weak", throne_stop="anyone", corners="none",
            hostile_corners=NONE_HOSTILE, hostile_throne_empty=NONE_HOSTILE, repetition="draw",
            no_moves="loss", source="seed 000/004 board list; OpenTafl",
        ),
        RuleSet(
            id="copenhagen-13", name="Hnefatafl 13×13", size=13,
            start="/3ttttttt3/6t6/13/t5T5t/t5T5t/t4TTT4t/tt1TTTKTTT1tt/t4TTT4t/t5T5t/t5T5t/13/"
            "6t6/3ttttttt3/",
            shieldwall="corners", exit_fort=True, encirclement=True,
            repetition="defenders_lose", no_moves="loss",
            source="seed 000; hnefatafl.org setup",
        ),
        RuleSet(
            id="alea-evangelii", name="Alea Evangelii", size=19, start=_ALEA_START,
            throne_stop="nobody", corners="block", repetition="draw", no_moves="loss",
            source="seed 000/004 board list; OpenTafl",
        ),
)
_BUILT_IN_BY_ID = {r.id: r for r in _BUILT_IN}

# The hnefatafl.org server's rule sets (:mod:`.hnefatafl_org` explains them and holds the house
# rules a RuleSet cannot express): presets too, since its online games are stored under them.
_SERVER = "hnefatafl-server-full 6.x (board.rs, game.rs)"
_SOLDIERS = frozenset({ATTACKERS, DEFENDERS})
_SERVER_RULESETS = (  # by board size, as `rules variants` lists them
    _BUILT_IN_BY_ID["brandubh"].with_options(
        id="hnefatafl-org-7", name="Brandubh (hnefatafl.org)", first=DEFENDERS,
        king_strength="strong_on_throne", hostile_corners=_SOLDIERS,
        hostile_throne_empty=_SOLDIERS, shieldwall="corners", exit_fort=False,
        encirclement=True, repetition="off", source=_SERVER,
    ),
    COPENHAGEN.with_options(
        id="hnefatafl-org", name="Copenhagen Hnefatafl (hnefatafl.org)", repetition="off",
        source=_SERVER,
    ),
    _BUILT_IN_BY_ID["copenhagen-13"].with_options(
        id="hnefatafl-org-13", name="Hnefatafl 13×13 (hnefatafl.org)", repetition="off",
        source=_SERVER,
    ),
)

#: Every named rule set by id, built once and read-only (a ``MappingProxyType``): the project's
#: presets, then the hnefatafl.org server's. Make your own with :meth:`RuleSet.with_options`.
#:
#: >>> list(PRESETS)[:3]
#: ['copenhagen', 'fetlar', 'koenigszabel']
PRESETS: Mapping[str, RuleSet] = MappingProxyType(
    {**_BUILT_IN_BY_ID, **{r.id: r for r in _SERVER_RULESETS}})


def get_variant(variant_id: str) -> RuleSet:
    """The preset called ``variant_id``; ValueError naming the known ids otherwise.

    >>> get_variant("tablut").name
    'Tablut'
    >>> get_variant("chess")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown variant 'chess' (known: copenhagen, fetlar, ...)
    """
    try:
        return PRESETS[variant_id]
    except KeyError:
        raise ValueError(
            f"unknown variant {variant_id!r} (known: {', '.join(PRESETS)})"
        ) from None
