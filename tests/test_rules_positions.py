"""Hand-built positions, one test per rule of shared/rules/VARIANTS.md.

Positions are written as ``{square: piece}`` dicts (``t`` attacker, ``T`` defender, ``K`` king)
and turned into OTN by :func:`otn`, so each test reads like a diagram. Unless a test says
otherwise the board is Copenhagen's 11×11 (throne f6, corners a1 a11 k1 k11).
"""

from __future__ import annotations

import pytest

from companion.rules import PRESETS, Board, MoveError, get_variant
from companion.rules.game import Game

COPENHAGEN = PRESETS["copenhagen"]


def otn(size: int, pieces: dict[str, str]) -> str:
    """OTN of a ``size``×``size`` position given as ``{"e5": "K", "d5": "t", ...}`` (built here,
    independently of the core's formatter; first record = rank 1)."""
    grid = [[""] * size for _ in range(size)]
    for square, piece in pieces.items():
        assert piece in ("t", "T", "K"), piece
        f, r = ord(square[0]) - 97, int(square[1:]) - 1
        assert 0 <= f < size and 0 <= r < size, square
        assert not grid[r][f], f"{square} given twice"
        grid[r][f] = piece
    rows = []
    for row in grid:
        out, empty = "", 0
        for cell in row:
            if cell:
                out += (str(empty) if empty else "") + cell
                empty = 0
            else:
                empty += 1
        rows.append(out + (str(empty) if empty else ""))
    return "/" + "/".join(rows) + "/"


def board(variant, pieces: dict[str, str], turn: str = "attackers", **options) -> Board:
    """A Board of a preset (id or RuleSet, with optional rule changes) in a given position."""
    rules = get_variant(variant) if isinstance(variant, str) else variant
    if options:
        rules = rules.with_options(**options)
    return Board(rules, otn(rules.size, pieces), turn)


def play(variant, pieces: dict[str, str], turn: str, move: str, **options):
    """Play ``move`` (it must be legal) in the position: ``(captured squares sorted, the king
    included, result, reason)``; result is ``"ongoing"`` while the game goes on."""
    b = board(variant, pieces, turn, **options)
    m, _ = b.parse_move(move)
    reason = b.illegal_reason(m)
    assert reason is None, f"{move} should be legal: {reason}"
    captured = b.push(m)
    outcome = b.outcome()
    names = sorted(b.name(s) for s in b.geo.iter_bits(captured))
    return names, (outcome.result if outcome else "ongoing"), (outcome.reason if outcome else None)


def legal(variant, pieces: dict[str, str], turn: str, move: str, **options) -> bool:
    """Whether ``move`` is legal in the position."""
    b = board(variant, pieces, turn, **options)
    m, _ = b.parse_move(move)
    return b.is_legal(m)


# A king parked out of the way (not on an edge, not near anything) for soldier-only tests.
PARK = {"j9": "K"}


def test_helper_matches_the_core_formatter():
    assert otn(7, {"d4": "K", "d1": "t", "a4": "t", "d3": "T"}) == "/3t3/7/3T3/t2K3/7/7/7/"
    assert Board(PRESETS["brandubh"], otn(7, {"d4": "K", "d1": "t"})).otn() == "/3t3/7/7/3K3/7/7/7/"


# -- custodial captures: only active -----------------------------------------------------------


def test_custodial_capture_of_a_soldier():
    assert play(COPENHAGEN, {"c5": "t", "d5": "T", "e8": "t", **PARK}, "attackers", "e8-e5")[
        :2
    ] == (["d5"], "ongoing")


def test_moving_between_two_enemies_is_safe():
    # a defender steps between two attackers, an attacker between two defenders: both survive
    assert play(COPENHAGEN, {"d5": "t", "f5": "t", "e8": "T", **PARK}, "defenders", "e8-e5")[
        0
    ] == []
    assert play(COPENHAGEN, {"d5": "T", "f5": "T", "e8": "t", **PARK}, "attackers", "e8-e5")[
        0
    ] == []


def test_only_the_moving_piece_captures():
    # d5 already stands between c5 and e5; an unrelated attacker move does not take it
    pieces = {"c5": "t", "d5": "T", "e5": "t", "h3": "t", **PARK}
    assert play(COPENHAGEN, pieces, "attackers", "h3-h4")[0] == []


def test_only_the_side_that_moved_captures():
    # the defender completes a "sandwich" of its own piece: nothing happens to it
    pieces = {"c5": "t", "e8": "T", "e5": "t", **PARK}
    assert play(COPENHAGEN, pieces, "defenders", "e8-d8")[0] == []
    # attacker between two defenders after the attackers' own move elsewhere survives
    pieces = {"c5": "T", "d5": "t", "e5": "T", "h3": "t", **PARK}
    assert play(COPENHAGEN, pieces, "attackers", "h3-h4")[0] == []


def test_double_capture_by_one_move():
    pieces = {"c5": "t", "d5": "T", "e6": "T", "e7": "t", "h5": "t", **PARK}
    assert play(COPENHAGEN, pieces, "attackers", "h5-e5")[0] == ["d5", "e6"]


