"""The opening explorer (docs/coach.md): moves by position from the shipped book of real games
(built by tools/build_book.py from tests/data/*.csv) and from the board's own games."""

from __future__ import annotations

import csv
import doctest
from pathlib import Path

from test_daemon_support import control, http, running_daemon

import companion.coach.explorer
from companion.coach.explorer import Book, key_of, position_after, start_key

DATA = Path(__file__).parent / "data"


def test_the_doctests_pass() -> None:
    assert doctest.testmod(companion.coach.explorer).failed == 0


def first_moves(variant: str) -> dict[str, int]:
    """How often each first move opens the corpus's games (counted straight from the CSV)."""
    out: dict[str, int] = {}
    with (DATA / f"{variant}.csv").open(newline="") as fh:
        for row in csv.reader(fh):
            moves = [m for m in (row[0].split() if row else []) if m != "timeout"]
            if moves:
                m = moves[0].split("x")[0]
                out[m] = out.get(m, 0) + 1
    return out


def test_the_shipped_books_count_every_game_of_the_corpus() -> None:
    for variant, games in (("copenhagen", 1752), ("brandubh", 525)):
        book = Book.shipped(variant)
        assert book is not None and book.games == games
        start = {m.move: m.games for m in book.moves(start_key(variant))}
        assert start == first_moves(variant)
        top = book.moves(start_key(variant))[0]
        assert top.attackers + top.defenders + top.draws <= top.games
    assert Book.shipped("tablut") is None
    size = sum(p.stat().st_size for p in
               (Path(companion.coach.explorer.__file__).parent / "book").glob("*.json.gz"))
    assert size < 1_000_000  # shipped small


def test_transpositions_meet_in_one_position() -> None:
    a = position_after("copenhagen", ["d1-d3", "h6-h9", "h1-h3"])
    b = position_after("copenhagen", ["h1-h3", "h6-h9", "d1-d3"])
    assert key_of(a) == key_of(b)
    book = Book.build("copenhagen", [(["d1-d3", "h6-h9", "h1-h3", "e5-e3"], "attackers"),
                                     (["h1-h3", "h6-h9", "d1-d3", "e5-e3"], "defenders")])
    (only,) = book.moves(key_of(a))
    assert (only.move, only.games, only.attackers, only.defenders) == ("e5-e3", 2, 1, 1)


def test_the_explorer_answers_with_the_book_and_the_boards_own_games(tmp_path: Path) -> None:
    with running_daemon(tmp_path) as d:
        base = f"http://127.0.0.1:{d.port}/"
        status, _, body = http(base + "api/explorer?variant=copenhagen")
        import json

        j = json.loads(body)
        assert status == 200 and j["ply"] == 0 and j["turn"] == "attackers"
        assert j["games"] == 1752 and j["sources"][0].startswith("1,752 games")
        assert j["moves"][0]["games"] == max(first_moves("copenhagen").values())
        assert sum(1 for _ in j["moves"]) <= 12
        # a game of the board's own, played and resigned: it counts at once
        before = {m["move"]: m["games"] for m in j["moves"]}
        top = j["moves"][0]["move"]  # the most played first move, played here once more
        for square in top.split("-"):
            control(base, "api/click", {"square": square})
        from test_daemon_support import state, wait_for

        wait_for(lambda: state(base)["moves"] == [top], what="the move")
        assert control(base, "api/resign", {"side": "defenders"})[0] == 200
        wait_for(lambda: state(base)["result"] == "attackers", what="the end")
        j = json.loads(http(base + "api/explorer?variant=copenhagen")[2])
        after = {m["move"]: m for m in j["moves"]}
        assert after[top]["games"] == before[top] + 1
        assert "this board's games" in j["sources"]
        # the position after a move, and bad requests
        j = json.loads(http(base + "api/explorer?variant=copenhagen&moves=d1-d3")[2])
        assert j["ply"] == 1 and j["turn"] == "defenders"
        status, _, body = http(base + "api/explorer?variant=copenhagen&moves=d1-d9")
        assert status == 400 and json.loads(body)["code"] == "bad_move"
        assert http(base + "api/explorer?variant=chess")[0] == 400
        j = json.loads(http(base + "api/explorer?variant=tablut")[2])
        assert j["moves"] == [] and "no games of this variant" in j["note"]


def test_the_boards_own_book_is_made_once_per_version_of_its_games() -> None:
    """The page and the display ask at every move: the board's games are read and their book
    made only when the games themselves changed (a game finished, a result changed), and then
    only the games that changed are read."""
    from companion.coach.explorer import OwnBooks

    games: dict[int, tuple[list[str], str]] = {1: (["d1-d3", "h6-h9"], "attackers")}
    loads: list[list[int]] = []

    def own(variant: str):
        def load(entries):
            loads.append([e[0] for e in entries])
            return [games[e[0]] for e in entries]
        return tuple((i, r, len(m)) for i, (m, r) in sorted(games.items())), load

    books = OwnBooks(own)
    start = start_key("copenhagen")
    first = books.book("copenhagen")
    for _ in range(5):  # the same games: the same book, read once
        assert books.book("copenhagen") is first
    assert loads == [[1]] and books.made == 1
    assert [m.move for m in first.moves(start)] == ["d1-d3"]
    games[2] = (["h1-h3"], "defenders")  # one more finished game: a new book, that game read
    second = books.book("copenhagen")
    assert books.made == 2 and loads[-1] == [2] and second.games == 2
    assert {m.move for m in second.moves(start)} == {"d1-d3", "h1-h3"}
    deep = position_after("copenhagen", ["d1-d3"])  # any depth from the one book
    assert [m.move for m in second.moves(key_of(deep))] == ["h6-h9"]
    # game 1 reopened and ended otherwise: taken away as it was counted, added as it is
    games[1] = (["d1-d3", "h6-h8"], "defenders")
    third = books.book("copenhagen")
    assert loads[-1] == [1] and third.games == 2
    assert [(m.move, m.attackers, m.defenders) for m in third.moves(key_of(deep))] == [
        ("h6-h8", 0, 1)]
    del games[2]  # (the oldest games leave the last 500): taken away, nothing read
    fourth = books.book("copenhagen")
    assert loads[-1] == [] and fourth.games == 1
    assert [m.move for m in fourth.moves(start)] == ["d1-d3"]
    assert {m.move for m in second.moves(start)} == {"d1-d3", "h1-h3"}  # (left as it was)
    assert books.read == 3
