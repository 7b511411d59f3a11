"""Fuzzing the file readers (issue 17 defect 5): whatever a game file or a record file holds,
reading it gives a game or the reader's own error (OtgError, RecordError) with a one-line
message — never another exception (which the page answered with a 500 and `rules replay` with a
traceback)."""

from __future__ import annotations

import os
import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.rules import PRESETS, get_variant
from companion.rules.game import Game
from companion.rules.otg import OtgError, export_otg, import_otg, replay_otg
from companion.rules.records import RecordError, read_records, replay_record

# TAFL_FUZZ_EXAMPLES=20000 fuzzes deeper by hand (the suite runs 300 per test)
FUZZ = settings(max_examples=int(os.environ.get("TAFL_FUZZ_EXAMPLES", "300")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def sample_otg(variant: str = "brandubh", plies: int = 12, seed: int = 1) -> str:
    """A real exported game file to mutate."""
    rng = random.Random(seed)
    game = Game(get_variant(variant))
    for _ in range(plies):
        moves = game.board.legal_moves()
        if not moves or game.is_over():
            break
        game.play(rng.choice(moves))
    return export_otg(game, {"attackers": "Ann", "defenders": "Bo", "event": "fuzz"})


SAMPLE = sample_otg()
TAG_KEYS = ["rules", "date", "result", "attackers", "defenders", "position", "companion-rules",
            "companion-turn", "event"]
RULE_KEYS = ["dim", "name", "esc", "surf", "atkf", "tfr", "ka", "ks", "cor", "cen", "cenp",
             "cens", "cenre", "cenh", "cenhe", "corh", "sw", "efe", "linc", "ber", "kj", "spd",
             "start", "starti"]
# the characters the format uses, and a few that are not what they seem
ALPHABET = st.sampled_from(list("0123456789abcdefghijkstTKx/-+.:,[]|?= \t") +
                           ["\u0661", "\u00b2", "\uff11", "\x00", "\x07", "\u00e9", "\n"])
FUZZY_TEXT = st.text(ALPHABET, max_size=40)
NUMBERS = st.one_of(st.integers(-10, 100).map(str), st.sampled_from(
    ["", "0", "07", "52", "99999999999999", "1e3", "+11", "\u0661\u0661", "11.0", "9" * 5000]))


def only_its_own_error(text: str) -> None:
    try:
        got = import_otg(text)
    except OtgError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert got.game.rules.size in range(7, 20)
    assert len(got.attackers) <= 40 and len(got.defenders) <= 40


@FUZZ
@given(st.text(max_size=400))
@example("[rules:dim:0 start:/]")
@example("[rules:dim:52 start:/]")
@example("[date:0001.01.01]\n[rules:dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]")
def test_any_text_is_a_game_file_or_an_otg_error(text: str) -> None:
    only_its_own_error(text)


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(TAG_KEYS), FUZZY_TEXT), max_size=6),
       st.lists(st.tuples(st.sampled_from(RULE_KEYS), st.one_of(FUZZY_TEXT, NUMBERS)),
                max_size=8),
       st.sampled_from([None, *PRESETS]), st.lists(FUZZY_TEXT, max_size=4))
def test_tags_and_rules_strings_of_any_value(tags, rule_parts, preset, body) -> None:
    """Tag values and rules-string entries from the format's own vocabulary, in any order and
    any value (the rules string starting from a real preset's, so later keys override it)."""
    base = export_otg(Game(PRESETS[preset])).split("[rules:")[1].split("]")[0] if preset else ""
    rules = " ".join([base, *(f"{k}:{v}" for k, v in rule_parts)])
    head = [f"[{k}:{v}]" for k, v in tags] + [f"[rules:{rules}]"]
    only_its_own_error("\n".join(head) + "\n\n" + "\n".join(body) + "\n")


@FUZZ
@given(st.data())
def test_mutations_of_a_real_game_file(data) -> None:
    """A real exported file with characters replaced, inserted or deleted, lines swapped."""
    chars = list(SAMPLE)
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(0, len(chars) - 1))
        how = data.draw(st.sampled_from(["replace", "insert", "delete"]))
        c = data.draw(ALPHABET)
        if how == "replace":
            chars[i] = c
        elif how == "insert":
            chars.insert(i, c)
        elif len(chars) > 1:
            del chars[i]
    lines = "".join(chars).split("\n")
    if data.draw(st.booleans()) and len(lines) > 2:
        a, b = data.draw(st.integers(0, len(lines) - 1)), data.draw(st.integers(0, len(lines) - 1))
        lines[a], lines[b] = lines[b], lines[a]
    text = "\n".join(lines)
    only_its_own_error(text)
    try:
        doc = replay_otg(get_variant("brandubh"), text)
    except OtgError:
        return
    assert doc["games"] == 1 and doc["agree"] + len(doc["disagree"]) == 1


@FUZZ
@given(st.text(max_size=300))
@example('"d1-d9",0,0,\n')
@example("a,b\n")
@example("d2-e2," + "9" * 5000 + ",0,Ongoing\n")
@example("x" * 200_000 + ",0,0,Ongoing\n")
def test_any_text_is_records_or_a_record_error(text: str) -> None:
    try:
        records = read_records(text)
    except RecordError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    for record in records:
        game, problem = replay_record(get_variant("brandubh"), record)
        assert problem is None or (problem[0] >= 1 and problem[1])


@FUZZ
@given(st.lists(st.text(st.sampled_from(list("abcdefgh1234567890-x ")), max_size=12),
                max_size=20),
       st.sampled_from(["White", "Black", "Draw", "Ongoing", "", "timeout"]))
def test_records_of_move_like_tokens_replay_or_disagree(tokens, status) -> None:
    line = f"{' '.join(tokens)},0,0,{status}\n"
    try:
        records = read_records(line)
    except RecordError:
        return
    for record in records:
        _, problem = replay_record(get_variant("brandubh"), record)
        assert problem is None or problem[1]