def test_triple_capture_by_one_move():
    pieces = {
        "c5": "t", "d5": "T", "e6": "T", "e7": "t", "e4": "T", "e3": "t", "h5": "t", **PARK,
    }
    assert play(COPENHAGEN, pieces, "attackers", "h5-e5")[0] == ["d5", "e4", "e6"]


def test_defenders_capture_with_the_armed_king_as_hammer_and_anvil():
    # king moves to bracket (hammer)
    assert play(COPENHAGEN, {"c5": "T", "d5": "t", "e8": "K"}, "defenders", "e8-e5")[0] == ["d5"]
    # king stands as the far piece (anvil)
    assert play(COPENHAGEN, {"c5": "K", "d5": "t", "e8": "T"}, "defenders", "e8-e5")[0] == ["d5"]


def test_unarmed_king_takes_no_part_in_captures():
    pieces = {"c5": "T", "d5": "t", "e8": "K"}
    assert play(COPENHAGEN, pieces, "defenders", "e8-e5", king_armed=False)[0] == []
    pieces = {"c5": "K", "d5": "t", "e8": "T"}
    assert play(COPENHAGEN, pieces, "defenders", "e8-e5", king_armed=False)[0] == []


# -- the king ----------------------------------------------------------------------------------


def test_strong_king_in_the_open_needs_four_attackers():
    three = {"e5": "K", "d5": "t", "f5": "t", "h6": "t", "b2": "T"}
    assert play(COPENHAGEN, three, "attackers", "h6-e6")[:2] == ([], "ongoing")
    four = {**three, "e4": "t"}
    assert play(COPENHAGEN, four, "attackers", "h6-e6")[:3] == (["e5"], "attackers",
                                                               "king_captured")


def test_strong_king_with_a_defender_beside_him_is_not_captured():
    pieces = {"e5": "K", "d5": "t", "f5": "t", "e4": "T", "h6": "t"}
    assert play(COPENHAGEN, pieces, "attackers", "h6-e6")[:2] == ([], "ongoing")


def test_king_walking_into_a_surround_is_not_captured():
    # three attackers wait around e5; the king steps in: no capture (captures are active)
    pieces = {"d5": "t", "f5": "t", "e4": "t", "e8": "K"}
    assert play(COPENHAGEN, pieces, "defenders", "e8-e5")[:2] == ([], "ongoing")
    # a weak king steps between two attackers: safe too
    pieces = {"d5": "t", "f5": "t", "e8": "K", "b9": "t"}
    assert play("tawlbwrdd", pieces, "defenders", "e8-e5")[:2] == ([], "ongoing")


def test_king_on_the_throne_needs_four_attackers():
    three = {"f6": "K", "e6": "t", "g6": "t", "h7": "t", "b2": "T"}
    assert play(COPENHAGEN, three, "attackers", "h7-f7")[:2] == ([], "ongoing")
    four = {**three, "f5": "t"}
    assert play(COPENHAGEN, four, "attackers", "h7-f7")[:2] == (["f6"], "attackers")


def test_king_beside_the_throne_is_captured_by_three_and_the_empty_throne():
    # king on f7, just north of the empty throne f6
    pieces = {"f7": "K", "e7": "t", "g7": "t", "h8": "t"}
    assert play(COPENHAGEN, pieces, "attackers", "h8-f8")[:2] == (["f7"], "attackers")
    # koenigszabel: the empty throne is hostile to the king only: same result
    assert play("koenigszabel", pieces, "attackers", "h8-f8")[:2] == (["f7"], "attackers")
    # two attackers and the throne are not enough
    pieces = {"f7": "K", "e7": "t", "h8": "t"}
    assert play(COPENHAGEN, pieces, "attackers", "h8-f8")[:2] == ([], "ongoing")


def test_strong_king_on_the_edge_is_never_captured():
    # (a free defender on e3 keeps the defenders from running out of moves)
    pieces = {"a6": "K", "a5": "t", "b6": "t", "c7": "t", "e3": "T"}
    assert play(COPENHAGEN, pieces, "attackers", "c7-a7")[:2] == ([], "ongoing")
    assert play("fetlar", pieces, "attackers", "c7-a7")[:2] == ([], "ongoing")


def test_strong_by_throne_king_away_from_the_throne_is_captured_by_two():
    # brandubh (7x7, throne d4): king on b5, attackers sandwich him on the file
    pieces = {"b5": "K", "b4": "t", "g6": "t"}
    assert play("brandubh", pieces, "attackers", "g6-b6")[:2] == (["b5"], "attackers")
    # helmfrid-11: same on the big board
    pieces = {"c8": "K", "b8": "t", "d10": "t"}
    assert play("helmfrid-11", pieces, "attackers", "d10-d8")[:2] == (["c8"], "attackers")


def test_strong_by_throne_king_on_the_edge_is_captured_by_two():
    pieces = {"a3": "K", "a4": "t", "c2": "t"}
    assert play("brandubh", pieces, "attackers", "c2-a2")[:2] == (["a3"], "attackers")
    # but not across the edge (the far side is off the board)
    pieces = {"a3": "K", "c3": "t", "b5": "t"}
    assert play("brandubh", pieces, "attackers", "c3-b3")[:2] == ([], "ongoing")


