"""The opening explorer: for a position, the moves played there in real games, with how often and
how those games ended for each side (as chess explorers show them).

Positions are keyed by the placement and the side to move (``"<OTN> <turn>"``), so two move
orders that reach the same position meet. The book shipped with the project
(``companion/coach/book/<variant>.json.gz``, made by ``tools/build_book.py`` from the corpus of
real games) covers the first :data:`BOOK_PLIES` plies; the board's own finished games are added
at the time of asking.

>>> book = Book.build("brandubh", [(["d2-b2", "d3-b3"], "attackers"), (["d2-b2"], "draw")])
>>> [(m.move, m.games, m.attackers, m.draws) for m in book.moves(start_key("brandubh"))]
[('d2-b2', 2, 1, 1)]
"""

from __future__ import annotations

import functools
import gzip
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TypedDict

from companion.rules import get_variant
from companion.rules.game import Game

#: How deep the shipped book goes (plies from the start).
BOOK_PLIES = 20
#: Results as the book counts them; an unfinished game counts as a game only.
RESULTS = ("attackers", "defenders", "draw")
#: Where each shipped book comes from (the explorer's page says it).
SOURCES = {"copenhagen": "1,752 games played on aagenielsen.dk (CC0-1.0)",
           "brandubh": "525 games played on aagenielsen.dk (MIT, via hnefatafl-rs)"}

Counts = list[int]  # [games, attackers won, defenders won, draws]
Table = dict[str, dict[str, Counts]]
#: The board's own games are read to any depth (a game of its own may go on, up to a long one).
OWN_PLIES = 401
#: One finished game of the board's own as its version: ``(id, result, plies)``.
Entry = tuple[int, str, int]
#: A game as a book counts it: its record texts and its result.
Played = tuple[Sequence[str], str]
#: The board's finished games of a variant: ``(entries, load)``, where the entries (one cheap
#: query) change whenever the games do, and ``load(entries)`` reads those games, in that order
#: (every move: the costly part).
OwnGames = Callable[[str], tuple[tuple[Entry, ...], Callable[[Sequence[Entry]], Sequence[Played]]]]
#: The board's own books kept (one per variant and version of its games).
KEPT_BOOKS = 8


@dataclass(frozen=True)
class BookMove:
    """A move played in a position: in how many games, and how they ended."""

    move: str
    games: int
    attackers: int
    defenders: int
    draws: int

    def to_json(self) -> dict[str, object]:
        return {"move": self.move, "games": self.games, "attackers": self.attackers,
                "defenders": self.defenders, "draws": self.draws}


def key_of(game: Game) -> str:
    """The position's key: placement and side to move."""
    return f"{game.board.otn()} {game.turn}"


def start_key(variant: str) -> str:
    return key_of(Game(get_variant(variant)))


class Book:
    """Moves by position for one variant (see the module docstring)."""

    def __init__(self, variant: str, table: Table, games: int = 0) -> None:
        self.variant = variant
        self.table = table
        self.games = games

    @classmethod
    def build(cls, variant: str, games: Iterable[tuple[Sequence[str], str]],
              plies: int = BOOK_PLIES) -> Book:
        """From ``(record texts, result)`` pairs (result: attackers, defenders, draw or anything
        else for an unfinished game); a game stops counting at its first move the rules
        refuse."""
        rules = get_variant(variant)
        table: Table = {}
        n = 0
        for moves, result in games:
            n += 1
            game = Game(rules)
            for text in list(moves)[:plies]:
                key = key_of(game)
                try:
                    played = game.play_text(text)
                except ValueError:
                    break
                move = played.move.text(game.board.size)
                counts = table.setdefault(key, {}).setdefault(move, [0, 0, 0, 0])
                counts[0] += 1
                if result in RESULTS:
                    counts[1 + RESULTS.index(result)] += 1
        return cls(variant, table, n)

    @classmethod
    def shipped(cls, variant: str) -> Book | None:
        """The book the project ships for ``variant`` (None where it has none)."""
        try:
            data = resources.files("companion.coach").joinpath(f"book/{variant}.json.gz")
            raw = json.loads(gzip.decompress(data.read_bytes()))
        except (FileNotFoundError, OSError):
            return None
        return cls(variant, raw["positions"], int(raw["games"]))

    def to_json(self) -> dict[str, object]:
        return {"variant": self.variant, "games": self.games, "positions": self.table}

    def changed(self, plus: Book, minus: Book) -> Book:
        """A new book: this one with the games of ``plus`` added and those of ``minus`` taken
        away (this one is left as it is: another thread may be reading it)."""
        table = {key: {m: list(c) for m, c in moves.items()} for key, moves in self.table.items()}
        for book, sign in ((plus, 1), (minus, -1)):
            for key, moves in book.table.items():
                row = table.setdefault(key, {})
                for move, counts in moves.items():
                    total = row.setdefault(move, [0, 0, 0, 0])
                    for i, n in enumerate(counts):
                        total[i] += sign * n
                    if total[0] <= 0:
                        del row[move]
                if not row:
                    del table[key]
        return Book(self.variant, table, self.games + plus.games - minus.games)

    def moves(self, key: str) -> list[BookMove]:
        """The moves of the position ``key``, most played first."""
        return sorted((BookMove(m, *c) for m, c in self.table.get(key, {}).items()),
                      key=lambda b: (-b.games, b.move))


