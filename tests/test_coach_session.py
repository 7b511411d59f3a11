"""The session's coach (companion.session.coaching) on a recording engine: when it asks the
advisor's engine, that an answer for a position that has changed meanwhile is dropped, that a
warning goes with the position it belongs to, and that a side the computer plays, or nobody
coached, costs no look. The engine's answers are real fixed-depth searches
(companion.coach.local), handed over as the advisor's engine would."""

from __future__ import annotations

from concurrent.futures import Future

from companion.coach.config import CoachConfig
from companion.coach.local import LocalLooker
from companion.engine.otep_answers import AnalysisLine
from companion.rules import PRESETS
from companion.rules.game import Game
from companion.session.advice import AdviceEngine, Job
from companion.session.coaching import Coaching

# tests/data/brandubh.csv line 68, before ply 9: b4-b3 lets the king reach a corner in two
POSITION, TURN = "/3t3/3t3/5T1/ttT1K1t/3t1t1/7/3t3/", "attackers"
LOOKER = LocalLooker(PRESETS["brandubh"], 4)


class Recording(AdviceEngine):
    """The advisor's engine, recording its questions instead of starting a process."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs: list[Job] = []

    def submit(self, job: Job) -> None:
        self.jobs.append(job)

    def answer(self, job: Job) -> Job:
        """The job with its answer: the searcher's best line, as ``analysis`` gives it."""
        look = LOOKER.look(job.board)
        assert look is not None
        job.pending = Future()
        job.pending.set_result([AnalysisLine(list(look.line), look.score)])
        return job


def key(game: Game) -> tuple[int, int, str, str]:
    played = game.played
    return (1, len(played), played[-1].text if played else "", game.result)


def test_the_looks_asked_and_the_warning_they_make() -> None:
    engine = Recording()
    coach = Coaching(engine, CoachConfig("attackers", seconds=0.3))
    game = Game(PRESETS["brandubh"], POSITION, TURN)
    assert coach.watch(key(game), game, person=True) is None
    (before,) = engine.jobs  # the coached side to move: looked at while the person thinks
    assert before.by == "coach" and before.side == "attackers" and before.seconds == 0.3
    assert coach.done(engine.answer(before), key(game)) is None
    game.play_text("b4-b3")
    assert coach.watch(key(game), game, person=True) is None  # not lost at once
    assert coach.watch(key(game), game, person=True) is None  # (the same position: no look)
    after = engine.jobs[-1]
    assert len(engine.jobs) == 2 and after.key == key(game)  # the before look was known
    assert coach.to_json(key(game))["looking"] is True  # type: ignore[index]
    warning = coach.done(engine.answer(after), key(game))
    assert warning is not None and warning.move == "b4-b3" and warning.kind == "escape"
    state = coach.to_json(key(game))
    assert state is not None and state["warning"] is not None and not state["looking"]
    assert state["warning"]["threat"][0] == "e4"
    # the opponent moves: the warning is gone with its position
    game.play_text(warning.line[0])
    assert coach.current(key(game)) is None


def test_an_answer_for_a_position_that_changed_is_dropped() -> None:
    engine = Recording()
    coach = Coaching(engine, CoachConfig("attackers"))
    game = Game(PRESETS["brandubh"], POSITION, TURN)
    coach.watch(key(game), game, person=True)
    game.play_text("b4-b3")
    coach.watch(key(game), game, person=True)
    before, after = engine.jobs
    coach.done(engine.answer(before), key(game))
    asked = key(game)
    game.undo()  # taken back before the engine answered
    assert coach.done(engine.answer(after), key(game)) is None
    assert coach.current(asked) is None and coach.current(key(game)) is None


def test_no_look_for_a_side_nobody_coaches_or_a_computer_plays() -> None:
    engine = Recording()
    game = Game(PRESETS["brandubh"], POSITION, TURN)
    Coaching(engine, CoachConfig(None)).watch(key(game), game, person=True)
    Coaching(engine, CoachConfig("attackers")).watch(key(game), game, person=False)
    assert engine.jobs == []


def test_a_loss_at_once_is_warned_of_without_the_engine() -> None:
    engine = Recording()
    # tests/data/brandubh.csv line 10, before ply 8 (coach_positions.json "at_once")
    game = Game(PRESETS["brandubh"], "/3t3/2T1t2/1t1T3/tK2T1t/3T1t1/2t4/3t3/", "defenders")
    coach = Coaching(engine, CoachConfig("defenders"))
    coach.watch(key(game), game, person=True)
    engine.jobs.clear()
    game.play_text("b4-b7")
    warning = coach.watch(key(game), game, person=True)
    assert warning is not None and warning.moves == 1 and warning.kind == "capture"
    assert engine.jobs == []  # the rules alone: no engine asked
    assert coach.current(key(game)) is warning


def test_an_evaluation_the_engine_could_not_make_says_why_and_is_asked_again() -> None:
    """An evaluation whose engine failed (crashed, fell silent) says so, instead of vanishing
    from the page as it did (the CI's browser test then waited for it in vain); asking again
    asks the engine again."""
    from companion.engine import EngineError

    engine = Recording()
    coach = Coaching(engine, CoachConfig(None))
    game = Game(PRESETS["brandubh"], POSITION, TURN)
    status, out = coach.evaluate(key(game), game, "owner", 1.0)
    assert status == 202 and out["evaluation"]["error"] is None
    (job,) = engine.jobs
    job.pending = Future()
    job.pending.set_exception(EngineError("silence", "engine 'advisor' did not answer within "
                                                     "4.1 s"))
    assert coach.done(job, key(game)) is None
    shown = coach.eval_json(key(game), "attackers")
    assert shown is not None and shown["score"] is None
    assert shown["error"] == "engine 'advisor' did not answer within 4.1 s"
    status, out = coach.evaluate(key(game), game, "owner", 1.0)  # asked again: a new look
    assert status == 202 and out["evaluation"]["error"] is None and len(engine.jobs) == 2
    assert coach.done(engine.answer(engine.jobs[1]), key(game)) is None
    shown = coach.eval_json(key(game), "attackers")
    assert shown is not None and shown["score"] is not None and shown["error"] is None
