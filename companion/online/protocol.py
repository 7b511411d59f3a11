"""The hnefatafl.org line protocol as data: square names per board size, the lobby's game
entries, the OpenTafl game documents, time controls, and the client's command lines.

Everything here is pure (no I/O) and strict: text from the server that does not fit raises
:class:`ProtocolError` with a sentence that names what was wrong, never anything else.
"""

from __future__ import annotations

import json
import json.scanner
import math
from dataclasses import dataclass

from companion.rules import Move
from companion.rules.hnefatafl_org import BY_SIZE
from companion.rules.ruleset import ATTACKERS, DEFENDERS, RuleSet

#: The protocol's version id (every 6.x release); configuration may override it.
VERSION_ID = "32d9a140"
ROLES = {"attacker": ATTACKERS, "defender": DEFENDERS}
ROLE_OF: dict[str, str] = {ATTACKERS: "attacker", DEFENDERS: "defender"}
SIZES = (7, 11, 13)
#: The API's names of the server's board sizes (the project's nearest presets).
VARIANT_OF_SIZE = {7: "brandubh", 11: "copenhagen", 13: "copenhagen-13"}
SIZE_OF_VARIANT = {v: k for k, v in VARIANT_OF_SIZE.items()}
MAX_NAME = 16
MAX_PASSWORD = 32
_LETTERS = "abcdefghijklm"


class ProtocolError(ValueError):
    """A line or document from the server that does not fit the protocol."""


# -- squares ------------------------------------------------------------------------------------


def square_name(index: int, size: int) -> str:
    """The server's name of square ``index`` (rank * size + file, a1 = 0): ``e4`` on 11×11,
    ``E4`` on 13×13, ``0e4`` on 7×7."""
    f, r = index % size, index // size
    letter = _LETTERS[f]
    if size == 13:
        return f"{letter.upper()}{r + 1}"
    if size == 7:
        return f"0{letter}{r + 1}"
    return f"{letter}{r + 1}"


def parse_square(text: str, size: int) -> int:
    """The index of a server square name on a board of ``size``; ProtocolError otherwise."""
    body = text
    if size == 7:
        if not text.startswith("0"):
            raise ProtocolError(f"square {text!r}: 7x7 squares start with 0 (like 0d4)")
        body = text[1:]
    letter, rank = body[:1], body[1:]
    letter = letter.lower() if size == 13 and letter.isupper() else letter
    if size == 13 and body[:1].islower():
        raise ProtocolError(f"square {text!r}: 13x13 squares are upper case (like G7)")
    f = _LETTERS.find(letter) if letter else -1
    if f < 0 or f >= size or not rank.isascii() or not rank.isdigit() or rank[0] == "0":
        raise ProtocolError(f"square {text!r} is not a square of the {size}x{size} board")
    r = int(rank) - 1
    if r >= size:
        raise ProtocolError(f"square {text!r} is off the {size}x{size} board")
    return r * size + f


def rules_for_size(size: int) -> RuleSet:
    """The server's rule set for a board size."""
    try:
        return BY_SIZE[size]
    except KeyError:
        raise ProtocolError(f"board size {size} is not one of the server's (7, 11, 13)") from None


def parse_size(value: object) -> int:
    """A board size from the server's forms: 11, "11" or "_11"."""
    text = str(value).lstrip("_")
    if not text.isdigit() or int(text) not in SIZES:
        raise ProtocolError(f"board size {value!r} is not one of 7, 11, 13")
    return int(text)


# -- time controls ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerTime:
    """A Fischer time control as the server keeps it: main time in ms, increment in s."""

    main_ms: int
    increment_s: int

    @property
    def text(self) -> str:
        """The API's form: ``15+10`` (minutes + seconds); ``8s+2`` below a minute."""
        if self.main_ms % 60000 == 0:
            return f"{self.main_ms // 60000}+{self.increment_s}"
        return f"{self.main_ms / 1000:g}s+{self.increment_s}"

    def to_json(self) -> object:
        return {"Timed": {"add_seconds": self.increment_s, "milliseconds_left": self.main_ms}}


