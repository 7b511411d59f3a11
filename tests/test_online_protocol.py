"""The online client's pure parts: the RON reader on the server's real lines (from
../shared/spec/HNEFATAFL-ORG.md), square names per board size, lobby entries, game documents,
time controls and the account's checks."""

from __future__ import annotations

import pytest

from companion.online import ron
from companion.online.account import Account, AccountFile, parse_online
from companion.online.connection import split_address
from companion.online.lobby import Lobby
from companion.online.protocol import (
    ProtocolError,
    ServerTime,
    check_account,
    new_game_line,
    parse_join,
    parse_opentafl,
    parse_square,
    parse_time_control,
    square_name,
)

USERS = ('Users(({"alice":(username:"alice",wins:0,losses:0,draws:0,rating:(rating:1500.0,'
         'rd:350.0),logged_in:true),"bob":(username:"bob",wins:1,losses:0,draws:0,rating:'
         '(rating:1735.9034092448246,rd:298.79925936114853),logged_in:true)}))')
GAME_RON = ('(id:4,attacker:None,defender:Some("ai-0b62a6"),challenger:(None),rated:Yes,'
            'timed:Timed((add_seconds:10,milliseconds_left:900000)),spectators:{},'
            'challenge_accepted:false,game_over:false,board_size:_11,turn:Roleless)')


def test_ron_reads_the_login_burst():
    display = ron.loads(f"([{GAME_RON}],{USERS},false,false)")
    lobby = Lobby()
    lobby.initialize(display)
    [game] = lobby.open_games("alice")
    assert game == {"id": 4, "by": "ai-0b62a6", "rating": None, "side": "attackers",
                    "variant": "copenhagen", "size": 11, "rated": True,
                    "time_control": "15+10", "mine": False}
    assert lobby.ratings == {"alice": 1500.0, "bob": 1735.9034092448246}


def test_ron_reads_chat_with_escapes_and_unicode():
    text = ron.loads('(username:"\U000131f3",timestamp:"2026-11-26T10:38:53.895843402Z",'
                     'content:"say \\"hi\\"\\n\\u{1F600}")')
    assert text == {"username": "\U000131f3", "timestamp": "2026-11-26T10:38:53.895843402Z",
                    "content": 'say "hi"\n\U0001F600'}
    assert ron.loads("(removed:[],updated:({}))") == {"removed": [], "updated": {}}
    assert ron.loads("[1, -2.5e3, Some(None), ()]") == [1, -2500.0, None, []]


@pytest.mark.parametrize("bad", ["(", "(a:1", "[1,,]", '"open', "(a:)", "{1 2}", "Some(",
                                 '"\\q"', '"\\u{zz}"', "((((" * 40 + "))))" * 40, "1 2", ""])
def test_ron_refuses_what_does_not_parse(bad):
    with pytest.raises(ron.RonError):
        ron.loads(bad)


def test_lobby_deltas_are_json_and_bounded():
    lobby = Lobby()
    lobby.initialize(ron.loads(f"([{GAME_RON}],{USERS},false,false)"))
    lobby.update({"created": [[5, None, {"id": 5, "attacker": "bob", "defender": None,
                                         "challenger": None, "rated": "No", "timed": "UnTimed",
                                         "spectators": {}, "challenge_accepted": False,
                                         "game_over": False, "board_size": "_7",
                                         "turn": "Roleless"}]],
                  "removed": [4], "updated": {}})
    [game] = lobby.open_games(None)
    assert game["id"] == 5 and game["variant"] == "brandubh" and game["side"] == "defenders"
    lobby.update({"created": [[6, None, {"id": "x"}]], "removed": ["y"], "updated": {"7": 3}})
    assert lobby.bad == 2 and [g["id"] for g in lobby.open_games(None)] == [5]
    with pytest.raises(ProtocolError):
        lobby.update([1, 2])


