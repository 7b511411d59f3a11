"""The bridge firmware's configuration: ``bridge_config.json`` on the Pico over the defaults,
and the check that names the first thing in it the firmware cannot run with.

Runs unchanged under MicroPython and CPython (no f-strings, no typing at runtime); the keys are
described in ``firmware_bridge/README.md``.
"""

# ruff: noqa: UP031 - %-formatting on purpose, as in main.py: every MicroPython build has it.

try:
    from firmware_bridge import buttons as B
except ImportError:
    import buttons as B  # type: ignore[no-redef]

MYPY = False  # the types are in comments: MicroPython has no typing module
if MYPY:
    from typing import Any  # noqa: F401 - used in type comments

CONFIG_FILE = "bridge_config.json"
MODES = ("matrix", "matrix165", "shift", "hall")

DEFAULT_CONFIG = {
    "size": 11,
    "mode": "matrix",
    # matrix modes: row_pins[0] is rank 1; matrix: col_pins[0] is file a
    "row_pins": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    "col_pins": [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21],
    # 74HC165 chain (matrix165, shift): /PL, CLK, QH of the chip nearest the Pico
    "sr_load": 26,
    "sr_clock": 27,
    "sr_data": 28,
    # hall: first-level mux selects S0..S3, second-level selects, ADC inputs
    "mux_select": [2, 3, 4, 5],
    "mux2_select": [6, 7, 8, 9],
    "adc_pins": [26, 27, 28],
    "hall_mid": 32768,
    "hall_on": 3000,
    "hall_off": 1800,
    # +1 when an attacker raises the sensor output, -1 when it lowers it. SS49E-type sensors,
    # branded face up, go down under a north pole; attackers have their south pole up.
    "attacker_sign": -1,
    # LEDs
    "led_pin": 22,
    "led_count": 0,  # 0: size * size
    "led_max_ma": 2500,
    # timing
    "scan_ms": 10,
    "debounce": 2,
    "snapshot_ms": 1000,
    "heartbeat_ms": 500,
    "host_timeout_ms": 5000,
    # board buttons (firmware_bridge/buttons.py): {"clock": 26, "hint": 27, ...}, GPIO to ground
    "button_pins": {},
    "long_ms": 1000,
    "stuck_ms": 10000,
}


class ConfigError(ValueError):
    """A configuration the firmware cannot run; reported to the host in ERR lines."""


def load_config(path=CONFIG_FILE):
    # type: (str) -> dict[str, Any]
    """DEFAULT_CONFIG updated with the JSON file ``path`` when it exists; ConfigError when the
    file is not a JSON object."""
    import json

    cfg = dict(DEFAULT_CONFIG)
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        text = None
    if text is not None:
        try:
            data = json.loads(text)
        except ValueError:
            raise ConfigError(path + " is not valid JSON") from None
        if not isinstance(data, dict):
            raise ConfigError(path + " must hold a JSON object")
        cfg.update(data)
    if not cfg["led_count"] and isinstance(cfg["size"], int):
        cfg["led_count"] = cfg["size"] * cfg["size"]
    return cfg


def _pin_list(cfg, key, need):
    # type: (dict[str, Any], str, int) -> list[int]
    pins = cfg[key]
    if not isinstance(pins, list) or not all(isinstance(p, int) for p in pins):
        raise ConfigError("%s must be a list of GPIO numbers" % key)
    if len(pins) < need:
        raise ConfigError(
            "%s lists %d pins; mode %s on the %dx%d board needs %d"
            % (key, len(pins), cfg["mode"], cfg["size"], cfg["size"], need)
        )
    return pins


def check_config(cfg):
    # type: (dict[str, Any]) -> None
    """Raise ConfigError naming the first thing in ``cfg`` the firmware cannot run with."""
    size = cfg["size"]
    if not isinstance(size, int) or not 3 <= size <= 19:
        raise ConfigError("size must be a whole number from 3 to 19, not %r" % (size,))
    mode = cfg["mode"]
    if mode not in MODES:
        raise ConfigError("mode must be one of %s, not %r" % (", ".join(MODES), mode))
    for key in ("scan_ms", "debounce", "snapshot_ms", "heartbeat_ms", "host_timeout_ms"):
        if not isinstance(cfg[key], int) or cfg[key] < 0:
            raise ConfigError("%s must be a whole number >= 0" % key)
    if not isinstance(cfg["led_count"], int) or cfg["led_count"] < 0:
        raise ConfigError("led_count must be a whole number >= 0")
    used = []
    if mode in ("matrix", "matrix165"):
        used += _pin_list(cfg, "row_pins", size)[:size]
    if mode == "matrix":
        used += _pin_list(cfg, "col_pins", size)[:size]
    if mode == "hall":
        nmux = (size * size + 15) // 16
        used += _pin_list(cfg, "mux_select", 4)[:4] + _pin_list(cfg, "mux2_select", 4)[:4]
        used += _pin_list(cfg, "adc_pins", (nmux + 15) // 16)[: (nmux + 15) // 16]
    if mode in ("matrix165", "shift"):
        used += [cfg["sr_load"], cfg["sr_clock"], cfg["sr_data"]]
    used.append(cfg["led_pin"])
    try:
        used += [pin for _, pin in B.check_buttons(cfg)]
    except ValueError as e:
        raise ConfigError(str(e)) from None
    for i in range(len(used)):
        if used[i] in used[i + 1 :]:
            raise ConfigError("GPIO %r is given two jobs" % (used[i],))
