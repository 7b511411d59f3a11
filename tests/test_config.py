"""The daemon's TOML config: defaults, every field checked with a clear message, overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.config import ConfigError, DaemonConfig, load_config, with_overrides

REPO = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "config.toml"
    p.write_text(text)
    return p


def test_defaults_are_the_newcomer_setup(monkeypatch) -> None:
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    cfg = load_config(None)
    assert cfg.variant == "copenhagen" and cfg.port == 8080 and cfg.board.kind == "sim"
    assert cfg.pin is None and cfg.leds.kind == "none"
    assert cfg.data_dir.name == "tafl-companion"
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/tafl-companion")
    assert DaemonConfig().data_dir == Path("/var/lib/tafl-companion")


def test_a_full_config(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, """
variant = "brandubh"
data_dir = "/srv/tafl"
pin = 8642
[web]
port = 80
host = "127.0.0.1"
[board]
kind = "sim"
"""))
    assert (cfg.variant, cfg.port, cfg.host, cfg.pin) == ("brandubh", 80, "127.0.0.1", "8642")
    assert cfg.data_dir == Path("/srv/tafl") and cfg.board.size == 7  # the sim board adapts


@pytest.mark.parametrize("text, message", [
    ('[web]\nport = "abc"', "config.toml: [web] port must be an integer 1-65535, not 'abc'"),
    ("[web]\nport = 70000", "[web] port must be an integer 1-65535, not 70000"),
    ("[web]\nprot = 80", "[web] prot: unknown key (did you mean 'port'?)"),
    ('[web]\nhost = "my host"', "[web] host must be an IP address"),
    ("web = 5", "[web] must be a table"),
    ('variant = "chess"', "variant must be one of"),
    ('pin = "12"', "pin must be 4 to 32 characters"),
    ('pin = "12 34"', "pin must be 4 to 32 characters"),
    ("data_dir = 3", "data_dir must be a directory path"),
    ('varaint = "tablut"', "varaint: unknown key (did you mean 'variant'?)"),
    ('[board]\nkind = "usb"', '[board] kind: \'usb\' is not one of "sim", "gpio", "serial"'),
    ('[board]\nkind = "serial"\nsize = 9', "variant 'copenhagen' is played on 11x11, but [board]"),
    ('[board]\nkind = "gpio"', "[board] row_pins: missing"),
    ('[leds]\nbrightness = 2', "[leds] brightness: 2 is out of range"),
])
def test_each_bad_field_has_a_clear_message(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, text))
    assert message in str(err.value)
    assert str(err.value).startswith("config.toml: ")


def test_unreadable_and_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[web\nport = 1"))


def test_command_line_overrides(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, 'variant = "tablut"\npin = "1111"\n[web]\nport = 9000'))
    cfg = with_overrides(cfg, variant="brandubh", port=8123, pin="9999", data_dir="/tmp/x")
    assert (cfg.variant, cfg.port, cfg.pin, cfg.board.size) == ("brandubh", 8123, "9999", 7)
    for kw, msg in (({"port": 99999}, "--port must be an integer"),
                    ({"variant": "go"}, "--variant must be one of"),
                    ({"pin": "1"}, "--pin must be 4"),
                    ({"board_kind": "usb"}, "--board must be sim, gpio, serial or replay"),
                    ({"board_kind": "gpio"}, "--board gpio needs row_pins")):
        with pytest.raises(ConfigError, match=msg):
            with_overrides(cfg, **kw)


def test_the_hardware_example_configs_load() -> None:
    examples = sorted((REPO / "hardware" / "examples").glob("*.toml"))
    assert examples
    for path in examples:
        cfg = load_config(path)
        assert cfg.port and cfg.variant


SESSION_CONFIG = """
variant = "brandubh"
time_control = "10+5"
[players]
attackers = "board"
defenders = "page"
attackers_name = "Ann"
defenders_name = "Bo"
[rules]
king_armed = false
escape = "edge"
repetition = "draw"
[match]
enabled = true
tie_break = ["time"]
[computer]
resign = false
resign_threshold = 5
draw_threshold = -1.5
hint_seconds = 0.5
engines = ["/opt/engines/x --otep"]
"""


def test_the_session_tables(tmp_path: Path) -> None:
    from companion.daemon import defaults_from

    cfg = load_config(write(tmp_path, SESSION_CONFIG))
    d = defaults_from(cfg)
    assert d.time_control is not None and d.time_control.text == "10+5"
    assert {s: (p.kind.value, p.name) for s, p in d.players.items()} == {
        "attackers": ("board", "Ann"), "defenders": ("page", "Bo")}
    assert d.settings.variant == "brandubh" and d.settings.to_json()["options"] == {
        "king_armed": False, "escape": "edge", "repetition": "draw"}
    rules = d.settings.rules()
    assert rules.escape == "edge" and rules.repetition == "draw"
    assert d.match is True and d.tie_break == ("time",)
    c = d.computer
    assert (c.resign, c.resign_threshold, c.draw_threshold, c.hint_seconds, c.engines) == (
        False, 5.0, -1.5, 0.5, ("/opt/engines/x --otep",))
    # the command line wins over the file
    cfg = with_overrides(cfg, attackers="computer:3", time_control="none",
                         rules=["escape=corners"])
    d = defaults_from(cfg)
    assert d.players["attackers"].kind.value == "computer" and d.players["attackers"].level == 3
    assert d.time_control is None and d.settings.rules().escape == "corners"
    assert d.settings.to_json()["options"] == {"king_armed": False, "repetition": "draw"}


@pytest.mark.parametrize("text, message", [
    ('time_control = "5+"', "time_control"),
    ('[players]\nattackers = "robot"', "[players] attackers"),
    ('[players]\nattackers = "computer:11"', "[players] attackers"),
    ('[players]\nattackers_name = ""', "[players] attackers_name"),
    ('[rules]\nescape = "sky"', "escape"),
    ('[rules]\nking_armd = true', "king_armd: unknown key"),
    ('[match]\nenabled = "yes"', "[match] enabled must be true or false"),
    ('[match]\ntie_break = ["coin"]', "[match] tie_break"),
    ('[computer]\nresign_moves = 0', "[computer] resign_moves must be a whole number"),
    ('[computer]\nhint_seconds = 99', "[computer] hint_seconds must be a number"),
    ('[computer]\nengines = "x"', "[computer] engines must be a list"),
])
def test_each_bad_session_field_has_a_clear_message(tmp_path: Path, text: str,
                                                    message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, text))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_daemon_started_from_the_session_config_shows_it(tmp_path: Path) -> None:
    """Players, names, house rules, the clock and the match of the config are what the page
    shows, and the house rules are in the exports."""
    import json

    from test_daemon_support import PIN, http

    from companion.daemon import Daemon

    cfg = with_overrides(load_config(write(tmp_path, SESSION_CONFIG)), data_dir=str(tmp_path),
                         port=0, host="127.0.0.1", pin=PIN)
    d = Daemon(cfg)
    d.start()
    try:
        base = f"http://127.0.0.1:{d.port}/"
        st = json.loads(http(base + "api/state")[2])
        assert st["variant"] == "brandubh"
        assert st["players"]["defenders"] == {"name": "Bo", "kind": "page"}
        assert st["settings"]["options"] == {"king_armed": False, "escape": "edge",
                                             "repetition": "draw"}
        assert 590 < st["clock"]["attackers"] <= 600 and st["clock"]["defenders"] == 600
        assert st["clock"]["control"]["text"] == "10+5"
        assert st["match"]["game"] == 1 and st["match"]["games"] == 2
        assert st["match"]["score"] == {"Ann": 0.0, "Bo": 0.0}
        assert st["match"]["tie_break"] == ["time"]
        csv = http(base + f"api/games/{st['game']}/record.csv")[2].decode()
        assert "# variant: brandubh with escape=edge king_armed=false repetition=draw" in csv
        otg = http(base + f"api/games/{st['game']}/game.otg")[2].decode()
        assert "esc:e" in otg and "ka:n" in otg
    finally:
        d.stop()


def test_the_coach_table(tmp_path: Path) -> None:
    from companion.coach.config import CoachConfig
    from companion.coach.look import Strictness

    path = tmp_path / "config.toml"
    path.write_text('[coach]\nside = "defenders"\nstrictness = "strict"\nseconds = 1.5\n')
    cfg = load_config(path)
    assert cfg.coach == CoachConfig("defenders", Strictness.STRICT, 1.5)
    assert DaemonConfig().coach == CoachConfig()  # nobody coached by default
    for text, words in (('[coach]\nside = "king"\n', "[coach] side must be attackers"),
                        ('[coach]\nstrictness = "harsh"\n', "[coach] strictness"),
                        ('[coach]\nlevel = 3\n', "[coach] unknown key 'level'"),
                        ('coach = 3\n', "[coach] must be a table")):
        path.write_text(text)
        with pytest.raises(ConfigError, match=r"config\.toml: " + words.replace("[", r"\[")
                           .replace("]", r"\]")):
            load_config(path)