def test_strong_by_throne_king_beside_the_throne_is_strong():
    # brandubh: king on d5 beside the throne d4; two attackers are not enough
    pieces = {"d5": "K", "c5": "t", "g5": "t"}
    assert play("brandubh", pieces, "attackers", "g5-e5")[:2] == ([], "ongoing")
    pieces = {"d5": "K", "c5": "t", "e5": "t", "a6": "t"}
    assert play("brandubh", pieces, "attackers", "a6-d6")[:2] == (["d5"], "attackers")
    # tablut-linnaeus (9x9, throne e5): king on e6, three attackers plus the empty throne
    pieces = {"e6": "K", "d6": "t", "f6": "t", "a7": "t"}
    assert play("tablut-linnaeus", pieces, "attackers", "a7-e7")[:2] == (["e6"], "attackers")


def test_strong_by_throne_king_on_the_throne_needs_four():
    pieces = {"e5": "K", "d5": "t", "f5": "t", "e4": "t", "a6": "t"}
    assert play("helmfrid-9", pieces, "attackers", "a6-d6")[:2] == ([], "ongoing")
    assert play("helmfrid-9", pieces, "attackers", "a6-e6")[:2] == (["e5"], "attackers")


def test_weak_king_is_captured_by_two_anywhere():
    pieces = {"e5": "K", "d5": "t", "h6": "t", "b2": "T"}
    assert play("tawlbwrdd", pieces, "attackers", "h6-h5")[:2] == ([], "ongoing")
    pieces = {"e5": "K", "d5": "t", "h5": "t", "b2": "T"}
    assert play("tawlbwrdd", pieces, "attackers", "h5-f5")[:2] == (["e5"], "attackers")
    # on the edge too (a contrived position: in tawlbwrdd the king would have escaped there)
    pieces = {"a5": "K", "a4": "t", "c6": "t", "b2": "T"}
    assert play("tawlbwrdd", pieces, "attackers", "c6-a6")[:2] == (["a5"], "attackers")


def test_king_captured_together_with_a_soldier():
    # brandubh: b3 king (away from the throne: weak) and c2 defender taken by one move to b2
    pieces = {"b3": "K", "b4": "t", "c2": "T", "d2": "t", "a2": "t"}
    assert play("brandubh", pieces, "attackers", "a2-b2")[:2] == (["b3", "c2"], "attackers")


def test_king_against_a_hostile_corner():
    # brandubh: king b1 on the edge, away from the throne: attacker + corner a1 take him
    pieces = {"b1": "K", "c3": "t", "f5": "T"}
    assert play("brandubh", pieces, "attackers", "c3-c1")[:2] == (["b1"], "attackers")
    # tablut-linnaeus: the same king is weak there too, but a1 is an ordinary square
    pieces = {"b1": "K", "c4": "t", "f5": "T"}
    assert play("tablut-linnaeus", pieces, "attackers", "c4-c1")[:2] == ([], "ongoing")


# -- the throne --------------------------------------------------------------------------------


def test_empty_throne_hostile_to_defenders_and_attackers_in_copenhagen():
    assert play(COPENHAGEN, {"f7": "T", "h8": "t", **PARK}, "attackers", "h8-f8")[0] == ["f7"]
    assert play(COPENHAGEN, {"f7": "t", "h8": "T", **PARK}, "defenders", "h8-f8")[0] == ["f7"]


@pytest.mark.parametrize("variant", ["koenigszabel", "tablut"])
def test_empty_throne_hostile_to_the_king_only(variant):
    rules = get_variant(variant)
    c = rules.size // 2  # throne on (c, c)
    throne_n = f"{chr(97 + c)}{c + 2}"  # the square north of the throne
    beyond = f"{chr(97 + c)}{c + 3}"
    start = f"{chr(97 + c + 2)}{c + 3}"
    park = {"b2": "K"}
    assert play(rules, {throne_n: "T", start: "t", **park}, "attackers", f"{start}-{beyond}")[
        0
    ] == []
    assert play(rules, {throne_n: "t", start: "T", **park}, "defenders", f"{start}-{beyond}")[
        0
    ] == []


def test_no_throne_in_tawlbwrdd():
    # the centre is an ordinary square: soldiers stop on it, it is hostile to nobody
    assert legal("tawlbwrdd", {"f9": "t", "b2": "K"}, "attackers", "f9-f6")
    assert play("tawlbwrdd", {"f7": "T", "h8": "t", "b2": "K"}, "attackers", "h8-f8")[0] == []


def test_king_on_the_throne_is_friendly_to_defenders():
    pieces = {"f6": "K", "f7": "T", "h8": "t"}
    assert play(COPENHAGEN, pieces, "attackers", "h8-f8")[0] == []


def test_king_on_the_throne_is_hostile_to_attackers_as_the_armed_king():
    pieces = {"f6": "K", "f7": "t", "h8": "T"}
    assert play(COPENHAGEN, pieces, "defenders", "h8-f8")[0] == ["f7"]
    assert play(COPENHAGEN, pieces, "defenders", "h8-f8", king_armed=False)[0] == []


