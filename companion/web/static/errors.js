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
    too_large: N_("The file was not imported, nothing was stored: it is larger than {mb} MB."),
    busy: N_("Other large files are being received: try again in a moment."),
  };
  /* An import refused, worded from its reason (docs/http-api.md); where the file itself is at
     fault, the daemon's sentence naming its line follows. */
  const IMPORT = {
    empty: N_("The file was not imported, nothing was stored: it is empty."),
    rule: N_("The file was not imported, nothing was stored: its rules ask for {rule}, which the companion cannot play."),
    malformed: N_("The file was not imported, nothing was stored: it cannot be read as a game file: {detail}"),
    disagrees: N_("The file was not imported, nothing was stored: the rules refuse its game at move {ply}: {detail}"),
    no_games: N_("The file was not imported, nothing was stored: it holds no game records."),
    too_many: N_("The file was not imported, nothing was stored: it holds {n} games, and at most {most} can be imported at a time."),
    no_variant: N_("The file was not imported, nothing was stored: its moves fit no variant. Choose the variant on the import form."),
    variant: N_("The file was not imported, nothing was stored: there is no variant {variant}."),
  };
  /* The rules an OpenTafl rules string may ask for that the companion cannot play, by key. */
  const RULE = {
    ks: N_("a middleweight king"),
    ka: N_("a king armed as hammer or as anvil only"),
    kj: N_("a king who jumps"),
    ber: N_("berserk moves"),
    spd: N_("speed limits"),
    afor: N_("attacker fortresses"),
    dfor: N_("defender fortresses"),
    start: N_("commanders, knights or other special pieces"),
    swf: N_("shieldwalls captured without flanking pieces"),
    cen: N_("more than one centre square"),
    cens: N_("soldiers stopping on the throne"),
    cenp: N_("one side only passing the throne"),
    cenh: N_("an occupied throne hostile to the pieces beside it"),
    cors: N_("corners the king may not stop on, or soldiers on the corners"),
    corp: N_("soldiers passing through the corners"),
  };
  function importText(e) {
    const v = e.values || {};
    const t = IMPORT[e.reason];
    if (!t) return _(ERROR.import_refused, { detail: e.message });
    if (e.reason === "rule") {
      const key = String(v.rule || "").split(":")[0];
      const rule = RULE[key] ? _(RULE[key]) + " (" + v.rule + ")" : String(v.rule || "");
      return _(t, { rule: rule });
    }
    return _(t, Object.assign({ detail: e.message }, v));
  }
  /* How long a PIN lockout lasts: the daemon's answer says "wait 30 s" / "paused for 540 s"
     (a number, whatever the language: the only part of its English that is read here). */
  const WAIT = {
    pin_locked: N_("Too many wrong PINs from this device: wait a while and try again."),
    pin_paused: N_("Too many wrong PINs on the network: PIN entry is paused for a while."),
  };
  window.T.errorText = function errorText(e) {
    const t = ERROR[e.code];
    if (!t) return e.message;
    if (e.code === "import_refused") return importText(e);
    if (e.code === "too_large") {
      const bytes = /(\d+) bytes/.exec(e.message || "");
      return _(t, { mb: bytes ? Math.floor(Number(bytes[1]) / 1048576) : 4 });
    }
    if (WAIT[e.code]) {
      const secs = /(\d+) s\b/.exec(e.message || "");
      return secs ? _(t, { seconds: secs[1] }) : _(WAIT[e.code]);
    }
    return _(t, { detail: e.message });
  };
})();
