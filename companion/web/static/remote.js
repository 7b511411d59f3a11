/* tafl-companion page: the page of a player link (window.T.remote), loaded for a player only.
   His side, what he may do now, his move chosen by tapping a piece and then one of its legal
   targets (from /api/legal; the move then becomes the move to make at the board), and his
   draw offers, answers and resignation, for his side only. */
"use strict";
(function () {
  const T = window.T;
  const { _, esc, other } = T;
  const $ = (id) => document.getElementById(id);
  let S = null, me = { role: "spectator" }, pick = null, legal = null;
  const playerOf = (side) => T.live.playerOf(side);
  const say = (text, bad) => T.live.say(text, bad);

  function canChoose() {
    return S && me.role === "player" && S.result === "ongoing" && S.turn === me.side &&
      playerOf(me.side).kind === "page" && !S.move_to_make;
  }

  function whyNot() {
    if (S.result !== "ongoing") return _("The game is over.");
    if (S.turn !== me.side) return S.turn === "attackers" ? _("Not your turn: the attackers are to move.") : _("Not your turn: the defenders are to move.");
    if (S.move_to_make) return _("Your move {from} to {to} waits to be made at the board.", S.move_to_make);
    if (playerOf(me.side).kind !== "page") return _("Your side plays at the board: make your moves there.");
    return "";
  }

  function render() {
    S = T.live.state();
    me = T.live.me();
    if (!S || me.role !== "player") return;
    const over = S.result !== "ongoing";
    const side = me.side, p = playerOf(side);
    const a = { name: p.name || "?" };
    let text = side === "attackers" ? _("You play the attackers ({name}).", a) : _("You play the defenders ({name}).", a);
    if (canChoose()) text += " " + _("Your move: tap a piece, then where it goes.");
    else if (!over) text += " " + whyNot();
    $("youtext").textContent = text;
    const row = $("yourow"), key = over + ":" + S.draw_offer + ":" + side;
    if (row.dataset.key === key) return;
    row.dataset.key = key;
    const btn = (act, extra, words) => `<button type="button" data-you="${act}"${extra}>${esc(words)}</button>`;
    let html = "";
    if (!over) {
      // an offer to this side is answered in the banner above the board (app.js)
      if (!S.draw_offer) html += btn("offer", "", _("Offer a draw"));
      html += btn("resign", "", _("Resign"));
    }
    row.innerHTML = html;
  }

  function loadLegal() {
    if (!canChoose()) return Promise.resolve(null);
    if (legal && legal.game === S.game && legal.ply === S.moves.length) return Promise.resolve(legal);
    return T.getJSON("/api/legal").then((j) => { legal = j; return j; });
  }

  function click(sq) {
    S = T.live.state();
    me = T.live.me();
    if (S) choose(sq);
  }

  function choose(sq) {
    if (!canChoose()) { pick = null; say(whyNot() || _("Read-only: this page cannot move pieces."), true); return; }
    loadLegal().then((l) => {
      if (!l) return;
      const targets = pick && l.moves[pick] ? l.moves[pick].map((t) => t.to) : [];
      if (targets.includes(sq)) {
        const from = pick;
        pick = null;
        T.live.redraw();
        T.api("/api/move", { from: from, to: sq }).catch(T.refused);
        return;
      }
      pick = l.moves[sq] && sq !== pick ? sq : null;
      if (!pick && l.moves[sq] === undefined && S.position && T.parseOtn(S.position, S.size)[sq]) {
        say(_("That piece cannot move now."), false);
      }
      T.live.redraw();
    });
  }

  $("yourow").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-you]");
    if (!b || !S) return;
    const act = b.dataset.you;
    let call;
    if (act === "resign") {
      if (!confirm(_("Do you resign?"))) return;
      call = T.api("/api/resign", {});
    } else {
      call = T.api("/api/draw", { action: act });
    }
    call.catch(T.refused);
  });

  /* The chosen piece and its targets, for the board drawing. */
  function picked() {
    const targets = pick && legal && legal.moves[pick] ? legal.moves[pick] : null;
    return targets ? { from: pick, to: targets } : null;
  }

  T.remote = { render, click, pick: picked, reset: () => { pick = null; } };
  render();
  T.live.redraw();
})();