def test_soldiers_may_pass_the_empty_throne_but_not_stop_on_it():
    pieces = {"f3": "t", **PARK}
    assert legal(COPENHAGEN, pieces, "attackers", "f3-f9")
    assert not legal(COPENHAGEN, pieces, "attackers", "f3-f6")
    pieces = {"f3": "T", **PARK}
    assert legal(COPENHAGEN, pieces, "defenders", "f3-f9")
    assert not legal(COPENHAGEN, pieces, "defenders", "f3-f6")


def test_throne_pass_king_and_nobody():
    soldier = {"f3": "T", **PARK}
    assert not legal(COPENHAGEN, soldier, "defenders", "f3-f9", throne_pass="king")
    king = {"f3": "K", "b2": "T"}
    assert legal(COPENHAGEN, king, "defenders", "f3-f9", throne_pass="king")
    assert not legal(COPENHAGEN, king, "defenders", "f3-f9", throne_pass="nobody")
    assert legal(COPENHAGEN, king, "defenders", "f3-f5", throne_pass="nobody")


def test_king_may_return_to_the_throne_when_throne_stop_is_king():
    assert legal(COPENHAGEN, {"f9": "K"}, "defenders", "f9-f6")


def test_king_once_lets_the_king_stop_on_the_throne_until_he_leaves():
    tablut = PRESETS["tablut"]
    b = Board(tablut, otn(9, {"e5": "K", "b2": "t"}), "defenders")
    assert b.is_legal(b.parse_move("e5-e8")[0])
    b.push(b.parse_move("e5-e8")[0])
    b.push(b.parse_move("b2-b3")[0])
    back = b.parse_move("e8-e5")[0]
    assert b.illegal_reason(back) == "the king may not return to the throne"
    assert b.is_legal(b.parse_move("e8-e2")[0])  # passing is still allowed
    b.pop()
    b.pop()  # undo restores the right to stop there
    assert b.king_left is False
    # a position set up with the king off the throne: he has left it
    assert not legal(tablut, {"e8": "K", "b1": "t"}, "defenders", "e8-e5")


def test_throne_stop_nobody_the_king_never_returns():
    for variant in ("tablut-linnaeus", "alea-evangelii"):
        rules = get_variant(variant)
        c = rules.size // 2
        file = chr(97 + c)
        b = Board(rules, otn(rules.size, {f"{file}{c + 1}": "K", "c3": "t"}), "defenders")
        b.push(b.parse_move(f"{file}{c + 1}-{file}{c + 3}")[0])
        b.push(b.parse_move("c3-c4")[0])
        assert not b.is_legal(b.parse_move(f"{file}{c + 3}-{file}{c + 1}")[0])
        assert b.is_legal(b.parse_move(f"{file}{c + 3}-{file}{c}")[0])  # through it


def test_linnaean_capture_against_the_occupied_throne():
    # tablut-linnaeus: king on e5 (throne) enclosed by d5, f5, e4; defender e6 taken from e7
    pieces = {"e5": "K", "d5": "t", "f5": "t", "e4": "t", "e6": "T", "a7": "t"}
    assert play("tablut-linnaeus", pieces, "attackers", "a7-e7")[:2] == (["e6"], "ongoing")
    # not when one of the king's three other sides is open
    open_side = {"e5": "K", "d5": "t", "f5": "t", "e6": "T", "a7": "t", "b2": "T"}
    assert play("tablut-linnaeus", open_side, "attackers", "a7-e7")[0] == []
    # and not in plain tablut, where the rule is off
    assert play("tablut", pieces, "attackers", "a7-e7")[0] == []


# -- corners -----------------------------------------------------------------------------------


def test_corners_are_hostile_to_defenders_and_attackers():
    assert play(COPENHAGEN, {"b1": "T", "c4": "t", **PARK}, "attackers", "c4-c1")[0] == ["b1"]
    assert play(COPENHAGEN, {"a2": "t", "d3": "T", **PARK}, "defenders", "d3-a3")[0] == ["a2"]


def test_ordinary_corners_are_hostile_to_nobody():
    pieces = {"b1": "T", "c4": "t", "d4": "K"}
    assert play("ard-ri", pieces, "attackers", "c4-c1")[0] == []
    assert play("tablut-linnaeus", {"b1": "T", "c4": "t", "e6": "K"}, "attackers", "c4-c1")[
        0
    ] == []
    assert legal("tablut-linnaeus", {"a4": "t", "e6": "K"}, "attackers", "a4-a1")


def test_soldiers_never_stop_on_corners():
    assert not legal(COPENHAGEN, {"a4": "t", **PARK}, "attackers", "a4-a1")
    assert not legal(COPENHAGEN, {"a4": "T", **PARK}, "defenders", "a4-a1")
    assert legal(COPENHAGEN, {"a4": "T", **PARK}, "defenders", "a4-a2")


def test_king_escapes_to_a_corner():
    assert play(COPENHAGEN, {"a4": "K", "e5": "t"}, "defenders", "a4-a1")[1:] == (
        "defenders", "escape")
    # an edge square is no escape under corner escape
    assert play(COPENHAGEN, {"c4": "K", "e5": "t"}, "defenders", "c4-a4")[1] == "ongoing"


