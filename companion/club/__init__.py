"""The club: many boards on one MQTT broker (docs/club.md).

- :mod:`~companion.club.config` ``[club]`` settings and broker URLs;
- :mod:`~companion.club.link` the broker connection (paho-mqtt, its own network thread);
- :mod:`~companion.club.topics` the topics and the checks of every payload;
- :mod:`~companion.club.outbox` what the board still owes the broker, durable;
- :mod:`~companion.club.publisher` the board's game on the broker;
- :mod:`~companion.club.channel`, :mod:`~companion.club.player` board-to-board play
  (``club:BOARD``, a :class:`~companion.session.remote.RemotePlayer`);
- :mod:`~companion.club.service` what the daemon starts for a board of a club;
- :mod:`~companion.club.room`, :mod:`~companion.club.room_web` the tournament room page
  (``tafl-companion club``).

This package imports the rules and :mod:`companion.session.remote`, nothing else of the
session.
"""
