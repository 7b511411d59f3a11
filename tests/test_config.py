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