def test_edge_escape_in_tablut_castles():
    # the king may stop on the castle a1 and wins; any other edge square wins too
    assert play("tablut", {"a4": "K", "e6": "t"}, "defenders", "a4-a1")[1:] == (
        "defenders", "escape")
    assert play("tablut", {"c4": "K", "e6": "t"}, "defenders", "c4-c9")[1:] == (
        "defenders", "escape")
    # soldiers may not stop on a castle, and the castles are hostile to both sides
    assert not legal("tablut", {"a4": "t", "c3": "K"}, "attackers", "a4-a1")
    assert not legal("tablut", {"a4": "T", "c3": "K"}, "defenders", "a4-a1")
    assert play("tablut", {"a2": "t", "d3": "T", "e7": "K"}, "defenders", "d3-a3")[0] == ["a2"]
    assert play("tablut", {"b1": "T", "c4": "t", "e7": "K"}, "attackers", "c4-c1")[0] == ["b1"]


def test_edge_escape_in_ard_ri_and_tawlbwrdd():
    assert play("ard-ri", {"c3": "K", "e5": "t"}, "defenders", "c3-c1")[1] == "defenders"
    assert play("tawlbwrdd", {"c3": "K", "e5": "t"}, "defenders", "c3-a3")[1] == "defenders"


def _alea_block():
    out = []
    for files in ("ab", "rs"):
        for ranks in ((1, 2), (18, 19)):
            out += [f"{f}{r}" for f in files for r in ranks]
    return out


_ALEA_OUTER = {"a1", "a19", "s1", "s19"}


@pytest.mark.parametrize("corner", sorted(set(_alea_block()) - _ALEA_OUTER))
def test_alea_evangelii_king_escapes_on_the_corner_block_squares(corner):
    # each of the 12 block squares next to the open board is reached along its rank or file
    f, r = corner[0], corner[1:]
    starts = [s for s in (f"j{r}", f"{f}10") if legal("alea-evangelii", {s: "K", "k5": "t"},
                                                      "defenders", f"{s}-{corner}")]
    assert starts
    pieces = {starts[0]: "K", "k5": "t"}
    assert play("alea-evangelii", pieces, "defenders", f"{starts[0]}-{corner}")[1:] == (
        "defenders", "escape")


@pytest.mark.parametrize("corner", sorted(_ALEA_OUTER))
def test_alea_evangelii_king_does_not_pass_through_a_corner_block(corner):
    # VARIANTS.md: nobody passes through restricted squares, the king included: he stops (and
    # wins) on the first block square of his path, so the outermost corner is never reached
    f = corner[0]
    start = f"{f}10" if f in "ab" else f"{f}9"
    assert not legal("alea-evangelii", {start: "K", "j2": "t"}, "defenders", f"{start}-{corner}")


def test_alea_evangelii_soldiers_neither_stop_on_nor_pass_the_corner_blocks():
    pieces = {"a6": "t", "f1": "T", "j10": "K"}
    assert legal("alea-evangelii", pieces, "attackers", "a6-a3")
    assert not legal("alea-evangelii", pieces, "attackers", "a6-a2")
    assert not legal("alea-evangelii", pieces, "attackers", "a6-a1")
    assert not legal("alea-evangelii", pieces, "defenders", "f1-b1")
    assert legal("alea-evangelii", pieces, "defenders", "f1-c1")
    # b-file: b2 is a corner square too
    assert not legal("alea-evangelii", {"b6": "T", "j10": "K"}, "defenders", "b6-b2")
    # a soldier on c2 is captured against the block square b2
    assert play("alea-evangelii", {"c2": "T", "d5": "t", "j10": "K"}, "attackers",
                "d5-d2")[0] == ["c2"]


# -- shieldwall (copenhagen) -------------------------------------------------------------------


def test_shieldwall_captures_a_row_on_the_edge():
    pieces = {
        "c1": "T", "d1": "T", "e1": "T", "c2": "t", "d2": "t", "e2": "t", "b1": "t",
        "f4": "t", **PARK,
    }
    assert play(COPENHAGEN, pieces, "attackers", "f4-f1")[0] == ["c1", "d1", "e1"]
    # not in fetlar, which has no shieldwall
    assert play("fetlar", pieces, "attackers", "f4-f1")[0] == []


def test_shieldwall_needs_an_enemy_in_front_of_every_member():
    pieces = {"c1": "T", "d1": "T", "e1": "T", "c2": "t", "e2": "t", "b1": "t", "f4": "t",
              **PARK}
    assert play(COPENHAGEN, pieces, "attackers", "f4-f1")[0] == []


def test_shieldwall_closed_by_a_corner():
    pieces = {"b1": "T", "c1": "T", "b2": "t", "c2": "t", "d4": "t", **PARK}
    assert play(COPENHAGEN, pieces, "attackers", "d4-d1")[0] == ["b1", "c1"]
    # a corner may not close a shieldwall when the rule is plain "on"
    assert play(COPENHAGEN, pieces, "attackers", "d4-d1", shieldwall="on")[0] == []


def test_shieldwall_with_the_king_as_bracket():
    pieces = {"c1": "t", "d1": "t", "c2": "T", "d2": "T", "e1": "K", "b4": "T", "h8": "t"}
    assert play(COPENHAGEN, pieces, "defenders", "b4-b1")[0] == ["c1", "d1"]


