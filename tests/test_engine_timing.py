"""The engine uses the time it is given: an overtime period almost whole, a share of main time,
a time per move; at full strength when no level is chosen, within a chosen level's limits."""

from __future__ import annotations

import io

from companion.engine.otep import OtepEngine
from companion.engine.otr import otr_for
from companion.engine.timing import Budget, from_clock, per_move
from companion.rules import PRESETS


def test_an_overtime_period_is_used_almost_whole():
    b = from_clock(2.0, in_overtime=True, period=2.0, periods_left=99)
    assert b.soft == b.hard and 0.85 * 2.0 <= b.hard < 2.0


def test_main_time_gives_a_share_and_a_hard_limit_inside_what_is_left():
    b = from_clock(60.0, in_overtime=False)
    assert b.soft == 2.0 and b.soft < b.hard <= 0.3 * 60
    # with overtime periods to follow, most of a period comes on top of the share
    with_ot = from_clock(60.0, in_overtime=False, period=10.0, periods_left=3)
    assert with_ot.soft == 2.0 + 8.0 and with_ot.hard > with_ot.soft
    # no periods left: the period does not count
    assert from_clock(60.0, False, period=10.0, periods_left=0) == b
    # almost out of time: still a (tiny) move
    assert from_clock(0.0, in_overtime=False).hard > 0


def test_a_time_per_move_is_used_whole_less_the_margin():
    b = per_move(10.0)
    assert b == Budget(b.hard, b.hard) and 9.0 < b.hard < 10.0
    assert per_move(10.0).capped(5.0) == Budget(5.0, 5.0)


def play(level: int | None, *lines: str) -> list[str]:
    out = io.StringIO()
    engine = OtepEngine(io.StringIO(), out, level=level)
    engine.run_line(f"rules {otr_for(PRESETS['brandubh'])}")
    for line in lines:
        engine.run_line(line)
    return out.getvalue().splitlines()


def final_status(lines: list[str]) -> dict[str, str]:
    words = [line for line in lines if line.startswith("status depth")][-1].split()
    return {key: words[words.index(key) + 1] for key in ("depth", "nodes", "time")}


def test_without_a_level_a_clock_gives_full_strength_for_the_period():
    lines = play(None, "clock 1000* 1000* 1 99 99", "play attackers")
    assert lines[-1].startswith("move ")
    status = final_status(lines)
    # the period is used: the search ran to its hard limit (0.87 s), not to a level's nodes
    assert float(status["time"]) >= 0.8


def test_a_chosen_level_keeps_its_limits_under_a_clock():
    lines = play(5, "clock 30000* 30000* 30 99 99", "play attackers")
    status = final_status(lines)
    assert int(status["nodes"]) <= 12_000 + 256  # level 5 stops at 12,000 nodes
    assert float(status["time"]) < 25


def test_every_level_has_a_rating_for_the_page_never_falling_with_the_level():
    """Measured ratings (bench/ladder.py): strictly rising with the level (issue 26: levels 4 and
    5 shared one, so the page offered two levels of one strength), the ends far apart."""
    from companion.engine.levels import LEVELS

    ratings = [LEVELS[n].to_json()["rating"] for n in range(1, 11)]
    assert all(isinstance(r, int) for r in ratings)
    assert ratings == sorted(set(ratings)) and ratings[-1] - ratings[0] >= 500
