"""A computer player's time per move above its level's cap: the engine is told the cap, the
one the host waits for. Told the player's 30 s at level 10 (cap 20 s), the engine thought past
the host's deadline (20 × 1.1 + 3 s) and every one of its moves failed with "did not answer
within 25.0 s" (found with the page's "seconds" field)."""

from __future__ import annotations

import pytest

from companion.engine import LEVELS, get_level
from companion.session.players import EnginePlayer, PlayerKind, PlayerSpec


def engine_time(player: EnginePlayer) -> float | None:
    argv = player.host.argv
    return float(argv[argv.index("--time") + 1]) if "--time" in argv else None


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_the_engine_is_told_no_more_than_the_host_waits_for(level: int) -> None:
    cap = get_level(level).seconds
    for seconds in (cap / 2, cap * 1.5, 600.0):
        player = EnginePlayer(PlayerSpec(PlayerKind.COMPUTER, level=level, seconds=seconds))
        try:
            assert player.budget == min(cap, seconds)
            assert engine_time(player) == player.budget
        finally:
            player.host.close()
    player = EnginePlayer(PlayerSpec(PlayerKind.COMPUTER, level=level))
    try:
        assert engine_time(player) is None and player.budget == cap  # the level's own time
    finally:
        player.host.close()
