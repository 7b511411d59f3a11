"""The daemon's TOML config, checked field by field.

Schema (every key optional; see ``docs/raspberry-pi.md``)::

    variant = "copenhagen"          # preset id (``tafl-companion rules variants``)
    data_dir = "/var/lib/tafl-companion"
    pin = "4821"                    # controls PIN; generated and printed at start when absent
    raichi = true                   # LEDs light the escape squares the king has a free line to
    time_control = "5+3"            # none | MAIN | MAIN+INC | MAIN+INC/PxS (docs/session.md)
    [web]
    host = "0.0.0.0"                # all interfaces, so phones can open the page (the default)
    port = 8080
    allowed_hosts = ["tafl.example.org"]   # extra names the page answers to (DNS rebinding)
    [players]
    attackers = "board"             # board | page | computer[:LEVEL] | engine:COMMAND
    defenders = "page"
    attackers_name = "Ann"
    defenders_name = "Bo"
    [rules]                         # house rules on top of the variant (docs/session.md)
    chain_capture = true
    escape = "edge"
    [match]
    enabled = true                  # start with a two-game match
    tie_break = ["moves", "time"]   # how a tied match is decided; [] = drawn
    [computer]                      # the computer players (docs/session.md)
    resign = true                   # resigns a hopeless position ...
    resign_threshold = 8.0          # ... scored at or below -8 soldiers (or a forced loss)
    resign_moves = 2                # ... for this many of its moves in a row
    draw = true                     # answers draw offers by its evaluation (false: declines)
    draw_threshold = 0.0            # accepts when it stands no better than this (soldiers)
    hint_seconds = 1.0              # how long the engine looks for a hint
    analysis_seconds = 1.0          # per position, in a post-game analysis
    analyse_finished = true         # analyse every finished or imported game in the background
    engines = ["/opt/engines/x --otep"]  # engine commands the owner may choose on the page
    any_engine = false              # any command from the page (only on a trusted network)
    [coach]                         # the coach of one side (docs/coach.md)
    side = "attackers"              # attackers | defenders | none (the default)
    strictness = "gentle"           # gentle (forced losses, big drops) | strict (smaller drops)
    seconds = 0.5                   # the engine's look at each position
    [online]                        # online play on a hnefatafl.org server (docs/online.md)
    server = "hnefatafl.org:49152"  # host:port (the protocol is plain text: no encryption)
    version = "32d9a140"            # the protocol's version id (a newer server may change it)
    user = "alice"                  # an account (the page's login keeps one in the data dir)
    password = "..."
    [club]    ...                   # broker, name, board: companion.club.config (docs/club.md)
    [board]   ...                   # checked by companion.hardware_config.parse_board
    [leds]    ...                   # checked by companion.hardware_config.parse_leds
    [buttons] ...                   # the board's buttons (hardware_config.parse_buttons)
    [display] ...                   # the board's OLED display (hardware_config.parse_display)
    [voice]                         # the talking board (docs/voice.md)
    engine = "espeak-ng"            # espeak-ng (the board speaks) | page (the page) | none
    language = "de"                 # en | de (default: the display's language)

Every problem raises :class:`ConfigError` whose message starts with the file name and names the
field, e.g. ``config.toml: [web] port must be an integer 1-65535, not 'abc'``.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from companion.hardware_config import (
    BoardConfig,
    ButtonsConfig,
    DisplayConfig,
    LedConfig,
    parse_hardware,
    read_toml,
)
from companion.hardware_config import (
    ConfigError as HardwareConfigError,
)
from companion.rules import PRESETS
from companion.voice.config import VoiceConfig, VoiceConfigError, check_engine, parse_voice

if TYPE_CHECKING:
    from companion.club.config import ClubConfig
    from companion.coach.config import CoachConfig
    from companion.online.account import OnlineConfig
    from companion.session.computer import ComputerConfig

TOP_KEYS = ("variant", "data_dir", "pin", "raichi", "time_control", "web", "board", "leds",
            "players", "rules", "match", "computer", "club", "online", "buttons",
            "display", "voice", "coach")
WEB_KEYS = ("host", "port", "allowed_hosts")
PLAYER_KEYS = ("attackers", "defenders", "attackers_name", "defenders_name")
MATCH_KEYS = ("enabled", "tie_break")
COMPUTER_KEYS = ("resign", "resign_threshold", "resign_moves", "draw", "draw_threshold",
                 "hint_seconds", "analysis_seconds", "engines", "any_engine",
                 "analyse_finished")
DEFAULT_PORT = 8080
DEFAULT_HOST = "0.0.0.0"


class ConfigError(ValueError):
    """A bad config value; the message names the file and the field."""


@dataclass(frozen=True)
class DaemonConfig:
    """Everything ``tafl-companion run`` needs, after the config file and the options."""

    variant: str = "copenhagen"
    data_dir: Path = field(default_factory=lambda: default_data_dir())
    pin: str | None = None
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    allowed_hosts: tuple[str, ...] = ()  # extra Host names the page answers to (web.auth)
    raichi: bool = True  # LED role raichi on the king's free escape squares (docs/page.md)
    board: BoardConfig = field(default_factory=BoardConfig)
    leds: LedConfig = field(default_factory=LedConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)  # [buttons] (hardware_config)
    display: DisplayConfig = field(default_factory=DisplayConfig)  # [display] (hardware_config)
    source: str = "(defaults)"
    time_control: str = "none"
    players: tuple[str, str] = ("board", "board")
    names: tuple[str, str] = ("Player 1", "Player 2")
    rules: tuple[tuple[str, object], ...] = ()
    match: bool = False
    tie_break: tuple[str, ...] = ("moves", "time")
    reset_store: bool = False
    # (their modules are imported when a config is read, not with this one: a command that
    # reads no config stays quick to start)
    computer: ComputerConfig = field(default_factory=lambda: _computer_defaults())
    online: OnlineConfig = field(default_factory=lambda: _online(None))
    club: ClubConfig | None = None  # when the board is in a club
    voice: VoiceConfig = field(default_factory=VoiceConfig)  # [voice] (companion.voice)
    coach: CoachConfig = field(default_factory=lambda: _coach({}))  # [coach] (companion.coach)


def _computer_defaults() -> ComputerConfig:
    from companion.session.computer import ComputerConfig

    return ComputerConfig(analyse_finished=True)


def default_data_dir() -> Path:
    """``$STATE_DIRECTORY`` under systemd, else ``$XDG_DATA_HOME/tafl-companion``."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0])
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local/share")
    return Path(base) / "tafl-companion"


