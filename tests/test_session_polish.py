"""The session's side of what a new user found (issue 21), on a virtual clock with the real
tracker, a simulated board and a real store: one rule for every game's clocks (none runs before
the first move is on the board), no increment for a move made while the clocks were paused."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_helpers import Harness

from companion.session import OWNER, ControlError
from companion.session.actors import player
from companion.session.clock import GameClock, TimeControl


def clocks(h: Harness) -> tuple[str | None, float, float]:
    """Whose clock runs, and both clocks now (the state is as of its last change)."""
    c, clock = h.state["clock"], h.session.clock
    assert clock is not None
    return c["running"], clock.left("attackers", h.t), clock.left("defenders", h.t)


def test_no_clock_runs_before_the_first_move_of_a_game_started_at_start_up(tmp_path) -> None:
    """`run --time-control 5+3`: the person's clock showed 4:43 when the page was first opened
    17 s after the start."""
    h = Harness(tmp_path, tc="5+3")
    h.run(17.0)
    assert clocks(h) == (None, 300.0, 300.0)
    h.move("d1", "d4", think=3.0)
    running, att, dfn = clocks(h)
    assert running == "defenders" and att == 300.0  # free, and no increment for it
    assert 299.4 <= dfn < 300.0  # since the piece came to rest
    h.move("f4", "e4", think=2.0)
    assert h.store.moves(h.session.gid)[1]["left"]["defenders"] == pytest.approx(
        300 - 2.5 + 3, abs=0.05)


def test_the_same_rule_after_a_new_game_a_match_game_a_restart_and_a_takeback(
        tmp_path: Path) -> None:
    h = Harness(tmp_path, variant="brandubh", tc="5+3", match=True)
    s = h.session
    h.run(5.0)
    assert clocks(h)[0] is None
    h.move("d1", "e1")
    assert clocks(h)[0] == "defenders"
    s.takeback(OWNER)                       # the first move taken back: no clock again
    h.click("e1", 0.1)
    h.click("d1", 0.5)
    h.run(5.0)
    assert clocks(h) == (None, 300.0, 300.0)
    s.resign(OWNER, "attackers")
    s.next_game(OWNER)                      # the match's second game
    h.run(8.0)
    assert h.state["match"]["game"] == 2 and clocks(h) == (None, 300.0, 300.0)
    h = h.reopen()                          # a restart before its first move
    h.run(8.0)
    assert clocks(h) == (None, 300.0, 300.0)
    h.session.new_game(OWNER, {"match": False})  # a new game from the page
    h.run(8.0)
    assert h.state["match"] is None and clocks(h) == (None, 300.0, 300.0)


def test_a_first_move_chosen_off_the_board_starts_no_clock_until_it_is_made(tmp_path) -> None:
    h = Harness(tmp_path, attackers="page", tc="5+0")
    s = h.session
    h.run(4.0)
    s.choose_move(player("attackers"), "d1-d4")
    h.run(6.0)  # the hands at the board take their time
    assert clocks(h) == (None, 300.0, 300.0)
    h.move("d1", "d4")
    assert clocks(h)[0] == "defenders" and clocks(h)[1] == 300.0


def test_a_move_made_while_the_clocks_are_paused_earns_no_increment(tmp_path: Path) -> None:
    h = Harness(tmp_path, tc="5+3")
    s = h.session
    h.move("d1", "d4")
    h.move("f4", "e4", think=2.0)
    h.run(1.0)
    s.clock_control(OWNER, "pause")
    before = h.state["clock"]["attackers"]
    h.run(4.0)
    h.move("h1", "h2")                      # made during the break
    st = h.state
    assert st["clock"]["attackers"] == pytest.approx(before, abs=0.01)  # not +3
    assert st["clock"]["paused"] and st["clock"]["running"] is None
    s.clock_control(OWNER, "resume")
    h.run(2.0)
    running, _att, dfn = clocks(h)
    assert running == "defenders" and dfn < h.store.moves(s.gid)[-1]["left"]["defenders"]


def test_the_clock_itself_adds_no_increment_for_a_move_it_did_not_time() -> None:
    clock = GameClock(TimeControl.parse("5+3"))
    clock.switch("attackers", 10.0)         # the first move: nothing ran
    assert clock.times["attackers"].main == 300.0 and clock.running == "defenders"
    clock.pause(12.0)
    clock.switch("defenders", 20.0)         # during a pause
    assert clock.times["defenders"].main == pytest.approx(298.0)
    clock.resume(30.0)
    clock.switch("attackers", 35.0)         # an ordinary move: charged and +3
    assert clock.times["attackers"].main == pytest.approx(300 - 5 + 3)


def test_events_keep_the_names_they_had_and_their_game(tmp_path: Path) -> None:
    """A draw declined by the computer later read "(by the defenders' player Alice)", then
    "Bob"; game 3's phone moves by Bob were relabelled as Alice's."""
    from companion.session.computer import computer_actor

    h = Harness(tmp_path, variant="brandubh", defenders="page", names=("Ann", "Alice"))
    s = h.session
    s.draw(OWNER, "offer", "attackers")
    s.draw(player("defenders"), "decline", None)
    s.set_players(OWNER, {"defenders": {"kind": "computer", "level": 1, "name": "Computer"}})
    try:
        s.draw(OWNER, "offer", "attackers")
        s.draw(computer_actor("defenders"), "decline", "defenders")
        s.set_players(OWNER, {"defenders": {"kind": "page", "name": "Bob"}})
        declined = [e for e in h.state["events"] if e.get("action") == "decline"]
        assert [(e["by"], e["name"], e["by_kind"]) for e in declined] == [
            ("defenders", "Alice", "page"), ("defenders", "Computer", "computer")]
        gid = s.gid
        assert all(e["game"] == gid for e in h.state["events"])
        s.new_game(OWNER, {})
        new = [e for e in h.state["events"] if e["kind"] == "new_game"][-1]
        assert new["game"] == gid + 1
    finally:
        s.close()


@pytest.mark.parametrize("how", ["resign", "draw", "flag"])
def test_the_match_is_over_comes_after_what_ended_it(tmp_path: Path, how: str) -> None:
    """"The defenders resigned" was listed above "The match is over" (the page lists the latest
    first): the event that ends the game comes first, then the match's end."""
    h = Harness(tmp_path, variant="brandubh", match=True, tc="0.05")  # 3 s each
    s = h.session
    s.resign(OWNER, "attackers")
    s.next_game(OWNER)
    h.run(0.5)
    if how == "resign":
        s.resign(OWNER, "defenders")
    elif how == "draw":
        s.draw(OWNER, "offer", "attackers")
        s.draw(OWNER, "accept", "defenders")
    else:
        h.move("d1", "e1")
        h.run(3.5)  # the defenders' time runs out
        assert h.state["reason"] == "time"
    kinds = [e["kind"] for e in h.state["events"]]
    assert kinds[-2:] == [how, "match_over"], kinds


