"""Every form OpenTafl's own game records and puzzles use (issue 30 defect 3), each in a record
written for this test (OpenTafl's files are not copied here): the form's origin is named in each
test's docstring (OpenTafl's ``saved-games/replays/`` and ``unbuilt/saved-games/replays/``)."""

from __future__ import annotations

import pytest

from companion.rules import PRESETS, Board, Game, get_variant
from companion.rules.board import MoveError
from companion.rules.otg import RuleNotSupported, export_otg, import_otg
from companion.rules.otg_rules import as_preset, parse_rules_string, rules_string

COPENHAGEN_START = PRESETS["copenhagen"].start
#: An escape in five turns, legal under Copenhagen and under OpenTafl's defaults.
ESCAPE_TURNS = ["1. k8-g8 h6-h8xg8", "2. j6-j11 g6-j6", "3. k7-k10 Kf6-i6",
                "4. k5-i5 Ki6-i11xj11", "5. k10-i10 Ki11-k11"]

ANNOTATED = f"""[date:2015.01.07]
[event:A Club Tournament]
[site:example.org]
[result:-1]
[attackers:Ann Example]
[defenders:Bob Example]
[termination:Black resigns]
[compiler:Someone]
[annotator:Someone Else]
[rules:dim:11 atkf:y sw:s efe:y start:{COPENHAGEN_START}]
[start-comment:These notes were written for this test.

They run over several lines, as an annotator's start comment does.]

{ESCAPE_TURNS[0]}
[Black opens on the k-file.|White answers by taking g8,
which the notes explain over two lines.]

{ESCAPE_TURNS[1]}
[|]

{ESCAPE_TURNS[2]}
[A quiet move.|]
"""


def test_tags_before_the_rules_line_with_multiline_tags_and_comments() -> None:
    """The form of the 2015 Grandmasters and Triathlon records (Crust-vs-Schachus,
    Altti-Piirsoo-Steve-Lonsdale, Animals-Xerxes): every tag before ``rules``, a start-comment
    over several lines, ``[first|second]`` comments over several lines, and a rules string with
    no name and OpenTafl's defaults (``tfr:d``) — refused before with "line 1: expected a tag
    like [rules…]"."""
    got = import_otg(ANNOTATED)
    assert (got.attackers, got.defenders, str(got.date)) == ("Ann Example", "Bob Example",
                                                             "2015-01-07")
    assert got.tags["event"] == "A Club Tournament" and got.tags["termination"] == "Black resigns"
    assert got.comments[0].startswith("These notes") and "several lines" in got.comments[0]
    assert got.comments[1] == "Black opens on the k-file."
    assert got.comments[2].startswith("White answers") and "two lines" in got.comments[2]
    assert 3 not in got.comments and 4 not in got.comments  # "[|]": no comment
    assert got.comments[5] == "A quiet move." and len(got.game.played) == 6
    # the rules are Copenhagen's but for repetition (OpenTafl's default: a draw)
    rules, house = as_preset(got.rules)
    assert rules.id == "copenhagen" and house == {"repetition": "draw"}
    assert got.game.result == "defenders"  # the result tag: the attackers resigned


def test_the_projects_own_export_without_its_extension_tag_is_copenhagen() -> None:
    """Issue 30: "its rules (OpenTafl rules) are not one of the presets", even for the project's
    own export once its ``companion-rules`` tag is removed."""
    game = Game(get_variant("copenhagen"))
    for move in ("d1-d3", "h6-h9", "k4-i4"):
        game.play_text(move)
    text = "\n".join(line for line in export_otg(game).splitlines()
                     if not line.startswith("[companion-rules:"))
    got = import_otg(text)
    assert got.rules.id == "opentafl"  # the file alone does not say it
    assert as_preset(got.rules) == (PRESETS["copenhagen"], {})