def _unknown(keys: Mapping[str, Any], known: tuple[str, ...], where: str) -> None:
    for key in keys:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{where}{key}: unknown key{hint}; known: {', '.join(known)}")


def check_variant(value: object, where: str = "variant") -> str:
    """A preset id, or ConfigError listing the presets."""
    if not isinstance(value, str) or value not in PRESETS:
        raise ConfigError(
            f"{where} must be one of {', '.join(sorted(PRESETS))}, not {value!r}"
        )
    return value


def check_pin(value: object, where: str = "pin") -> str:
    """A PIN: 4 to 32 visible characters (a TOML integer is taken as its digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        value = str(value)
    if (
        not isinstance(value, str)
        or not 4 <= len(value) <= 32
        or not value.isprintable()
        or any(c.isspace() for c in value)
    ):
        raise ConfigError(f"{where} must be 4 to 32 characters without spaces, not {value!r}")
    return value


def check_port(value: object, where: str = "[web] port") -> int:
    """A TCP port number (0 = any free port, for tests)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ConfigError(f"{where} must be an integer 1-65535, not {value!r}")
    return value


def check_host(value: object, where: str = "[web] host") -> str:
    """An IP address or a host name to bind."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where} must be an IP address such as \"0.0.0.0\", not {value!r}")
    try:
        ipaddress.ip_address(value)
    except ValueError:
        if value != "localhost" and not all(p.isalnum() or p == "-" for p in value.split(".")):
            raise ConfigError(
                f"{where} must be an IP address such as \"0.0.0.0\", not {value!r}"
            ) from None
    return value


def check_allowed_hosts(value: object, where: str = "[web] allowed_hosts") -> tuple[str, ...]:
    """Extra host names (or ``*.domain``) the page answers to, besides its own."""
    if not isinstance(value, list) or not all(
        isinstance(v, str) and v and v.isascii() and not any(c.isspace() or c in "/@?#" for c in v)
        for v in value
    ):
        raise ConfigError(f'{where} must be a list of host names such as ["tafl.example.org"], '
                          f"not {value!r}")
    return tuple(value)


def parse_config(doc: Mapping[str, Any], source: str = "config.toml") -> DaemonConfig:
    """A checked DaemonConfig from a parsed TOML document."""
    try:
        _unknown(doc, TOP_KEYS, "")
        web = doc.get("web", {})
        if not isinstance(web, Mapping):
            raise ConfigError(f"[web] must be a table, not {type(web).__name__}")
        _unknown(web, WEB_KEYS, "[web] ")
        cfg = DaemonConfig(source=source)
        if "variant" in doc:
            cfg = replace(cfg, variant=check_variant(doc["variant"]))
        if "data_dir" in doc:
            d = doc["data_dir"]
            if not isinstance(d, str) or not d.strip():
                raise ConfigError(f"data_dir must be a directory path, not {d!r}")
            cfg = replace(cfg, data_dir=Path(d).expanduser())
        if "pin" in doc:
            cfg = replace(cfg, pin=check_pin(doc["pin"]))
        if "raichi" in doc:
            if not isinstance(doc["raichi"], bool):
                raise ConfigError(f"raichi must be true or false, not {doc['raichi']!r}")
            cfg = replace(cfg, raichi=doc["raichi"])
        if "port" in web:
            cfg = replace(cfg, port=check_port(web["port"]))
        if "host" in web:
            cfg = replace(cfg, host=check_host(web["host"]))
        if "allowed_hosts" in web:
            cfg = replace(cfg, allowed_hosts=check_allowed_hosts(web["allowed_hosts"]))
        cfg = _session_fields(cfg, doc)
        if "club" in doc:
            cfg = replace(cfg, club=_club(doc["club"]))
        if "voice" in doc:
            try:
                cfg = replace(cfg, voice=parse_voice(doc["voice"]))
            except VoiceConfigError as exc:
                raise ConfigError(str(exc)) from None
        try:
            hw = parse_hardware(doc)
        except HardwareConfigError as exc:
            raise ConfigError(str(exc)) from None
        cfg = replace(cfg, board=hw.board, leds=hw.leds, buttons=hw.buttons, display=hw.display)
        if cfg.board.kind == "sim":
            cfg = replace(cfg, board=replace(cfg.board, size=PRESETS[cfg.variant].size))
        check_board_fits(cfg)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    return cfg


def _table(doc: Mapping[str, Any], name: str, keys: tuple[str, ...]) -> Mapping[str, Any]:
    table = doc.get(name, {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"[{name}] must be a table, not {type(table).__name__}")
    _unknown(table, keys, f"[{name}] ")
    return table


def _session_fields(cfg: DaemonConfig, doc: Mapping[str, Any]) -> DaemonConfig:
    """``time_control``, ``[players]``, ``[rules]`` and ``[match]``."""
    from companion.session.match import check_tie_break
    from companion.session.players import PlayerSpec, check_name
    from companion.session.settings import OPTIONS, parse_option

    try:
        if "time_control" in doc:
            tc = doc["time_control"]
            cfg = replace(cfg, time_control=check_time_control(tc, "time_control"))
        players = _table(doc, "players", PLAYER_KEYS)
        kinds = list(cfg.players)
        names = list(cfg.names)
        for i, side in enumerate(("attackers", "defenders")):
            if side in players:
                kinds[i] = PlayerSpec.parse(players[side], where=f"[players] {side}").spec
            if f"{side}_name" in players:
                names[i] = check_name(players[f"{side}_name"], f"[players] {side}_name")
        cfg = replace(cfg, players=(kinds[0], kinds[1]), names=(names[0], names[1]))
        rules = _table(doc, "rules", tuple(OPTIONS))
        cfg = replace(cfg, rules=tuple(sorted(
            (k, parse_option(k, v, "[rules] ")) for k, v in rules.items())))
        match = _table(doc, "match", MATCH_KEYS)
        if "enabled" in match:
            if not isinstance(match["enabled"], bool):
                raise ConfigError("[match] enabled must be true or false")
            cfg = replace(cfg, match=match["enabled"])
        if "tie_break" in match:
            cfg = replace(cfg, tie_break=check_tie_break(match["tie_break"], "[match] tie_break"))
        cfg = replace(cfg, computer=_computer(_table(doc, "computer", COMPUTER_KEYS)))
        if "online" in doc:
            cfg = replace(cfg, online=_online(doc["online"]))
        if "coach" in doc:
            cfg = replace(cfg, coach=_coach(doc["coach"]))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return cfg


def _coach(table: object) -> CoachConfig:
    """``[coach]``: the side coached and how strictly (a CoachConfig; docs/coach.md)."""
    from companion.coach.config import CoachConfigError, parse_coach

    if not isinstance(table, Mapping):
        raise ConfigError(f"[coach] must be a table, not {type(table).__name__}")
    try:
        return parse_coach(table)
    except CoachConfigError as exc:
        raise ConfigError(str(exc)) from None


def _online(table: object) -> OnlineConfig:
    """``[online]``: the online server and account (an OnlineConfig; docs/online.md)."""
    from companion.online.account import OnlineConfig, parse_online

    if table is None:
        return OnlineConfig()
    if not isinstance(table, Mapping):
        raise ConfigError(f"[online] must be a table, not {type(table).__name__}")
    return parse_online(table)


def _club(table: object) -> ClubConfig:
    """``[club]``: the club's broker and this board's name (a ClubConfig)."""
    from companion.club.config import ClubConfigError, parse_club

    if not isinstance(table, Mapping):
        raise ConfigError(f"[club] must be a table, not {type(table).__name__}")
    try:
        return parse_club(table)
    except ClubConfigError as exc:
        raise ConfigError(str(exc)) from None


_Flag = Literal["resign", "draw", "any_engine", "analyse_finished"]
_Limit = Literal["resign_threshold", "draw_threshold", "hint_seconds", "analysis_seconds"]


class _ComputerFields(TypedDict, total=False):
    """The ``[computer]`` values given, as ComputerConfig's fields."""

    resign: bool
    draw: bool
    any_engine: bool
    analyse_finished: bool
    resign_threshold: float
    draw_threshold: float
    hint_seconds: float
    analysis_seconds: float
    resign_moves: int
    engines: tuple[str, ...]


