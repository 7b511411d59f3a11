"""The board as a teacher (docs/coach.md): the opening explorer (moves played in real games and
on this board, by position)."""
