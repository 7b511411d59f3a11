"""Playing the computer on the simulated board, over HTTP, as a user would: a real daemon on
loopback (real tracker, real store, real engine processes at low levels). The test is the person
at the board: it makes the computer's move to make by clicking /api/click, and its own moves
(chosen by an in-process engine); it asks for hints, takes back a move and the computer's reply,
and has the finished game analysed."""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_daemon_support import (
    PIN,
    control,
    http,
    spawn_daemon,
    state,
    test_config,
    wait_for,
)

from companion.engine import Engine
from companion.rules import get_variant
from companion.rules.game import Game
from companion.session.computer import ComputerConfig

BRANDUBH = get_variant("brandubh")


@contextlib.contextmanager
def daemon_with(tmp_path: Path, **computer) -> Iterator[str]:
    """An in-process daemon on loopback with a ``[computer]`` config; yields its base URL."""
    from companion.daemon import Daemon

    cfg = dataclasses.replace(test_config(tmp_path, variant="brandubh"),
                              computer=ComputerConfig(**computer))
    d = Daemon(cfg)
    d.start()
    try:
        yield f"http://127.0.0.1:{d.port}/"
    finally:
        d.stop()


class Person:
    """The person at the board: clicks squares on the simulated board."""

    def __init__(self, base: str) -> None:
        self.base = base

    def click(self, square: str) -> None:
        status, out = control(self.base, "api/click", {"square": square})
        assert status == 200, out

    def make(self, frm: str, to: str, captures: list[str]) -> dict:
        n = len(state(self.base)["moves"])
        self.click(frm)
        self.click(to)
        def made() -> dict | None:
            s = state(self.base)
            return s if len(s["moves"]) > n else None

        try:
            st = wait_for(made, what=f"the move {frm}-{to}")
        except AssertionError:
            x = state(self.base)
            raise AssertionError(f"{frm}-{to} not accepted: {x['tracking']} {x['guidance']} "
                                 f"{x['message']!r} moves {x['moves']}") from None
        for sq in captures:  # lift the captured pieces off, as the lights ask
            self.click(sq)
        if captures:
            wait_for(lambda: state(self.base)["tracking"] != "capture_pending",
                     what="the captured pieces lifted")
        return st  # type: ignore[return-value]

    def put_back(self) -> None:
        """Follow the set-up guidance (after a takeback) until the board matches the game."""
        guide = state(self.base)["guidance"]
        assert guide["kind"] == "setup", guide
        for sq in sorted(guide.get("clear", [])) + sorted(guide.get("fill", {})):
            self.click(sq)
        wait_for(lambda: state(self.base)["tracking"] == "ready",
                 what="the board set up again")


def my_move(moves: list[str], engine: Engine) -> tuple[str, str, list[str]]:
    game = Game(BRANDUBH)
    for m in moves:
        game.play_text(m.split("x")[0])
    choice = engine.choose(game.board, 0.3)
    parsed, _ = game.board.parse_move(choice.move)
    caps, _ = game.board.preview(parsed)
    frm, to = choice.move.split("-")
    return frm, to, [game.board.geo.names[q] for q in game.board.geo.iter_bits(caps)]


def computers_move(base: str) -> dict | None:
    """The computer's move to make once it has chosen (None: the game ended meanwhile)."""
    def ready() -> object:
        s = state(base)
        if s["result"] != "ongoing":
            return "over"
        assert s["player_error"] is None, s["player_error"]
        return s["move_to_make"]
    got = wait_for(ready, what="the computer's move")
    return None if got == "over" else got  # type: ignore[return-value]


