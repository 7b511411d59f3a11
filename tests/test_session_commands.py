"""The command queue between other threads and the session's loop thread (pure: no daemon)."""

from __future__ import annotations

import threading
import time

import pytest
from test_daemon_support import PATIENCE, wait_for

from companion.session.actors import ControlError
from companion.session.command_queue import MAX_WAITING, CommandQueue


def test_a_call_on_the_loop_thread_runs_at_once_and_others_wait_for_the_loop() -> None:
    q = CommandQueue(timeout=PATIENCE)
    q.claim()
    assert q.call(lambda: 41 + 1) == 42 and q.pending == 0  # never waits for itself
    answers: list[object] = []
    t = threading.Thread(target=lambda: answers.append(q.call(lambda: "from the loop")))
    t.start()
    wait_for(lambda: q.pending, what="the call posted")  # bounded, unlike a bare spin
    assert answers == []  # waiting: nothing runs it but the loop
    done = q.drain()
    assert len(done) == 1 and answers == []  # applied, not answered before it is published
    done.settle()
    t.join(PATIENCE)
    assert answers == ["from the loop"]


def test_a_commands_error_goes_to_its_caller_not_up_the_loop() -> None:
    q = CommandQueue(timeout=PATIENCE)
    got: list[BaseException] = []

    def boom() -> None:
        raise ControlError(409, "game_over", "the game is over")

    def web() -> None:
        try:
            q.call(boom)
        except ControlError as exc:
            got.append(exc)

    t = threading.Thread(target=web)
    t.start()
    wait_for(lambda: q.pending, what="the call posted")  # bounded, unlike a bare spin
    q.claim()
    q.drain().settle()  # does not raise
    t.join(PATIENCE)
    assert isinstance(got[0], ControlError) and got[0].code == "game_over"


def test_a_flood_is_bounded_and_a_step_applies_commands_for_a_bounded_time() -> None:
    q = CommandQueue(timeout=PATIENCE)
    # commands that take time (a sleep IS the behaviour here: the step's time budget)
    futures = [q.post(lambda: time.sleep(0.001)) for _ in range(MAX_WAITING)]
    refused = q.post(lambda: None)
    with pytest.raises(ControlError) as err:
        refused.result(0)
    assert err.value.status == 503 and err.value.code == "busy"
    q.claim()
    done = q.drain(limit=1000, budget=0.02)
    assert 1 <= len(done) < MAX_WAITING // 2  # the rest wait for the next steps
    done.settle()
    while q.pending:
        q.drain().settle()
    assert all(f.done() and f.exception() is None for f in futures)


def test_closing_answers_every_waiting_caller_at_once() -> None:
    q = CommandQueue(timeout=PATIENCE)
    got: list[BaseException] = []

    def web() -> None:
        try:
            q.call(lambda: None)
        except ControlError as exc:
            got.append(exc)

    threads = [threading.Thread(target=web) for _ in range(3)]
    for t in threads:
        t.start()
    wait_for(lambda: q.pending >= 3, what="three calls posted")
    q.close()
    for t in threads:
        t.join(PATIENCE)
    assert [e.code for e in got] == ["stopping"] * 3  # type: ignore[attr-defined]
    with pytest.raises(ControlError):
        q.post(lambda: None).result(0)