def test_a_5x5_board_with_one_corner_no_throne_and_defenders_first() -> None:
    """The form of Puzzle-Corner-Endgame: ``dim:5``, one corner (``cor:a1,``), no centre
    (``cen:``), defenders first (``atkf:n``) — refused before with "dim:5: boards are 7x7 to
    19x19" and "cor:...: only the 4 corners"."""
    text = ("[date:2026.11.30]\n[result:-1]\n[compiler:OpenTafl]\n"
            "[rules:dim:5 name:Small_Corner atkf:n tfr:w cor:a1, cen: sw:s efe:y "
            "start:/1T3/K4/2t2/5/4t/]\n\n1. b1-c1 c3-c2\n2. Ka2-a1\n")
    got = import_otg(text)
    rules = got.rules
    assert (rules.size, rules.corners, rules.corner_squares, rules.has_throne) == (
        5, "custom", frozenset({"a1"}), False)
    assert rules.first == "defenders" and got.game.start_turn == "defenders"
    assert got.game.outcome().reason == "escape" and got.game.result == "defenders"
    # e5 is no corner here: an attacker stands on it; a1 is the only goal
    assert Board(rules).piece_at(24) == "t"
    assert as_preset(rules) == (rules, {})  # no preset has this board
    assert parse_rules_string(rules_string(rules)) == rules  # written back as it was read


STUDY = """[date:2026.11.30]
[result:-1]
[compiler:OpenTafl]
[rules:dim:7 name:Corner_Study tfr:w cor:g7, cen:b2, sw:s efe:y starti:/7/t6/4K2/7/1T5/3t3/7/]

1. d2-d4 Ke5-e7
[|]

1a.1.1a. d2-d3 Ke5-e7
[An equal line.|]

1b.1.1a ..... Ke5-f5

2. a6-a7 Ke7-g7--
[|The king reaches the one corner.]
"""


def test_starti_a_custom_corner_and_throne_and_variations() -> None:
    """The form of Copenhagen-Escape-Puzzle: the position written top row first (``starti:``),
    one corner (``cor:g7,``), the throne off the middle (``cen:b2,``), empty comments ``[|]``
    and variation lines (``2a.1.1a.``; also the spec's ``3b.3.1a ..... move`` form) that are not
    part of the game."""
    got = import_otg(STUDY)
    rules = got.rules
    assert rules.start == "/7/3t3/1T5/7/4K2/t6/7/"  # rank 1 first
    assert rules.corner_squares == frozenset({"g7"}) and rules.throne_square == "b2"
    assert got.variations == 2 and got.comments == {4: "The king reaches the one corner."}
    assert got.game.moves == ["d2-d4", "e5-e7", "a6-a7", "e7-g7"]
    assert got.game.outcome().reason == "escape"
    board = Board(rules)
    with pytest.raises(MoveError, match="throne"):  # b2 is a throne: no soldier stops there
        board.push(board.parse_move("d2-b2")[0])
    assert parse_rules_string(rules_string(rules)) == rules


def test_an_opentafl_puzzle() -> None:
    """The form of Fetlar-Escape-Puzzle and the Ard Ri puzzles: ``puzzle-mode``,
    ``puzzle-prestart`` and ``puzzle-start`` (a move address: ``2b`` is after turn 2's second
    move), tags after the start comment, defenders first."""
    text = (f"[date:2016.08.27]\n[result:-1]\n[compiler:Someone]\n[puzzle-mode:loose]\n"
            f"[puzzle-prestart:0a]\n[puzzle-start:2b]\n"
            f"[rules:dim:11 name:Fetlar_Study nj:n cj:n start:{COPENHAGEN_START}]\n"
            "[start-comment:The attackers to move, and the king escapes in three.]\n\n"
            + "\n".join(t + "\n[|]" for t in ESCAPE_TURNS) + "\n")
    got = import_otg(text)
    assert got.puzzle == {"mode": "loose", "start": 4}
    assert got.comments == {0: "The attackers to move, and the king escapes in three."}
    assert as_preset(got.rules)[0].id == "fetlar"  # nj/cj: no knights or commanders here