def test_shieldwall_with_the_king_in_front():
    pieces = {"c1": "t", "d1": "t", "c2": "T", "d2": "K", "e1": "T", "b4": "T", "h8": "t"}
    assert play(COPENHAGEN, pieces, "defenders", "b4-b1")[0] == ["c1", "d1"]


def test_shieldwall_spares_the_king_inside_the_row():
    pieces = {
        "c1": "T", "d1": "K", "e1": "T", "c2": "t", "d2": "t", "e2": "t", "b1": "t",
        "f4": "t",
    }
    assert play(COPENHAGEN, pieces, "attackers", "f4-f1")[:2] == (["c1", "e1"], "ongoing")


# -- exit fort (copenhagen) --------------------------------------------------------------------

# The king's region is f1 g1 f2 g2; the wall e1 e2 f3 g3 h2 h1 protects itself: f3 and g3
# cover each other along rank 3, e2 and h2 stand on e1 and h1, which touch the region.
UNBREAKABLE_FORT = {"e1": "T", "e2": "T", "f3": "T", "g3": "T", "h2": "T", "h1": "T"}


def test_exit_fort_that_cannot_be_broken_wins():
    pieces = {**UNBREAKABLE_FORT, "f2": "K", "c8": "t", "j9": "t"}
    assert play(COPENHAGEN, pieces, "defenders", "f2-f1")[1:] == ("defenders", "exit_fort")
    # the fort may also be closed by a soldier while the king already sits on the edge
    open_wall = {sq: p for sq, p in UNBREAKABLE_FORT.items() if sq != "g3"}
    pieces = {**open_wall, "g5": "T", "f1": "K", "c8": "t"}
    assert play(COPENHAGEN, pieces, "defenders", "g5-g3")[1:] == ("defenders", "exit_fort")


def test_exit_fort_that_can_still_be_broken_is_no_win():
    # region f1 f2: f3 has no protection along rank 3 (attackers on e3 and g3 would take it)
    pieces = {"e1": "T", "e2": "T", "f3": "T", "g2": "T", "g1": "T", "f2": "K", "c8": "t"}
    assert play(COPENHAGEN, pieces, "defenders", "f2-f1")[1] == "ongoing"


def test_exit_fort_needs_the_king_on_the_edge_and_a_move():
    # the king moves inside the fort but not onto the edge
    pieces = {**UNBREAKABLE_FORT, "g2": "K", "c8": "t"}
    assert play(COPENHAGEN, pieces, "defenders", "g2-f2")[1] == "ongoing"
    # the king on f1 walled in by e1 g1 f2 has no move: no fort, even after a defender move
    pieces = {"e1": "T", "g1": "T", "f2": "T", "f1": "K", "c8": "t", "h3": "T"}
    assert play(COPENHAGEN, pieces, "defenders", "h3-h4")[1] == "ongoing"


def test_exit_fort_holding_a_corner_is_no_win():
    # region a1 b1 c1 closed by a2 b2 c2 d1: it holds the corner a1, so it is no exit fort
    pieces = {"c1": "K", "b2": "T", "c2": "T", "d1": "T", "a5": "T", "h8": "t"}
    assert play(COPENHAGEN, pieces, "defenders", "a5-a2")[1] == "ongoing"


# A wide fort: region d1-h3, walls c1 c2 c3, d4-h4, i1 i2 i3 (each protected along its lines).
WIDE_FORT = {
    "c1": "T", "c2": "T", "c3": "T", "d4": "T", "e4": "T", "f4": "T", "g4": "T", "h4": "T",
    "i1": "T", "i2": "T", "i3": "T", "a8": "t",
}


def test_exit_fort_with_an_attacker_inside_is_no_win():
    assert play(COPENHAGEN, {**WIDE_FORT, "e2": "K"}, "defenders", "e2-e1")[1] == "defenders"
    # the same fort with an attacker standing inside, touching only empty fort squares
    pieces = {**WIDE_FORT, "e2": "K", "f2": "t"}
    assert play(COPENHAGEN, pieces, "defenders", "e2-e1")[1] == "ongoing"


def _column_fort(top: int) -> dict[str, str]:
    """Walls around the region f1..g<top>: e and h files up to rank ``top``, f/g<top + 1>."""
    walls = {f"{c}{r}": "T" for c in "eh" for r in range(1, top + 1)}
    return {**walls, f"f{top + 1}": "T", f"g{top + 1}": "T", "b9": "t"}


def test_exit_fort_leaning_on_the_empty_throne_can_be_broken():
    # region f1..g4: every wall piece is covered: an unbreakable fort
    assert play(COPENHAGEN, {**_column_fort(4), "g2": "K"}, "defenders", "g2-g1")[1:] == (
        "defenders", "exit_fort")
    # region f1..g6 holds the empty throne f6, hostile to defenders: e6 stands between d6 and
    # the throne and can still be captured, so the fort is breakable: no win
    assert play(COPENHAGEN, {**_column_fort(6), "g2": "K"}, "defenders", "g2-g1")[1] == "ongoing"


# VARIANTS.md note 5: a border defender is also safe when the defender backing it on a line is
# itself uncapturable, whether or not that one borders the king's region.

