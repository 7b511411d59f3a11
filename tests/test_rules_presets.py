"""The 12 presets against the tables of shared/rules/VARIANTS.md (transcribed here by hand)."""

from __future__ import annotations

import dataclasses

import pytest

from companion.rules import PRESETS, Board, RuleSet, get_variant

C11 = "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
N9 = "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/"
ALEA = (
    "/2t2t7t2t2/19/t4t7t4t/7t1t1t7/6t1T1T1t6/t1t2t7t2t1t/4t4T4t4/3t4T1T4t3/4T2T1T1T2T4/"
    "3t2T1TKT1T2t3/4T2T1T1T2T4/3t4T1T4t3/4t4T4t4/t1t2t7t2t1t/6t1T1T1t6/7t1t1t7/t4t7t4t/19/"
    "2t2t7t2t2/"
)
ALL = {"attackers", "defenders", "king"}
KING = {"king"}
NONE: set[str] = set()

# id: size, start, escape, king_strength, throne_stop, corners, hostile_corners,
#     hostile_throne_empty, shieldwall, exit_fort, encirclement, repetition, no_moves
TABLE = {
    "copenhagen": (11, C11, "corners", "strong", "king", "single", ALL, ALL, "corners", True,
                   True, "defenders_lose", "loss"),
    "fetlar": (11, C11, "corners", "strong", "king", "single", ALL, ALL, "off", False, False,
               "draw", "draw"),
    "koenigszabel": (11, C11, "corners", "strong", "king", "single", ALL, KING, "off", False,
                     False, "draw", "draw"),
    "helmfrid-11": (11, C11, "corners", "strong_by_throne", "king", "single", ALL, ALL, "off",
                    False, False, "off", "loss"),
    "helmfrid-9": (9, N9, "corners", "strong_by_throne", "king", "single", ALL, ALL, "off",
                   False, False, "off", "loss"),
    "tablut": (9, N9, "edge", "strong", "king_once", "single", ALL, KING, "off", False, False,
               "off", "loss"),
    "tablut-linnaeus": (9, N9, "edge", "strong_by_throne", "nobody", "none", NONE, ALL, "off",
                        False, False, "draw", "draw"),
    "brandubh": (7, "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", "corners", "strong_by_throne", "king",
                 "single", ALL, ALL, "off", False, True, "defenders_lose", "loss"),
    "ard-ri": (7, "/2ttt2/3t3/t1TTT1t/ttTKTtt/t1TTT1t/3t3/2ttt2/", "edge", "strong", "king",
               "none", NONE, ALL, "off", False, False, "draw", "loss"),
    "tawlbwrdd": (11,
                  "/4ttt4/4t1t4/5t5/5T5/tt2TTT2tt/t1tTTKTTt1t/tt2TTT2tt/5T5/5t5/4t1t4/4ttt4/",
                  "edge", "weak", "anyone", "none", NONE, NONE, "off", False, False, "draw",
                  "loss"),
    "copenhagen-13": (13, "/3ttttttt3/6t6/13/t5T5t/t5T5t/t4TTT4t/tt1TTTKTTT1tt/t4TTT4t/t5T5t/"
                      "t5T5t/13/6t6/3ttttttt3/", "corners", "strong", "king", "single", ALL,
                      ALL, "corners", True, True, "defenders_lose", "loss"),
    "alea-evangelii": (19, ALEA, "corners", "strong", "nobody", "block", ALL, ALL, "off", False,
                       False, "draw", "loss"),
}
FIELDS = ("size", "start", "escape", "king_strength", "throne_stop", "corners",
          "hostile_corners", "hostile_throne_empty", "shieldwall", "exit_fort", "encirclement",
          "repetition", "no_moves")


#: the hnefatafl.org server's rule sets (rules/hnefatafl_org.py, tests/test_online_rules.py)
SERVER = ["hnefatafl-org-7", "hnefatafl-org", "hnefatafl-org-13"]


def test_the_twelve_presets():
    assert list(PRESETS) == list(TABLE) + SERVER


@pytest.mark.parametrize("variant", list(TABLE))
def test_preset_matches_variants_md(variant):
    rules = PRESETS[variant]
    for field, want in zip(FIELDS, TABLE[variant]):
        got = getattr(rules, field)
        assert (set(got) if isinstance(got, frozenset) else got) == want, field
    # common to every preset
    assert rules.first == "attackers" and rules.king_armed and rules.throne_pass == "all"
    assert rules.linnaean_capture == (variant == "tablut-linnaeus")
    assert not rules.sheltered_king and not rules.chain_capture
    assert Board(rules).otn() == rules.start


def test_rule_sets_validate_their_fields():
    base = PRESETS["fetlar"]
    with pytest.raises(ValueError, match="king_strength"):
        base.with_options(king_strength="mighty")
    with pytest.raises(ValueError, match="size"):
        base.with_options(size=21)
    with pytest.raises(ValueError, match="corner escape"):
        base.with_options(corners="none")
    with pytest.raises(ValueError, match="subset"):
        base.with_options(hostile_corners=frozenset({"everyone"}))
    with pytest.raises(ValueError, match="unknown variant"):
        get_variant("chess")


def test_with_options_makes_a_new_value():
    rules = PRESETS["copenhagen"].with_options(chain_capture=True, sheltered_king=True)
    assert isinstance(rules, RuleSet) and rules.chain_capture and rules.sheltered_king
    assert not PRESETS["copenhagen"].chain_capture
    assert rules != PRESETS["copenhagen"]
    assert dataclasses.replace(rules, chain_capture=False, sheltered_king=False) == PRESETS[
        "copenhagen"]
