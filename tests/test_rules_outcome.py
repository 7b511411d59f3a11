"""Termination and Outcome (python-chess style): values, JSON and SQLite unchanged; manual
endings; Game.copy."""

from __future__ import annotations

import json
import sqlite3

import pytest

from companion.rules import REASON_TEXT, MoveError, Outcome, Termination, get_variant
from companion.rules.game import Game


def test_termination_values_are_the_stored_strings():
    assert [str(t) for t in Termination] == [
        "king_captured", "escape", "exit_fort", "encirclement", "repetition", "no_moves",
        "agreement", "resignation", "time"]
    assert set(REASON_TEXT) == set(Termination)
    assert Termination.ESCAPE == "escape" and {"escape": 1}[Termination.ESCAPE] == 1


def test_outcome_converts_and_checks():
    o = Outcome(None, "agreement")
    assert o.termination is Termination.AGREEMENT and o.reason == "agreement"
    assert o.result == "draw"
    assert Outcome("attackers", Termination.TIME).result == "attackers"
    with pytest.raises(ValueError):
        Outcome(None, "boredom")
    with pytest.raises(ValueError):
        Outcome("white", "escape")
    assert json.dumps(Outcome("defenders", "escape").to_json()) == \
        '{"result": "defenders", "reason": "escape"}'


def test_a_termination_goes_into_sqlite_as_its_string():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE g (reason TEXT)")
    db.execute("INSERT INTO g VALUES (?)", (Termination.EXIT_FORT,))
    assert db.execute("SELECT reason, typeof(reason) FROM g").fetchone() == ("exit_fort", "text")


def test_the_rules_report_terminations():
    game = Game(get_variant("brandubh"))
    for m in ["d2-e2", "c4-c5", "b4-b3", "e4-e3", "f4-f5", "d4-f4", "a4-e4xe3"]:
        game.play_text(m)
    outcome = game.outcome()
    assert outcome == Outcome("attackers", Termination.KING_CAPTURED)
    assert isinstance(outcome.termination, Termination)


@pytest.mark.parametrize("end, result, termination", [
    (lambda g: g.agree_draw(), "draw", "agreement"),
    (lambda g: g.resign("defenders"), "attackers", "resignation"),
    (lambda g: g.lose_on_time("attackers"), "defenders", "time"),
])
def test_manual_endings_copy_and_undo(end, result, termination):
    game = Game(get_variant("brandubh"))
    game.play_text("d2-e2")
    end(game)
    assert game.result == result and game.outcome().termination == termination
    twin = game.copy()
    assert twin.moves == game.moves and twin.outcome() == game.outcome()
    assert twin is not game and twin.board is not game.board
    twin.undo()
    assert game.is_over() and game.moves == ["d2-e2"] and not twin.is_over()
    with pytest.raises(MoveError):
        game.lose_on_time("attackers")


def test_end_refuses_endings_the_rules_decide():
    game = Game(get_variant("brandubh"))
    with pytest.raises(ValueError):
        game.end(Outcome("defenders", Termination.ESCAPE))
    with pytest.raises(ValueError):
        game.end(Outcome(None, Termination.RESIGNATION))
    with pytest.raises(ValueError):
        game.end(Outcome("attackers", Termination.AGREEMENT))
    with pytest.raises(ValueError):
        game.lose_on_time("nobody")