#: The server GUI's presets (``time_control`` texts the page offers): id -> control.
PRESETS: dict[str, ServerTime | None] = {
    "8s+2": ServerTime(8000, 2),
    "5+3": ServerTime(300000, 3),
    "15+10": ServerTime(900000, 10),
    "30+20": ServerTime(1800000, 20),
    "4320+21600": ServerTime(3 * 86400000, 6 * 3600),
    "10800+54000": ServerTime(7 * 86400000 + 12 * 3600000, 15 * 3600),
    "none": None,
}


def parse_time_control(text: object) -> ServerTime | None:
    """``none``, ``MAIN+INC`` (minutes, a decimal allowed, + seconds) or ``Ns+INC``."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("time_control must be text: none, MAIN+INC (minutes + seconds) or "
                         "SECONDSs+INC, e.g. 15+10")
    text = text.strip().lower()
    if text == "none":
        return None
    main_text, plus, inc_text = text.partition("+")
    try:
        seconds = main_text.endswith("s")
        main = float(main_text[:-1] if seconds else main_text) * (1 if seconds else 60)
        inc = int(inc_text) if plus else 0
    except ValueError:
        raise ValueError(f"time_control {text!r}: expected none, MAIN+INC or Ns+INC, "
                         "e.g. 15+10") from None
    if not math.isfinite(main) or not 1 <= main <= 30 * 86400 or not 0 <= inc <= 86400:
        raise ValueError(f"time_control {text!r}: main time 1 s to 30 days, increment 0 to "
                         "86400 s")
    return ServerTime(int(round(main * 1000)), inc)


def parse_timed(value: object) -> ServerTime | None:
    """The server's ``timed`` / ``time_settings`` value (JSON or RON shape)."""
    if value == "UnTimed" or value is None:
        return None
    if isinstance(value, dict) and isinstance(value.get("Timed"), dict):
        timed = value["Timed"]
        main, inc = timed.get("milliseconds_left"), timed.get("add_seconds")
        if isinstance(main, int) and isinstance(inc, int):
            return ServerTime(main, inc)
    raise ProtocolError(f"time settings {str(value)[:80]!r} are not UnTimed or Timed")


# -- the lobby ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LobbyGame:
    """One game of the server's lobby (``ServerGameLight``)."""

    id: int
    attacker: str | None
    defender: str | None
    challenger: str | None
    rated: bool
    time: ServerTime | None
    size: int
    started: bool
    game_over: bool

    @property
    def creator(self) -> str | None:
        return self.attacker or self.defender

    @property
    def free_side(self) -> str | None:
        """The free seat of a pending game (None once both are taken)."""
        if self.attacker is None and self.defender is not None:
            return ATTACKERS
        if self.defender is None and self.attacker is not None:
            return DEFENDERS
        return None


def _name(value: object) -> str | None:
    if value is None or value == []:
        return None
    if isinstance(value, str) and 0 < len(value) <= 64:
        return value
    raise ProtocolError(f"a user name must be text, not {str(value)[:40]!r}")


def parse_lobby_game(data: object) -> LobbyGame:
    """A ``ServerGameLight`` from its JSON or RON form."""
    if not isinstance(data, dict):
        raise ProtocolError("a lobby game must be an object")
    game_id = data.get("id")
    if not isinstance(game_id, int) or isinstance(game_id, bool) or game_id < 0:
        raise ProtocolError(f"a lobby game needs a whole-number id, not {game_id!r}")
    rated = data.get("rated")
    turn = data.get("turn")
    return LobbyGame(
        id=game_id, attacker=_name(data.get("attacker")), defender=_name(data.get("defender")),
        challenger=_name(data.get("challenger")), rated=rated in ("Yes", True),
        time=parse_timed(data.get("timed")), size=parse_size(data.get("board_size")),
        started=turn in ("Attacker", "Defender"), game_over=data.get("game_over") is True,
    )


# -- OpenTafl game documents (resume_game_json, watch_game_json) ---------------------------------


@dataclass(frozen=True)
class ServerMove:
    """One move of a game on the server: its record text and the move (ints)."""

    text: str
    move: Move | None          # None for a resignation (``---``)


