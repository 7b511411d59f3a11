"""The game session: the one owner of the game, its match, clocks, players and store.

See :mod:`companion.session.core` (the session), :mod:`~companion.session.controls` (what can be
asked of it), :mod:`~companion.session.api` (the interface the web layer uses) and
``docs/session.md``.
"""

from companion.session.actors import OWNER, SPECTATOR, Actor, ControlError, Role
from companion.session.core import GameSession, SessionDefaults

__all__ = ["OWNER", "SPECTATOR", "Actor", "ControlError", "GameSession", "Role",
           "SessionDefaults"]