# The king's region b2 c2 c1 next to the corner a1, walled by b1 d1 d2 c3 b3 and a2. a2 stands
# between the hostile corner a1 and a3 on file a: only a defender on a3 keeps it, and that one
# can only be taken through a2.
BACKED_BORDER_PIECE = {"b1": "T", "d1": "T", "d2": "T", "c3": "T", "b3": "T", "a2": "T",
                       "c1": "K", "h8": "t"}


def test_exit_fort_with_a_backed_border_piece_wins():
    pieces = {**BACKED_BORDER_PIECE, "a5": "T"}
    assert play(COPENHAGEN, pieces, "defenders", "a5-a3")[1:] == ("defenders", "exit_fort")
    # without the backer on a3 an attacker there takes a2 against the corner: no win
    pieces = {**BACKED_BORDER_PIECE, "h5": "T"}
    assert play(COPENHAGEN, pieces, "defenders", "h5-h4")[1] == "ongoing"


# The column fort f1..g6 holds the empty throne f6 (hostile to defenders), so the two wall
# pieces beside it need backing from behind the border: e6 (between d6 and the throne) and f7
# (between the throne and f8). Chains back them: d6 then d5 (which e5 covers), f8 then g8
# (which g7 covers).
BACKED_CHAINS = {"d6": "T", "d5": "T", "f8": "T", "g8": "T"}


def test_exit_fort_with_a_backed_chain_wins():
    pieces = {**_column_fort(6), **BACKED_CHAINS, "g2": "K"}
    assert play(COPENHAGEN, pieces, "defenders", "g2-g1")[1:] == ("defenders", "exit_fort")
    # the last link arrives: d5 from b5 closes the chain (the king already on the edge)
    pieces = {**_column_fort(6), **BACKED_CHAINS, "g1": "K"}
    pieces["b5"] = pieces.pop("d5")
    assert play(COPENHAGEN, pieces, "defenders", "b5-d5")[1:] == ("defenders", "exit_fort")


def test_exit_fort_whose_backing_piece_can_be_taken_is_no_win():
    # d6 backs e6 but can itself be taken by attackers on d5 and d7, then e6 against the
    # throne: the fort can be broken
    pieces = {**_column_fort(6), **BACKED_CHAINS, "g2": "K"}
    del pieces["d5"]
    assert play(COPENHAGEN, pieces, "defenders", "g2-g1")[1] == "ongoing"
    # f8 backs f7 but nothing covers f8 along rank 8 without g8
    pieces = {**_column_fort(6), **BACKED_CHAINS, "g2": "K"}
    del pieces["g8"]
    assert play(COPENHAGEN, pieces, "defenders", "g2-g1")[1] == "ongoing"


def test_exit_fort_only_in_copenhagen():
    pieces = {**UNBREAKABLE_FORT, "f2": "K", "c8": "t"}
    assert play("fetlar", pieces, "defenders", "f2-f1")[1] == "ongoing"


# -- encirclement ------------------------------------------------------------------------------

# brandubh: defenders d4 (king on the throne) and d5; the ring c4 e4 d3 c5 e5 closes on d6.
RING = {"c4": "t", "e4": "t", "d3": "t", "c5": "t", "e5": "t"}
RING11 = {"f6": "K", "f7": "T", "e6": "t", "g6": "t", "f5": "t", "e7": "t", "g7": "t", "h8": "t"}


def test_encirclement_wins_for_the_attackers():
    pieces = {**RING, "d4": "K", "d5": "T", "g6": "t"}
    assert play("brandubh", pieces, "attackers", "g6-d6")[1:] == ("attackers", "encirclement")
    # copenhagen as well: a ring around the king on the throne and a defender on f7
    assert play(COPENHAGEN, RING11, "attackers", "h8-f8")[1:] == ("attackers", "encirclement")


def test_no_encirclement_while_one_defender_can_reach_the_edge():
    pieces = {**RING, "d4": "K", "d5": "T", "g6": "t", "b2": "T"}
    assert play("brandubh", pieces, "attackers", "g6-d6")[1] == "ongoing"


def test_no_encirclement_rule_in_fetlar():
    # (b9 can still move; otherwise the defenders would be out of moves: a draw in fetlar)
    assert play("fetlar", {**RING11, "b9": "T"}, "attackers", "h8-f8")[1] == "ongoing"
    assert play("fetlar", RING11, "attackers", "h8-f8")[1:] == ("draw", "no_moves")


# -- repetition --------------------------------------------------------------------------------

SHUFFLE = ["a4-a3", "e7-e8", "a3-a4", "e8-e7"]


def _shuffle(variant, plies: int):
    game = Game(get_variant(variant), otn(11, {"a4": "t", "e7": "T", "f6": "K", "k8": "t"}))
    for ply in range(plies):
        if game.is_over():
            return game, ply
        game.play_text(SHUFFLE[ply % 4])
    return game, plies


