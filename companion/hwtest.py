"""``tafl-companion hwtest``: check a freshly built board.

Lights every LED in turn, in strip order (a wrongly set ``layout`` shows up as the light jumping
about), lights the LED of every occupied square green (so a piece shows whether sensor and LED
agree), and prints every sensor change with its time::

    hwtest: checking the gpio board of config.toml for 60 s (Ctrl-C ends it early)
    hwtest: 11x11 reed matrix on lgpio, 100 Hz
      0.02s  start: 37 occupied: a4 a5 a6 ...
      3.51s  e3 off
      4.02s  e4 on (attacker)
    hwtest: OK: the board was read, 2 sensor changes, no fault

With ``[buttons]`` and ``[display]`` in the config it also prints every button event
(``5.10s  button hint short``), shows the last one on the display, and counts a stuck button as
a fault.

Exit status: 0 when the board was read and showed no fault; 1 when the hardware cannot be
opened, no reading came during the whole run (no board found, not connected), or a fault was
seen (a stuck file, a Pico reporting another board size or a configuration it cannot run);
2 for a bad config (one line naming the field).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TextIO, TypedDict

from companion.drivers.base import BoardSource, LedSink
from companion.drivers.buttons import ButtonEvent, ButtonSource
from companion.drivers.display import TextDisplay
from companion.drivers.leds import led_index
from companion.hardware_config import (
    BoardConfig,
    ConfigError,
    HardwareConfig,
    LedConfig,
    load_hardware_config,
)
from companion.hardware_drivers import open_board, open_buttons, open_display, open_leds
from companion.scan import Scan
from companion.squares import parse_coords, square_names

_COLOUR_WORDS = {"a": "attacker", "d": "defender"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``hwtest`` subcommand to the ``tafl-companion`` parser."""
    p = subparsers.add_parser(
        "hwtest",
        help="check a built board: LEDs one by one, sensor changes printed",
        description=__doc__.split("\n\n")[1],
    )
    p.add_argument(
        "--config", help="TOML config with [board] and [leds] (without it: a simulated board)"
    )
    p.add_argument(
        "--seconds", type=float, default=60.0, help="how long to run (default 60; 0 = until Ctrl-C)"
    )
    p.add_argument("--led-step", type=float, default=0.25, help="seconds per LED (default 0.25)")
    p.set_defaults(func=cmd_hwtest)


