"""The session's side of board-to-board play (what companion.club needs of the seam), with a
scripted club player, the real tracker, a real SQLite store and the simulated board on a
virtual clock: a board of the club chosen for a new game is proposed to it, a new game's clock
runs from its first move (as every game's: both boards follow the rule), the other board's side
is never flagged here, no pause at one end, a move to make taken back there is withdrawn
here."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_helpers import Harness
from test_session_remote import FakeRemote, mv

from companion.session import OWNER, ControlError
from companion.session.clock import TimeControl
from companion.session.remote import (
    RemoteEnd,
    RemoteMove,
    RemoteStart,
    RemoteTakeback,
    RemoteTerms,
)
from companion.session.settings import GameSettings

REF = "club:oslo/table-2/5d1c0e77"
CLUB_BOARD = {"kind": "club", "board": "table-2"}


def club(tmp_path: Path, **kw: object) -> tuple[Harness, FakeRemote]:
    h = Harness(tmp_path, **kw)  # type: ignore[arg-type]
    player = FakeRemote(h.path, "club", takebacks=True)
    h.session.attach_remote(player)
    h.run(0.1)
    return h, player


def agreed(h: Harness, player: FakeRemote, local: str = "attackers", tc: str = "5+0") -> None:
    player.send(RemoteStart(RemoteTerms(GameSettings.make("copenhagen"), TimeControl.parse(tc),
                                        local, "table-2", REF)))
    h.run(0.5)
    assert h.state["remote"]["ref"] == REF


def test_a_board_of_the_club_chosen_for_a_new_game_is_proposed_to_it(tmp_path: Path) -> None:
    h, player = club(tmp_path)
    out = h.session.new_game(OWNER, {"time_control": "3+2", "players": {
        "defenders": CLUB_BOARD, "attackers": {"kind": "board", "name": "Ann"}}})
    h.run(0.2)
    (_, ref, moves), = player.sent("started")
    assert (ref, moves) == ("", ())  # a proposal: the club player agrees it with table-2
    s = h.state
    assert s["game"] == out["game"] and "Waiting for table-2 to agree" in s["message"]
    assert s["players"]["defenders"] == {"name": "table-2", "kind": "club", "board": "table-2"}
    assert s["remote"]["opponent"] == "table-2"  # the club player finds the board by it
    # another new game replaces the proposal (nothing was played): the player is told
    h.session.new_game(OWNER, {"players": {"defenders": {"kind": "board", "name": "Bo"}}})
    assert player.sent("stopped") and h.state["remote"]["ref"] is None


@pytest.mark.parametrize(("request_", "code"), [
    ({"players": {"attackers": CLUB_BOARD, "defenders": CLUB_BOARD}}, "bad_players"),
    ({"match": True, "players": {"defenders": CLUB_BOARD, "attackers": {"name": "Ann"}}},
     "bad_players"),
    ({"players": {"defenders": {"kind": "club", "board": "Table 2"}}}, "bad_players"),
    ({"players": {"defenders": {"kind": "club"}}}, "bad_players"),
    ({"players": {"defenders": {"kind": "board", "board": "table-2"}}}, "bad_players"),
])
def test_bad_club_players_are_refused(tmp_path: Path, request_: dict, code: str) -> None:
    h, _ = club(tmp_path)
    with pytest.raises(ControlError) as err:
        h.session.new_game(OWNER, request_)
    assert err.value.code == code


def test_a_club_board_needs_the_club_and_a_new_game(tmp_path: Path) -> None:
    h = Harness(tmp_path)  # no club player attached: no [club] in the config
    with pytest.raises(ControlError) as err:
        h.session.new_game(OWNER, {"players": {"defenders": CLUB_BOARD}})
    assert (err.value.status, err.value.code) == (409, "no_club")
    with pytest.raises(ControlError) as err:  # not in the middle of a game
        h.session.set_players(OWNER, {"defenders": CLUB_BOARD})
    assert err.value.code == "bad_players"


def test_a_new_games_clock_starts_with_its_first_move(tmp_path: Path) -> None:
    """A new game on a board already set up: no clock runs before its first move is on the
    board (issue 21: one rule for every game, so both boards of a club game agree)."""
    h = Harness(tmp_path)
    h.session.new_game(OWNER, {"time_control": "5+0"})
    h.run(1.0)
    assert h.state["clock"]["running"] is None
    h.move("d1", "d4", think=2.0)
    assert h.state["clock"]["running"] == "defenders"
    running = h.session.clock
    assert running is not None and running.left("attackers", h.t) == 300.0
    h.run(1.0)
    assert running.left("defenders", h.t) == pytest.approx(300 - 1.4, abs=0.05)  # since placed


def test_the_other_boards_side_is_never_flagged_here(tmp_path: Path) -> None:
    h, player = club(tmp_path)
    agreed(h, player, tc="0.1+0")  # six seconds each
    h.move("d1", "d4")
    h.run(8.0)  # the defenders' time runs out as this board counts it ...
    running = h.session.clock
    assert running is not None and running.left("defenders", h.t) == 0.0
    assert h.state["result"] == "ongoing"
    player.send(RemoteEnd("attackers", "time"))  # ... their board's word ends the game
    h.run(0.05)
    assert (h.state["result"], h.state["reason"]) == ("attackers", "time")


def test_this_boards_side_is_flagged_here_and_no_pause_at_one_end(tmp_path: Path) -> None:
    h, player = club(tmp_path)
    agreed(h, player, local="defenders", tc="0.1+0")
    with pytest.raises(ControlError) as err:
        h.session.clock_control(OWNER, "pause")
    assert err.value.code == "remote_clock"
    player.send(RemoteMove(0, mv("d1-d4")))
    h.run(0.2)
    h.move("d1", "d4")  # the first move on the board: this board's side's clock runs
    h.run(8.0)
    assert (h.state["result"], h.state["reason"]) == ("attackers", "time")


def test_a_move_to_make_taken_back_at_the_other_board_is_withdrawn(tmp_path: Path) -> None:
    h, player = club(tmp_path)
    agreed(h, player, local="defenders")
    player.send(RemoteMove(0, mv("d1-d4")))
    h.run(0.2)
    assert h.state["move_to_make"]["move"] == "d1-d4"
    assert h.state["clock"]["running"] is None  # not on the board yet: no clock runs
    h.move("d1", "d4")
    h.move("f4", "e4")
    player.send(RemoteMove(2, mv("h1-h3")))
    h.run(0.2)
    assert h.state["move_to_make"]["move"] == "h1-h3"
    assert h.state["clock"]["running"] == "defenders"  # the chooser's clock stopped
    player.send(RemoteTakeback(2))
    h.run(0.2)
    s = h.state
    assert s["move_to_make"] is None and s["moves"] == ["d1-d4", "f4-e4"]
    assert s["clock"]["running"] == "attackers"  # as before the choice
    player.send(RemoteMove(2, mv("h1-h2")))  # another move instead
    h.run(0.2)
    assert h.state["move_to_make"]["move"] == "h1-h2"