@pytest.mark.parametrize(("level", "resign"), [(1, False), (3, True)])
def test_a_whole_brandubh_game_against_the_computer(tmp_path: Path, level: int,
                                                    resign: bool) -> None:
    started = time.monotonic()
    with daemon_with(tmp_path, resign=resign, hint_seconds=0.3) as base:
        status, out = control(base, "api/new", {"variant": "brandubh", "players": {
            "attackers": {"kind": "computer", "level": level, "name": "Computer"},
            "defenders": {"kind": "board", "name": "Me"}}})
        assert status == 200, out
        gid = out["game"]
        st = state(base)
        assert st["players"]["attackers"] == {"name": "Computer", "kind": "computer",
                                              "level": level}
        links = control(base, "api/links", {})[1]["links"]
        me = links["defenders"]["token"]
        person, engine = Person(base), Engine(BRANDUBH, 4, seed=level)
        hints = took_back = 0
        while True:
            m = computers_move(base)
            if m is None:
                break
            assert m["by"] == "computer" and m["side"] == "attackers"
            # the LEDs show it once the captured pieces of my move are off the board
            wait_for(lambda m=m: shows(base, {m["from"]: "make_from", m["to"]: "make_to"}),
                     what="the LEDs")
            st = person.make(m["from"], m["to"], m["captures"])
            assert st["moves"][-1].split("x")[0] == m["move"]
            if st["result"] != "ongoing":
                break
            if hints < 2:  # the person asks for a hint through his player link
                t0 = time.monotonic()
                status, out = control(base, "api/hint", {}, player=me)
                assert status == 202 and out == {"status": "thinking", "side": "defenders"}
                hint = wait_for(lambda: state(base)["hint"], what="the hint")
                print(f"hint latency: {time.monotonic() - t0:.2f} s")
                leds = state(base)["leds"]
                assert leds[hint["from"]] == "hint_from" and leds[hint["to"]] == "hint_to"
                hints += 1
            if len(st["moves"]) == 5 and not took_back:  # take back my move and the reply
                frm, to, caps = my_move(st["moves"], engine)
                st = person.make(frm, to, caps)
                reply = computers_move(base)
                assert reply is not None
                person.make(reply["from"], reply["to"], reply["captures"])
                status, out = control(base, "api/takeback", {})
                assert status == 200, out
                assert len(out["moves"]) == 2 and out["undone"].startswith(f"{frm}-{to}")
                assert out["moves"][0].startswith(reply["move"])
                assert len(state(base)["moves"]) == 5
                person.put_back()
                took_back = 1
                st = state(base)
            frm, to, caps = my_move(st["moves"], engine)
            st = person.make(frm, to, caps)
            if st["result"] != "ongoing":
                break
        st = state(base)
        plies = len(st["moves"])
        print(f"level {level}: {st['result']} by {st['reason']} after {plies} plies in "
              f"{time.monotonic() - started:.1f} s")
        assert st["result"] in ("attackers", "defenders", "draw")
        if not resign:
            assert st["reason"] != "resignation"
        assert st["hints"] == {"attackers": 0, "defenders": hints} and took_back
        game = http(base + f"api/games/{gid}")
        assert game[0] == 200
        # the analysis of the finished game, as the page asks for it
        t0 = time.monotonic()
        status, out = control(base, f"api/games/{gid}/analysis", {"seconds": 0.05})
        assert status == 202 and out["total"] == plies + 1
        assert control(base, f"api/games/{gid}/analysis", {}, pin=None)[0] == 403
        done = wait_for(lambda: (a := state_of(base, gid))["status"] == "done" and a,
                        timeout=120, what="the analysis")
        print(f"analysis: {plies + 1} positions in {time.monotonic() - t0:.1f} s")
        review = done["review"]  # type: ignore[index]
        assert len(review["evaluations"]) == plies + 1 and len(review["plies"]) == plies
        assert control(base, f"api/games/{gid}/analysis", {"seconds": 0.05})[0] == 200
        import json

        listed = json.loads(http(base + "api/games")[2])["games"]
        mine = next(g for g in listed if g["id"] == gid)
        assert mine["analysed"] is True and mine["hints"]["defenders"] == hints
        csv = http(base + f"api/games/{gid}/record.csv")[2].decode()
        assert f"# hints: attackers 0 defenders {hints}" in csv


def shows(base: str, roles: dict[str, str]) -> bool:
    leds = state(base)["leds"]
    return all(leds.get(sq) == role for sq, role in roles.items())