def cmd_hwtest(args: argparse.Namespace) -> int:
    """Run the check from parsed arguments; 2 with a one-line message on a bad config."""
    try:
        if args.config:
            hw = load_hardware_config(args.config)
        else:
            hw = HardwareConfig(BoardConfig(), LedConfig())
        if args.seconds < 0 or args.led_step <= 0:
            raise ConfigError("--seconds must be 0 or more and --led-step more than 0")
        board = open_board(hw.board)
    except ConfigError as e:
        print(f"hwtest: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # the hardware itself: a busy or missing gpiochip, permissions
        print(f"hwtest: cannot open the {hw.board.kind} board: {e}", file=sys.stderr)
        return 1
    buttons: ButtonSource | None = None
    display: TextDisplay | None = None
    try:
        leds = open_leds(hw.leds, board)
        if board.kind != "sim":  # the simulated board's are pressed on the page
            buttons = open_buttons(hw.buttons, board)
            display = open_display(hw.display, board)
    except ConfigError as e:
        if buttons is not None:
            buttons.close()
        board.close()
        print(f"hwtest: {e}", file=sys.stderr)
        return 2
    source = f"the {hw.board.kind} board of {args.config}" if args.config else "a simulated board"
    length = f"for {args.seconds:g} s" if args.seconds else "until Ctrl-C"
    print(f"hwtest: checking {source} {length} (Ctrl-C ends it early)")
    if not args.config:
        print("hwtest: no --config given: nothing real to check; pass your board's config file")
    summary: Verdict | None = None
    try:
        summary = run_hwtest(
            board,
            leds,
            seconds=args.seconds,
            scan_hz=hw.board.scan_hz,
            led_step=args.led_step,
            layout=hw.leds.layout,
            buttons=buttons,
            display=display,
        )
    except KeyboardInterrupt:
        summary = verdict(board, None, 0)
        print(summary["verdict"])
    finally:
        if display is not None:
            display.close()
        if buttons is not None:
            buttons.close()
        leds.close()
        board.close()
    return 0 if summary is not None and summary["ok"] else 1


class Verdict(TypedDict):
    """Whether the board passed, its faults and the sentence that says so."""

    ok: bool
    faults: list[str]
    verdict: str


class Summary(Verdict):
    """:func:`run_hwtest`: the verdict, the sensor changes and scans seen, the squares lit in
    order and the button events (``"hint short"``)."""

    changes: int
    scans: int
    lit: list[str]
    presses: list[str]


def strip_order(size: int, layout: str) -> list[str]:
    """Square names in the order of the LED strip."""
    return sorted(square_names(size), key=lambda s: led_index(*parse_coords(s, size), size, layout))


def _describe(square: str, scan: Scan) -> str:
    colour = (scan.colours or {}).get(square)
    return f"{square} ({_COLOUR_WORDS[colour]})" if colour in _COLOUR_WORDS else square


def run_hwtest(
    board: BoardSource,
    leds: LedSink,
    *,
    seconds: float,
    scan_hz: float = 100.0,
    led_step: float = 0.25,
    layout: str = "serpentine",
    out: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    buttons: ButtonSource | None = None,
    display: TextDisplay | None = None,
) -> Summary:
    """The check loop; returns ``{"changes": n, "scans": n, "lit": [squares in lit order],
    "presses": [button events as "hint short"]}``."""
    out = out or sys.stdout
    pressed: list[ButtonEvent] = []
    presses: list[str] = []
    if buttons is not None:
        buttons.listen(pressed.append)
        print(f"hwtest: buttons {', '.join(buttons.names)} ({buttons.kind}): press each, short "
              "and long", file=out)
    if display is not None:
        display.show(["hwtest", "press a button", "", ""])
        print(f"hwtest: display: {display.status().get('detail', display.kind)}", file=out)
    order = strip_order(board.size, layout)
    if board.kind != "sim":  # the simulated board's detail speaks of clicks on the page
        print(f"hwtest: {board.status().get('detail', board.kind)}", file=out)
    print(
        f"hwtest: lighting every LED in strip order ({layout}), {led_step:g} s each; "
        "occupied squares light green",
        file=out,
    )
    t0 = clock()
    period = 1.0 / scan_hz
    last: Scan | None = None
    last_detail = None
    changes = scans = 0
    lit: list[str] = []
    while True:
        now = clock() - t0
        if seconds and now >= seconds:
            break
        scan = board.scan(now)
        if scan is None:
            detail = board.status().get("detail", "no reading")
            if detail != last_detail:
                print(f"{now:7.2f}s  no reading: {detail}", file=out)
                last_detail = detail
        else:
            scans += 1
            last_detail = None
            if last is None:
                occ = " ".join(_describe(s, scan) for s in sorted(scan.occupied)) or "-"
                print(f"{now:7.2f}s  start: {len(scan.occupied)} occupied: {occ}", file=out)
            else:
                for s in sorted(last.occupied - scan.occupied):
                    print(f"{now:7.2f}s  {s} off", file=out)
                    changes += 1
                for s in sorted(scan.occupied - last.occupied):
                    print(f"{now:7.2f}s  {_describe(s, scan)} on", file=out)
                    changes += 1
                old = last.colours or {}
                for s in sorted(scan.occupied & last.occupied):
                    new = (scan.colours or {}).get(s)
                    if new is not None and old.get(s) not in (None, new):
                        print(f"{now:7.2f}s  {_describe(s, scan)} changed colour", file=out)
                        changes += 1
            last = scan
        while pressed:
            event = pressed.pop(0)
            presses.append(f"{event.button} {event.kind}")
            print(f"{now:7.2f}s  button {presses[-1]}", file=out)
            if display is not None:
                display.show(["hwtest", f"{event.button}", f"{event.kind}", f"{now:.1f} s"])
        sweep = order[int(now / led_step) % len(order)]
        if not lit or lit[-1] != sweep:
            lit.append(sweep)
        frame = {s: "target" for s in (last.occupied if last is not None else ())}
        frame[sweep] = "to"
        leds.show(frame, now)
        sleep(max(0.0, period - ((clock() - t0) - now)))
    result = verdict(board, last, changes)
    extra = list((buttons.status().get("faults") if buttons is not None else None) or [])
    if display is not None and not display.status().get("connected", True):
        extra.append(f"display: {display.status().get('detail')}")
    if extra:
        result = {"ok": False, "faults": result["faults"] + extra,
                  "verdict": f"hwtest: FAILED: {len(result['faults']) + len(extra)} fault(s)"}
    print(f"hwtest: {changes} sensor changes, {len(result['faults'])} faults", file=out)
    for f in result["faults"]:
        print(f"hwtest: FAULT {f}", file=out)
    print(result["verdict"], file=out)
    return {**result, "changes": changes, "scans": scans, "lit": lit, "presses": presses}


def verdict(board: BoardSource, last: Scan | None, changes: int) -> Verdict:
    """``{"ok", "faults", "verdict"}``: the board was read and reports no fault."""
    status = board.status()
    faults = list(status.get("faults") or [])
    if last is None:
        why = status.get("detail") or "no reading"
        return {"ok": False, "faults": faults, "verdict": f"hwtest: FAILED: never read: {why}"}
    if faults:
        return {"ok": False, "faults": faults, "verdict": f"hwtest: FAILED: {len(faults)} fault(s)"}
    return {
        "ok": True,
        "faults": [],
        "verdict": f"hwtest: OK: the board was read, {changes} sensor changes, no fault",
    }