@dataclass(frozen=True)
class ResumedGame:
    """A game's state as the server answers ``resume_game_json`` / ``watch_game_json``."""

    id: int
    attackers: str
    defenders: str
    size: int
    time: ServerTime | None
    attackers_ms: int | None
    defenders_ms: int | None
    moves: tuple[ServerMove, ...]
    rated: bool
    last_move: str | None = None   # the server's time of the clocks (RFC 3339): its last move


#: Text longer than this is parsed by the json module's pure-Python scanner (see parse_json).
C_JSON_LIMIT = 64 * 1024
_PY_JSON = json.JSONDecoder()
_PY_JSON.scan_once = json.scanner.py_make_scanner(_PY_JSON)  # type: ignore[attr-defined]


def parse_json(text: str) -> object:
    """JSON from the server (ValueError if it is not). The C parser holds the interpreter for
    the whole text (about 40 ms a MiB on a PC, several times that on a Pi): the board's scan
    loop, another thread of the same interpreter, would miss its ticks meanwhile. So a text
    over :data:`C_JSON_LIMIT` (never one of a real server's lines in play; a lobby of a
    hostile server) goes through the pure-Python scanner, about 20 times slower but letting
    the other threads run every switch interval; the client's parse budget
    (companion.online.service) bounds the time it takes."""
    if len(text) <= C_JSON_LIMIT:
        return json.loads(text)
    return _PY_JSON.decode(text)


