"""The [buttons] and [display] config sections: defaults, every refusal names the field, no GPIO
gets two jobs, and the commented examples in hardware/examples work once uncommented."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from companion.config import parse_config
from companion.hardware_config import ConfigError, parse_buttons, parse_hardware

ROOT = Path(__file__).resolve().parents[1]
ROWS = [2, 3, 4, 17, 27, 22, 5, 6, 13, 19, 26]
COLS = [14, 15, 18, 23, 24, 25, 12, 16, 20, 21, 7]
GPIO_BOARD = {"kind": "gpio", "size": 11, "row_pins": ROWS, "col_pins": COLS}


def test_defaults() -> None:
    hw = parse_hardware({})
    assert hw.buttons.kind == "none" and hw.display.kind == "none"
    b = hw.buttons
    assert b.action("clock", False) == "clock" and b.action("new", True) == "new_game"
    assert b.action("new", False) == "menu" and b.action("hint", True) == "none"
    assert dict(b.pins) == {"clock": 5, "hint": 6, "takeback": 13, "new": 19}
    assert hw.display.address == 0x3C and hw.display.language == "en"


@pytest.mark.parametrize("doc, complaint", [
    ({"buttons": {"pins": {"lever": 5}}}, "[buttons] pins: unknown button 'lever'"),
    ({"buttons": {"pins": {"clock": 40}}}, "[buttons] pins: clock = 40 is not a GPIO"),
    ({"buttons": {"pins": {"clock": 5, "hint": 5}}}, "GPIO 5 is given to two buttons"),
    ({"buttons": {"hint": "explode"}}, "[buttons] hint: 'explode' is not one of"),
    ({"buttons": {"long_press_s": 4.0, "stuck_s": 3.5}}, "[buttons] stuck_s: 3.5 s must be longer"),
    ({"buttons": {"kind": "pico"}}, '[buttons] kind: "pico" buttons are read by the Pico'),
    ({"buttons": {"colour": "red"}}, "[buttons] colour: unknown key"),
    ({"display": {"kind": "st7735"}}, "[display] kind: 'st7735' is not one of"),
    ({"display": {"address": 0x90}}, "[display] address: 144 is out of range"),
    ({"board": GPIO_BOARD, "buttons": {"kind": "gpio"}},
     "[buttons] pins: clock = 5 is already [board] row_pins"),
    ({"board": GPIO_BOARD, "display": {"kind": "sh1106"}},
     "[display] i2c_port: I2C1 SDA is GPIO 2, which is [board] row_pins"),
    ({"board": GPIO_BOARD, "leds": {"kind": "apa102"}, "buttons": {"kind": "gpio",
      "pins": {"clock": 10}}}, "[buttons] pins: clock = 10 is already SPI0 MOSI"),
    ({"board": GPIO_BOARD, "display": {"kind": "ssd1306", "i2c_port": 0},
      "buttons": {"kind": "gpio", "pins": {"clock": 0}}},
     "[buttons] pins: clock = 0 is already I2C0 SDA of the display"),
])
def test_refusals_name_the_field(doc: dict, complaint: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_hardware(doc)
    assert complaint in str(err.value), str(err.value)


def test_a_pico_board_leaves_the_pi_header_free() -> None:
    hw = parse_hardware({"board": {"kind": "serial"}, "buttons": {"kind": "gpio"},
                         "display": {"kind": "sh1106"}})
    assert hw.buttons.kind == "gpio" and hw.display.kind == "sh1106"
    assert parse_buttons({"kind": "pico"}).kind == "pico"


@pytest.mark.parametrize("name", ["pico-serial.toml", "gpio-11x11.toml"])
def test_the_commented_examples_work_uncommented(name: str) -> None:
    text = (ROOT / "hardware/examples" / name).read_text()
    assert "# [buttons]" in text and "# [display]" in text
    text = re.sub(r"^# (\[(display|buttons)\]|(kind|language|pins|i2c_port|clock_long|"
                  r"hint_long|new|new_long) =)", r"\1", text, flags=re.M)
    cfg = parse_config(tomllib.loads(text), name)
    assert cfg.buttons.kind == "gpio" and cfg.display.kind == "sh1106"
