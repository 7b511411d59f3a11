"""From a move's acceptance by the daemon to the phone page having drawn it: the real daemon on
a simulated board, headless Chromium at phone size (as tests/test_e2e_browser.py opens it), moves
made by clicks on the page. Prints the latencies (ms) and their median and p95. The page records
``Date.now() - accepted_at`` for every move it draws (``window.taflLatency``).

    python bench/page_latency.py [--moves 20]

(The test suite checks that the latency is recorded and sane; how small it is is measured here:
a threshold in a test fails whenever the machine is busy.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"

from test_daemon_support import PIN, spawn_daemon  # noqa: E402

from companion.rules import get_variant  # noqa: E402
from companion.rules.game import Game  # noqa: E402

CHROMIUM = "/usr/bin/chromium"


def quiet_moves(n: int) -> list[tuple[str, str]]:
    """``n`` legal Copenhagen moves that capture nothing (each one a lift and a place)."""
    game = Game(get_variant("copenhagen"))
    out: list[tuple[str, str]] = []
    while len(out) < n and not game.is_over():
        move = next(m for m in game.board.legal_moves() if not game.board.preview(m)[0])
        frm, to = move.text(game.board.size).split("-")
        game.play(move)
        out.append((frm, to))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--moves", type=int, default=20)
    a = p.parse_args()
    from playwright.sync_api import sync_playwright
    from test_e2e_browser import ARGS, move, open_page

    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.toml"
        config.write_text(f'pin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nport = 0\n')
        proc, base = spawn_daemon(["--config", str(config), "--data-dir", str(Path(tmp) / "d")])
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = open_page(browser, base + f"#pin={PIN}")
                for frm, to in quiet_moves(a.moves):
                    move(page, frm, to)
                latency = page.evaluate("window.taflLatency")
                browser.close()
        finally:
            proc.stop()
    ordered = sorted(latency)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(json.dumps({"moves": len(latency), "median_ms": statistics.median(latency),
                      "p95_ms": p95, "load": os.getloadavg(), "latency_ms": latency}))


if __name__ == "__main__":
    main()