def test_a_computer_set_on_the_command_line_is_named_computer(tmp_path: Path) -> None:
    """`run --attackers computer:2` showed "Player 1 0 – Player 2 0"; from the page it was
    "Computer". A name given in the config stays."""
    from dataclasses import replace

    from companion.config import DaemonConfig, with_overrides
    from companion.daemon import defaults_from

    cfg = with_overrides(DaemonConfig(data_dir=tmp_path), attackers="computer:2",
                         defenders="engine:true")
    players = defaults_from(cfg).players
    assert (players["attackers"].name, players["defenders"].name) == ("Computer", "Engine")
    named = defaults_from(replace(cfg, names=("Deep Tafl", "Bo"))).players
    assert named["attackers"].name == "Deep Tafl"
    assert defaults_from(DaemonConfig(data_dir=tmp_path)).players["attackers"].name == "Player 1"


def test_a_player_link_follows_its_player_from_game_to_game(tmp_path: Path) -> None:
    """Every new game needed a new link; a link now follows its player (by name), as a
    match's link does, and ends when that player no longer plays."""
    h = Harness(tmp_path, variant="brandubh", defenders="page", names=("Ann", "Alice"))
    s = h.session
    token = s.player_links(OWNER)["links"]["defenders"]["token"]
    assert s.actor_for_player_token(token) == player("defenders")
    s.resign(OWNER, "attackers")
    s.new_game(OWNER, {})
    h.run(0.3)
    assert s.actor_for_player_token(token) == player("defenders")  # the same link
    assert s.player_links(OWNER)["links"]["defenders"]["token"] == token  # offered again
    s.swap(OWNER)                                  # Alice attacks now: her link follows
    h.run(0.3)
    assert h.state["players"]["attackers"]["name"] == "Alice"
    assert s.actor_for_player_token(token) == player("attackers")
    assert s.player_links(OWNER)["links"]["attackers"]["token"] == token
    s.new_game(OWNER, {"match": True})             # a match: her seat's link, or hers
    h.run(0.3)
    assert s.actor_for_player_token(token) is not None
    s.resign(OWNER, "attackers")
    s.new_game(OWNER, {"players": {"attackers": {"name": "Bob", "kind": "page"}}})
    h.run(0.3)
    assert s.actor_for_player_token(token) is None   # Alice does not play: the link ended


