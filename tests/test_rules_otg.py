"""OpenTafl game files (companion.rules.otg): export, import, round trips and bad files."""

from __future__ import annotations

import datetime
import random

import pytest

from companion.rules import PRESETS
from companion.rules.game import Game
from companion.rules.otg import (
    OtgError,
    export_otg,
    import_otg,
    parse_rules_string,
    read_otg,
    rules_string,
    write_otg,
)

DATE = datetime.date(2024, 5, 1)
COPENHAGEN_START = PRESETS["copenhagen"].start


def random_game(variant: str, seed: int, limit: int = 300) -> Game:
    """A seeded random game, played to its end (or ``limit`` plies)."""
    rng = random.Random(seed)
    game = Game(PRESETS[variant])
    while not game.is_over() and len(game.played) < limit:
        move = rng.choice(game.board.legal_moves())
        game.play(move)
    return game


def same_game(a: Game, b: Game) -> None:
    assert b.rules == a.rules and b.rules.id == a.rules.id
    assert b.start_position == a.start_position and b.start_turn == a.start_turn
    assert b.moves == a.moves
    assert b.result == a.result
    assert b.outcome() == a.outcome()
    assert b.board.otn() == a.board.otn()


# -- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(PRESETS))
def test_rules_string_round_trip_for_every_preset(variant):
    rules = PRESETS[variant]
    text = rules_string(rules)
    assert text.startswith(f"dim:{rules.size} ") and text.endswith(f"start:{rules.start}")
    ext = (f"id={variant} repetition={rules.repetition} no_moves={rules.no_moves} "
           "sheltered_king=off chain_capture=off")
    if rules.king_strength == "strong_on_throne":  # hnefatafl.org's brandubh: not in OpenTafl
        ext += " king_strength=strong_on_throne"
    assert parse_rules_string(text, ext) is rules


@pytest.mark.parametrize("variant", list(PRESETS))
def test_export_import_round_trip(variant):
    for seed in range(2):
        game = random_game(variant, seed, limit=120 if PRESETS[variant].size > 11 else 300)
        text = export_otg(game, date=DATE)
        back = import_otg(text)
        same_game(game, back.game)
        assert back.rules is PRESETS[variant]
        assert back.tags["date"] == "2024.05.01"
        assert export_otg(back.game, date=DATE) == text


def test_round_trip_of_finished_games_of_every_kind():
    reasons = set()
    for variant in ("brandubh", "copenhagen", "tablut", "fetlar"):
        for seed in range(40):
            game = random_game(variant, seed)
            if not game.is_over():
                continue
            reasons.add(game.outcome().reason)
            same_game(game, import_otg(export_otg(game)).game)
    assert {"king_captured", "escape"} <= reasons


def test_round_trip_of_a_custom_rule_set_and_start_position():
    rules = PRESETS["copenhagen"].with_options(
        id="my-copenhagen", name="My Copenhagen", chain_capture=True, sheltered_king=True,
        no_moves="draw", throne_pass="king",
    )
    position = "/3t7/1K1Tt6/t1T2t5/1t6t2/4T1T4/2t8/11/7t3/11/9t1/11/"
    game = Game(rules, position, "defenders")
    game.play_text("b2-b1")
    game.play_text("h8-h9")
    text = export_otg(game, date=DATE)
    assert f"[position:{position}]" in text and "[companion-turn:defenders]" in text
    back = import_otg(text)
    same_game(game, back.game)
    assert back.rules == rules and back.rules.id == "my-copenhagen"


def test_round_trip_of_manual_endings():
    game = random_game("copenhagen", 1, limit=6)
    game.resign("attackers")  # the side to move resigns: written as OpenTafl's "---"
    text = export_otg(game)
    assert text.rstrip().endswith("---") and "[result:-1]" in text
    same_game(game, import_otg(text).game)

    game = random_game("copenhagen", 1, limit=7)
    game.resign("attackers")  # not their turn: only the result tag says it
    text = export_otg(game)
    assert "---" not in text
    same_game(game, import_otg(text).game)

    game = random_game("brandubh", 2, limit=9)
    game.agree_draw()
    text = export_otg(game)
    assert "[result:0]" in text and "[termination:both players agreed to a draw]" in text
    same_game(game, import_otg(text).game)


def test_files_on_disk(tmp_path):
    game = random_game("tablut", 4, limit=20)
    path = tmp_path / "game.otg"
    with open(path, "w", encoding="utf-8") as fh:  # the caller opens files: rules does no I/O
        write_otg(game, fh, {"event": "Club night", "attackers": "Doe, Jane"})
    with open(path, encoding="utf-8") as fh:
        back = read_otg(fh)
    same_game(game, back.game)
    assert back.tags["event"] == "Club night" and back.tags["attackers"] == "Doe, Jane"


# -- what export writes -----------------------------------------------------------------------


