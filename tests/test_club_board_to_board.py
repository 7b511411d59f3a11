"""Board-to-board play for real (issue 19's "done when"): two daemon processes on simulated
boards play through a real Mosquitto, moves made with ``POST /api/click`` as a hand would make
them; the broker is stopped for one move, a board is killed with -9 mid-game, and
``tafl-companion club`` shows both boards' games as the boards show them."""

from __future__ import annotations

import signal
from pathlib import Path

from club_broker import MOSQUITTO, Mosquitto
from club_support import Room, board, carry_out, club_link, equal_to_board, move_to_make, play
from prerequisites import require
from test_daemon_support import control, state, wait_for

require(MOSQUITTO is not None, "mosquitto (apt-get install mosquitto)", module_level=True)
#: a Brandubh game won by the defenders (the king escapes to a1); table-1 plays the attackers
GAME = ["d1-e1", "d3-e3", "d2-e2", "d4-d1", "e1-f1", "d1-a1"]
SIDES = ("attackers", "defenders")


def both_ways(here: str, there: str, move: str) -> None:
    """``move`` made at board ``here``; the person at ``there`` makes it as the move to make."""
    play(here, move)
    carry_out(there, move)


def clocks_agree(a: dict, b: dict, within: float = 1.5) -> bool:
    ca, cb = a["clock"], b["clock"]
    return all(abs(ca[s] - cb[s]) <= within for s in SIDES)