def test_a_finished_game_is_analysed_in_the_background(tmp_path: Path, monkeypatch) -> None:
    """The README said finished games are analysed in the background, but a button had to be
    pressed. Now it is queued when the game ends, starts a while later by itself (the real
    engine, one process), and asking for it starts it at once."""
    from dataclasses import replace

    from companion.session import analysis_worker as analysis
    from companion.session.computer import ComputerConfig

    monkeypatch.setattr(analysis, "LATER_S", 0.5)
    h = Harness(tmp_path, variant="brandubh")
    s = h.session
    s.defaults = replace(s.defaults, computer=ComputerConfig(analyse_finished=True,
                                                             analysis_seconds=0.05))
    try:
        for m in ["d1-e1", "d3-e3", "d2-e2", "d4-d1", "e1-f1", "d1-a1"]:
            h.move(*m.split("-"))
        gid = s.gid
        assert h.state["result"] == "defenders"
        assert s.analysis(gid)["status"] == "queued"     # waits its turn
        wait_until(h, lambda: s.analysis(gid)["status"] == "done", 60)
        review = s.analysis(gid)["review"]
        assert len(review["evaluations"]) == 7
        # a game queued for later starts at once when it is asked for
        monkeypatch.setattr(analysis, "LATER_S", 3600.0)
        s.new_game(OWNER, {})
        h.run(0.3)
        h.move("d1", "e1")
        s.resign(OWNER, "defenders")
        second = s.gid
        assert s.analysis(second)["status"] == "queued"
        status, _ = s.start_analysis(OWNER, second)
        assert status == 202 and s.analysis(second)["status"] in ("running", "done")
        wait_until(h, lambda: s.analysis(second)["status"] == "done", 60)
    finally:
        s.close()


def test_imported_games_are_analysed_in_the_background_and_a_reopened_one_is_not(
        tmp_path: Path, monkeypatch) -> None:
    from dataclasses import replace

    from companion.rules import get_variant
    from companion.rules.game import Game
    from companion.session import analysis_worker as analysis
    from companion.session.api import ImportedGame
    from companion.session.computer import ComputerConfig

    monkeypatch.setattr(analysis, "LATER_S", 0.3)
    h = Harness(tmp_path, variant="brandubh")
    s = h.session
    s.defaults = replace(s.defaults, computer=ComputerConfig(analyse_finished=True,
                                                             analysis_seconds=0.05))
    try:
        game = Game(get_variant("brandubh"))
        for m in ["d1-e1", "d3-e3"]:
            game.play_text(m)
        (imported,) = s.import_games(OWNER, [ImportedGame(game, ("A", "B"), 1.7e9, {})])
        assert s.analysis(imported)["status"] == "queued"
        h.move("d1", "e1")
        s.resign(OWNER, "defenders")                     # queued ...
        played = s.gid
        assert s.analysis(played)["status"] == "queued"
        s.takeback(OWNER)                                # ... but reopened: played again
        wait_until(h, lambda: s.analysis(imported)["status"] == "done", 60)
        wait_until(h, lambda: s.analysis(played)["status"] == "none", 10)
    finally:
        s.close()


def test_no_background_analysis_when_the_config_says_so(tmp_path: Path) -> None:
    from companion.config import DaemonConfig, load_config

    assert DaemonConfig().computer.analyse_finished is True   # the daemon's default
    path = tmp_path / "c.toml"
    path.write_text("[computer]\nanalyse_finished = false\n")
    assert load_config(path).computer.analyse_finished is False
    h = Harness(tmp_path, variant="brandubh")                 # a session made in code: off
    h.move("d1", "e1")
    h.session.resign(OWNER, "defenders")
    assert h.session.analysis(h.session.gid)["status"] == "none"


