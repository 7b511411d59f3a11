/* tafl-companion page: the tracker's guidance in the page's language, made from its structured
   data (docs/events.md lists every kind, code and field): never parsed from English. Each
   sentence is whole in the catalogue; piece phrases ("the captured defenders on c3 and e3")
   are whole phrases too, so a language can decline them as it needs. */
"use strict";
(function () {
  const T = window.T;
  const { _, N_, ngettext, listText, TO_MOVE } = T;

  const THE = { t: N_("the attacker"), T: N_("the defender"), K: N_("the king") };
  const the = (p) => _(THE[p] || THE.T);
  const HOLD = { t: N_("{square} should hold an attacker"), T: N_("{square} should hold a defender"), K: N_("{square} should hold the king") };
  const pairs = (g) => (g.squares || []).map((s, i) => [s, g.pieces[i]]);

  /* Pieces grouped by kind: "the captured defenders on c3 and e3 and the captured king on d4" */
  function captured(g) {
    const by = {};
    pairs(g).forEach(([s, p]) => (by[p] = by[p] || []).push(s));
    return listText(["t", "T", "K"].filter((p) => by[p]).map((p) => {
      const sq = listText(by[p]), n = by[p].length;
      if (p === "K") return _("the captured king on {squares}", { squares: sq });
      return p === "t" ? ngettext("the captured attacker on {squares}", "the captured attackers on {squares}", n, { squares: sq })
        : ngettext("the captured defender on {squares}", "the captured defenders on {squares}", n, { squares: sq });
    }));
  }

  /* "the defender on c3 and the attacker on d1" */
  const pieceList = (list) => listText(list.map(([s, p]) => _("{piece} on {square}", { piece: the(p), square: s })));

  /* After a takeback, the pieces to carry back: [{piece, from, to}] (the piece stands on `from`
     and goes back to `to`), as the tracker guides them (the display and the LEDs show the same). */
  const carryBack = (g) => (g && g.kind === "setup" && g.back) || [];

  function setup(g) {
    const parts = [], back = carryBack(g);
    const fill = Object.assign({}, g.fill || {});
    back.forEach((b) => {
      parts.push(_("move {piece} from {from} back to {to}", { piece: the(b.piece), from: b.from, to: b.to }));
      delete fill[b.to];
    });
    const clear = (g.clear || []).filter((sq) => !back.some((b) => b.from === sq));
    const squares = Object.keys(fill).sort();
    if (squares.length > 6) {
      parts.push(_("place {pieces} on the lit squares", { pieces: T.piecesText(squares.map((s) => fill[s])) }));
    } else {
      const by = {};
      squares.forEach((s) => (by[fill[s]] = by[fill[s]] || []).push(s));
      ["t", "T", "K"].filter((p) => by[p]).forEach((p) => {
        const a = { squares: listText(by[p]) }, n = by[p].length;
        parts.push(p === "K" ? _("place the king on {squares}", a)
          : p === "t" ? ngettext("place an attacker on {squares}", "place attackers on {squares}", n, a)
            : ngettext("place a defender on {squares}", "place defenders on {squares}", n, a));
      });
    }
    if (clear.length) {
      parts.push(clear.length <= 6 ? _("clear {squares}", { squares: listText(clear.slice().sort()) })
        : ngettext("clear {n} lit square", "clear {n} lit squares", clear.length));
    }
    Object.keys(g.recolour || {}).sort().forEach((s) => parts.push(_(HOLD[g.recolour[s]], { square: s })));
    return back.length ? _("Takeback: {steps}", { steps: parts.join("; ") }) : _("Setup: {steps}", { steps: parts.join("; ") });
  }

  const MOVE_REASON = {
    diagonal: N_("pieces move in straight lines along a rank or file, never diagonally"),
    jump: N_("the piece cannot jump over the piece on {square}"),
    corner_pass: N_("nobody may pass through the corner {square}"),
    throne_pass: N_("this piece may not pass through the throne ({square})"),
    corner_stop: N_("only the king may stop on the corner {square}"),
    throne_stop: N_("only the king may stop on the throne ({square})"),
    throne_return: N_("the king may not return to the throne"),
    occupied: N_("{square} is occupied"),
    not_legal: N_("that move is not legal"),
    moved_too_early: N_("the piece was moved before the other side's move was finished"),
    not_the_move_to_make: N_("that is not the move to make: {expected_from} to {expected_to}"),
    game_over: N_("the game is over"),
  };

  function moveReason(code, d) {
    if (code === "not_your_turn") {
      return d.turn === "attackers" ? _("it is the attackers' turn, and that piece belongs to the defenders")
        : _("it is the defenders' turn, and that piece belongs to the attackers");
    }
    if (code === "wrong_piece_placed") {
      const a = { to: d.to, from: d.from };
      if (d.piece === "K") return _("the piece put on {to} is an attacker, but the king left {from}", a);
      return d.colour === "a" ? _("the piece put on {to} is an attacker, but a defender left {from}", a)
        : _("the piece put on {to} is a defender, but an attacker left {from}", a);
    }
    return MOVE_REASON[code] ? _(MOVE_REASON[code], d) : null;
  }

  /* What to do while a fault stands (guidance kind "illegal" or "warning"). */
  function fault(g) {
    const code = g.code;
    switch (code) {
      case "capture_pending":
        return _("Illegal: remove {pieces} first, or put the piece back on {from}", { pieces: captured(g), from: g.from });
      case "several_pieces":
        return (g.new || []).length
          ? _("Illegal: several pieces moved — put back {pieces}; clear {squares}", { pieces: pieceList(pairs(g)), squares: listText(g.new) })
          : _("Illegal: several pieces moved — put back {pieces}", { pieces: pieceList(pairs(g)) });
      case "lifted_before_captures_removed":
        return _("Remove {pieces} first", { pieces: captured(g) });
      case "wrong_piece_lifted":
        return _("Wrong piece: put {piece} back on {square}, then lift {pieces}", { piece: the(g.piece), square: g.square, pieces: captured(g) });
      case "lifted_out_of_turn":
        return _("Put {piece} back on {square} — {to_move}", { piece: the(g.piece), square: g.square, to_move: _(TO_MOVE[g.turn]) });
      case "unexpected_piece":
        return _("Clear {squares}: no piece belongs there", { squares: listText(g.squares) });
      case "pieces_missing":
        return _("Put back {pieces}", { pieces: pieceList(pairs(g)) });
      case "knocked": {
        const k = g.knocks || [];
        const one = (x) => _("{piece} from {to} back on {from}", { piece: the(x.piece), to: x.to, from: x.from });
        return k.length === 1 ? _("Knocked piece: put {what}", { what: one(k[0]) })
          : _("Knocked pieces: put {what}", { what: listText(k.map(one)) });
      }
      case "wrong_colour": {
        const parts = pairs(g).map(([s, p]) => _(HOLD[p], { square: s })).join("; ");
        return parts && pairs(g).length === 2 ? _("Swapped pieces? {what}", { what: parts }) : _("Wrong piece: {what}", { what: parts });
      }
    }
    const why = moveReason(code, g);
    return why === null ? null : _("Illegal: {reason} — put the piece back on {from}", { reason: why, from: g.from });
  }

  /* Boards that cannot tell colours: the defenders and the king the game believes to check. */
  const CHECK = {
    setup: N_("The board is set up: check the pieces: {pieces}; every other piece is an attacker. {to_move}"),
    resume: N_("The game goes on: check the pieces: {pieces}; every other piece is an attacker. {to_move}"),
    takeback: N_("After the takeback, check the pieces: {pieces}; every other piece is an attacker. {to_move}"),
    other: N_("Check the pieces: {pieces}; every other piece is an attacker. {to_move}"),
  };
  function checkPieces(g) {
    const defenders = pairs(g).filter(([, p]) => p === "T").map(([s]) => s).sort();
    const parts = [];
    if (defenders.length) {
      const squares = listText(defenders);
      const text = ngettext("defender on {squares}", "defenders on {squares}", defenders.length, { squares: squares });
      parts.push(text);
    }
    pairs(g).filter(([, p]) => p === "K").forEach(([s]) => {
      const text = _("the king on {square}", { square: s });
      parts.push(text);
    });
    const none = _("no defenders");
    const toMove = _(TO_MOVE[g.side]);
    return _(CHECK[g.reason] || CHECK.other, { pieces: parts.length ? parts.join(", ") : none, to_move: toMove });
  }

  /* The sentence for a guidance object; null when this page has no words for it (then the
     daemon's English message is shown). */
  function guidanceText(g) {
    if (!g || !g.kind) return null;
    switch (g.kind) {
      case "waiting": return _("Waiting for the board");
      case "setup": return setup(g);
      case "setup_complete": return _("Setup complete");
      case "to_move": return _(TO_MOVE[g.side]);
      case "lifted": return _("{to_move}: {piece} from {square}", { to_move: _(TO_MOVE[g.side]), piece: _(T.PIECE[g.piece]), square: g.square });
      case "moving_again": return _("Moving {piece} from {square} again", { piece: the(g.piece), square: g.square });
      case "make_move":
        if (g.wrong) return _("Put {piece} back on {square}: the move to make is {from} to {to}", { piece: the(g.wrong_piece), square: g.wrong, from: g.from, to: g.to });
        if (g.lifted) return _("Put {piece} on {to}", { piece: the(g.piece), to: g.to });
        return _("Move {piece} from {from} to {to}", { piece: the(g.piece), from: g.from, to: g.to });
      case "lift_captured": return _("Lift {pieces}", { pieces: captured(g) });
      case "takeback": return _("Takeback: put {pieces} back", { pieces: captured(g) });
      case "illegal": case "warning": return fault(g);
      case "game_over": {
        const head = g.winner ? _(T.WIN[g.winner]) : _("Draw");
        const why = T.reasonText(g.reason, g.winner || "draw");
        const result = why ? _("{head} ({reason})", { head: head, reason: why }) : head;
        return (g.squares || []).length ? _("Game over: {result} — lift {pieces}", { result: result, pieces: captured(g) })
          : _("Game over: {result}", { result: result });
      }
      case "check_pieces": return checkPieces(g);
      case "reading": {
        const n = (g.squares || []).length;
        return ngettext("Set up any position: {n} piece on the board; say on the page which is which and who moves",
          "Set up any position: {n} pieces on the board; say on the page which is which and who moves", n);
      }
      case "suspended":
        return g.reason === "storage" ? _("Paused: moves cannot be saved (the storage is failing). No move is accepted until it works again.")
          : _("Paused: {reason}. No move is accepted until then.", { reason: g.reason || "" });
    }
    return null;
  }

  T.guidanceText = guidanceText;
  T.carryBack = carryBack;
})();
