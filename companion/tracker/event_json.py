"""The tracker's events, faults and guidance as JSON, as types: what :meth:`Event.payload
<companion.tracker.events.Event.payload>` gives per event class (:data:`EventData`), what a
fault's code names (:data:`FaultDetails`) and the guidance's data (:class:`GuidanceData`);
docs/events.md lists every field. Squares are named here (``"e4"``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, TypedDict

if TYPE_CHECKING:
    from ..rules import Move

KnockJSON = TypedDict("KnockJSON", {"from": str, "to": str, "piece": str | None})

#: :meth:`Fault.details`: the fields a fault's code names (docs/events.md), squares named.
FaultDetails = TypedDict("FaultDetails", {
    "from": str, "to": str, "square": str, "piece": str | None, "turn": str, "side": str,
    "colour": str, "expected": str, "expected_from": str, "expected_to": str,
    "knocks": list[KnockJSON], "squares": list[str], "pieces": list[str], "new": list[str],
}, total=False)


#: A captured piece a takeback carries home (``setup`` guidance's ``back``).
Back = TypedDict("Back", {"piece": str, "from": str, "to": str})


class GuidanceData(FaultDetails, total=False):
    """:attr:`Guidance.data`: the fields of every guidance kind (see :class:`GuidanceKind` for
    which kind has which)."""

    code: str
    colours: dict[str, str]
    fill: dict[str, str]
    clear: list[str]
    recolour: dict[str, str]
    back: list[Back]
    result: str
    reason: str
    winner: str | None
    move: str
    captured: list[str]
    lifted: bool
    wrong: str
    wrong_piece: str | None


class GuidanceJSON(GuidanceData, total=False):
    """:meth:`Guidance.to_json`: the data and its ``kind``."""

    kind: str


class FaultFields(TypedDict, total=False):
    """The :class:`Fault` fields a code's wording needs, as its maker finds them (the
    keywords of ``Fault(...)``)."""

    at: int
    turn: str
    side: str | None
    colour: str
    expected: Move
    expected_text: str


# -- events ------------------------------------------------------------------------------------

#: :meth:`MoveEvent.payload`.
MoveData = TypedDict("MoveData", {"move": str, "side": str, "captured": list[str], "from": str,
                                  "to": str, "ply": int, "placed_at": float})


class RevisedData(MoveData):
    """:meth:`MoveRevised.payload`: the move and the record text of the move it replaces."""

    replaces: str


class TakebackData(TypedDict):
    """:meth:`MoveTakenBack.payload`."""

    move: str
    side: str
    ply: int


class OutcomeData(TypedDict):
    """:meth:`GameOver.payload` (``result`` ``ongoing``, ``reason`` ``revised``: un-ended)."""

    result: str
    reason: str


class RemovedData(TypedDict):
    """:meth:`PieceRemoved.payload`."""

    square: str
    lifted_at: float


class SquareData(TypedDict):
    """:meth:`PieceRestored.payload`."""

    square: str


class FaultData(FaultDetails):
    """:meth:`FaultFlagged.payload`: the code, the English reason, the code's fields and
    (``illegal``) the LED frame."""

    code: str
    reason: str
    leds: NotRequired[dict[str, str]]


class SetupData(TypedDict):
    """:meth:`SetupNeeded.payload`."""

    message: str
    fill: list[str]
    clear: list[str]
    recolour: list[str]
    pieces: dict[str, str]


class ReadyData(TypedDict):
    """:meth:`Ready.payload`."""

    turn: str


class LedsData(TypedDict):
    """:meth:`LedsChanged.payload`."""

    leds: dict[str, str]


#: What an event's :meth:`Event.payload` is, by its class.
EventData = (MoveData | RevisedData | TakebackData | OutcomeData | RemovedData | SquareData
             | FaultData | SetupData | ReadyData | LedsData)