def test_two_boards_play_a_brandubh_game_through_the_broker(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker")
    d1, t1 = board(tmp_path, broker.url, "oslo", "table-1", "--defenders", "club:table-2",
                   "--time-control", "5+3")
    d2, t2 = board(tmp_path, broker.url, "oslo", "table-2", "--attackers", "club:table-1",
                   "--time-control", "5+3")
    room = Room(broker.url, "oslo")
    try:
        # the handshake: both boards proposed the same terms, so they agree by themselves
        wait_for(lambda: state(t1)["remote"]["ref"] and state(t1)["remote"]["ref"]
                 == state(t2)["remote"]["ref"], what="agreement")
        s1, s2 = state(t1), state(t2)
        assert s1["remote"]["ref"].startswith("club:oslo/")
        assert (s1["players"]["defenders"]["kind"], s1["players"]["defenders"]["name"]) == (
            "club", "table-2")
        assert (s2["players"]["attackers"]["kind"], s2["players"]["attackers"]["name"]) == (
            "club", "table-1")
        assert (s1["remote"]["local_side"], s2["remote"]["local_side"]) == SIDES
        assert s1["clock"]["control"]["text"] == s2["clock"]["control"]["text"] == "5+3"
        # the other side's moves cannot be made here: only its move to make
        assert control(t1, "/api/move", {"move": "d3-c3"})[0] == 409

        both_ways(t1, t2, GAME[0])
        wait_for(lambda: clocks_agree(state(t1), state(t2)), what="clocks")
        # the broker is down for one move: the move is made and stored at table-2 ...
        broker.stop()
        play(t2, GAME[1])
        # both boards know the broker is gone (the move is owed, not lost): nothing can reach
        # table-1 until it is back (waited on the links' state, not on a sleep)
        wait_for(lambda: club_link(t1) != "connected" and club_link(t2) != "connected",
                 what="both links down")
        assert state(t1)["move_to_make"] is None and state(t1)["moves"] == GAME[:1]
        # ... and reaches table-1 once the broker is back: nothing lost
        broker.start()
        carry_out(t1, GAME[1], timeout=60)
        # table-1 dies hard right after its move, and comes back
        play(t1, GAME[2])
        d1.stop(signal.SIGKILL)
        d1, t1 = board(tmp_path, broker.url, "oslo", "table-1", "--defenders",
                       "club:table-2", "--time-control", "5+3")
        assert state(t1)["moves"] == GAME[:3]  # stored before the kill
        carry_out(t2, GAME[2])
        # and once more while the other board's move waits to be made there: shown again
        play(t2, GAME[3])
        move_to_make(t1, GAME[3])
        d1.stop(signal.SIGKILL)
        d1, t1 = board(tmp_path, broker.url, "oslo", "table-1", "--defenders",
                       "club:table-2", "--time-control", "5+3")
        carry_out(t1, GAME[3])
        both_ways(t1, t2, GAME[4])
        both_ways(t2, t1, GAME[5])
        for base in (t1, t2):
            wait_for(lambda b=base: state(b)["result"] == "defenders")
        s1, s2 = state(t1), state(t2)
        assert s1["moves"] == s2["moves"] and [m.split("x")[0] for m in s1["moves"]] == GAME
        assert s1["position"] == s2["position"] and s1["remote"]["ref"] == s2["remote"]["ref"]
        # each board's side's time is its own; the other board shows the same
        wait_for(lambda: clocks_agree(state(t1), state(t2)), what="final clocks")
        # the tournament room shows both boards' games equal to the boards' own
        wait_for(lambda: equal_to_board(room, "table-1", t1)
                 and equal_to_board(room, "table-2", t2), what="the room")
        assert room.board("table-1")["moves"] == room.board("table-2")["moves"]  # type: ignore[index]
    finally:
        room.stop()
        d1.stop()
        d2.stop()
        broker.stop()


def test_takebacks_draws_resignations_and_a_game_proposed_on_the_page(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker")
    d1, t1 = board(tmp_path, broker.url, "bergen", "table-1", "--defenders", "club:table-2")
    d2, t2 = board(tmp_path, broker.url, "bergen", "table-2")
    try:
        # table-1 proposes (its command line); table-2 plays no club game: its owner sees the
        # proposal and accepts it
        wait_for(lambda: state(t2)["remote"] and state(t2)["remote"]["code"] == "proposal",
                 what="the proposal at table-2")
        assert "Waiting for table-2" in state(t1)["message"]
        status = control(t2, "/api/club/accept", {"board": "table-1"}, pin=None)
        assert status[0] == 403  # the owner's
        assert control(t2, "/api/club/accept", {"board": "table-1"})[0] == 200
        wait_for(lambda: state(t1)["remote"]["ref"] and state(t1)["remote"]["ref"]
                 == state(t2)["remote"]["ref"], what="agreement")
        s2 = state(t2)
        assert s2["players"]["attackers"] == {"name": "table-1", "kind": "club",
                                              "board": "table-1"}
        assert s2["players"]["defenders"]["kind"] == "board"

        both_ways(t1, t2, "d1-e1")
        both_ways(t2, t1, "d3-e3")
        # a takeback at table-2 crosses over: table-1 is guided to put the piece back
        assert control(t2, "/api/takeback")[0] == 200
        wait_for(lambda: state(t1)["moves"] == ["d1-e1"], what="takeback")
        assert state(t1)["tracking"] == "setup"
        play_back = ("e3", "d3")
        for sq in play_back:
            control(t1, "/api/click", {"square": sq})
        wait_for(lambda: state(t1)["tracking"] == "ready")
        for sq in play_back:
            control(t2, "/api/click", {"square": sq})
        wait_for(lambda: state(t2)["tracking"] == "ready")
        # a move taken back before the other board made it: its move to make is withdrawn
        play(t2, "d3-c3")
        move_to_make(t1, "d3-c3")
        assert control(t2, "/api/takeback")[0] == 200
        wait_for(lambda: state(t1)["move_to_make"] is None, what="withdrawn")
        for sq in ("c3", "d3"):
            control(t2, "/api/click", {"square": sq})
        wait_for(lambda: state(t2)["tracking"] == "ready" and state(t2)["moves"] == ["d1-e1"],
                 what="d3-c3 put back at table-2")
        assert state(t1)["moves"] == ["d1-e1"] and state(t1)["tracking"] == "ready"
        both_ways(t2, t1, "d3-e3")
        # a draw offer crosses over and is declined there, another accepted
        assert control(t1, "/api/draw", {"action": "offer", "side": "attackers"})[0] == 200
        wait_for(lambda: state(t2)["draw_offer"] == "attackers")
        assert control(t2, "/api/draw", {"action": "offer", "side": "attackers"})[0] == 409
        assert control(t2, "/api/draw", {"action": "decline", "side": "defenders"})[0] == 200
        wait_for(lambda: state(t1)["draw_offer"] is None)
        assert control(t2, "/api/draw", {"action": "offer", "side": "defenders"})[0] == 200
        wait_for(lambda: state(t1)["draw_offer"] == "defenders")
        assert control(t1, "/api/draw", {"action": "accept", "side": "attackers"})[0] == 200
        for base in (t1, t2):
            wait_for(lambda b=base: (state(b)["result"], state(b)["reason"])
                     == ("draw", "agreement"), what="the draw")
        assert state(t1)["moves"] == state(t2)["moves"] == ["d1-e1", "d3-e3"]

        # a new game chosen on table-2's page: table-2 plays the attackers, table-1 defends
        status, body = control(t2, "/api/new", {"time_control": "3+2", "players": {
            "attackers": {"kind": "board", "name": "Ann"},
            "defenders": {"kind": "club", "board": "table-1"}}})
        assert status == 200, body
        assert "Waiting for table-1" in state(t2)["message"]
        wait_for(lambda: state(t1)["remote"]["code"] == "proposal")
        assert control(t1, "/api/club/accept", {"board": "table-2"})[0] == 200
        wait_for(lambda: state(t1)["remote"]["ref"] == state(t2)["remote"]["ref"]
                 and state(t2)["remote"]["ref"], what="the second agreement")
        s1 = state(t1)
        assert s1["remote"]["local_side"] == "defenders"
        assert s1["clock"]["control"]["text"] == "3+2"
        both_ways(t2, t1, "d1-e1")
        # a resignation crosses over
        assert control(t1, "/api/resign", {"side": "defenders"})[0] == 200
        for base in (t1, t2):
            wait_for(lambda b=base: (state(b)["result"], state(b)["reason"])
                     == ("attackers", "resignation"), what="the resignation")
    finally:
        d1.stop()
        d2.stop()
        broker.stop()