@pytest.mark.parametrize("size,index,name", [(11, 0, "a1"), (11, 120, "k11"), (11, 4 * 11 + 6,
                                             "g5"), (13, 6 * 13 + 6, "G7"), (13, 168, "M13"),
                                             (7, 3 * 7 + 3, "0d4"), (7, 48, "0g7")])
def test_square_names_per_board_size(size, index, name):
    assert square_name(index, size) == name
    assert parse_square(name, size) == index


@pytest.mark.parametrize("size,bad", [(11, "l1"), (11, "a12"), (11, "a0"), (11, "A1"),
                                      (13, "g7"), (13, "N1"), (7, "d4"), (7, "0h1"),
                                      (7, "0a8"), (11, ""), (11, "a١")])
def test_bad_squares(size, bad):
    with pytest.raises(ProtocolError):
        parse_square(bad, size)


def test_game_document_and_join_line():
    doc = parse_opentafl(
        '{"id":0,"attackers":"alice","defenders":"bob","dim":11,"start":"/3AAAAA3/",'
        '"time_control":{"main_time_seconds":900,"increment_length":10},'
        '"time_remaining_ms":{"attackers":919913,"defenders":939166,"last_move":'
        '"2026-11-26T10:38:54.685Z"},"moves":"e1-e4 h6-h9 g1-g4xf4 ---","rated":true,'
        '"messages":[]}')
    assert [m.text for m in doc.moves] == ["e1-e4", "h6-h9", "g1-g4xf4", "---"]
    assert doc.moves[2].move is not None and doc.moves[3].move is None
    assert doc.time == ServerTime(900000, 10) and doc.defenders_ms == 939166
    for bad in ("{", "[]", '{"id":0,"dim":12}', '{"id":0,"dim":11,"moves":"e1e4"}',
                '{"id":0,"dim":11,"moves":"z1-e4"}'):
        with pytest.raises(ProtocolError):
            parse_opentafl(bad)
    joined = parse_join(["alice", "bob", "rated", "fischer", "900000", "10", "11"])
    assert (joined.attacker, joined.rated, joined.time, joined.size) == (
        "alice", True, ServerTime(900000, 10), 11)
    assert parse_join(["a", "b", "unrated", "un-timed", "_", "_", "7"]).time is None


def test_time_controls_and_commands():
    assert parse_time_control("15+10") == ServerTime(900000, 10)
    assert parse_time_control("8s+2") == ServerTime(8000, 2)
    assert parse_time_control("none") is None
    assert ServerTime(8000, 2).text == "8s+2" and ServerTime(300000, 3).text == "5+3"
    for bad in ("", "fast", "0+1", "99999999+1", "5+-1", 3):
        with pytest.raises(ValueError):
            parse_time_control(bad)
    assert new_game_line("attackers", True, ServerTime(900000, 10), 11) == (
        'new_game {"role":"Attacker","rated":true,"time_settings":{"Timed":{"add_seconds":10,'
        '"milliseconds_left":900000}},"board_size":11}')


def test_account_checks_and_file(tmp_path):
    assert check_account("alice", "two words") == ("alice", "two words")
    for user, pw in (("", "x"), ("a b", "x"), ("x" * 17, "x"), ("a", "p" * 33),
                     ("a", "tab\there"), ("a", " lead"), ("a", "dou  ble")):
        with pytest.raises(ValueError):
            check_account(user, pw)
    f = AccountFile(tmp_path)
    f.save(Account("alice", "pw"))
    assert f.load() == Account("alice", "pw") and "pw" not in repr(f.load())
    f.path.write_text("{garbage")
    assert f.load() is None
    cfg = parse_online({"server": "localhost:4000", "user": "bob", "password": "pw"})
    assert cfg.server == "localhost:4000" and "pw" not in repr(cfg)
    for bad in ({"sever": "x"}, {"server": "a b"}, {"server": "h:99999"}, {"version": "1 2"}):
        with pytest.raises(ValueError):
            parse_online(bad)
    assert split_address("[::1]:5") == ("::1", 5) and split_address("h") == ("h", 49152)