def state_of(base: str, gid: int) -> dict:
    import json

    status, _, body = http(base + f"api/games/{gid}/analysis")
    assert status == 200
    return json.loads(body)


def test_hints_are_for_the_owner_and_the_player_on_his_turn(tmp_path: Path) -> None:
    with daemon_with(tmp_path, hint_seconds=0.2) as base:
        control(base, "api/new", {"players": {"attackers": {"kind": "board"},
                                              "defenders": {"kind": "computer", "level": 1}}})
        links = control(base, "api/links", {})[1]["links"]
        assert control(base, "api/hint", {}, pin=None)[1]["code"] == "forbidden"
        status, out = control(base, "api/hint", {}, player=links["defenders"]["token"])
        assert status == 409 and out["code"] == "not_your_turn"
        status, out = control(base, "api/hint", {"seconds": "soon"})
        assert status == 400 and out["code"] == "bad_request"
        status, out = control(base, "api/hint", {})
        assert status == 202
        wait_for(lambda: state(base)["hint"], what="the hint")
        status, out = control(base, "api/hint", {})
        assert status == 200 and out["status"] == "ready"
        events = [e for e in state(base)["events"] if e["kind"] == "hint"]
        assert events and events[-1]["by"] == "owner"


def test_the_daemon_drives_its_own_engine_command_as_an_external_engine(tmp_path: Path) -> None:
    command = f"{sys.executable} -m companion engine --level 1 --seed 3"
    d, base = spawn_daemon(["--variant", "brandubh", "--board", "sim", "--port", "0",
                            "--host", "127.0.0.1", "--pin", PIN, "--data-dir", str(tmp_path),
                            "--attackers", f"engine:{command}"])
    try:
        st = state(base)
        assert st["players"]["attackers"]["kind"] == "engine"
        assert st["players"]["attackers"]["command"] == command
        person, engine = Person(base), Engine(BRANDUBH, 2, seed=1)
        for _ in range(3):
            m = computers_move(base)
            assert m is not None and m["by"] == "engine"
            st = person.make(m["from"], m["to"], m["captures"])
            if st["result"] != "ongoing":
                break
            st = person.make(*my_move(st["moves"], engine))
            if st["result"] != "ongoing":
                break
        assert len(st["moves"]) >= 2
        # an engine command from the page is refused unless the config lists it
        status, out = control(base, "api/players", {"defenders": {"kind": "engine",
                                                                  "command": "/bin/sh -c x"}})
        assert status == 403 and out["code"] == "engine_not_allowed"
    finally:
        out = d.stop()
    assert "Traceback" not in out, out


@pytest.mark.parametrize(("misbehaviour", "words"), [
    ("sys.stderr.write('segfault in the search\\n'); sys.exit(11)",
     "exited with status 11: segfault in the search"),
    ("pass", "did not answer within 3.5 s"),  # silent: 1.1 x 0.5 s + 3 s
])
def test_a_crashing_or_silent_engine_is_shown_on_the_page_and_the_board_goes_on(
        tmp_path: Path, misbehaviour: str, words: str) -> None:
    script = tmp_path / "bad_engine.py"
    script.write_text("import sys\nprint('hello', flush=True)\nfor line in sys.stdin:\n"
                      f"    if line.startswith('play'):\n        {misbehaviour}\n")
    command = f"{sys.executable} {script}"
    with daemon_with(tmp_path, engines=(command,)) as base:
        status, out = control(base, "api/new", {"players": {
            "attackers": {"kind": "engine", "command": command, "seconds": 0.5}}})
        assert status == 200, out
        err = wait_for(lambda: state(base)["player_error"], what="the error")
        assert err["side"] == "attackers"
        assert words in err["message"], err
        assert "failed" in state(base)["message"]
        person = Person(base)
        person.make("d2", "c2", [])  # the board is never held up: the move is made by hand
        assert state(base)["turn"] == "defenders"


# The scan loop's rate while the computer thinks, a game is analysed, a hint is looked for, and
# the page floods the daemon with reads and controls: bench/loop.py (figures, not a timed test).