def test_export_format_details():
    # copenhagen record 61 of tests/data/copenhagen.csv: the king captures on his way out
    moves = ["k8-g8", "h6-h8xg8", "j6-j11", "g6-j6", "k7-k10", "f6-i6", "k5-i5", "i6-i11xj11",
             "k10-i10", "i11-k11"]
    game = Game(PRESETS["copenhagen"])
    for mv in moves:
        game.play_text(mv)
    text = export_otg(game, {"event": "Test", "rules": "ignored"}, date=DATE)
    lines = text.splitlines()
    assert lines[:4] == ["[date:2024.05.01]", "[result:-1]", "[compiler:tafl-companion]",
                         "[variant:Copenhagen Hnefatafl]"]
    assert "[termination:the king escaped]" in lines and "[event:Test]" in lines
    header = lines[: lines.index("")]
    assert header[-1].startswith("[rules:dim:11 name:Copenhagen_Hnefatafl ")
    assert header[-1].endswith(f" start:{COPENHAGEN_START}]")
    assert "sw:s" in header[-1] and "efe:y" in header[-1] and "tfr:w" in header[-1]
    assert lines[lines.index("") + 1 :] == [
        "1. k8-g8 h6-h8xg8",
        "2. j6-j11 g6-j6",
        "3. k7-k10 Kf6-i6",
        "4. k5-i5 Ki6-i11xj11",
        "5. k10-i10 Ki11-k11--",
    ]


def test_export_marks_king_capture_and_multiple_captures():
    # brandubh: a2-b2 takes the king on b3 and the soldier on c2
    game = Game(PRESETS["brandubh"], "/7/t1Tt3/1K5/1t5/7/7/5t1/")
    game.play_text("a2-b2")
    text = export_otg(game)
    assert text.rstrip().endswith("1. a2-b2xc2/Kb3++")
    assert import_otg(text).game.result == "attackers"


# -- importing OpenTafl's own files -----------------------------------------------------------

OPENTAFL_STYLE = (
    "[event:Club night]\n"
    "[result:-1]\n"
    "[attackers:Doe, Jane]\n"
    f"[rules:dim:11 atkf:y sw:s efe:y start:{COPENHAGEN_START}]\n"
    "\n"
    "1. k8-g8 h6-h8xg8 \n"  # OpenTafl leaves a space after each move
    "[The attackers open on the right.|A capture at once:\n"
    "the warrior on g8 was left alone.]\n"
    "\n"
    "2. j6-j11 g6-j6 \n"
    "[|]\n"
    "\n"
    "2a.1.1a. k7-k9 g6-g9 \n"  # a variation: skipped
    "[|a side line, not part of the game]\n"
    "\n"
    "3. k7-k10 Kf6-i6- \n"
    "4. k5-i5 Ki6-i11xj11 \n"
    "5. k10-i10 Ki11-k11--\n"
)


def test_import_an_opentafl_style_file():
    back = import_otg(OPENTAFL_STYLE)
    rules = back.rules
    assert rules.id == "opentafl" and rules.size == 11 and rules.start == COPENHAGEN_START
    # OpenTafl's defaults for what the rules string leaves out
    assert rules.escape == "corners" and rules.encirclement and rules.repetition == "draw"
    assert rules.king_strength == "strong" and rules.throne_stop == "king"
    assert rules.shieldwall == "corners" and rules.exit_fort
    assert back.game.result == "defenders" and back.game.outcome().reason == "escape"
    assert back.game.moves[-1] == "i11-k11" and len(back.game.moves) == 10
    assert back.tags["attackers"] == "Doe, Jane"


def test_import_opentafl_brandub_rules_and_starti():
    # the spec's Brandub example: weak king, the centre hostile to nobody
    rules = parse_rules_string("dim:7 ks:w cenhe: cenh: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/")
    assert rules.king_strength == "weak" and rules.hostile_throne_empty == frozenset()
    # Sea Battle: edge escape, unarmed king, no centre, no corners
    sea = parse_rules_string("dim:9 esc:e ka:n cen: cenhe: cor: start:" + PRESETS["tablut"].start)
    assert (sea.escape, sea.king_armed, sea.throne_stop, sea.corners) == (
        "edge", False, "anyone", "none")
    # starti: the same position, top row first
    flipped = "/" + "/".join(reversed(PRESETS["ard-ri"].start.strip("/").split("/"))) + "/"
    ard = parse_rules_string(f"dim:7 esc:e cor: corh: surf:n starti:{flipped}")
    assert ard.start == PRESETS["ard-ri"].start
    # the 2x2 corner blocks of Alea Evangelii
    alea = parse_rules_string(rules_string(PRESETS["alea-evangelii"]))
    assert alea.corners == "block"


# -- bad files --------------------------------------------------------------------------------

RULES_TAG = f"[rules:dim:11 sw:s efe:y start:{COPENHAGEN_START}]"

