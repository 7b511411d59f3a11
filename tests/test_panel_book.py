"""The opening explorer's line on the board's display (issue 28, docs/panel.md): looked up by
the session on a thread of its own (``book`` of the state), drawn by the panel on the last free
line of the 128x64 frame (luma's capture device), in English and German."""

from __future__ import annotations

from pathlib import Path

from session_helpers import Harness, wait

from companion.coach.explorer import Book, key_of, position_after, start_key
from companion.drivers.display import HEIGHT, LINES, WIDTH, _fit, capture_display, render
from companion.hardware_config import ButtonsConfig
from companion.panel import Panel
from companion.panel.text import book_words, game_lines, with_book
from companion.panel.words import words
from companion.session import OWNER


def display(h: Harness, lang: str = "en") -> Panel:
    panel = Panel(h.session, h.session.state, buttons=None, display=capture_display(),
                  action=ButtonsConfig().action, variants=[], lang=lang,
                  wall=lambda: 1.7e9 + h.t)
    panel.refresh()
    return panel


def book_of(h: Harness) -> dict:
    return wait(h, lambda: h.state.get("book"), "the explorer's line")


def lit(image, line: int) -> int:
    """The pixels lit in the slot of display line ``line`` (0-3)."""
    slot = HEIGHT // LINES
    return sum(1 for y in range(line * slot, (line + 1) * slot) for x in range(WIDTH)
               if image.getpixel((x, y)))


def test_the_display_names_the_books_move_for_a_position_of_the_book(tmp_path: Path) -> None:
    shipped = Book.shipped("copenhagen")
    assert shipped is not None
    top = shipped.moves(start_key("copenhagen"))[0]  # h1-h3, 674 of the 1,752 games
    h = Harness(tmp_path, variant="copenhagen")
    try:
        assert book_of(h) == {"move": top.move, "games": 1752, "known": True}
        panel = display(h)
        frm, to = top.move.split("-")
        lines, image = panel.frame()
        assert lines[3] == f"Book {frm} → {to} (1752)"
        assert h.state["display"]["lines"] == lines
        # the very frame the hardware is given: the line drawn whole in its slot
        assert image.tobytes() == render(lines).tobytes() and lit(image, 3) > 0
        assert panel.frame("de")[0][3] == f"Buch {frm} → {to} (1752)"
        # a move of the book: the line follows the position
        h.move(frm, to)
        after = shipped.moves(key_of(position_after("copenhagen", [top.move])))
        wait(h, lambda: (h.state.get("book") or {}).get("move") == after[0].move, "the next")
        assert h.state["book"]["games"] == sum(m.games for m in after) == top.games
        reply = after[0].move.replace("-", " → ")
        assert panel.refresh()[3] == f"Book {reply} ({top.games})"
    finally:
        h.session.close()


def test_a_position_without_games_says_so_briefly(tmp_path: Path) -> None:
    shipped = Book.shipped("copenhagen")
    assert shipped is not None
    known = {m.move for m in shipped.moves(start_key("copenhagen"))}
    assert "d1-b1" not in known  # a first move nobody in the corpus played
    h = Harness(tmp_path, variant="copenhagen")
    try:
        book_of(h)
        panel = display(h, "de")
        h.move("d1", "b1")
        wait(h, lambda: h.state["book"] == {"move": None, "games": 0, "known": True}, "none")
        panel.refresh()  # (the panel's thread does it at each publication)
        lines, image = panel.frame()
        assert lines[3] == "Nicht im Buch" and lit(image, 3) > 0
        assert panel.frame("en")[0][3] == "Out of book"
    finally:
        h.session.close()


def test_a_variant_without_a_book_fills_with_the_boards_own_games(tmp_path: Path) -> None:
    h = Harness(tmp_path, variant="tablut")
    try:
        assert book_of(h) == {"move": None, "games": 0, "known": False}
        panel = display(h)
        assert panel.refresh()[3] == "No book"
        h.move("d1", "d3")
        h.session.resign(OWNER, "defenders")
        h.run(0.1)
        assert h.state["book"] is None  # a finished game: no line
        assert panel.refresh()[3] != "No book"
        h.session.new_game(OWNER, {})
        wait(h, lambda: h.state["book"] == {"move": "d1-d3", "games": 1, "known": True},
             "the board's own game in the book")
        assert panel.refresh()[3] == "Book d1 → d3 (1)"
    finally:
        h.session.close()


def test_a_puzzle_shows_no_book_line(tmp_path: Path) -> None:
    """The book could give a puzzle's solution away."""
    from companion.coach.puzzles import shipped

    first = sorted(shipped("brandubh"), key=lambda p: (p.rating, p.id))[0]
    h = Harness(tmp_path, variant="brandubh")
    try:
        book_of(h)
        h.session.start_puzzle(OWNER, first.id)
        h.run(0.2)
        assert h.state["puzzle"] is not None and h.state["book"] is None
    finally:
        h.session.close()


def test_the_line_takes_the_last_free_line_or_none() -> None:
    w = words("en")
    book = {"move": "h11-h10", "games": 999, "known": True}
    st = {"turn": "attackers", "result": "ongoing", "moves": [], "book": book}
    assert book_words(book, w) == "Book h11 → h10 (999)"
    lines = game_lines(st, "en", now=0.0)
    assert with_book(lines, st, w)[2:] == ["", "Book h11 → h10 (999)"]
    match = {**st, "match": {"players": ["Ann", "Bo"], "score": {"Ann": 1, "Bo": 0}}}
    assert with_book(game_lines(match, "en", now=0.0), match, w)[2:] == [
        "Book h11 → h10 (999)", "Match 1-0"]
    hint = {**match, "hint": {"side": "attackers", "from": "d1", "to": "d4"}}
    full = game_lines(hint, "en", now=0.0)
    assert with_book(full, hint, w) == full  # no room: not shown
    over = {**st, "result": "defenders"}
    ended = game_lines(over, "en", now=0.0)
    assert with_book(ended, over, w) == ended  # a finished game: not shown
    # it fits the 128 px line whole in both languages (the font shrinks, the text is not cut)
    for lang in ("en", "de"):
        text = book_words(book, words(lang))
        assert _fit(text, WIDTH - 2)[0] == text


def test_an_answer_for_a_position_gone_by_is_not_shown() -> None:
    """The lookup runs on the part's own thread and comes back as a command of the loop: the
    loop shows it only while its position stands."""
    import queue
    import threading

    from companion.session.opening import OpeningLine

    posted: queue.Queue = queue.Queue()
    release = threading.Event()

    def lookup(variant: str, key: str) -> dict:
        release.wait(30)
        return {"move": key, "games": 1, "known": True}

    def post(fn, what):
        posted.put(fn)

    line = OpeningLine(lookup, post)  # type: ignore[arg-type]
    try:
        line.follow(("brandubh", "a"))
        line.follow(("brandubh", "b"))  # the board moved on before the answer came
        assert line.to_json() is None
        release.set()
        answers = [posted.get(timeout=30)]
        answers[0]()  # the loop applies the first answer: a's or, already, b's
        if line.to_json() is None:
            answers.append(posted.get(timeout=30))
            answers[1]()
        assert line.to_json() == {"move": "b", "games": 1, "known": True}
        line.follow(None)  # the game is over: nothing shown
        assert line.to_json() is None
    finally:
        line.close()
