/* tafl-companion page: a position of one's own to start a game from (window.T.setup), loaded
   when the owner chooses it in the new-game form: a study, an endgame, a game from a book.
   While the editor is open the daemon reads the board (POST /api/reading: the pieces are
   neither guided back nor judged) and the editor follows what stands on it; a board with reed
   switches cannot tell the colours, so each piece's kind is a guess shown here, and a tap
   changes it (or builds a position without the board). The side to move is chosen; the daemon
   checks the position for the variant (POST /api/new position + turn) and the game starts from
   it, which ends the reading. */
"use strict";
(function () {
  const T = window.T;
  const { _, esc } = T;
  const NEXT = { "": "t", t: "T", T: "K", K: "" };   // a tap: attacker, defender, king, empty
  const RENEW_MS = 20000;   // the daemon ends a reading 60 s after the page last asked
  let rules = null, R = null, pos = {}, box = null, follow = true, timer = null, seen = "";

  function loadRules() {
    return rules ? Promise.resolve(rules) : T.getJSON("/api/rules").then((j) => { rules = j.rules; return rules; });
  }

  /* The squares drawn as special (corners, throne) for rule set r. */
  function geometry(r) {
    const n = r.size, last = String.fromCharCode(96 + n), corners = [];
    if (r.corners !== "none") corners.push("a1", "a" + n, last + "1", last + n);
    const mid = String.fromCharCode(97 + (n >> 1)) + ((n >> 1) + 1);
    return { corners: corners, throne: r.throne_stop === "anyone" ? null : mid };
  }

  /* What the board reads (the daemon's reading, else the occupied squares), each piece with
     its kind: from its colour where the sensors tell it (a defender may be the king: where the
     game or the variant has its king), else the game's piece there, else the variant's, else
     an attacker (a tap corrects it). */
  function fromBoard() {
    const S = T.live.state(), out = {};
    if (!S || S.size !== R.size) return out;
    const g = S.guidance || {}, reading = g.kind === "reading";
    const squares = reading ? g.squares || [] : S.occupied || [], colours = (reading && g.colours) || {};
    const game = T.parseOtn(S.position, S.size), start = T.parseOtn(R.start, R.size);
    squares.forEach((sq) => {
      const c = colours[sq], guess = game[sq] || start[sq] || "t";
      out[sq] = c === "a" ? "t" : c === "d" ? (guess === "K" ? "K" : "T") : guess;
    });
    return out;
  }

  function otn() {
    const rows = [];
    for (let r = 0; r < R.size; r++) {
      let row = "", run = 0;
      for (let f = 0; f < R.size; f++) {
        const p = pos[T.sqName(f, r)];
        if (!p) { run += 1; continue; }
        if (run) row += run;
        run = 0;
        row += p;
      }
      rows.push(row + (run ? run : ""));
    }
    return "/" + rows.join("/") + "/";
  }

  function draw() {
    const g = geometry(R);
    T.drawBoard(box.querySelector("svg"), { size: R.size, throne: g.throne, corners: g.corners, pos: pos, flip: T.flip });
    const letters = Object.values(pos);
    const what = T.piecesText(letters) || _("no pieces");
    box.querySelector(".setupcount").textContent = letters.includes("K") ? what : what + " · " + _("the king is missing");
  }

  const shown = () => box && box.isConnected && !box.hidden && box.offsetParent !== null;

  /* Ask the daemon to read the board (on), again every RENEW_MS while the editor is shown. */
  function reading(on) {
    clearTimeout(timer);
    timer = null;
    T.api("/api/reading", { on: on }).catch(() => {});
    if (on) timer = setTimeout(() => (shown() ? reading(true) : stop()), RENEW_MS);
  }

  /* Show the editor for variant id `variant` in `into` (the new-game form's place for it). */
  function open(into, variant) {
    box = into;
    return loadRules().then((all) => {
      R = all[variant];
      if (!R) return;
      // a board of another size cannot be read as this variant's position: it is set up here
      // (the daemon is not asked to read the board, whose pieces would be counted instead)
      const S = T.live.state(), same = !!S && S.size === R.size;
      if (same) reading(true);
      else stop();
      follow = same;
      pos = fromBoard();
      if (!Object.keys(pos).length) pos = T.parseOtn(R.start, R.size);
      const turn = `<select id="setupturn"><option value="attackers">${esc(T.sideName("attackers"))}</option>` +
        `<option value="defenders">${esc(T.sideName("defenders"))}</option></select>`;
      const help = _("Set the pieces up on the board: the drawing follows it. Tap a square to change its piece: attacker, defender, king, empty. A board with reed switches cannot tell the colours: check each piece.");
      const read = _("Read the board"), empty = _("Empty"), start = _("Start position"), who = _("To move");
      const label = _("the position to start from");
      box.innerHTML = `<p class="small">${esc(help)}</p>` +
        `<svg class="board setupboard" role="img" aria-label="${esc(label)}"></svg>` +
        `<p class="small setupcount"></p>` +
        `<div class="row"><button type="button" data-setup="read">${esc(read)}</button>` +
        `<button type="button" data-setup="empty">${esc(empty)}</button>` +
        `<button type="button" data-setup="start">${esc(start)}</button></div>` +
        `<div class="row"><label for="setupturn">${esc(who)}</label>${turn}</div>`;
      box.querySelector("#setupturn").value = R.first;
      if (!same) {
        box.querySelector("[data-setup=read]").hidden = true;
        const note = document.createElement("p");
        note.className = "small setupsize";
        note.textContent = _("This board is {n}×{n} and {variant} is played on {m}×{m}: the position is set up here, tap by tap, not read from the board.",
          { n: S ? S.size : "?", m: R.size, variant: T.variantName(variant) });
        box.querySelector(".setupcount").after(note);
      }
      draw();
    });
  }

  /* The editor is put away (the start position chosen, the form closed): the board is the
     game's again. */
  function close() {
    stop();
    box = null;
  }

  /* No more reading (the editor is out of sight, or put away). */
  function stop() {
    const S = T.live.state();
    if (!timer) return;
    clearTimeout(timer);
    timer = null;
    if (S && S.tracking === "reading") reading(false);   // (a new game from it ended it)
  }

  /* A new state: while nobody has tapped since the board was read, the drawing follows it. */
  function live(S) {
    if (!box || !R) return;
    if (!shown()) { stop(); return; }
    if (S.size !== R.size) return;   // nothing to read: the position is set up on the page
    if (!timer) reading(true);
    const g = S.guidance || {}, now = JSON.stringify([g.squares, g.colours, S.occupied]);
    if (!follow || now === seen) return;
    seen = now;
    const read = fromBoard();
    if (Object.keys(read).length) { pos = read; draw(); }
  }

  function click(ev) {
    if (!box || !R) return;
    const b = ev.target.closest("[data-setup]"), sq = ev.target.closest("[data-sq]");
    if (b) {
      const act = b.dataset.setup;
      follow = act === "read";
      pos = act === "read" ? fromBoard() : act === "start" ? T.parseOtn(R.start, R.size) : {};
      draw();
    } else if (sq && box.contains(sq)) {
      follow = false;
      const s = sq.dataset.sq, next = NEXT[pos[s] || ""];
      if (next === "K") Object.keys(pos).forEach((k) => { if (pos[k] === "K") delete pos[k]; });   // one king
      if (next) pos[s] = next;
      else delete pos[s];
      draw();
    }
  }
  document.addEventListener("click", click);

  /* What the new game starts from: {position, turn}, or null when the editor is not open. */
  function value() {
    if (!box || !R || !box.isConnected || box.hidden) return null;
    return { position: otn(), turn: box.querySelector("#setupturn").value };
  }

  T.setup = { open, close, live, value, otn: () => otn() };
})();