BAD_FILES = [
    ("no rules tag", "[date:2024.01.01]\n\n1. d1-d3 h6-h9\n", "no [rules"),
    ("no tags", "1. d1-d3 h6-h9\n", "line 1"),
    ("rules without start", "[rules:dim:11 sw:s]\n", "start"),
    ("bad dim", f"[rules:dim:eleven start:{COPENHAGEN_START}]\n", "dim"),
    # issue 17 defect 5: these raised SquareError, IndexError and ValueError
    ("dim 0", "[rules:dim:0 start:/]\n", "dim:0: boards are 7x7 to 19x19"),
    ("dim 52", "[rules:dim:52 start:/]\n", "dim:52: boards are 7x7 to 19x19"),
    ("dim 99", f"[rules:dim:99 start:{COPENHAGEN_START}]\n", "dim:99"),
    ("signed dim", f"[rules:dim:+11 start:{COPENHAGEN_START}]\n", "dim must be a number"),
    ("non-ASCII dim", f"[rules:dim:\u0661\u0661 start:{COPENHAGEN_START}]\n", "dim must be"),
    ("year 1", f"[date:0001.01.01]\n{RULES_TAG}\n", "date tag: 0001.01.01 is before 1900"),
    ("no such day", f"[date:2024.02.30]\n{RULES_TAG}\n", "date tag"),
    ("not a date", f"[date:yesterday]\n{RULES_TAG}\n", "YYYY.MM.DD"),
    ("long name", f"[attackers:{'A' * 3000}]\n{RULES_TAG}\n", "attackers tag"),
    ("41 characters", f"[defenders:{'B' * 41}]\n{RULES_TAG}\n", "1 to 40 printable"),
    ("control character", f"[defenders:Bo\x07b]\n{RULES_TAG}\n", "defenders tag"),
    ("huge empty run", f"[rules:dim:11 start:/{'9' * 5000}/]\n", "rules tag"),
    ("superscript turn", f"{RULES_TAG}\n\n\u00b2. d1-d3 h6-h9\n", "turn number"),
    ("wrong board size", "[rules:dim:9 start:/3t3/]\n", "rules tag"),
    ("berserk", f"[rules:dim:11 ber:c start:{COPENHAGEN_START}]\n", "berserk"),
    ("middleweight king", f"[rules:dim:11 ks:m start:{COPENHAGEN_START}]\n", "ks:m"),
    ("odd corners", f"[rules:dim:11 cor:a1,k11, start:{COPENHAGEN_START}]\n", "cor:"),
    ("bad piece letter", f"[rules:dim:11 corh:tX start:{COPENHAGEN_START}]\n", "corh"),
    ("unknown extension key", f"[companion-rules:colour=red]\n{RULES_TAG}\n", "colour"),
    ("bad position tag", f"[position:/11/]\n{RULES_TAG}\n", "position tag"),
    ("illegal move", f"{RULES_TAG}\n\n1. d1-d3 h6-h9\n2. d3-d9 f6-f9\n", "line 4: d3-d9"),
    ("wrong capture", f"{RULES_TAG}\n\n1. d1-d3xd4 h6-h9\n", "captures"),
    ("not a move", f"{RULES_TAG}\n\n1. d1-d3 hello\n", "not a move record"),
    ("jump", f"{RULES_TAG}\n\n1. d1^d3 h6-h9\n", "jumps"),
    ("turn gap", f"{RULES_TAG}\n\n1. d1-d3 h6-h9\n3. k4-i4 f8-c8\n", "turn 3"),
    ("three moves", f"{RULES_TAG}\n\n1. d1-d3 h6-h9 k4-i4\n", "one or two"),
    ("short turn not last", f"{RULES_TAG}\n\n1. d1-d3\n2. h6-h9 k4-i4\n", "last turn"),
    ("garbage line", f"{RULES_TAG}\n\n1. d1-d3 h6-h9\nhello there\n", "line 4"),
    ("unclosed comment", f"{RULES_TAG}\n\n1. d1-d3 h6-h9\n[oops\n", "never closed"),
    ("king letter on a soldier", f"{RULES_TAG}\n\n1. Kd1-d3 h6-h9\n", "says K"),
    ("false king capture", f"{RULES_TAG}\n\n1. d1-d3xKf6 h6-h9\n", "king"),
    ("false ++", f"{RULES_TAG}\n\n1. d1-d3++ h6-h9\n", "++"),
    ("false --", f"{RULES_TAG}\n\n1. d1-d3 h6-h9--\n", "--"),
    ("bad result tag", f"[result:white]\n{RULES_TAG}\n", "result tag"),
    ("result contradicts the rules",
     f"[result:1]\n{RULES_TAG}\n\n1. k8-g8 h6-h8xg8\n2. j6-j11 g6-j6\n3. k7-k10 Kf6-i6\n"
     "4. k5-i5 Ki6-i11xj11\n5. k10-i10 Ki11-k11\n", "rules say defenders"),
    ("move after the end",
     f"{RULES_TAG}\n\n1. k8-g8 h6-h8xg8\n2. j6-j11 g6-j6\n3. k7-k10 Kf6-i6\n"
     "4. k5-i5 Ki6-i11xj11\n5. k10-i10 Ki11-k11\n6. a4-a5\n", "already over"),
]


@pytest.mark.parametrize("label,text,needle", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_malformed_files_raise_clear_errors(label, text, needle):
    with pytest.raises(OtgError) as info:
        import_otg(text)
    assert needle in str(info.value), str(info.value)
    assert "\n" not in str(info.value)
