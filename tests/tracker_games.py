"""Seeded random games on every preset for simulator -> tracker tests (issue 10's behaviours)."""

from __future__ import annotations

import json
import random

from companion.replay import replay_trace
from companion.rules import PRESETS, RuleSet
from companion.rules.game import Game
from companion.simulator import Profile, simulate_moves


def random_game(rules: RuleSet, seed: int, plies: int, free_the_king: bool = False) -> list[str]:
    """``plies`` seeded random legal moves from the start (fewer if the game ends). With
    ``free_the_king`` the defenders move the king, or a piece beside it, when they can (so the
    throne is soon empty and soldiers stand beside it)."""
    rng = random.Random(f"{rules.id}/{seed}")
    game = Game(rules)
    board = game.board
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        if free_the_king and board.turn == "defenders" and board.king >= 0:
            near = {board.king, *board.geo.adjacent[board.king]}
            moves = [m for m in moves if m.frm in near] or moves
        move = rng.choice(moves)
        game.play(move)
        if game.is_over():
            break
    return game.moves


def run_games(profile: Profile, games_per_preset: int, plies: int, *, free_the_king=False,
              seed0: int = 0) -> tuple[int, dict[str, int], list[str]]:
    """Simulate and replay ``games_per_preset`` random games on every preset (every third on a
    polarity board). Returns the number of games, the behaviours the simulator performed, and
    the games whose replay differs from the simulator's expectation."""
    failures: list[str] = []
    done: dict[str, int] = {}
    n = 0
    for rules in PRESETS.values():
        for seed in range(seed0, seed0 + games_per_preset):
            moves = random_game(rules, seed, plies, free_the_king)
            lines = simulate_moves(rules, moves, seed=seed, noise=profile,
                                   polarity=seed % 3 == 0)
            head = json.loads(lines[0])
            for k, v in head.get("behaviours", {}).items():
                done[k] = done.get(k, 0) + v
            got, _ = replay_trace(lines)
            if got != head["expect"]:
                failures.append(f"{rules.id} seed {seed}: got {got}, want {head['expect']}")
            n += 1
    return n, done, failures