def parse_opentafl(text: str) -> ResumedGame:
    """The JSON document of ``= resume_game_json`` / ``= watch_game_json``."""
    try:
        data = parse_json(text)
    except ValueError as exc:
        raise ProtocolError(f"the game document is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ProtocolError("the game document is not a JSON object")
    size = parse_size(data.get("dim"))
    game_id = data.get("id")
    if not isinstance(game_id, int) or isinstance(game_id, bool):
        raise ProtocolError(f"the game document's id {game_id!r} is not a number")
    moves = []
    raw = data.get("moves") or ""
    if not isinstance(raw, str):
        raise ProtocolError("the game document's moves are not text")
    for token in raw.split():
        if token == "---":
            moves.append(ServerMove(token, None))
            continue
        head = token.split("x")[0]
        frm, dash, to = head.partition("-")
        if not dash:
            raise ProtocolError(f"move {token!r} in the game document is not FROM-TO")
        moves.append(ServerMove(token, Move(_doc_square(frm, size), _doc_square(to, size))))
    control = data.get("time_control")
    time = None
    if isinstance(control, dict):
        main, inc = control.get("main_time_seconds"), control.get("increment_length")
        if isinstance(main, int) and isinstance(inc, int):
            time = ServerTime(main * 1000, inc)
    left = data.get("time_remaining_ms")
    att_ms = left.get("attackers") if isinstance(left, dict) else None
    dfn_ms = left.get("defenders") if isinstance(left, dict) else None
    last = left.get("last_move") if isinstance(left, dict) else None
    return ResumedGame(
        id=game_id, attackers=str(data.get("attackers", "")),
        defenders=str(data.get("defenders", "")), size=size, time=time,
        attackers_ms=att_ms if isinstance(att_ms, int) else None,
        defenders_ms=dfn_ms if isinstance(dfn_ms, int) else None,
        moves=tuple(moves), rated=data.get("rated") is True,
        last_move=last if isinstance(last, str) and len(last) <= 40 else None,
    )


def _doc_square(text: str, size: int) -> int:
    """A square of a game document: the document writes the same names as the lines."""
    try:
        return parse_square(text, size)
    except ProtocolError:
        # be lenient about the case of 13x13 and the 0 of 7x7 (the document's own writer)
        alt = text.lower().lstrip("0")
        f = _LETTERS.find(alt[:1]) if alt else -1
        if f < 0 or not alt[1:].isdigit() or not 1 <= int(alt[1:]) <= size or f >= size:
            raise
        return (int(alt[1:]) - 1) * size + f


# -- clocks and chat ----------------------------------------------------------------------------


def parse_game_time(data: object) -> tuple[str, int, int]:
    """``= game_time {"id", "attacker_ms_left", "defender_ms_left"}``: (id, ms, ms)."""
    if not isinstance(data, dict):
        raise ProtocolError("game_time is not a JSON object")
    att, dfn = data.get("attacker_ms_left"), data.get("defender_ms_left")
    if not isinstance(att, int) or not isinstance(dfn, int):
        raise ProtocolError("game_time needs attacker_ms_left and defender_ms_left")
    return str(data.get("id")), att, dfn


def parse_chat(data: object) -> tuple[str, str, str | None]:
    """``= text_game (username, timestamp, content)`` (RON): (by, content, timestamp)."""
    if not isinstance(data, dict):
        raise ProtocolError("text_game is not a (username, timestamp, content) struct")
    by, content, stamp = data.get("username"), data.get("content"), data.get("timestamp")
    if not isinstance(by, str) or not isinstance(content, str):
        raise ProtocolError("text_game needs a username and content")
    return by, content, stamp if isinstance(stamp, str) else None


# -- the join line ------------------------------------------------------------------------------


@dataclass(frozen=True)
class JoinedGame:
    """``= join_game ATTACKER DEFENDER rated|unrated fischer MAIN_MS INC_S SIZE``."""

    attacker: str
    defender: str
    rated: bool
    time: ServerTime | None
    size: int


def parse_join(words: list[str]) -> JoinedGame:
    """The words after ``= join_game``."""
    if len(words) != 7:
        raise ProtocolError(f"join_game has {len(words)} words, 7 expected")
    attacker, defender, rated, _kind, main, inc, size = words
    time = None
    if main != "_":
        if not main.isdigit() or not inc.isdigit():
            raise ProtocolError(f"join_game times {main!r} {inc!r} are not numbers")
        time = ServerTime(int(main), int(inc))
    return JoinedGame(attacker, defender, rated == "rated", time, parse_size(size))


# -- commands -----------------------------------------------------------------------------------


def login_line(version: str, user: str, password: str, create: bool) -> str:
    """The first line: ``VERSION login|create_account USER PASSWORD``."""
    return f"{version} {'create_account' if create else 'login'} {user} {password}".rstrip()


def check_account(user: object, password: object) -> tuple[str, str]:
    """A user name and password the server can take (ValueError with the reason otherwise)."""
    if not isinstance(user, str) or not user or any(c.isspace() for c in user):
        raise ValueError("the user name must be one word")
    if len(user.encode()) > MAX_NAME:
        raise ValueError(f"the user name may have at most {MAX_NAME} bytes")
    if not isinstance(password, str) or any(c.isspace() and c != " " for c in password):
        raise ValueError("the password must be text on one line")
    if len(password.encode()) > MAX_PASSWORD:
        raise ValueError(f"the password may have at most {MAX_PASSWORD} bytes")
    if any(ord(c) < 32 or ord(c) == 127 for c in user + password):
        raise ValueError("the user name and password may not contain control characters")
    if "  " in password or password != password.strip():
        raise ValueError("the server joins the password's words with single spaces: use no "
                         "leading, trailing or double spaces")
    return user, password


def new_game_line(side: str, rated: bool, time: ServerTime | None, size: int) -> str:
    """``new_game {JSON}``: the creator's side, rated, time settings, board size."""
    body = {"role": "Attacker" if side == ATTACKERS else "Defender", "rated": rated,
            "time_settings": time.to_json() if time else "UnTimed", "board_size": size}
    return "new_game " + json.dumps(body, separators=(",", ":"))


def play_line(game_id: int, side: str, move: Move, size: int) -> str:
    return (f"game {game_id} play {ROLE_OF[side]} {square_name(move.frm, size)} "
            f"{square_name(move.to, size)}")


def resign_line(game_id: int, side: str) -> str:
    return f"game {game_id} play {ROLE_OF[side]} resigns _"


def clean_chat(text: str, limit: int = 1000) -> str:
    """Chat text the server takes: one line, no control characters, bounded."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat.encode()[:limit].decode(errors="ignore")
