"""Property tests (hypothesis) for the rules core.

Besides round-trips and invariants, two small oracles written straight from VARIANTS.md in
plain square-by-square style (no bitboards, nothing shared with the core) check the core's move
generation and its custodial/king captures on random positions.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_helpers import playout, transform, write

from companion.rules import PRESETS, Board, format_otn, parse_otn
from companion.rules.perft import perft, perft_slow

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VARIANTS = sorted(PRESETS)
SMALL = [v for v in VARIANTS if PRESETS[v].size <= 9]

# -- independent geometry, from VARIANTS.md ----------------------------------------------------


def restricted(rules, f: int, r: int) -> bool:
    """Corner squares (only the king may stop on them; nobody else passes)."""
    n = rules.size
    if rules.corners == "none":
        return False
    ends = (0, n - 1) if rules.corners == "single" else (0, 1, n - 2, n - 1)
    if f not in ends or r not in ends:
        return False
    # the 2x2 block: both coordinates in the same corner
    return (f < n // 2) == (f in (0, 1)) and (r < n // 2) == (r in (0, 1))


def throne(rules) -> tuple[int, int] | None:
    """The throne square, or None when the centre is an ordinary square."""
    if rules.throne_stop == "anyone":
        return None
    return (rules.size // 2, rules.size // 2)


def decode(position: str) -> dict[tuple[int, int], str]:
    """OTN -> {(file, rank): piece}, parsed here by hand."""
    out = {}
    for r, row in enumerate(position.strip("/").split("/")):
        f, run = 0, ""
        for ch in row:
            if ch.isdigit():
                run += ch
                continue
            f += int(run or 0)
            run = ""
            out[(f, r)] = ch
            f += 1
    return out


def name(sq: tuple[int, int]) -> str:
    return f"{chr(97 + sq[0])}{sq[1] + 1}"


STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0))


def oracle_moves(rules, pieces, turn: str, king_left: bool) -> set[str]:
    """Every legal move, square by square, as ``"a1-a4"`` texts."""
    n = rules.size
    th = throne(rules)
    out = set()
    for (f, r), p in pieces.items():
        if (p == "t") != (turn == "attackers"):
            continue
        is_king = p == "K"
        for df, dr in STEPS:
            x, y = f + df, r + dr
            while 0 <= x < n and 0 <= y < n and (x, y) not in pieces:
                if restricted(rules, x, y) and not is_king:
                    break  # soldiers neither stop on nor pass corners
                if (x, y) == th:
                    passes = rules.throne_pass == "all" or (
                        rules.throne_pass == "king" and is_king
                    )
                    stops = is_king and (
                        rules.throne_stop == "king"
                        or (rules.throne_stop == "king_once" and not king_left)
                    )
                    if stops:
                        out.add(f"{name((f, r))}-{name((x, y))}")
                    if not passes:
                        break
                else:
                    out.add(f"{name((f, r))}-{name((x, y))}")
                if restricted(rules, x, y):
                    break  # the king stops on a corner square but never passes one
                x, y = x + df, y + dr
    return out


def hostile_empty(rules, pieces, sq, victim: str) -> bool:
    """An empty square acting as an enemy against ``victim`` (attackers/defenders/king)."""
    if sq in pieces:
        return False
    if restricted(rules, *sq) and victim in rules.hostile_corners:
        return True
    return sq == throne(rules) and victim in rules.hostile_throne_empty


def oracle_captures(rules, pieces, frm, to) -> set[str]:
    """Soldier captures and the king's capture made by moving ``frm`` -> ``to`` (no shieldwall,
    linnaean, chain or sheltered rules: callers pick presets without them)."""
    n = rules.size
    after = dict(pieces)
    mover = after.pop(frm)
    after[to] = mover
    attackers = mover == "t"
    out = set()
    th = throne(rules)
    for df, dr in STEPS:
        n1 = (to[0] + df, to[1] + dr)
        n2 = (to[0] + 2 * df, to[1] + 2 * dr)
        if n1 not in after:
            continue
        victim = after[n1]
        if victim == "K":
            if not attackers:
                continue
            near = n1 == th or (th is not None and abs(n1[0] - th[0]) + abs(n1[1] - th[1]) == 1)
            strength = rules.king_strength
            if strength == "strong_by_throne":
                strength = "strong" if near else "weak"
            if strength == "weak":
                inside = 0 <= n2[0] < n and 0 <= n2[1] < n
                if inside and (after.get(n2) == "t" or hostile_empty(rules, after, n2, "king")):
                    out.add(name(n1))
            else:
                on_edge = n1[0] in (0, n - 1) or n1[1] in (0, n - 1)
                around = [(n1[0] + a, n1[1] + b) for a, b in STEPS]
                if not on_edge and all(
                    after.get(s) == "t" or hostile_empty(rules, after, s, "king") for s in around
                ):
                    out.add(name(n1))
            continue
        if (victim == "t") == attackers:
            continue  # own piece
        if mover == "K" and not rules.king_armed:
            continue  # an unarmed king captures nothing
        if not (0 <= n2[0] < n and 0 <= n2[1] < n):
            continue
        partner = after.get(n2)
        if attackers:
            own = partner == "t"
        else:
            own = partner == "T" or (partner == "K" and rules.king_armed)
        victim_side = "defenders" if attackers else "attackers"
        if own or hostile_empty(rules, after, n2, victim_side):
            out.add(name(n1))
    return out


# -- strategies --------------------------------------------------------------------------------


@st.composite
def placements(draw, variants=VARIANTS, max_pieces: int = 40):
    """(rules, OTN, turn): random pieces on legal squares (soldiers off corners and throne),
    a king off the corners."""
    rules = PRESETS[draw(st.sampled_from(variants))]
    n = rules.size
    th = throne(rules)
    squares = [(f, r) for r in range(n) for f in range(n)]
    free = [s for s in squares if not restricted(rules, *s) and s != th]
    king = draw(st.sampled_from([s for s in squares if not restricted(rules, *s)]))
    count = draw(st.integers(0, min(max_pieces, len(free) - 1)))
    chosen = draw(
        st.lists(st.sampled_from([s for s in free if s != king]), unique=True,
                 min_size=count, max_size=count)
    )
    sides = draw(st.lists(st.sampled_from("tT"), min_size=len(chosen), max_size=len(chosen)))
    pieces = dict(zip(chosen, sides))
    pieces[king] = "K"
    grid = [["."] * n for _ in range(n)]
    for (f, r), p in pieces.items():
        grid[r][f] = p
    turn = draw(st.sampled_from(["attackers", "defenders"]))
    return rules, write(grid), turn


# -- OTN ---------------------------------------------------------------------------------------


@SETTINGS
@given(st.integers(7, 19), st.data())
def test_otn_round_trip(size, data):
    cells = size * size
    squares = data.draw(st.lists(st.integers(0, cells - 1), unique=True, max_size=cells))
    kinds = data.draw(st.lists(st.sampled_from("tT"), min_size=len(squares),
                               max_size=len(squares)))
    with_king = data.draw(st.booleans()) and squares
    king = squares[0] if with_king else -1
    att = sum(1 << s for s, k in zip(squares, kinds) if k == "t" and s != king)
    dfn = sum(1 << s for s, k in zip(squares, kinds) if k == "T" and s != king)
    text = format_otn(att, dfn, king, size)
    assert parse_otn(text, size) == (att, dfn, king)
    assert format_otn(*parse_otn(text, size), size) == text
    # the same text without the outer slashes parses the same
    assert parse_otn(text.strip("/"), size) == (att, dfn, king)


@SETTINGS
@given(placements())
def test_board_otn_round_trip(case):
    rules, position, turn = case
    b = Board(rules, position, turn)
    assert b.otn() == position
    assert Board(rules, b.otn(), turn).occupied == b.occupied


# -- moves -------------------------------------------------------------------------------------


@SETTINGS
@given(placements())
def test_legal_moves_match_an_independent_generator(case):
    rules, position, turn = case
    b = Board(rules, position, turn)
    got = {f"{b.name(m.frm)}-{b.name(m.to)}" for m in b.legal_moves()}
    pieces = decode(position)
    if b.outcome() is not None and b.outcome().reason != "no_moves":
        assert got == set()
        return
    assert got == oracle_moves(rules, pieces, turn, b.king_left)
    for text in list(got)[:10]:
        assert b.is_legal(b.parse_move(text)[0])


NO_SPECIAL = [
    v for v in VARIANTS
    if PRESETS[v].shieldwall == "off" and not PRESETS[v].linnaean_capture
]


@SETTINGS
@given(placements(variants=NO_SPECIAL))
def test_captures_match_an_independent_oracle(case):
    rules, position, turn = case
    b = Board(rules, position, turn)
    pieces = decode(position)
    for move in b.legal_moves()[:40]:
        captured, _ = b.preview(move)
        got = {b.name(s) for s in b.geo.iter_bits(captured)}
        frm = (move.frm % rules.size, move.frm // rules.size)
        to = (move.to % rules.size, move.to // rules.size)
        assert got == oracle_captures(rules, pieces, frm, to), (position, turn, move)


@SETTINGS
@given(placements(), st.integers(1, 7))
def test_move_counts_are_invariant_under_symmetry(case, k):
    rules, position, turn = case
    base = Board(rules, position, turn)
    other = Board(rules, transform(position, rules.size, k), turn)
    assert len(other.legal_moves()) == len(base.legal_moves())
    assert (other.outcome() is None) == (base.outcome() is None)


@settings(max_examples=25, deadline=None)
@given(placements(variants=SMALL, max_pieces=24), st.integers(1, 7))
def test_perft_2_is_invariant_under_symmetry_on_small_boards(case, k):
    rules, position, turn = case
    base = perft(Board(rules, position, turn), 2)
    assert perft(Board(rules, transform(position, rules.size, k), turn), 2) == base


# -- make / undo -------------------------------------------------------------------------------


def snapshot(b: Board) -> tuple:
    return (b.att, b.dfn, b.king, b.turn, b.king_left, tuple(b.history), b.otn(),
            b.outcome(), len(b.move_stack))


@SETTINGS
@given(st.sampled_from(VARIANTS), st.lists(st.integers(0, 10_000), max_size=40))
def test_pop_restores_the_position_exactly(variant, choices):
    b = Board(PRESETS[variant])
    seen = []
    for c in choices:
        moves = b.legal_moves()
        if not moves:
            break
        seen.append(snapshot(b))
        b.push(moves[c % len(moves)])
    while seen:
        b.pop()
        assert snapshot(b) == seen.pop()
    assert b.otn() == PRESETS[variant].start and b.history == [b._key()]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 40))
def test_perft_equals_perft_slow_on_reachable_brandubh_positions(seed, plies):
    rules = PRESETS["brandubh"]
    b = playout(rules, seed, plies)
    fresh = Board(rules, b.otn(), b.turn)
    assert perft(fresh, 2) == perft_slow(fresh, 2)


# -- positions that round-trip, copies without replaying (issue 17) ------------------------------


def _random_game(variant: str, seed: int, plies: int):
    import random

    from companion.rules import Game

    rng = random.Random(seed)
    game = Game(PRESETS[variant])
    for _ in range(plies):
        moves = game.board.legal_moves()
        if not moves or game.is_over():
            break
        game.play(rng.choice(moves))
    return game


@SETTINGS
@given(st.sampled_from(VARIANTS), st.integers(0, 10_000), st.integers(0, 60))
def test_a_position_round_trips_and_plays_on_the_same(variant, seed, plies):
    from companion.rules import Position

    board = _random_game(variant, seed, plies).board
    pos = board.position()
    assert Position.parse(str(pos)) == pos
    again = Board.from_position(board.rules, pos)
    assert again.position() == pos and again.otn() == board.otn()
    assert (again.att, again.dfn, again.king, again.turn, again.king_left) == (
        board.att, board.dfn, board.king, board.turn, board.king_left)
    if board.outcome() is None:
        assert again.legal_moves() == board.legal_moves()


@SETTINGS
@given(st.sampled_from(VARIANTS), st.integers(0, 10_000), st.integers(0, 80),
       st.sampled_from([None, "resign", "draw", "time"]))
def test_game_copy_equals_a_replay_and_is_independent(variant, seed, plies, ending):
    from companion.rules import Game

    game = _random_game(variant, seed, plies)
    if ending and not game.is_over():
        {"resign": lambda: game.resign(game.turn), "draw": game.agree_draw,
         "time": lambda: game.lose_on_time(game.turn)}[ending]()
    twin = game.copy()
    replay = Game(game.rules, game.start_position, game.start_turn)
    for p in game.played:
        replay.play(p.move)
    if game.manual_outcome is not None:
        replay.end(game.manual_outcome)
    for g in (twin, replay):
        assert g.played == game.played and g.outcome() == game.outcome()
        assert g.board.otn() == game.board.otn() and g.board.history == game.board.history
        assert g.board.legal_moves() == game.board.legal_moves()
    reopened = game.copy(manual=False)
    assert reopened.manual_outcome is None and reopened.played == game.played
    if twin.played:  # independent: undoing the copy leaves the original alone
        n = len(game.played)
        twin.undo()
        assert len(game.played) == n and len(twin.played) == n - 1
        assert game.board.move_stack[-1] == game.played[-1].move