def _computer(table: Mapping[str, Any]) -> ComputerConfig:
    """``[computer]``: the computer players' policy (a ComputerConfig)."""
    from companion.session.computer import ComputerConfig

    out: _ComputerFields = {"analyse_finished": True}
    flags: tuple[_Flag, ...] = ("resign", "draw", "any_engine", "analyse_finished")
    for key in flags:
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"[computer] {key} must be true or false, not {table[key]!r}")
            out[key] = table[key]
    limits: dict[_Limit, tuple[float, float]] = {
        "resign_threshold": (0.5, 100.0), "draw_threshold": (-100.0, 100.0),
        "hint_seconds": (0.1, 30.0), "analysis_seconds": (0.05, 30.0)}
    for limit, (lo, hi) in limits.items():
        if limit in table:
            v = table[limit]
            if isinstance(v, bool) or not isinstance(v, int | float) or not lo <= v <= hi:
                raise ConfigError(f"[computer] {limit} must be a number from {lo:g} to {hi:g}, "
                                  f"not {v!r}")
            out[limit] = float(v)
    if "resign_moves" in table:
        v = table["resign_moves"]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 20:
            raise ConfigError(f"[computer] resign_moves must be a whole number from 1 to 20, "
                              f"not {v!r}")
        out["resign_moves"] = v
    if "engines" in table:
        v = table["engines"]
        if not isinstance(v, list) or not all(isinstance(c, str) and c.strip() and "\n" not in c
                                               for c in v):
            raise ConfigError('[computer] engines must be a list of engine commands such as '
                              f'["/opt/engines/x --otep"], not {v!r}')
        out["engines"] = tuple(c.strip() for c in v)
    return ComputerConfig(**out)