def wait_until(h: Harness, pred, timeout: float) -> None:
    """Step the session's loop (it stores what the worker found) until ``pred`` holds."""
    import time

    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out"
        h.run(0.05)
        time.sleep(0.05)


ENDGAME = "/3t3/7/7/3K3/7/7/7/"  # Brandubh: the king in the middle, one attacker on d1


def test_a_game_starts_from_a_position_of_ones_own(tmp_path: Path) -> None:
    """Set up a position (a study, an endgame) and play from it: the rules check it, the board
    is guided to it, the game is stored and resumed from it."""
    from companion.session import ControlError

    h = Harness(tmp_path, variant="brandubh")
    s = h.session
    s.new_game(OWNER, {"variant": "brandubh", "position": ENDGAME, "turn": "defenders"})
    h.run(0.5)
    st = h.state
    assert st["position"] == ENDGAME and st["turn"] == "defenders" and st["first"] == "defenders"
    assert st["tracking"] == "ready"  # the simulated board was set to it
    h.move("d4", "b4")
    h.move("d1", "b1")
    assert h.state["moves"] == ["d4-b4", "d1-b1"]
    row = h.store.game(s.gid)
    assert (row.start_position, row.start_turn) == (ENDGAME, "defenders")
    h = h.reopen()                                     # a restart: from the same position
    assert h.state["moves"] == ["d4-b4", "d1-b1"] and h.state["first"] == "defenders"
    s = h.session
    for position, turn, words in [
        ("/7/7/7/7/7/7/7/", "attackers", "no king"),
        ("/K6/7/7/7/7/7/7/", "defenders", "has already escaped"),
        ("/tttt3/3t3/7/3K3/7/7/7/", "attackers", "corner a1"),
        (ENDGAME, "nobody", "turn must be"),
        ("/1ttttt1/1ttttt1/7/3K3/7/7/7/", "attackers", "10 attackers"),
        ("/3t3/7/", "attackers", "rows"),
        ("/3K3/7/7/7/7/7/7/", "attackers", "have no legal move"),
        (42, "attackers", "OTN placement"),
    ]:
        with pytest.raises(ControlError) as err:
            s.new_game(OWNER, {"position": position, "turn": turn})
        assert err.value.code == "bad_position" and words in err.value.message, err.value.message
    assert h.state["moves"] == ["d4-b4", "d1-b1"]   # nothing was started


def test_a_match_from_a_position_plays_both_games_from_it(tmp_path: Path) -> None:
    h = Harness(tmp_path, variant="brandubh")
    s = h.session
    s.new_game(OWNER, {"position": ENDGAME, "turn": "defenders", "match": True})
    h.run(0.5)
    s.resign(OWNER, "attackers")
    first = s.gid
    h.click("d4", 0.3)                      # the pieces leave the position ...
    h.click("d4", 0.5)                      # ... and are set up in it again: game 2 starts
    st = h.state
    assert st["game"] != first and st["match"]["game"] == 2
    assert st["position"] == ENDGAME and st["turn"] == "defenders"
    new = [e for e in st["events"] if e["kind"] == "new_game"][-1]
    assert new["position"] == f"{ENDGAME} defenders"


def test_a_position_set_up_on_the_board_starts_a_game(tmp_path: Path) -> None:
    """"Set up a position on the board and play from it": while the owner's page reads the
    board, the tracker neither guides the pieces back nor flags them; the page builds the
    position from what the board reads, and the game starts from it at once (the board matches
    it already). A reading the page stops renewing ends by itself."""
    from session_helpers import HandBoard

    from companion.rules import get_variant
    from companion.rules.game import Game
    from companion.session import SPECTATOR
    from companion.session import game_setup as setup

    start = Game(get_variant("brandubh")).board.occupied_names()
    h = Harness(tmp_path, variant="brandubh", board=HandBoard(7, start))
    s = h.session
    with pytest.raises(ControlError):
        s.read_board(SPECTATOR, True)
    s.read_board(OWNER, True)
    h.board.set_occupied({"d1", "d4"})                # the hands set up an endgame
    h.run(1.0)
    st = h.state
    assert st["tracking"] == "reading" and st["guidance"]["kind"] == "reading"
    assert st["guidance"]["squares"] == ["d1", "d4"] and not st["leds"]
    assert not [e for e in h.store.events(s.gid) if e["kind"] in ("illegal", "warning")]
    s.new_game(OWNER, {"position": ENDGAME, "turn": "defenders"})   # d1 attacker, d4 king
    h.run(0.5)
    assert h.state["tracking"] == "ready" and h.state["turn"] == "defenders"
    h.move("d4", "b4")
    assert h.state["moves"] == ["d4-b4"]
    s.read_board(OWNER, True)                          # read again, and the page goes away
    h.run(setup.READING_S + 1)
    assert h.state["tracking"] != "reading"            # the game is judged again
    h.board.toggle("d1")                               # the attackers' piece: its targets
    h.run(1.0)
    assert h.state["tracking"] == "lifted"
    h.board.toggle("d1")
    h.run(1.0)
    s.read_board(OWNER, True)
    s.read_board(OWNER, False)                         # or the page says it is done
    assert h.state["tracking"] != "reading"