def merged(*lists: Iterable[BookMove]) -> list[BookMove]:
    """Several sources' moves of one position added up, most played first."""
    total: dict[str, Counts] = {}
    for moves in lists:
        for m in moves:
            c = total.setdefault(m.move, [0, 0, 0, 0])
            for i, v in enumerate((m.games, m.attackers, m.defenders, m.draws)):
                c[i] += v
    return sorted((BookMove(m, *c) for m, c in total.items()), key=lambda b: (-b.games, b.move))


def position_after(variant: str, moves: Sequence[str]) -> Game:
    """The game after ``moves`` from the variant's start (ValueError naming the bad move)."""
    game = Game(get_variant(variant))
    for i, text in enumerate(moves, 1):
        try:
            game.play_text(text)
        except ValueError as exc:
            raise ValueError(f"move {i} ({text}): {exc}") from None
    return game


@functools.cache
def shipped_book(variant: str) -> Book | None:
    """:meth:`Book.shipped`, read once per variant."""
    return Book.shipped(variant)


class OwnBooks:
    """The board's own games as a :class:`Book`, made once per version of them (the page and
    the display ask again at every move; each ask reads only the games' entries). A new
    version changes the last book by the games that came and went (a game finished reads that
    game's moves, not every game's; a game changed, a takeback reopened it, is taken away as
    it was counted and added as it is now). Thread-safe."""

    def __init__(self, own_games: OwnGames, kept: int = KEPT_BOOKS) -> None:
        self._own_games = own_games
        self._kept = kept
        self._lock = threading.Lock()
        self._books: OrderedDict[tuple[str, tuple[Entry, ...]], Book] = OrderedDict()
        #: per variant: the last book made and the games it counts
        self._latest: dict[str, tuple[Book, dict[Entry, Played]]] = {}
        self.made = 0  #: books made so far (the tests count them)
        self.read = 0  #: games read from the store so far

    def book(self, variant: str) -> Book:
        entries, load = self._own_games(variant)
        key = (variant, entries)
        with self._lock:
            book = self._books.get(key)
            if book is not None:
                self._books.move_to_end(key)
                return book
            last, counted = self._latest.get(variant) or (Book(variant, {}), {})
        now = set(entries)
        came = [e for e in entries if e not in counted]
        gone = [e for e in counted if e not in now]
        games = {e: g for e, g in counted.items() if e in now}
        games.update(zip(came, load(came), strict=True))
        book = last.changed(Book.build(variant, [games[e] for e in came], plies=OWN_PLIES),
                            Book.build(variant, [counted[e] for e in gone], plies=OWN_PLIES))
        with self._lock:
            self.made += 1
            self.read += len(came)
            self._books[key] = book
            self._latest[variant] = (book, games)
            while len(self._books) > self._kept:
                self._books.popitem(last=False)
        return book


class BookLine(TypedDict):
    """The explorer in one line (the board's display): the most played move of a position and
    the games that went on from it; ``known``: whether the variant has any games at all."""

    move: str | None
    games: int
    known: bool


def book_line(variant: str, key: str, own: Book) -> BookLine:
    """The line for position ``key`` from the shipped book and the board's own ``own``.

    >>> own = Book.build("tablut", [(["d1-d3"], "draw")])
    >>> book_line("tablut", start_key("tablut"), own)
    {'move': 'd1-d3', 'games': 1, 'known': True}
    >>> book_line("tablut", "x attackers", Book("tablut", {}))
    {'move': None, 'games': 0, 'known': False}
    """
    shipped = shipped_book(variant)
    moves = merged(own.moves(key), shipped.moves(key) if shipped is not None else [])
    return {"move": moves[0].move if moves else None, "games": sum(m.games for m in moves),
            "known": shipped is not None or own.games > 0}
