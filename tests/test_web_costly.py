"""Issue 17, defect 2: one spectator's costly requests (QR codes, reviews, exports) starved the
scan loop. A budget per device answers 429 with Retry-After, renders are kept and made once,
and a flood from one device runs one costly request at a time (its memory is bounded). Against a
real daemon on loopback; connections come from chosen loopback addresses, one per device.
(``bench/flood.py`` measures the scan loop and the page under such a flood.)"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from test_daemon_support import running_daemon
from web_load_support import quiet_game, request

from companion.web import costly
from companion.web.costly import Budget, Busy, RenderCache

LINK = "http://192.168.1.20:8080/?player=" + "x" * 300


def get(port: int, path: str, src: str = "127.0.0.1") -> tuple[int, dict[str, str], bytes]:
    return request(port, path, src, timeout=10)


@pytest.fixture()
def daemon(tmp_path: Path):
    with running_daemon(tmp_path) as d:
        yield d


def test_the_budget_answers_429_with_retry_after_and_spares_other_devices(daemon) -> None:
    """The buckets refill on a clock the test moves: on a busy machine each request takes
    longer on the wall clock, and a bucket refilled by the wall would never run dry."""
    budget = daemon.web_app.extensions["tafl_budget"]
    now = [budget.clock()]
    budget.clock = lambda: now[0]
    answers = []
    for i in range(200):  # new QR codes, one after the other, until the device's budget is spent
        answers.append(get(daemon.port, f"/api/qr.svg?text={LINK}{i}", "127.0.8.1"))
        if answers[-1][0] != 200:
            break
    status, headers, body = answers[-1]
    assert status == 429 and json.loads(body)["code"] == "busy" and len(answers) > 5
    assert int(headers["Retry-After"]) >= 1
    assert get(daemon.port, f"/api/qr.svg?text={LINK}", "127.0.8.2")[0] == 200  # another phone
    assert get(daemon.port, "/api/state", "127.0.8.1")[0] == 200  # cheap requests are free
    now[0] += int(headers["Retry-After"])
    assert get(daemon.port, f"/api/qr.svg?text={LINK}x", "127.0.8.1")[0] == 200


def test_a_qr_code_is_drawn_once(daemon, monkeypatch) -> None:
    from companion import qr

    drawn = []
    draw = qr.svg
    monkeypatch.setattr(qr, "svg", lambda text: drawn.append(text) or draw(text))
    answers = [get(daemon.port, f"/api/qr.svg?text={LINK}", f"127.0.9.{i + 1}")
               for i in range(3)]
    assert [a[0] for a in answers] == [200] * 3 and len({a[2] for a in answers}) == 1
    assert answers[0][2].startswith(b"<?xml") or b"<svg" in answers[0][2]
    assert drawn == [LINK]


def test_a_finished_games_review_is_made_once_per_version(daemon, monkeypatch) -> None:
    from companion.web import review

    made = []
    make = review.review_json
    monkeypatch.setattr(review, "review_json", lambda store, gid: made.append(gid) or
                        make(store, gid))
    gid = daemon.store.import_game(quiet_game(60, seed=3), ("Ann", "Bo"), time.time(),
                                   {"format": "otg", "name": "t.otg"})
    first = get(daemon.port, f"/api/review/{gid}", "127.0.10.1")
    second = get(daemon.port, f"/api/review/{gid}", "127.0.10.2")
    assert first[0] == second[0] == 200 and first[2] == second[2]
    assert len(json.loads(first[2])["moves"]) == 60 and made == [gid]
    with daemon.store._tx() as db:  # a new version of the game (its row): made again
        db.execute("UPDATE games SET attackers = 'Cy', defenders = 'Di' WHERE id = ?", (gid,))
    third = json.loads(get(daemon.port, f"/api/review/{gid}", "127.0.10.3")[2])
    assert third["players"] == {"attackers": "Cy", "defenders": "Di"} and made == [gid, gid]
    live = daemon.session.gid  # the game being played is made afresh each time
    for i in range(2):
        assert get(daemon.port, f"/api/review/{live}", f"127.0.10.{4 + i}")[0] == 200
    assert made == [gid, gid, live, live]


def test_a_flood_of_reviews_from_one_device_makes_two_at_a_time(daemon, monkeypatch) -> None:
    from companion.web import review

    running, most = [0], [0]
    lock = threading.Lock()
    make = review.review_json

    def counted(store, gid):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            time.sleep(0.05)
            return make(store, gid)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(review, "review_json", counted)
    live = daemon.session.gid  # never cached: every admitted request makes a document
    statuses: list[int] = []

    def hammer() -> None:
        for _ in range(4):
            statuses.append(get(daemon.port, f"/api/review/{live}", "127.0.11.1")[0])

    threads = [threading.Thread(target=hammer) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(statuses) == 64 and set(statuses) <= {200, 429}
    assert most[0] == 2  # two documents in the making at a time: bounded memory


def test_every_costly_endpoint_exists(daemon) -> None:
    app = daemon.server.app.app
    assert set(app.view_functions) >= costly.COSTLY


# -- the parts, on a fake clock ---------------------------------------------------------------


def test_budget_refills_and_bounds_running_requests() -> None:
    now = [0.0]
    budget = Budget(burst=1.0, rate=0.5, running=2, devices=3, clock=lambda: now[0])
    budget.enter("a")
    budget.leave("a", 0.5)
    budget.enter("a")  # half a second of work left: admitted, and it takes a whole second
    budget.leave("a", 1.0)
    with pytest.raises(Busy) as refused:
        budget.enter("a")
    assert refused.value.retry_after == pytest.approx(1.1)  # 0.5 s of work owed at 0.5 a second
    now[0] = 1.1
    budget.enter("a")  # refilled
    budget.enter("b")
    with pytest.raises(Busy, match="other costly requests"):
        budget.enter("c")  # two running in all
    budget.leave("a", 0.0)
    budget.leave("b", 0.0)
    budget.enter("c")
    for device in "cdefg":  # more devices than the table keeps: it stays bounded
        budget.enter(device)
        budget.leave(device, 0.1)
    assert len(budget._buckets) <= 3


def test_render_cache_stays_within_its_bytes() -> None:
    cache = RenderCache(max_bytes=1000, max_item=400)
    for i in range(50):
        cache.get_or_make(i, lambda: b"x" * 300)
    assert cache.size <= 1000 and cache.misses == 50
    cache.get_or_make(49, lambda: b"never")
    assert cache.hits == 1
    assert cache.get_or_make("big", lambda: b"y" * 500) == b"y" * 500  # too big to keep
    assert cache.size <= 1000