def test_third_repetition_is_a_draw_in_fetlar():
    game, plies = _shuffle("fetlar", 8)
    assert plies == 8 and game.result == "draw" and game.outcome().reason == "repetition"
    game, _ = _shuffle("fetlar", 7)
    assert game.result == "ongoing"
    # a third occurrence made by the attackers is a draw too
    game = Game(get_variant("fetlar"), otn(11, {"a4": "t", "e7": "T", "f6": "K", "k8": "t"}),
                "defenders")
    for mv in ["e7-e8", "a4-a3", "e8-e7", "a3-a4"] * 2:
        game.play_text(mv)
    assert game.played[-1].side == "attackers" and game.result == "draw"


def test_defenders_causing_the_third_repetition_lose_in_copenhagen():
    game, plies = _shuffle("copenhagen", 8)
    assert plies == 8 and game.result == "attackers" and game.outcome().reason == "repetition"


def test_attackers_may_cause_a_third_repetition_in_copenhagen():
    # defenders move first here, so the start position recurs after the attackers' 4th move
    game = Game(COPENHAGEN, otn(11, {"a4": "t", "e7": "T", "f6": "K", "k8": "t"}), "defenders")
    for mv in ["e7-e8", "a4-a3", "e8-e7", "a3-a4"] * 2:
        game.play_text(mv)
    assert game.board.history.count(game.board.history[-1]) == 3
    assert game.result == "ongoing"
    game.play_text("e7-e8")  # the defenders now make a position occur a third time
    assert game.result == "attackers"


def test_repetition_ignored_when_off():
    game, plies = _shuffle("helmfrid-11", 12)
    assert plies == 12 and game.result == "ongoing"


def test_repetition_history_restarts_after_a_capture():
    pieces = {"a4": "t", "e7": "T", "f6": "K", "k8": "t", "c2": "t", "c3": "T", "h4": "t"}
    game = Game(PRESETS["fetlar"], otn(11, pieces))
    for mv in SHUFFLE:
        game.play_text(mv)
    assert len(game.board.history) == 5
    game.play_text("h4-c4")  # takes c3
    assert [game.board.name(c) for c in game.played[-1].captures] == ["c3"]
    assert game.board.history == [game.board._key()]
    # from here the count starts again: the position after the capture (defenders to move)
    # occurs a third time 8 plies later
    for ply, mv in enumerate(["e7-e8", "a4-a3", "e8-e7", "a3-a4"] * 2, 1):
        game.play_text(mv)
        assert game.result == ("draw" if ply == 8 else "ongoing"), ply


# -- no legal moves ----------------------------------------------------------------------------

BLOCKED_KING = {"d4": "K", "c4": "t", "e4": "t", "d3": "t", "d5": "t"}


@pytest.mark.parametrize(
    "variant,result",
    [("brandubh", "attackers"), ("ard-ri", "attackers")],
)
def test_no_legal_moves_loses(variant, result):
    b = board(variant, BLOCKED_KING, "defenders")
    assert b.outcome().result == result and b.outcome().reason == "no_moves"


def test_no_legal_moves_is_a_draw_in_fetlar():
    pieces = {"f6": "K", "e6": "t", "g6": "t", "f5": "t", "f7": "t"}
    b = board("fetlar", pieces, "defenders")
    assert b.outcome().result == "draw" and b.outcome().reason == "no_moves"


def test_attackers_without_moves_lose():
    # b1 is hemmed in by the corner a1 (soldiers never enter it), c1 and b2
    pieces = {"b1": "t", "c1": "T", "b2": "T", "d6": "K"}
    b = board(COPENHAGEN, pieces, "attackers")
    assert b.outcome().result == "defenders"


def test_a_move_that_leaves_the_opponent_without_moves_ends_the_game():
    # RING11 closed by h8-f8: the king and f7 cannot move. helmfrid-11 (no encirclement rule,
    # no_moves = loss): the attackers win; fetlar (no_moves = draw): a draw.
    assert play("helmfrid-11", RING11, "attackers", "h8-f8")[1:] == ("attackers", "no_moves")
    assert play("fetlar", RING11, "attackers", "h8-f8")[1:] == ("draw", "no_moves")


# -- optional rules ----------------------------------------------------------------------------


def test_sheltered_king_is_captured_with_his_defender():
    pieces = {
        "d4": "K", "d5": "T", "c4": "t", "e4": "t", "d3": "t", "c5": "t", "e5": "t",
        "h6": "t", "b9": "T",
    }
    assert play(COPENHAGEN, pieces, "attackers", "h6-d6")[:2] == ([], "ongoing")
    assert play(COPENHAGEN, pieces, "attackers", "h6-d6", sheltered_king=True)[:2] == (
        ["d4", "d5"], "attackers")


def test_chain_capture_takes_every_enemy_in_an_alternating_row():
    pieces = {"c3": "T", "d3": "t", "e3": "T", "f3": "t", "b6": "t", **PARK}
    assert play(COPENHAGEN, pieces, "attackers", "b6-b3")[0] == ["c3"]
    assert play(COPENHAGEN, pieces, "attackers", "b6-b3", chain_capture=True)[0] == [
        "c3", "e3"]


def test_game_rejects_a_wrong_capture_list():
    game = Game(COPENHAGEN, otn(11, {"c5": "t", "d5": "T", "e8": "t", **PARK}))
    with pytest.raises(MoveError, match="captures"):
        game.play_text("e8-e5xd6")
    assert game.play_text("e8-e5xd5").text == "e8-e5xd5"
