"""The opening explorer's line for the game on the board (docs/panel.md, the display): the most
played move of the position now in the shipped book and the board's own finished games, and how
many games went on from it (:func:`~companion.coach.explorer.book_line`).

The loop thread only says which position it wants (:meth:`OpeningLine.follow`, a comparison
of two strings at each step); a thread of this part's own looks it up — the shipped book is
read once per variant, the board's own book changed only by the games that came and went
(:class:`~companion.coach.explorer.OwnBooks`, the one the page's explorer uses) — and hands the
answer back as a command of the loop, which publishes it (``book`` of the state) while the
position stands. The part owns its answer and nothing of the context's.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future

from companion.coach.explorer import BookLine, Entry, OwnBooks, OwnGames, Played, book_line
from companion.rules import PRESETS
from companion.store import Store

log = logging.getLogger("companion.session")

#: The board's finished games read for its own book (the last ones, as the page's explorer).
OWN_GAMES = 500

Position = tuple[str, str]  # (variant, the explorer's key: placement and side to move)
Lookup = Callable[[str, str], BookLine]
Post = Callable[[Callable[[], None], str], "Future[None]"]


def own_games(store: Store) -> OwnGames:
    """The board's finished games of a variant from its start (any thread, on read-only
    connections of their own): their entries (ids, results and lengths: one query) and a
    reader of some of them, in the order asked (only called for entries not read before)."""

    def games(variant: str) -> tuple[tuple[Entry, ...], Callable[[Sequence[Entry]],
                                                                  list[Played]]]:
        start = PRESETS[variant].start
        reader = store.reader()
        try:
            entries = tuple((r.id, r.result, r.plies) for r in reader.list_games(limit=OWN_GAMES)
                            if r.variant == variant and r.result != "ongoing"
                            and r.start_position == start)
        finally:
            reader.close()

        def load(some: Sequence[Entry]) -> list[Played]:
            moves = store.reader()
            try:
                return [([str(m["text"]) for m in moves.moves(gid)], result)
                        for gid, result, _ in some]
            finally:
                moves.close()

        return entries, load

    return games


def lookup_in(books: OwnBooks) -> Lookup:
    """The line of a position from the shipped book and ``books`` (the board's own)."""

    def lookup(variant: str, key: str) -> BookLine:
        return book_line(variant, key, books.book(variant))

    return lookup


class OpeningLine:
    """The explorer's line for the position the loop follows (see the module docstring)."""

    def __init__(self, lookup: Lookup, post: Post) -> None:
        self._lookup = lookup
        self._post = post
        self._asked: Position | None = None  # the loop's: the position shown now
        self._answer: tuple[Position, BookLine] | None = None  # the loop's
        self._wake = threading.Condition()
        self._wanted: Position | None = None  # handed to the thread (under _wake)
        self._closed = False
        self._thread: threading.Thread | None = None

    def follow(self, position: Position | None) -> None:
        """The position to show the line of now, or None for none (loop thread, each step)."""
        if position == self._asked:
            return
        self._asked = position
        if position is None:
            return
        with self._wake:
            if self._closed:
                return
            self._wanted = position
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="opening-line",
                                                daemon=True)
                self._thread.start()
            self._wake.notify()

    def to_json(self) -> BookLine | None:
        """``book`` of the state: the line of the position followed, once it is known."""
        if self._answer is None or self._asked is None or self._answer[0] != self._asked:
            return None
        line = self._answer[1]
        return {"move": line["move"], "games": line["games"], "known": line["known"]}

    def close(self) -> None:
        """Stop the thread (no more lookups; a command posted now is refused by the loop)."""
        with self._wake:
            self._closed = True
            self._wake.notify()
            thread = self._thread
        if thread is not None:  # (a book being made is not waited for: a daemon thread)
            thread.join(timeout=1.0)

    def _answered(self, position: Position, line: BookLine) -> None:
        self._answer = (position, line)  # (a command: the loop thread)

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._wanted is None and not self._closed:
                    self._wake.wait()
                position = self._wanted
                if self._closed or position is None:
                    return
                self._wanted = None
            try:
                line = self._lookup(*position)
            except Exception:  # a store that cannot be read, a book that cannot: no line
                log.exception("the opening line of %s not looked up", position[0])
                continue

            def answer(position: Position = position, line: BookLine = line) -> None:
                self._answered(position, line)

            self._post(answer, "opening_line")
