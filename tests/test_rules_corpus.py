"""Replay the real game records of tests/data/ through the CLI and account for every
disagreement (tests/data/corpus_disagreements.json explains each one)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.rules import get_variant
from companion.rules.game import Game
from companion.rules.records import read_records

DATA = Path(__file__).parent / "data"
KNOWN = json.loads((DATA / "corpus_disagreements.json").read_text())["disagreements"]
SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def replay(variant: str) -> dict:
    """Run ``tafl-companion rules replay VARIANT FILE`` (as a subprocess) and parse its JSON."""
    proc = subprocess.run(
        [sys.executable, "-m", "companion.cli", "rules", "replay", variant,
         str(DATA / f"{variant}.csv")],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.stderr == ""
    doc = json.loads(proc.stdout)
    assert proc.returncode == (1 if doc["disagree"] else 0)  # 1: read, but some disagree
    return doc


@pytest.mark.parametrize("variant,games", [("copenhagen", 1752), ("brandubh", 525)])
def test_corpus_replay_disagrees_only_where_explained(variant, games):
    doc = replay(variant)
    assert doc["games"] == games
    assert doc["agree"] == games - len(doc["disagree"])
    got = {(d["game"], d["ply"], d["reason"]) for d in doc["disagree"]}
    want = {(k["game"], k["ply"], k["reason"]) for k in KNOWN if k["variant"] == variant}
    assert got - want == set(), f"unexplained disagreements: {sorted(got - want)}"
    assert want - got == set(), f"listed disagreements that no longer occur: {sorted(want - got)}"


@pytest.mark.parametrize("entry", KNOWN, ids=[f"{k['variant']}-{k['game']}" for k in KNOWN])
def test_each_listed_disagreement_is_the_repetition_it_claims(entry):
    """Re-check the explanation: the same position (side to move included) stands after each
    listed ply with no capture in between, the last of them made by the defenders, and the
    rules end the game right there as a win for the attackers by repetition."""
    rules = get_variant(entry["variant"])
    record = read_records((DATA / f"{entry['variant']}.csv").read_text())[entry["game"] - 1]
    plies = entry["repetition_plies"]
    assert len(plies) == 3 and plies[-1] == entry["ply"] - 1
    game = Game(rules)
    keys = {0: (game.board.otn(), game.turn)}
    for ply, text in enumerate(record.moves[: plies[-1]], 1):
        assert not game.is_over(), ply
        played = game.play_text(text)
        if ply > plies[0]:
            assert played.captures == (), ply  # no capture inside the cycle
        keys[ply] = (game.board.otn(), game.turn)
    assert keys[plies[0]] == keys[plies[1]] == keys[plies[2]]
    assert keys[plies[0]][1] == "attackers"
    assert len({keys[p] for p in range(plies[0], plies[-1] + 1)}) == plies[1] - plies[0]
    assert game.played[-1].side == "defenders"
    assert game.outcome().reason == "repetition" and game.result == "attackers"
    assert rules.repetition == "defenders_lose"
    assert "repetition" in entry["reason"] and entry["explanation"].startswith("third occurrence")


@pytest.mark.parametrize("name", ["copenhagen.csv", "brandubh.csv"])
def test_corpus_copies_match_the_shared_corpus(name):
    if not (SHARED / name).exists():
        pytest.skip("shared corpus not present")
    assert (DATA / name).read_bytes() == (SHARED / name).read_bytes()
