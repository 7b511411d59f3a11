"""Issue 12's web defects, each reproduced against a real daemon on loopback (real server, real
SQLite, the fake tracker): oversized ids, log floods, strict JSON and squares."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from test_daemon_support import PIN, control, http, running_daemon, state


@pytest.fixture()
def daemon(tmp_path: Path):
    with running_daemon(tmp_path) as d:
        yield d


def base(d) -> str:
    return f"http://127.0.0.1:{d.port}/"


def post_raw(d, path: str, raw: bytes) -> tuple[int, dict]:
    status, _, data = http(base(d) + path, "POST", raw=raw, headers={
        "Content-Type": "application/json", "X-Tafl-Request": "1", "X-Tafl-Pin": PIN})
    return status, json.loads(data)


# -- 4. oversized ids: 4xx, and a flood of errors writes a few log lines ---------------------


@pytest.mark.parametrize("gid", ["9223372036854775808", "9" * 40, "1" * 5000],
                         ids=["2**63", "40-digits", "5000-digits"])
def test_oversized_game_ids_are_404_on_every_game_route(daemon, gid: str) -> None:
    for path in (f"api/games/{gid}", f"api/games/{gid}/record.csv", f"api/games/{gid}/game.otg"):
        status, _, data = http(base(daemon) + path)
        assert status == 404 and json.loads(data)["error"], path


def test_the_largest_id_is_a_plain_not_found(daemon) -> None:
    status, _, data = http(base(daemon) + f"api/games/{2**63 - 1}")
    assert status == 404 and "no game" in json.loads(data)["error"]


def test_a_flood_of_failing_requests_logs_one_report_per_kind(daemon, caplog) -> None:
    def broken(gid: int):
        raise RuntimeError("disk on fire")

    daemon.store.game = broken
    caplog.set_level(logging.INFO)
    for _ in range(200):
        status, _, data = http(base(daemon) + "api/games/1")
        assert status == 500 and json.loads(data)["error"] == "internal error: RuntimeError"
    reports = [r for r in caplog.records if "disk on fire" in r.getMessage()]
    assert len(reports) == 1 and reports[0].exc_info is not None
    assert sum(len(r.getMessage()) for r in caplog.records) < 5000


def test_error_log_counts_the_repeats_it_left_out() -> None:
    from companion.web.errors import ErrorLog

    now = [0.0]
    lines: list[str] = []

    class Sink(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    logger = logging.getLogger("test.errorlog")
    logger.addHandler(Sink())
    errors = ErrorLog(logger, every=60, clock=lambda: now[0])
    for i in range(50):
        now[0] = i
        errors.error("KeyError GET /x", "boom")
        errors.error("ValueError GET /y", "bang")
    now[0] = 61
    errors.error("KeyError GET /x", "boom")
    assert lines == ["boom", "bang", "boom (49 more like it since the last report)"]


# -- 7. strict input -------------------------------------------------------------------------


def test_deeply_nested_json_is_a_400_not_a_recursion_error(daemon) -> None:
    for raw in (b"[" * 1000 + b"]" * 1000, b'{"a":' * 1000 + b"1" + b"}" * 1000):
        status, doc = post_raw(daemon, "api/click", raw)
        assert status == 400 and "nested" in doc["error"]
    status, doc = post_raw(daemon, "api/click", b'{"square": NaN}')
    assert status == 400
    assert state(base(daemon))["variant"] == "copenhagen"


@pytest.mark.parametrize("square", ["d01", "a\uff11", "a\u0e51", "\u01301", "D1", " d1", "d1 ",
                                    "a0", "l1", "a12", "d+1", "", "d1\x00", "ａ1"])
def test_squares_are_parsed_strictly(daemon, square: str) -> None:
    before = state(base(daemon))["occupied"]
    status, doc = control(base(daemon), "api/click", {"square": square})
    assert status == 400 and doc["error"], (square, status, doc)
    assert state(base(daemon))["occupied"] == before
    assert daemon.loop_errors == 0


def test_a_strict_square_still_clicks(daemon) -> None:
    status, doc = control(base(daemon), "api/click", {"square": "d1"})
    assert status == 200 and doc == {"square": "d1", "occupied": False}
