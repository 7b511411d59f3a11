"""GameSession with the real tracker on a virtual clock: proposals, clocks, decisions, players,
matches, settings, restarts."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from session_helpers import HandBoard, Harness

from companion.session import OWNER, SPECTATOR, ControlError
from companion.session.actors import player


def test_moves_are_stored_with_wall_time_and_both_clocks(tmp_path: Path) -> None:
    h = Harness(tmp_path, tc="5+3")
    h.move("d1", "d4", think=4.0)
    h.move("f4", "e4", think=2.0)
    moves = h.store.moves(h.session.gid)
    assert [m["text"] for m in moves] == ["d1-d4", "f4-e4"]
    assert all(m["left"] is not None and m["t"] > 1.7e9 for m in moves)
    # no clock runs before the game's first move (issue 21): the attackers' first move costs
    # nothing and earns no increment; the defenders' clock runs from its placement until their
    # piece was placed (0.4 + 2.0 + 0.1 s), not until the tracker accepted it; then +3 s
    first, second = moves[0]["left"], moves[1]["left"]
    assert first == {"attackers": pytest.approx(300.0), "defenders": pytest.approx(300.0)}
    assert second["defenders"] - 3 == pytest.approx(300 - 2.5, abs=0.03)
    s = h.state
    assert s["clock"]["running"] == "attackers" and s["times"][1] == moves[1]["left"]


def test_a_pending_capture_is_on_the_movers_time(tmp_path: Path) -> None:
    h = Harness(tmp_path, tc="5+0")
    h.move("d1", "d4")
    h.move("f4", "e4")
    h.click("f2", 0.1)
    h.click("f4", 0.4)  # f2-f4 captures e4; the capture stays on the board for 3 s
    clock = h.session.clock
    assert clock is not None and clock.running == "attackers"
    h.run(3.0)
    before = clock.left("attackers", h.t)
    h.click("e4", 0.3)
    assert clock.running == "defenders"
    assert h.store.moves(h.session.gid)[-1]["left"]["attackers"] == pytest.approx(before, abs=0.05)


def test_takeback_restores_both_clocks(tmp_path: Path) -> None:
    h = Harness(tmp_path, tc="5+2")
    h.move("d1", "d4", think=3.0)
    h.move("f4", "e4", think=7.0)
    before = dict(h.store.moves(h.session.gid)[0]["left"])
    assert h.session.takeback(OWNER) == {"undone": "f4-e4", "moves": ["f4-e4"]}
    clock = h.session.clock
    assert clock is not None and clock.running == "defenders"
    assert clock.left("defenders", h.t) == pytest.approx(before["defenders"], abs=0.02)
    assert clock.left("attackers", h.t) == pytest.approx(before["attackers"], abs=0.02)
    assert h.store.move_texts(h.session.gid) == ["d1-d4"]
    assert h.state["events"][-1]["kind"] == "takeback" and h.state["events"][-1]["by"] == "owner"


def test_flag_fall_is_a_loss_on_time_stored_and_shown(tmp_path: Path) -> None:
    h = Harness(tmp_path, tc="0.05+0")  # 3 s each
    h.move("d1", "d4")
    h.run(3.2)
    s = h.state
    assert s["result"] == "attackers" and s["reason"] == "time"
    assert h.store.game(h.session.gid).reason == "time"
    assert s["clock"]["defenders"] == 0 and s["clock"]["flagged"] == "defenders"
    assert any(e["kind"] == "flag" for e in s["events"])
    with pytest.raises(ControlError) as err:
        h.session.takeback(OWNER)
    assert err.value.code == "time_loss"
    gid = h.session.gid
    h2 = h.reopen()  # a finished game stays as it ended; a new game starts
    assert h2.session.gid != gid and h2.store.game(gid).result == "attackers"
    assert h2.store.load_game(gid).outcome().reason == "time"


def test_draw_offer_stands_until_the_opponent_answers_or_moves(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    s = h.session
    s.draw(OWNER, "offer", "attackers")
    h.move("d1", "d4")  # the offerer's own move: the offer stands
    assert h.state["draw_offer"] == "attackers"
    h.move("f4", "e4")  # the opponent moved: it lapses
    assert h.state["draw_offer"] is None
    s.draw(player("defenders"), "offer", None)
    with pytest.raises(ControlError):
        s.draw(player("defenders"), "accept", None)  # one cannot accept one's own offer
    s.draw(player("attackers"), "accept", None)
    assert h.state["result"] == "draw" and h.store.game(s.gid).reason == "agreement"
    # takeback reopens the agreement, not a move
    assert s.takeback(OWNER)["reopened"] == "agreement"
    assert h.state["result"] == "ongoing" and h.state["moves"] == ["d1-d4", "f4-e4"]
    assert h.store.game(s.gid).result == "ongoing"


def test_resignation_can_be_taken_back(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.move("d1", "d4")
    h.session.resign(player("defenders"), None)
    assert h.state["result"] == "attackers" and h.state["reason"] == "resignation"
    assert h.session.takeback(OWNER)["reopened"] == "resignation"
    assert h.state["result"] == "ongoing" and h.state["moves"] == ["d1-d4"]
    assert h.session.takeback(OWNER)["undone"] == "d1-d4"


def test_swap_never_rewrites_a_finished_game(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    s = h.session
    s.swap(OWNER)  # an unfinished game: the names swap
    assert h.state["players"]["attackers"]["name"] == "Bo"
    s.resign(OWNER, "defenders")  # Bo (attackers) wins
    gid = s.gid
    assert s.swap(OWNER)["applies_to"] == "next_game"
    row = h.store.game(gid)
    assert (row.attackers, row.result) == ("Bo", "attackers")
    s.new_game(OWNER, {})
    assert h.state["players"]["attackers"]["name"] == "Ann"
    assert h.store.game(gid).attackers == "Bo"


def test_permissions_of_spectators_and_players(tmp_path: Path) -> None:
    h = Harness(tmp_path, defenders="page")
    s = h.session
    for fn, args in ((s.takeback, ()), (s.resign, ("attackers",)), (s.swap, ()),
                     (s.new_game, ({},)), (s.click, ("d1",)), (s.player_links, ())):
        with pytest.raises(ControlError) as err:
            fn(SPECTATOR, *args)
        assert err.value.status == 403
    with pytest.raises(ControlError) as err:
        s.resign(player("defenders"), "attackers")
    assert err.value.code == "not_your_side"
    with pytest.raises(ControlError) as err:
        s.takeback(player("defenders"))
    assert err.value.code == "forbidden"
    assert h.state["result"] == "ongoing"


def test_a_remote_players_move_is_shown_and_only_it_is_accepted(tmp_path: Path) -> None:
    h = Harness(tmp_path, defenders="page")
    s = h.session
    links = s.player_links(OWNER)["links"]
    remote = s.actor_for_player_token(links["defenders"]["token"])
    assert remote == player("defenders")
    assert s.actor_for_player_token("x" * 30) is None
    h.move("d1", "d4")
    with pytest.raises(ControlError) as err:
        s.choose_move(s.actor_for_player_token(links["attackers"]["token"]), "f4-e4")
    assert err.value.code == "not_your_side"
    for bad in ("f4-e", "F4-E4", "f4-z4", "f4-e4 ", "f04-e4", "f٤-e4", 5):
        with pytest.raises(ControlError) as err:
            s.choose_move(remote, bad)  # type: ignore[arg-type]
        assert err.value.status == 400, bad
    with pytest.raises(ControlError) as err:
        s.choose_move(remote, "f4-f1")
    assert err.value.code == "illegal_move"
    chosen = s.choose_move(remote, "f4-e4")
    assert chosen == {"move": "f4-e4", "from": "f4", "to": "e4", "by": "page",
                      "side": "defenders", "captures": []}
    st = h.state
    assert st["move_to_make"]["move"] == "f4-e4"
    assert st["leds"].get("f4") == "make_from" and st["leds"].get("e4") == "make_to"
    assert "f4 to e4" in st["message"]
    # the person at the board makes another move: refused, guided back
    h.click("f4", 0.1)
    h.click("g4", 0.8)
    assert h.session.game.moves == ["d1-d4"]
    assert "not the move to make" in h.state["message"]
    h.click("g4", 0.1)
    h.click("f4", 0.8)  # put back
    h.move("f4", "e4")
    assert h.state["moves"] == ["d1-d4", "f4-e4"] and h.state["move_to_make"] is None
    assert h.store.move_texts(s.gid) == ["d1-d4", "f4-e4"]


def test_a_two_game_match_swaps_sides_and_scores(tmp_path: Path) -> None:
    h = Harness(tmp_path, tc="5+0")
    s = h.session
    out = s.new_game(OWNER, {"match": True})
    mid = out["match"]
    h.run(0.5)
    h.move("d1", "d4")
    s.resign(OWNER, "defenders")  # Ann (attackers) wins game 1
    m = h.state["match"]
    assert m["game"] == 1 and m["score"] == {"Ann": 1.0, "Bo": 0.0} and m["next"] is True
    # the board is set up again: game 2 starts by itself, sides swapped
    h.board.set_occupied(set(h.board.occupied) - {"d4"})
    h.run(0.2)
    h.board.set_occupied(set(h.session.game.board.occupied_names()) - {"d4"} | {"d1"})
    h.run(0.3)
    st = h.state
    assert st["match"]["game"] == 2 and st["players"]["attackers"]["name"] == "Bo"
    h.run(0.5)
    s.resign(OWNER, "attackers")  # Ann (defenders) wins game 2
    m = h.state["match"]
    assert m["finished"] and m["score"] == {"Ann": 2.0, "Bo": 0.0} and m["winner"] == "Ann"
    row = h.store.match(mid)
    assert row.ended is not None and row.result["winner"] == "Ann"
    assert [g.match_game for g in h.store.match_games(mid)] == [1, 2]


def test_match_and_clocks_come_back_after_a_restart(tmp_path: Path) -> None:
    h = Harness(tmp_path, tc="5+0", defenders="page")
    h.session.new_game(OWNER, {"match": True})
    h.run(0.5)
    h.move("d1", "d4", think=2.0)
    h.move("f4", "e4", think=3.0)
    stored = h.store.moves(h.session.gid)[-1]["left"]
    gid = h.session.gid
    h2 = h.reopen()
    s = h2.state
    assert s["game"] == gid and s["match"]["game"] == 1 and s["moves"] == ["d1-d4", "f4-e4"]
    assert s["players"]["defenders"] == {"name": "Bo", "kind": "page"}
    clock = h2.session.clock
    assert clock is not None
    assert clock.left("defenders", h2.t) == pytest.approx(stored["defenders"], abs=0.01)
    assert clock.left("attackers", h2.t) <= stored["attackers"] + 0.01


def test_house_rules_are_stored_and_exported(tmp_path: Path) -> None:
    h = Harness(tmp_path, options={"chain_capture": True, "escape": "edge"})
    st = h.state
    assert st["settings"]["options"] == {"chain_capture": True, "escape": "edge"}
    assert h.session.game.rules.chain_capture and h.session.game.rules.escape == "edge"
    h.move("d1", "d4")
    csv = h.session.export(h.session.gid, "csv")
    assert "# variant: copenhagen with chain_capture=true escape=edge" in csv
    assert "esc:e" in csv and csv.rstrip().endswith("d1-d4,0,0,Ongoing")
    otg = h.session.export(h.session.gid, "otg")
    assert "esc:e" in otg and "chain_capture=on" in otg
    with pytest.raises(ControlError) as err:
        h.session.new_game(OWNER, {"options": {"escape": "sky"}})
    assert err.value.code == "bad_settings"


def test_a_store_that_cannot_write_stops_the_board_and_loses_nothing(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    s = h.session
    real = h.store.sync_game
    failing = [True]

    def sync(*a, **kw):
        if failing[0]:
            raise sqlite3.OperationalError("database or disk is full")
        return real(*a, **kw)

    h.store.sync_game = sync  # type: ignore[method-assign]
    h.click("d1", 0.1)
    h.click("d4", 0.4)  # accepted by the tracker, but it cannot be stored
    st = h.state
    assert st["storage"]["ok"] is False and st["moves"] == []
    assert set(st["leds"].values()) == {"storage"} and "not being saved" in st["message"]
    with pytest.raises(ControlError) as err:
        s.resign(OWNER, "defenders")
    assert err.value.code == "storage" and s.game.result == "ongoing"
    h.click("f4", 0.1)
    h.click("e4", 0.6)  # a move while the store fails is not accepted (the tracker waits)
    assert s.game.moves == ["d1-d4"] and h.state["tracking"] == "suspended"
    failing[0] = False
    h.run(1.2)  # the store writes again: the board is judged afresh, the waiting move counts
    st = h.state
    assert st["storage"]["ok"] is True and st["moves"] == ["d1-d4", "f4-e4"]
    assert h.store.move_texts(s.gid) == ["d1-d4", "f4-e4"]
    kinds = [e["kind"] for e in h.store.events(s.gid)]
    assert kinds.count("move") == 2  # the outage's rows were all written


def test_the_computer_plays_through_the_person_at_the_board(tmp_path: Path) -> None:
    """computer:1 runs the built-in engine as a child process (real time); its move is the
    move to make, the person at the board makes it; a takeback stops its thinking."""
    import time

    h = Harness(tmp_path, attackers="computer:1", tc="5+0")
    s = h.session
    try:
        def wait_move_to_make() -> dict:
            end = time.monotonic() + 60
            while s.move_to_make is None:
                error = s.ctx.seats.error
                assert time.monotonic() < end and error is None, error
                h.run(0.05)
                time.sleep(0.02)
            return dict(s.move_to_make)

        m = wait_move_to_make()
        assert m["by"] == "computer" and m["side"] == "attackers"
        assert h.state["players"]["attackers"] == {"name": "Ann", "kind": "computer", "level": 1}
        assert h.state["leds"].get(m["from"]) == "make_from"
        h.move(m["from"], m["to"])
        assert h.state["moves"][0].split("x")[0] == m["move"] and s.move_to_make is None
        legal = s.legal_moves()["moves"]
        frm = sorted(legal)[0]
        h.move(frm, legal[frm][0]["to"])  # the defenders at the board
        m2 = wait_move_to_make()
        assert m2["side"] == "attackers" and len(h.state["moves"]) == 2
        s.takeback(OWNER)  # the defenders' move is taken back: the computer waits
        assert s.move_to_make is None and h.state["turn"] == "defenders"
    finally:
        s.close()


def test_a_remote_players_chosen_move_survives_a_restart(tmp_path: Path) -> None:
    """The move a phone player chose is stored at once: after a crash the board shows it again
    (even when the hand at the board had already lifted the piece), and only it is accepted."""
    h = Harness(tmp_path, defenders="page", tc="5+0")
    s = h.session
    remote = s.actor_for_player_token(s.player_links(OWNER)["links"]["defenders"]["token"])
    h.move("d1", "d4")
    h.run(4.0)
    s.choose_move(remote, "f4-e4")
    pending = h.store.game(s.gid).pending()
    assert pending is not None and {k: v for k, v in pending.items() if k != "choice"} == {
        "move": "f4-e4", "from": "f4", "to": "e4", "by": "page", "side": "defenders",
        "captures": [], "ply": 1}
    chosen_left = s.clock.left("defenders", h.t)  # type: ignore[union-attr]
    assert chosen_left == pytest.approx(300 - 4.4, abs=0.05)  # ran from d4 to the choice
    h.run(2.0)  # the piece is in the hand when the power fails (a real board: its pieces
    h.board = HandBoard(11, set(h.board.occupied) - {"f4"})  # stay as they are)
    h2 = h.reopen()
    st = h2.state
    assert st["move_to_make"] == {"move": "f4-e4", "from": "f4", "to": "e4", "by": "page",
                                  "side": "defenders", "captures": []}
    assert st["tracking"] == "setup" and st["leds"].get("f4") == "setup"
    # the clocks as at the choice: the phone player's stopped then
    assert st["clock"]["defenders"] == pytest.approx(chosen_left, abs=0.01)
    h2.board.set_occupied(set(h2.board.occupied) | {"f4"})  # put back as the lights ask
    h2.run(0.5)
    st = h2.state
    assert st["leds"].get("f4") == "make_from" and st["leds"].get("e4") == "make_to"
    assert "f4 to e4" in st["message"]
    h2.click("f4", 0.1)
    h2.click("g4", 0.8)  # any other move is still refused
    assert h2.session.game.moves == ["d1-d4"] and "not the move to make" in h2.state["message"]
    h2.click("g4", 0.1)
    h2.click("f4", 0.8)
    h2.move("f4", "e4")
    assert h2.store.move_texts(s.gid) == ["d1-d4", "f4-e4"]
    assert h2.state["move_to_make"] is None and h2.store.game(s.gid).pending() is None
    # the hands at the board took their time: on the attackers' clock, not the phone player's
    assert h2.store.moves(s.gid)[-1]["left"]["defenders"] == pytest.approx(chosen_left,
                                                                         abs=0.01)
    assert h2.session.clock.running == "attackers"  # type: ignore[union-attr]


def test_a_stored_move_to_make_that_no_longer_fits_is_dropped(tmp_path: Path) -> None:
    h = Harness(tmp_path, defenders="page")
    s = h.session
    remote = player("defenders")
    h.move("d1", "d4")
    s.choose_move(remote, "f4-e4")
    s.takeback(OWNER)  # the takeback clears it, in the store too
    assert h.store.game(s.gid).pending() is None
    h.board.set_occupied(set(h.board.occupied) - {"d4"} | {"d1"})
    h.run(0.5)
    h.move("d1", "d4")
    chosen = s.choose_move(remote, "f4-e4")
    s.set_players(OWNER, {"defenders": {"kind": "board"}})  # the side is played at the board
    assert h.state["move_to_make"] is None and h.store.game(s.gid).pending() is None
    h.store.sync_game(s.gid, s.game, pending={**chosen, "ply": 1})  # as if stored before
    h2 = h.reopen()
    assert h2.state["move_to_make"] is None and h2.state["moves"] == ["d1-d4"]


def test_a_revised_move_keeps_its_first_placement_time(tmp_path: Path) -> None:
    """d1-d4 is accepted, then the hand slides the piece on to d5 (a revision): the clock
    switched when the piece first came to rest on d4, not when it reached d5."""
    h = Harness(tmp_path, tc="5+0")
    ready = h.store.events(h.session.gid)
    assert any(e["kind"] == "ready" for e in ready)
    h.run(2.0)
    occupied = set(h.board.occupied)
    h.board.set_occupied(occupied - {"d1"})
    h.run(0.1)
    placed = h.t
    h.board.set_occupied(occupied - {"d1"} | {"d4"})
    h.run(0.5)  # accepted on d4
    assert h.session.game.moves == ["d1-d4"]
    left_first = h.store.moves(h.session.gid)[0]["left"]["attackers"]
    h.board.set_occupied(occupied - {"d1"} | {"d4", "d5"})  # slid on along the line
    h.run(0.02)
    h.board.set_occupied(occupied - {"d1"} | {"d5"})
    h.run(1.0)
    assert h.session.game.moves == ["d1-d5"]
    moves = h.store.moves(h.session.gid)
    assert [m["text"] for m in moves] == ["d1-d5"]
    assert moves[0]["left"]["attackers"] == pytest.approx(left_first, abs=0.011)
    assert moves[0]["clock"]["placed"] == pytest.approx(placed + 0.01, abs=0.011)
    clock = h.session.clock
    assert clock is not None and clock.running == "defenders"
    # the defenders' clock has run since the first placement, 1.5 s ago
    assert 300 - clock.left("defenders", h.t) == pytest.approx(h.t - placed, abs=0.05)
    assert any(e["kind"] == "revised" for e in h.store.events(h.session.gid))


@pytest.mark.parametrize(("tc", "kind"), [
    ("none", "none"), ("0.05", "sudden death"), ("0.05+2", "fischer"),
    ("0.02+0/2x2", "overtime")])
def test_each_kind_of_clock_switches_flags_and_is_exported(tmp_path: Path, tc: str,
                                                           kind: str) -> None:
    """The four time controls in a game on the board: the clock switches at each placement,
    the side whose time runs out loses on time, and the exports carry the clocks."""
    h = Harness(tmp_path, tc=tc)
    s = h.session
    h.move("d1", "d4", think=1.0)  # no clock runs before the first move: it costs nothing
    h.move("f4", "e4", think=2.0 if kind == "overtime" else 1.0)
    moves = h.store.moves(s.gid)
    if kind == "none":
        assert h.state["clock"] is None and all(m["left"] is None for m in moves)
        h.run(20)
        assert h.state["result"] == "ongoing"
        assert "time-control" not in h.session.export(s.gid, "otg")
        return
    full = {"sudden death": 3.0, "fischer": 3.0, "overtime": 1.2}[kind]
    assert moves[0]["left"] == {"attackers": pytest.approx(full), "defenders": pytest.approx(full)}
    spent = moves[1]["clock"]["placed"] - moves[0]["clock"]["placed"]
    second = moves[1]["left"]["defenders"]
    clock = s.clock
    assert clock is not None and clock.running == "attackers"
    if kind == "sudden death":
        assert second == pytest.approx(3.0 - spent, abs=0.02)
    elif kind == "fischer":
        assert second == pytest.approx(3.0 - spent + 2, abs=0.02)
    else:  # main time (1.2 s) used up, a move within the first period keeps it
        assert spent > 1.2 and spent - 1.2 < 2
        assert second == pytest.approx(2.0) and moves[1]["clock"]["state"]["times"][
            "defenders"] == {"main": 0.0, "periods": 2, "period_left": 2.0}
        assert h.state["clock"]["overtime"]["defenders"] == {"in_overtime": True, "periods": 2}
    turn_began = moves[1]["clock"]["placed"]
    budget = clock.times["attackers"].until_flag()
    h.run(budget + 0.5)
    st = h.state
    assert st["result"] == "defenders" and st["reason"] == "time"
    assert st["clock"]["flagged"] == "attackers" and st["clock"]["attackers"] == 0
    flag = next(e for e in h.store.events(s.gid) if e["kind"] == "flag")
    assert flag["side"] == "attackers"
    assert flag["board_t"] == pytest.approx(turn_began + budget, abs=0.02)
    row = h.store.game(s.gid)
    assert (row.result, row.reason, row.time_control) == ("defenders", "time", tc
                                                          if "+" in tc else tc + "+0")
    otg = h.session.export(s.gid, "otg")
    left = st["clock"]["defenders"]
    final = f"{int(left // 60)}:{left % 60:04.1f}"
    assert f"[time-control:{row.time_control}]" in otg
    assert f"[time-remaining:0:00.0 {final}]" in otg  # the clocks when the flag fell
    assert "a=" in otg and "d=" in otg  # both clocks after each move, in its comment
    csv = h.session.export(s.gid, "csv")
    assert f"# time control: {row.time_control}" in csv and "# result: defenders (time)" in csv
    assert f"# time left at the end: attackers 0:00.0, defenders {final}" in csv
    assert "1:d1-d4@" in csv and "/a=" in csv


def test_a_tied_match_is_decided_by_the_tie_rule_stored_and_reopened(tmp_path: Path) -> None:
    """1-1: the quicker win takes the match (default rule); stored with how it was decided;
    a takeback of the deciding resignation reopens the match, in the store too."""
    h = Harness(tmp_path, tc="5+0")
    s = h.session
    mid = s.new_game(OWNER, {"match": True})["match"]
    h.run(0.5)
    h.move("d1", "d4")
    h.move("f4", "e4")
    s.resign(OWNER, "defenders")  # Ann (attackers) wins game 1 in 2 plies
    s.next_game(OWNER)
    h.run(0.5)
    h.move("d1", "d4")
    s.resign(OWNER, "defenders")  # Bo (attackers now) wins game 2 in 1 ply: the quicker win
    m = h.state["match"]
    assert m["score"] == {"Ann": 1.0, "Bo": 1.0}
    assert (m["finished"], m["winner"], m["decided_by"]) == (True, "Bo", "moves")
    row = h.store.match(mid)
    assert row.ended is not None and row.result == {
        "score": {"Ann": 1.0, "Bo": 1.0}, "winner": "Bo", "decided_by": "moves"}
    results = h.store.player_results()  # per player, as the page lists them
    assert results["Ann"] == {"games": 2, "wins_attackers": 1, "wins_defenders": 0, "draws": 0,
                              "losses": 1}
    assert results["Bo"]["wins_attackers"] == 1 and results["Bo"]["losses"] == 1
    h.store.import_game(s.game.__class__(s.game.rules), ("Ann", "Bo"), 1.7e9,
                        {"file": "unfinished.otg"})  # an unfinished import counts for nobody
    assert h.store.player_results()["Ann"]["games"] == 2
    assert s.takeback(OWNER)["reopened"] == "resignation"
    assert h.state["match"]["finished"] is False and h.store.match(mid).ended is None
    h2 = h.reopen()  # after a restart the match goes on with game 2
    assert h2.state["match"]["game"] == 2 and h2.state["match"]["finished"] is False
    h2.session.resign(OWNER, "attackers")  # now Ann wins game 2 too
    assert h2.state["match"]["winner"] == "Ann"
    assert h2.store.match(mid).result["decided_by"] == "score"


def test_pause_stops_both_clocks_is_stored_and_survives_a_restart(tmp_path: Path) -> None:
    h = Harness(tmp_path, tc="0.05+0")  # 3 s each
    s = h.session
    h.move("d1", "d4", think=1.0)
    with pytest.raises(ControlError) as err:
        s.clock_control(player("defenders"), "pause")
    assert err.value.status == 403  # the owner pauses
    assert s.clock_control(OWNER, "pause") == {"ok": True, "paused": True}
    left = h.state["clock"]["defenders"]
    h.run(10.0)  # far past the defenders' flag: no flag falls while paused
    st = h.state
    assert st["result"] == "ongoing" and st["clock"]["defenders"] == left
    assert s.clock.left("defenders", h.t) == pytest.approx(left, abs=0.01)  # type: ignore
    assert st["clock"]["paused"] is True and st["clock"]["running"] is None
    h2 = h.reopen()
    st = h2.state
    assert st["clock"]["paused"] is True and st["clock"]["defenders"] == pytest.approx(left)
    h2.run(5.0)
    assert h2.state["result"] == "ongoing"
    assert h2.session.clock_control(OWNER, "resume")["paused"] is False
    h2.run(left + 0.2)
    assert h2.state["result"] == "attackers" and h2.state["reason"] == "time"
    kinds = [(e["kind"], e.get("action")) for e in h2.store.events(s.gid) if e["kind"] == "clock"]
    assert kinds == [("clock", "pause"), ("clock", "resume")]


def test_a_match_waiting_for_game_2_survives_an_import_and_a_restart(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    s = h.session
    mid = s.new_game(OWNER, {"match": True})["match"]
    h.run(0.5)
    h.move("d1", "d4")
    s.resign(OWNER, "defenders")  # game 1 over; game 2 waits for the board to be set up
    h.store.import_game(s.game.__class__(s.game.rules), ("Cy", "Di"), 1.7e9,
                        {"file": "other.otg"})  # someone imports a game meanwhile
    h2 = h.reopen()
    m = h2.state["match"]
    assert m["id"] == mid and m["next"] is True and m["score"] == {"Ann": 1.0, "Bo": 0.0}
    h2.session.next_game(OWNER)
    assert h2.state["match"]["game"] == 2 and h2.state["players"]["attackers"]["name"] == "Bo"


def test_a_new_game_keeps_the_names_of_the_last_game_played_not_imported(
        tmp_path: Path) -> None:
    h = Harness(tmp_path, names=("Player 1", "Player 2"))
    s = h.session
    s.set_players(OWNER, {"attackers": {"name": "Ann"}, "defenders": {"name": "Bo"}})
    s.resign(OWNER, "defenders")
    h.store.import_game(s.game.__class__(s.game.rules), ("Cy", "Di"), 1.7e9, {"file": "x"})
    h2 = h.reopen()  # a new game: the names of the last game played here stay
    assert h2.session.gid != s.gid and h2.state["moves"] == []
    names = {side: p["name"] for side, p in h2.state["players"].items()}
    assert names == {"attackers": "Ann", "defenders": "Bo"}


def test_a_takeback_by_hand_restores_both_clocks(tmp_path: Path) -> None:
    h = Harness(tmp_path, tc="5+2")
    h.move("d1", "d4", think=3.0)
    before = dict(h.store.moves(h.session.gid)[0]["left"])
    h.move("f4", "e4", think=7.0)
    h.run(2.0)
    h.click("e4", 0.1)
    h.click("f4", 1.5)  # the defender puts his piece back: the move is taken back by hand
    assert h.session.game.moves == ["d1-d4"] and h.store.move_texts(h.session.gid) == ["d1-d4"]
    clock = h.session.clock
    assert clock is not None and clock.running == "defenders"
    assert clock.left("attackers", h.t) == pytest.approx(before["attackers"], abs=0.02)
    # the defenders' clock reads as before his move, and has run since the takeback
    assert before["defenders"] - clock.left("defenders", h.t) < 1.6
    assert any(e["kind"] == "takeback" and e["by"] == "board" for e in h.state["events"])


def test_a_move_chosen_off_the_board_stops_its_choosers_clock_at_the_choice(
        tmp_path: Path) -> None:
    """The phone player's clock stops when he chooses (with his increment); the person at the
    board carries the move out on his own time."""
    h = Harness(tmp_path, defenders="page", tc="5+2")
    s = h.session
    h.move("d1", "d4")
    h.run(3.0)
    before = s.clock.left("defenders", h.t)  # type: ignore[union-attr]
    s.choose_move(player("defenders"), "f4-e4")
    st = h.state
    assert st["clock"]["running"] == "attackers" and st["turn"] == "defenders"
    assert st["clock"]["defenders"] == pytest.approx(before + 2, abs=0.02)  # + the increment
    attackers = st["clock"]["attackers"]
    h.run(5.0)  # the person at the board takes his time to carry it out
    assert s.clock.left("defenders", h.t) == pytest.approx(before + 2, abs=0.02)  # type: ignore
    assert s.clock.left("attackers", h.t) == pytest.approx(attackers - 5, abs=0.02)  # type: ignore
    h.move("f4", "e4")
    moves = h.store.moves(s.gid)
    assert moves[-1]["left"]["defenders"] == pytest.approx(before + 2, abs=0.02)
    assert moves[-1]["left"]["attackers"] == pytest.approx(attackers - 5.1, abs=0.05)
    assert s.clock.running == "attackers"  # type: ignore[union-attr]
    # a takeback gives the phone player's thinking time back, as for any move
    s.takeback(OWNER)
    assert s.clock.left("defenders", h.t) == pytest.approx(300.0, abs=0.02)  # type: ignore


def test_between_two_players_off_the_board_no_clock_runs_while_the_move_is_carried_out(
        tmp_path: Path) -> None:
    h = Harness(tmp_path, attackers="page", defenders="page", tc="5+0")
    s = h.session
    h.run(2.0)
    s.choose_move(player("attackers"), "d1-d4")  # the first move: no clock ran before it
    assert h.state["clock"]["running"] is None and h.state["clock"]["attackers"] == 300.0
    h.run(3.0)
    h.move("d1", "d4")
    assert s.clock is not None and s.clock.running == "defenders"
    h.run(2.5)
    s.choose_move(player("defenders"), "f4-e4")
    st = h.state
    assert st["clock"]["running"] is None
    left = {side: st["clock"][side] for side in ("attackers", "defenders")}
    assert left["attackers"] == 300.0 and left["defenders"] == pytest.approx(297.1, abs=0.05)
    h.run(6.0)  # a helper carries it out
    clock = s.clock
    assert clock is not None and clock.running is None
    assert {side: clock.left(side, h.t) for side in left} == pytest.approx(left, abs=0.01)
    h.move("f4", "e4")
    assert s.clock.running == "attackers"  # type: ignore[union-attr]
    assert 300 - s.clock.left("attackers", h.t) < 0.5  # type: ignore[union-attr]


def test_a_withdrawn_choice_gives_the_clocks_back(tmp_path: Path) -> None:
    h = Harness(tmp_path, defenders="page", tc="5+2")
    s = h.session
    h.move("d1", "d4")
    h.run(2.0)
    s.choose_move(player("defenders"), "f4-e4")
    h.run(1.0)
    s.choose_move(player("defenders"), "f4-f3")  # he thinks again: his clock ran meanwhile
    assert h.state["clock"]["defenders"] == pytest.approx(300 - 3.4 + 2, abs=0.02)
    h.run(1.0)
    s.set_players(OWNER, {"defenders": {"kind": "board"}})  # his side goes to the board
    st = h.state
    assert st["move_to_make"] is None and st["clock"]["running"] == "defenders"
    assert st["clock"]["defenders"] == pytest.approx(300 - 4.4, abs=0.02)  # no increment
    assert h.store.game(s.gid).pending() is None


def test_a_move_chosen_before_the_set_up_or_in_a_pause_stops_its_clock_when_it_runs(
        tmp_path: Path) -> None:
    from companion.rules import get_variant
    from companion.rules.game import Game

    start = Game(get_variant("copenhagen")).board.occupied_names()
    h = Harness(tmp_path, attackers="page", tc="5+0", board=HandBoard(11, start - {"a4"}))
    s = h.session
    s.choose_move(player("attackers"), "d1-d4")  # chosen while the pieces are set up
    h.run(5.0)
    assert s.clock is not None and s.clock.running is None
    h.board.set_occupied(start)  # set up: still no clock, the first move is not on the board
    h.run(3.0)
    clock = s.clock
    assert clock.running is None and clock.left("attackers", h.t) == 300.0
    assert clock.left("defenders", h.t) == 300.0
    h.move("d1", "d4")  # on the board: the defenders' clock starts
    assert s.clock.running == "defenders"
    h.move("f4", "e4")
    assert s.clock.running == "attackers" and s.store.moves(s.gid)[0]["left"]["attackers"] == 300
    s.clock_control(OWNER, "pause")
    s.choose_move(player("attackers"), "f2-f4")
    h.run(4.0)
    s.clock_control(OWNER, "resume")  # the chooser's clock stops at the resume
    left = s.clock.left("attackers", h.t)
    h.run(2.0)
    assert s.clock.running == "defenders" and s.clock.left("attackers", h.t) == left


def test_a_side_handed_to_the_computer_or_back_never_keeps_the_other_ones_name(
        tmp_path: Path) -> None:
    h = Harness(tmp_path, variant="brandubh")
    s = h.session
    try:
        s.set_players(OWNER, {"defenders": {"kind": "computer", "level": 1}})
        assert h.state["players"]["defenders"] == {"name": "Computer", "kind": "computer",
                                                   "level": 1}
        s.set_players(OWNER, {"defenders": {"kind": "page"}})  # a person again
        assert h.state["players"]["defenders"] == {"name": "Player 2", "kind": "page"}
        s.set_players(OWNER, {"defenders": {"kind": "board"}})  # person to person: kept
        assert h.state["players"]["defenders"]["name"] == "Player 2"
        s.new_game(OWNER, {"players": {"attackers": {"kind": "computer", "name": "Deep Tafl"}}})
        assert h.state["players"]["attackers"]["name"] == "Deep Tafl"  # a name given stays
        s.resign(OWNER, "defenders")
        assert "Ann" not in h.store.player_results()  # Ann never played: nothing in her name
    finally:
        s.close()


def test_imports_are_stored_by_the_session_with_names_kept_to_40_printable_characters(
        tmp_path: Path) -> None:
    from companion.rules import get_variant
    from companion.rules.game import Game
    from companion.session.api import ImportedGame

    h = Harness(tmp_path)
    game = Game(get_variant("copenhagen"))
    game.play_text("d1-d4")
    imported = ImportedGame(game, ("x" * 3000, "A\x00n\u202en\te"), 1.7e9,
                            {"format": "otg", "name": "long.otg"})
    with pytest.raises(ControlError) as err:
        h.session.import_games(SPECTATOR, [imported])
    assert err.value.status == 403
    gid, = h.session.import_games(OWNER, [imported])
    row = h.store.game(gid)
    assert (row.attackers, row.defenders) == ("x" * 40, "Ann e")
    assert row.finished and row.reason == "imported" and h.session.gid != gid


def test_a_new_game_of_another_size_is_ready_once_the_board_is_set_up(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    for variant, pieces in (("brandubh", 13), ("copenhagen", 37), ("tablut", 25)):
        h.session.new_game(OWNER, {"variant": variant})
        h.run(0.3)
        st = h.state
        assert (st["variant"], st["tracking"], len(st["occupied"])) == (variant, "ready", pieces)
    h.move("e2", "f2")
    assert h.state["moves"] == ["e2-f2"]