def test_opentafl_hostility_goes_by_side() -> None:
    """The form of Animals-Xerxes (``cenhe:``: the empty throne hostile to nobody; OpenTafl's
    ``isSpaceHostileToSide`` reads a hostility list by side, so a ``K`` on its own means nothing
    and the king goes with ``T``); mapped to Brandubh with house rules."""
    brandub = parse_rules_string("dim:7 name:Brandub surf:n atkf:y ks:c nj:n cj:n cenh: cenhe: "
                                 "start:" + PRESETS["brandubh"].start, by_side=True)
    rules, house = as_preset(brandub)
    assert rules.id == "brandubh" and rules.hostile_throne_empty == frozenset()
    assert house == {"hostile_throne_empty": frozenset(), "encirclement": False,
                     "repetition": "draw"}
    by_side = parse_rules_string(f"dim:11 corh:tT cenhe:K start:{COPENHAGEN_START}",
                                 by_side=True)
    assert by_side.hostile_corners == frozenset({"attackers", "defenders", "king"})
    assert by_side.hostile_throne_empty == frozenset()
    got = import_otg(f"[rules:dim:11 corh:tT cenhe:K start:{COPENHAGEN_START}]\n")
    assert got.rules == by_side  # a file without the companion-rules tag: OpenTafl's reading
    # this project's own records (and the engine protocol's) list the king on his own
    own = parse_rules_string(f"dim:11 corh:tT cenhe:K start:{COPENHAGEN_START}")
    assert own.hostile_throne_empty == frozenset({"king"})


@pytest.mark.parametrize(("entry", "rule"), [
    ("ks:m", "ks:m"), ("ka:h", "ka:h"), ("kj:j", "kj:j"), ("ber:c", "ber:c"), ("spd:3", "spd:3"),
    ("afor:a6,", "afor:a6,"), ("swf:n sw:s", "swf:n"), ("cens:tTK", "cens:tTK"),
    ("cenh:tT", "cenh:tT"), ("cen:f6,e5,", "cen:f6,e5,"), ("cors:", "cors:"),
])
def test_a_rule_the_core_cannot_play_is_named(entry: str, rule: str) -> None:
    """Where the rules core cannot express a rule, the refusal names it (issue 30)."""
    with pytest.raises(RuleNotSupported) as info:
        parse_rules_string(f"dim:11 {entry} start:{COPENHAGEN_START}")
    assert info.value.rule == rule and rule in str(info.value)


def test_special_pieces_are_named() -> None:
    start = COPENHAGEN_START.replace("5t5", "5c5", 1)
    with pytest.raises(RuleNotSupported, match="commanders") as info:
        parse_rules_string(f"dim:11 start:{start}")
    assert info.value.rule == "start"


def test_rules_replay_of_opentafl_records(tmp_path, capsys) -> None:
    """``tafl-companion rules replay``: an OpenTafl record under its own rules (``opentafl``),
    and under a preset it does not fit, named by the rules that differ (issue 30)."""
    import json

    from companion.cli import main

    small = tmp_path / "small.otg"
    small.write_text("[rules:dim:5 atkf:n cor:a1, cen: start:/1T3/K4/2t2/5/4t/]\n\n"
                     "1. b1-c1 c3-c2\n2. Ka2-a1\n")
    assert main(["rules", "replay", "opentafl", str(small)]) == 0
    assert json.loads(capsys.readouterr().out)["agree"] == 1
    annotated = tmp_path / "annotated.otg"
    annotated.write_text(ANNOTATED)
    assert main(["rules", "replay", "copenhagen", str(annotated)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["disagree"][0]["reason"].endswith("differ from copenhagen in: repetition")


def test_an_even_board_has_opentafls_default_centre() -> None:
    """OpenTafl's default centre is ((dim-1)/2, (dim-1)/2) (``RulesSerializer``): on an 8x8
    board d4, not a refusal for want of a middle square."""
    rules = parse_rules_string("dim:8 cor: esc:e start:/8/8/3t4/3K4/8/8/8/8/")
    assert rules.has_throne and rules.throne_square == "d4"
    assert parse_rules_string(rules_string(rules)) == rules
