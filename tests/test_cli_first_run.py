"""What a new user meets first: `tafl-companion` alone, `--version`, a perft that would never
end, and `hwtest` telling success from failure by its exit status."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "hw_shims"))

from mock_matrix import COLS_11, ROWS_11, MatrixSim  # noqa: E402

from companion import __version__  # noqa: E402
from companion.cli import PERFT_MAX_DEPTH, main, perft_max_depth  # noqa: E402
from companion.rules import PRESETS  # noqa: E402


def test_no_command_prints_the_commands(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for command in ("run", "simulate", "replay", "hwtest", "rules", "engine"):
        assert f"    {command} " in out, command
    assert "--version" in out


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"tafl-companion {__version__}\n"


def test_perft_refuses_absurd_depths_with_one_line(capsys):
    assert main(["rules", "perft", "copenhagen", "99"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "tafl-companion: perft depth 99 is too deep for an 11x11 board: at most 4 (each ply "
        "multiplies the time by the number of moves; the limit keeps it within about a minute)\n"
    )


def test_every_preset_size_has_a_perft_bound(capsys):
    for rules in PRESETS.values():
        assert rules.size in PERFT_MAX_DEPTH
    assert [perft_max_depth(n) for n in (5, 7, 9, 11, 13, 15, 19)] == [5, 5, 4, 4, 3, 3, 3]
    assert main(["rules", "perft", "alea-evangelii", "4"]) == 2  # 19x19: 3 at most
    capsys.readouterr()
    assert main(["rules", "perft", "brandubh", "3"]) == 0
    assert capsys.readouterr().out == '{"nodes": 39512}\n'


@pytest.fixture
def mock_pins():
    from gpiozero import Device

    sim = MatrixSim(ROWS_11, COLS_11)
    old = Device.pin_factory
    Device.pin_factory = sim.factory
    yield sim
    Device.pin_factory = old


def gpio_config(tmp_path: Path) -> str:
    cfg = tmp_path / "board.toml"
    cfg.write_text(
        '[board]\nkind = "gpio"\nsize = 11\nbackend = "gpiozero"\n'
        f"row_pins = {ROWS_11}\ncol_pins = {COLS_11}\n"
    )
    return str(cfg)


def test_hwtest_passes_on_a_good_board(tmp_path, capsys, mock_pins):
    cfg = gpio_config(tmp_path)
    mock_pins.set_occupied(["c3"])
    assert main(["hwtest", "--config", cfg, "--seconds", "0.3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"hwtest: checking the gpio board of {cfg} for 0.3 s (Ctrl-C ends it early)"
    assert lines[-1] == "hwtest: OK: the board was read, 0 sensor changes, no fault"


def test_hwtest_fails_on_a_stuck_file_and_names_it_by_letter(tmp_path, capsys, mock_pins):
    cfg = gpio_config(tmp_path)
    mock_pins.set_occupied(["c3"])
    mock_pins.shorted_cols.add(2)
    assert main(["hwtest", "--config", cfg, "--seconds", "0.3"]) == 1
    out = capsys.readouterr().out
    assert "hwtest: FAULT column c (GPIO 18) reads closed with every row released" in out
    assert out.splitlines()[-1] == "hwtest: FAILED: 1 fault(s)"


def test_hwtest_fails_when_no_board_answers(tmp_path, capsys):
    cfg = tmp_path / "pico.toml"
    port = tmp_path / "ttyACM0"
    cfg.write_text(f'[board]\nkind = "serial"\nsize = 11\nport = "{port}"\n')
    assert main(["hwtest", "--config", str(cfg), "--seconds", "0.5"]) == 1
    out = capsys.readouterr().out
    assert "not tried yet" not in out
    assert out.splitlines()[0].startswith("hwtest: checking the serial board of ")
    assert out.splitlines()[-1] == (
        f"hwtest: FAILED: never read: cannot open {port}: No such file or directory"
    )


def test_hwtest_without_config_says_so_and_offers_no_clicks(capsys):
    assert main(["hwtest", "--seconds", "0.2"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == [
        "hwtest: checking a simulated board for 0.2 s (Ctrl-C ends it early)",
        "hwtest: no --config given: nothing real to check; pass your board's config file",
    ]
    assert "click" not in out
