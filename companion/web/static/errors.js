/* tafl-companion page: a refused control worded in the viewer's language from its code
   (docs/http-api.md lists them); loaded with the first refusal. The daemon's English sentence is
   shown for a code this page does not know. */
"use strict";
(function () {
  const { _, N_ } = window.T;
  /* ---- control errors, worded from their codes ---- */
  const ERROR = {
    forbidden: N_("Only the owner can do that: unlock the controls with the PIN."),
    not_your_side: N_("This player link plays the other side."),
    bad_link: N_("This player link has ended: its player does not play the game on the board now. Ask the owner for a new link (he finds it under Controls, Phone links)."),
    game_over: N_("The game is over."),
    illegal_move: N_("That move is not legal here."),
    at_the_board: N_("This side plays at the board: make the move there."),
    no_offer: N_("There is no draw offer to answer."),
    already_offered: N_("The draw is offered already."),
    nothing_to_take_back: N_("There is no move to take back."),
    time_loss: N_("A loss on time cannot be taken back."),
    no_clock: N_("This game has no clock."),
    no_next_game: N_("There is no match game to start next."),
    match: N_("In a match the sides swap by themselves for game 2."),
    finished: N_("A finished game is never changed."),
    board_size: N_("That variant needs a board of another size than this one."),
    real_board: N_("This is a real board: move the pieces by hand."),
    storage: N_("Moves are not being saved (the store cannot write): try again once it writes."),
    pin_required: N_("The controls need the PIN."),
    bad_pin: N_("Wrong PIN."),
    pin_locked: N_("Too many wrong PINs from this device: wait {seconds} s and try again."),
    pin_paused: N_("Too many wrong PINs on the network: PIN entry is paused for {seconds} s."),
    session_expired: N_("This device's owner session has ended: enter the PIN again."),
    bad_players: N_("Check the players: each needs a name of 1 to 40 characters, and a match two different names."),
    bad_settings: N_("Check the game settings: {detail}"),
    bad_position: N_("That position cannot start a game: {detail}"),
    no_hint: N_("No hint now: the side to move is the computer's, or its move is chosen already."),
    not_your_turn: N_("Not your turn: a hint is for the side to move."),
    engine_not_allowed: N_("That engine is not allowed: the config names the engines the page may start."),
    game_ongoing: N_("The game is still being played: analyse it once it is over."),
    no_moves: N_("The game has no moves to analyse."),
    not_found: N_("Not found."),
    import_refused: N_("The file was not imported, nothing was stored: {detail}"),
  };
  /* How long a PIN lockout lasts: the daemon's answer says "wait 30 s" / "paused for 540 s"
     (a number, whatever the language: the only part of its English that is read here). */
  const WAIT = {
    pin_locked: N_("Too many wrong PINs from this device: wait a while and try again."),
    pin_paused: N_("Too many wrong PINs on the network: PIN entry is paused for a while."),
  };
  window.T.errorText = function errorText(e) {
    const t = ERROR[e.code];
    if (!t) return e.message;
    if (WAIT[e.code]) {
      const secs = /(\d+) s\b/.exec(e.message || "");
      return secs ? _(t, { seconds: secs[1] }) : _(WAIT[e.code]);
    }
    return _(t, { detail: e.message });
  };
})();
