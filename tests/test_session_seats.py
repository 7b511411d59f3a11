"""Both sides' players behind one protocol (companion.session.seats), with a scripted computer
player: asked on its turn only, stopped when the position changes, waiting after a failure,
resigning after hopeless moves in a row; people and players at a distance decide nothing
here."""

from __future__ import annotations

from companion.rules import get_variant
from companion.rules.game import Game
from companion.session.computer import Chose, ComputerConfig, Failed, Resigns
from companion.session.players import ChosenMove, PlayerError, PlayerKind, PlayerSpec
from companion.session.seats import RETRY_S, ComputerSeat, DistantSeat, PersonSeat, Seats


class ScriptedPlayer:
    """A computer player whose answers the test hands it."""

    def __init__(self) -> None:
        self.asked: list[int] = []
        self.cancelled = 0
        self.answer: ChosenMove | PlayerError | None = None
        self.closed = False

    def request(self, game: Game, clock: dict[str, float] | None) -> None:
        self.asked.append(len(game.played))

    def poll(self) -> ChosenMove | None:
        answer, self.answer = self.answer, None
        if isinstance(answer, PlayerError):
            raise answer
        return answer

    def cancel(self) -> None:
        self.cancelled += 1

    @property
    def thinking(self) -> dict[str, object] | None:
        return {"depth": 3, "cp": 20, "pv": ["d4-d5"]}

    def close(self) -> None:
        self.closed = True


def seats_with(computer: ScriptedPlayer) -> Seats:
    def open_one(spec: PlayerSpec, side: str, seed: int):
        if spec.is_computer:
            return ComputerSeat(spec, side, computer)
        return DistantSeat(spec) if spec.is_remote else PersonSeat(spec)

    seats = Seats(open_one)
    seats.sync({"attackers": PlayerSpec(PlayerKind.BOARD, "Ann"),
                "defenders": PlayerSpec(PlayerKind.COMPUTER, "Computer", 3)}, seed=1)
    return seats


def step(seats: Seats, game: Game, now: float, **kw):
    cfg = kw.pop("cfg", ComputerConfig())
    return seats.step(game, now, 1.7e9 + now, cfg, may_ask=True, waiting=False,
                      clock=lambda: None)


def test_the_computer_is_asked_on_its_turn_and_stopped_when_the_position_changes() -> None:
    engine = ScriptedPlayer()
    seats = seats_with(engine)
    game = Game(get_variant("brandubh"))
    assert step(seats, game, 0.0) is None and engine.asked == []  # the person's turn
    game.play_text("d2-c2")
    assert step(seats, game, 1.0) is None and engine.asked == [1]
    assert seats.thinking is not None and seats.thinking["side"] == "defenders"
    step(seats, game, 1.6)  # thinking is sampled (twice a second at most)
    assert seats.thinking is not None and seats.thinking.get("best") == "d4-d5"
    game.play_text("d5-e5")  # its move made by hand meanwhile: the search stops
    assert step(seats, game, 2.0) is None and engine.cancelled >= 1 and seats.thinking is None
    game.play_text("c2-c3")
    step(seats, game, 3.0)
    engine.answer = ChosenMove("e5-e6", score=-20)
    decision = step(seats, game, 3.5)
    assert decision == Chose("defenders", "e5-e6", "computer", -0.2)
    assert engine.asked == [1, 3]


def test_a_failing_computer_is_asked_again_later_and_a_hopeless_one_resigns() -> None:
    engine = ScriptedPlayer()
    seats = seats_with(engine)
    game = Game(get_variant("brandubh"))
    game.play_text("d2-c2")
    step(seats, game, 0.0)
    engine.answer = PlayerError("the engine broke")
    assert step(seats, game, 0.1) == Failed("defenders", "the engine broke")
    assert seats.error == {"side": "defenders", "message": "the engine broke"}
    step(seats, game, 0.2 + RETRY_S / 2)
    assert engine.asked == [1]  # it waits
    step(seats, game, 0.2 + RETRY_S)
    assert engine.asked == [1, 1]
    cfg = ComputerConfig(resign_moves=2, resign_threshold=8.0)
    engine.answer = ChosenMove("d5-e5", score=-900)
    assert isinstance(step(seats, game, 6.0, cfg=cfg), Chose)  # the first hopeless move
    assert seats.error is None
    game.play_text("d5-e5")
    game.play_text("c2-c3")
    step(seats, game, 7.0, cfg=cfg)
    engine.answer = ChosenMove("e5-e6", score=-950)
    assert isinstance(step(seats, game, 7.5, cfg=cfg), Resigns)  # the second in a row


def test_people_and_players_at_a_distance_decide_nothing_here() -> None:
    seats = Seats()
    seats.sync({"attackers": PlayerSpec(PlayerKind.PAGE, "Ann"),
                "defenders": PlayerSpec(PlayerKind.ONLINE, "bob")}, seed=1)
    game = Game(get_variant("brandubh"))
    assert isinstance(seats.seat("attackers"), PersonSeat)
    assert isinstance(seats.seat("defenders"), DistantSeat)
    assert step(seats, game, 0.0) is None and seats.thinking is None
    assert seats.computer("attackers") is None and not seats.cancel()