def check_time_control(value: object, where: str = "--time-control") -> str:
    """A time control text (``none``, ``5``, ``5+3``, ``10+0/3x30``), canonical."""
    from companion.session.clock import TimeControl, TimeControlError

    if isinstance(value, int | float) and not isinstance(value, bool):
        value = f"{value:g}"
    try:
        tc = TimeControl.parse(value if isinstance(value, str) else "")
    except TimeControlError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return tc.text if tc else "none"


def check_board_fits(cfg: DaemonConfig) -> None:
    """A real board has one size: the variant must match it (the sim board adapts)."""
    size = PRESETS[cfg.variant].size
    if cfg.board.kind in ("gpio", "serial") and cfg.board.size != size:
        raise ConfigError(
            f"variant {cfg.variant!r} is played on {size}x{size}, but [board] size is "
            f"{cfg.board.size}"
        )


def load_config(path: str | Path | None) -> DaemonConfig:
    """Read and check a config file; None gives the defaults (simulated board, port 8080)."""
    if path is None:
        return DaemonConfig()
    p = Path(path)
    try:
        doc = read_toml(p)
    except HardwareConfigError as exc:
        raise ConfigError(str(exc)) from None
    return parse_config(doc, p.name)


def with_overrides(
    cfg: DaemonConfig,
    *,
    variant: str | None = None,
    port: int | None = None,
    data_dir: str | None = None,
    pin: str | None = None,
    board_kind: str | None = None,
    host: str | None = None,
    attackers: str | None = None,
    defenders: str | None = None,
    time_control: str | None = None,
    rules: list[str] | None = None,
    match: bool | None = None,
    reset_store: bool | None = None,
    voice: str | None = None,
) -> DaemonConfig:
    """The config with command-line options applied (they win over the file)."""
    from companion.session.players import PlayerError, PlayerSpec
    from companion.session.settings import SettingsError, parse_option_arg

    try:
        kinds = list(cfg.players)
        if attackers is not None:
            kinds[0] = PlayerSpec.parse(attackers, where="--attackers").spec
        if defenders is not None:
            kinds[1] = PlayerSpec.parse(defenders, where="--defenders").spec
        cfg = replace(cfg, players=(kinds[0], kinds[1]))
        if rules:
            opts = dict(cfg.rules)
            opts.update(parse_option_arg(r) for r in rules)
            cfg = replace(cfg, rules=tuple(sorted(opts.items())))
    except (PlayerError, SettingsError) as exc:
        raise ConfigError(str(exc)) from None
    if time_control is not None:
        cfg = replace(cfg, time_control=check_time_control(time_control))
    if match is not None:
        cfg = replace(cfg, match=match)
    if reset_store is not None:
        cfg = replace(cfg, reset_store=reset_store)
    if voice is not None:
        try:
            cfg = replace(cfg, voice=replace(cfg.voice, engine=check_engine(voice, "--voice")))
        except VoiceConfigError as exc:
            raise ConfigError(str(exc)) from None
    if variant is not None:
        cfg = replace(cfg, variant=check_variant(variant, "--variant"))
    if port is not None:
        cfg = replace(cfg, port=check_port(port, "--port"))
    if data_dir is not None:
        if not data_dir.strip():
            raise ConfigError("--data-dir must be a directory path")
        cfg = replace(cfg, data_dir=Path(data_dir).expanduser())
    if pin is not None:
        cfg = replace(cfg, pin=check_pin(pin, "--pin"))
    if host is not None:
        cfg = replace(cfg, host=check_host(host, "--host"))
    if board_kind is not None and board_kind != cfg.board.kind:
        if board_kind not in ("sim", "gpio", "serial"):
            raise ConfigError(
                f"--board must be sim, gpio, serial or replay:FILE, not {board_kind!r}"
            )
        cfg = replace(cfg, board=replace(cfg.board, kind=board_kind))
        if board_kind == "gpio" and not cfg.board.row_pins:
            raise ConfigError(
                "--board gpio needs row_pins and col_pins: give a --config with a [board] section"
            )
    if cfg.board.kind == "sim":
        cfg = replace(cfg, board=replace(cfg.board, size=PRESETS[cfg.variant].size))
    try:
        check_board_fits(cfg)
    except ConfigError as exc:
        raise ConfigError(f"{cfg.source}: {exc}") from None
    return cfg
