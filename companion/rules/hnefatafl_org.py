"""The rules of the hnefatafl.org server (``hnefatafl-server-full`` 6.x), one rule set per board
size, and its house rules that a :class:`~companion.rules.ruleset.RuleSet` cannot express.

Read from the server program's own code (``board.rs``, ``game.rs``; see docs/online.md):

* 11×11 and 13×13: Copenhagen. Attackers first; only the king may stop on the throne or a
  corner (anyone passes the empty throne); corners and the empty throne are hostile to
  everyone (with the king on it, the throne is the king: a defender); the king is armed, never
  taken by two: four attackers, or three and the throne, never on the edge; shield walls (a
  corner may close one end); exit forts and corner escapes win for the defenders; encircling
  wins for the attackers; a side without a legal move loses.
* 7×7 (brandubh): the same code with the **defenders first**, no exit forts, and the king
  taken by two attackers in a line anywhere off the throne (beside it too), by four on it;
  corners and the throne never help to take the king.
* House rules (:class:`ServerHistory`): the defenders may not recreate **any** earlier board
  of the game (the server refuses the move; the attackers may repeat); there is no draw by
  repetition; the :data:`MOVE_LIMIT`-th move (the 133rd) ends the game drawn unless it wins
  (checked against the real server program: 132 moves, then the next one is answered
  ``= draw accept``).
* Only the server judges: its early attacker win when "the king can not escape" (a trapped
  king on the edge, or too few defenders left), and the exact shape of its exit forts and
  encirclement where they differ from this project's. The server's ``game_over`` line is the
  result of an online game; the board shows it.
"""

from __future__ import annotations

from .board import Board, Move
from .ruleset import DEFENDERS, PRESETS, RuleSet

#: The move that ends the game drawn unless it wins: the 133rd (``MAX_TURNS`` + 1).
MOVE_LIMIT = 133

# The server's rule sets are defined with the other presets (they are presets too).
HNEFATAFL_ORG_11 = PRESETS["hnefatafl-org"]
HNEFATAFL_ORG_13 = PRESETS["hnefatafl-org-13"]
HNEFATAFL_ORG_7 = PRESETS["hnefatafl-org-7"]

#: The server's rule sets by board size.
BY_SIZE: dict[int, RuleSet] = {r.size: r for r in (HNEFATAFL_ORG_7, HNEFATAFL_ORG_11,
                                                    HNEFATAFL_ORG_13)}
#: The same by id (they are presets too: see :data:`~companion.rules.ruleset.PRESETS`).
SERVER_RULESETS: dict[str, RuleSet] = {r.id: r for r in BY_SIZE.values()}

#: Why the server refuses a move that repeats a board (its own words, for the page).
REPEATED = "the defenders may not recreate an earlier position (hnefatafl.org house rule)"


def _placement(board: Board) -> tuple[int, int, int]:
    return (board.att, board.dfn, board.king)


class ServerHistory:
    """Every board of a game so far (piece placement only, as the server compares them), to
    check the house rule before a move is sent."""

    def __init__(self, board: Board) -> None:
        self._seen: set[tuple[int, int, int]] = set()
        replay = Board(board.rules, board.rules.start, board.rules.first)
        self._seen.add(_placement(replay))
        for move in board.move_stack:
            replay.push_unchecked(move)
            self._seen.add(_placement(replay))

    def add(self, board: Board) -> None:
        """Record the board after a move."""
        self._seen.add(_placement(board))

    def refusal(self, board: Board, move: Move) -> str | None:
        """Why the server refuses ``move`` in ``board`` by its house rules, or None. The
        server compares the board right after the piece moved (before captures) with every
        earlier board, whoever moved then."""
        if board.turn != DEFENDERS or not board.is_legal(move):
            return None
        swap = board.geo.bit[move.frm] | board.geo.bit[move.to]
        if move.frm == board.king:
            after = (board.att, board.dfn, move.to)
        else:
            after = (board.att, board.dfn ^ swap, board.king)
        return REPEATED if after in self._seen else None


def limit_reached(plies: int) -> bool:
    """Whether a game of ``plies`` moves that did not end by a win is drawn by the move limit."""
    return plies >= MOVE_LIMIT
