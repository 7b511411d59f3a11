"""Time controls and the game clock (pure, on a virtual time base)."""

from __future__ import annotations

import pytest

from companion.session.clock import GameClock, TimeControl, TimeControlError
from companion.session.match import GameResult, Match, MatchError, check_tie_break


@pytest.mark.parametrize("text, main, inc, periods, period, canon", [
    ("5+3", 300, 3, 0, 0, "5+3"),
    ("0.25", 15, 0, 0, 0, "0.25+0"),
    ("10+0/3x30", 600, 0, 3, 30, "10+0/3x30"),
    ("1+2/1x5", 60, 2, 1, 5, "1+2/1x5"),
])
def test_time_controls_parse(text, main, inc, periods, period, canon) -> None:
    tc = TimeControl.parse(text)
    assert tc is not None
    assert (tc.main, tc.increment, tc.periods, tc.period) == (main, inc, periods, period)
    assert tc.text == canon and TimeControl.parse(tc.text) == tc
    assert TimeControl.parse("none") is None


@pytest.mark.parametrize("bad", ["", "5+", "+3", "abc", "5+3/3", "0", "99999", "5+3/3x0",
                                 "-5+3", "5 + 3", "٥+3"])
def test_bad_time_controls_say_what_is_accepted(bad) -> None:
    with pytest.raises(TimeControlError) as err:
        TimeControl.parse(bad)
    assert "time control" in str(err.value)


def test_fischer_switch_charges_the_mover_and_adds_the_increment() -> None:
    clock = GameClock(TimeControl.parse("1+2"))
    clock.start("attackers", 10.0)
    assert clock.left("attackers", 25.0) == pytest.approx(45.0)
    clock.switch("attackers", 25.0)  # moved after 15 s: 60 - 15 + 2
    assert clock.left("attackers", 99.0) == pytest.approx(47.0)
    assert clock.running == "defenders" and clock.left("defenders", 35.0) == pytest.approx(50.0)
    assert clock.flag_at() == pytest.approx(85.0)
    assert clock.flag_due(84.9) is None and clock.flag_due(85.0) == "defenders"


def test_overtime_periods_are_kept_renewed_and_used_up() -> None:
    clock = GameClock(TimeControl.parse("0.5+0/2x10"))  # 30 s, then 2 periods of 10 s
    clock.start("attackers", 0.0)
    clock.switch("attackers", 35.0)  # main used up, 5 s into period 1: the period is renewed
    st = clock.times["attackers"]
    assert (st.main, st.periods, st.period_left) == (0.0, 2, 10.0)
    clock.switch("defenders", 35.0)
    clock.switch("attackers", 47.0)  # 12 s: period 1 used up, 2 s into period 2
    assert clock.times["attackers"].periods == 1
    assert clock.to_json(47.0)["overtime"]["attackers"] == {"in_overtime": True, "periods": 1}
    clock.switch("defenders", 47.0)
    assert clock.flag_at() == pytest.approx(57.0)
    assert clock.flag_due(57.0) == "attackers"


def test_pause_resume_and_snapshots_restore() -> None:
    clock = GameClock(TimeControl.parse("1+0"))
    clock.start("attackers", 0.0)
    clock.pause(10.0)
    assert clock.left("attackers", 500.0) == pytest.approx(50.0) and clock.flag_due(500.0) is None
    clock.resume(500.0)
    assert clock.left("attackers", 510.0) == pytest.approx(40.0)
    snap = clock.snapshot()  # as it stood when it last started: 50 s
    again = GameClock.restore(snap, t=510.0)
    assert again.left("attackers", 520.0) == pytest.approx(40.0)
    assert again.to_json(520.0)["running"] == "attackers"
    assert GameClock.restore(snap).running == "attackers" and GameClock.restore(snap).since is None


def test_low_time_warning() -> None:
    clock = GameClock(TimeControl.parse("0.25+0"))
    clock.start("defenders", 0.0)
    assert clock.to_json(4.0)["low"] == []
    assert clock.to_json(6.0)["low"] == ["defenders"]


def test_match_score_and_the_tie_rule() -> None:
    m = Match(1, ("Ann", "Bo"))
    assert m.sides(1) == {"attackers": "Ann", "defenders": "Bo"}
    assert m.sides(2) == {"attackers": "Bo", "defenders": "Ann"}
    m.game_ids = [1, 2]
    m.results = [GameResult("attackers", 40, None), GameResult("attackers", 30, None)]
    assert m.score() == {"Ann": 1.0, "Bo": 1.0}
    assert m.winner() == ("Bo", "moves")  # the quicker win
    m.results = [GameResult("attackers", 30, {"attackers": 100, "defenders": 5}),
                 GameResult("attackers", 30, {"attackers": 90, "defenders": 5})]
    assert m.winner() == ("Ann", "time")
    m.tie_break = ()
    assert m.winner() == (None, "tie")
    m.results = [GameResult("draw", 30), GameResult("defenders", 30)]
    assert m.score() == {"Ann": 1.5, "Bo": 0.5} and m.winner() == ("Ann", "score")
    assert m.to_json()["finished"] is True
    assert check_tie_break("time, moves") == ("time", "moves")
    with pytest.raises(MatchError):
        check_tie_break(["moves", "luck"])
