"""Online play on a hnefatafl.org server: the line client on its own thread
(:mod:`~companion.online.service`) and the account's login on it
(:mod:`~companion.online.login`), the protocol (:mod:`~companion.online.protocol`,
:mod:`~companion.online.ron`), the board's game on the server (:mod:`~companion.online.server_game`,
:mod:`~companion.online.table`) and the player the session drives
(:mod:`~companion.online.player`). See docs/online.md."""