def reed(tmp_path: Path) -> Harness:
    """A session on a board of reed switches (a hand board: the program never sets its pieces),
    asked to check the pieces' kinds as the daemon asks for such a board."""
    from dataclasses import replace

    from session_helpers import HandBoard

    from companion.rules import get_variant
    from companion.rules.game import Game

    start = Game(get_variant("brandubh")).board.occupied_names()
    h = Harness(tmp_path, variant="brandubh", board=HandBoard(7, start))
    h.session.defaults = replace(h.session.defaults, check_pieces=True)
    return h.reopen()


def checked_squares(h: Harness) -> list[str]:
    return sorted(sq for sq, role in h.state["leds"].items() if role == "check")


def test_a_reed_board_asks_to_check_the_pieces_at_natural_moments(tmp_path: Path) -> None:
    """Reed boards cannot tell colours: a defender put where an attacker belongs went unnoticed.
    At set-up, after a takeback and after a restart the page and the LEDs show the position the
    game believes (defenders and king) and ask for a check; a player answers, or play goes on."""
    from companion.session import SPECTATOR

    h = reed(tmp_path)
    s = h.session
    g = h.state["guidance"]
    assert (g["kind"], g["reason"]) == ("check_pieces", "setup")
    assert checked_squares(h) == ["c4", "d3", "d4", "d5", "e4"]   # four defenders and the king
    with pytest.raises(ControlError):
        s.confirm_pieces(SPECTATOR)
    assert s.confirm_pieces(player("defenders"))["checked"] is True
    assert h.state["guidance"]["kind"] == "to_move" and not checked_squares(h)
    said = [e for e in h.state["events"] if e["kind"] == "colours"]
    assert [(e["by"], e["name"]) for e in said] == [("defenders", "Bo")]
    h.move("d1", "e1")
    h.move("d3", "e3")
    h.click("e3", 0.1)                                  # the defenders' move taken back by hand
    h.click("d3", 0.6)
    assert h.state["moves"] == ["d1-e1"]
    g = h.state["guidance"]
    assert (g["kind"], g["reason"]) == ("check_pieces", "takeback")
    h.move("d3", "e3")                                  # playing on answers it
    assert h.state["guidance"]["kind"] == "to_move" and not checked_squares(h)
    h = h.reopen()                                      # a restart
    g = h.state["guidance"]
    assert (g["kind"], g["reason"]) == ("check_pieces", "resume")
    assert checked_squares(h) == ["c4", "d4", "d5", "e3", "e4"]
    assert h.session.confirm_pieces(OWNER)["checked"] is True
    assert h.session.confirm_pieces(OWNER)["checked"] is False   # nothing asked now


def test_which_boards_are_asked_to_check_their_pieces(tmp_path: Path) -> None:
    """Reed boards are asked; boards whose sensors tell the colours (Hall sensors with polarity:
    the tracker checks them on every scan), the simulator (the program sets its pieces) and a
    replayed trace are not, and neither is a session made in code."""
    from session_helpers import HandBoard

    from companion.daemon import checks_pieces
    from companion.drivers.sim import SimBoard

    class Polarity(HandBoard):
        sensors = "polarity"

    assert checks_pieces(HandBoard(7, ())) is True
    assert checks_pieces(Polarity(7, ())) is False
    assert checks_pieces(SimBoard(7)) is False
    h = Harness(tmp_path, variant="brandubh")
    assert h.state["guidance"]["kind"] == "to_move"
