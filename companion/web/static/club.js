/* tafl-companion page: the club (window.T.club), loaded when this board is a board of a club
   (state.remote.kind "club", docs/club.md). For everyone: the link to the club's broker, the
   game with another board (waiting for its agreement, the other board offline, a refused
   message). For the owner: the other boards' proposals with a button to accept or decline
   each, and "a board of the club" as the opponent on the new-game form (owner.js asks
   T.club.formRows and T.club.players). */
"use strict";
(function () {
  const T = window.T;
  const { _, esc, other, sideName, variantName } = T;
  const $ = (id) => document.getElementById(id);
  const SIDES = ["attackers", "defenders"];
  let info = null;        // the latest GET /api/club/status
  let infoKey = null;     // the club state it was fetched for
  let loading = null;
  let said = "";          // the owner's last answer to a proposal

  const box = document.createElement("section");
  box.id = "clubbox";
  box.className = "clubbox";
  box.hidden = true;
  box.innerHTML = '<p id="clublink" class="small"></p><p id="clubgame" hidden></p><div id="clubprops"></div>';
  const anchor = $("drawbanner");
  anchor.parentNode.insertBefore(box, anchor.nextSibling);

  function fetchInfo() {
    if (!loading) {
      loading = T.getJSON("/api/club/status").then((j) => { info = j; return j; })
        .catch(() => info).then((j) => { loading = null; return j; });
    }
    return loading;
  }

  /* ---- the link and the game with another board ---- */
  function linkText(r) {
    const where = info ? _("Club {club}, this board: {board}", { club: info.club, board: info.board }) : _("Club");
    let state;
    if (r.state === "connected") state = _("connected to the club's broker");
    else if (r.state === "error") state = _("the club's broker refused this board: {error}", { error: (info && info.error) || r.message || "" });
    else if (r.state === "connecting") state = _("connecting to the club's broker…");
    else state = _("the club's broker cannot be reached: reconnecting (every move is kept and sent once it is back)");
    return where + " · " + state;
  }

  function gameText(r) {
    const a = { board: r.opponent || (info && info.active) || "?" };
    if (r.code === "offering") return _("Proposed to {board}: the game starts when {board} agrees.", a);
    if (r.code === "peer_offline") return _("{board} is offline: its moves arrive once it is back.", a);
    if (/^(bad_message|diverged|illegal_move|forged_move)$/.test(r.code || "")) {
      return _("A message from {board} was refused: {why}", { board: a.board, why: r.message || r.code });
    }
    if (r.code === "cannot_play") return _("The proposed game cannot be played on this board: {why}", { why: r.message || "" });
    if (r.ref) return _("Playing {board}, at another board of the club.", a);
    return "";
  }

  /* ---- the other boards' proposals ---- */
  function termsText(p) {
    const t = p.terms || {}, mine = (t.sides || {})[info ? info.board : ""] || "attackers";
    const a = {
      board: p.board, variant: variantName(t.variant, t.variant),
      clock: !t.time_control || t.time_control === "none" ? _("no clock") : t.time_control,
    };
    let text = mine === "attackers" ? _("{board} proposes {variant} ({clock}); this board plays the attackers.", a)
      : _("{board} proposes {variant} ({clock}); this board plays the defenders.", a);
    const house = T.houseRulesText(t.options);
    if (house) text += " " + house;
    return text;
  }

  function renderProposals(owner) {
    const props = (info && info.proposals) || [];
    const el = $("clubprops");
    const key = owner + ":" + said + ":" + props.map((p) => p.board + "/" + p.id).join();
    if (el.dataset.key === key) return;
    el.dataset.key = key;
    el.innerHTML = props.map((p) => `<div class="clubprop" data-board="${esc(p.board)}"><p>${esc(termsText(p))}</p>` +
      (owner ? `<div class="row"><button type="button" data-club="accept" data-board="${esc(p.board)}">${esc(_("Accept and play"))}</button>` +
        `<button type="button" data-club="decline" data-board="${esc(p.board)}">${esc(_("Decline"))}</button></div>` : "") +
      "</div>").join("") + (said ? `<p class="small" role="status">${esc(said)}</p>` : "");
  }

  function render(S, me) {
    const r = S && S.remote;
    box.hidden = !r || r.kind !== "club";
    if (box.hidden) return;
    const key = [r.state, r.code, r.ref, r.opponent].join("|");
    if (key !== infoKey) {
      infoKey = key;
      fetchInfo().then(() => render(T.live.state(), T.live.me()));
    }
    const link = $("clublink");
    link.textContent = linkText(r);
    link.className = "small" + (r.state === "connected" ? "" : " bad");
    const game = $("clubgame"), text = gameText(r);
    game.hidden = !text;
    game.textContent = text;
    game.className = /^(bad_message|diverged|illegal_move|forged_move|cannot_play|peer_offline)$/.test(r.code || "") ? "bad" : "";
    renderProposals(me && me.role === "owner");
  }

  box.addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-club]");
    if (!b) return;
    const board = b.dataset.board, S = T.live.state();
    if (b.dataset.club === "accept") {
      if (S && S.result === "ongoing" && S.moves.length && !S.remote.ref &&
          !confirm(_("Abandon this game and play {board}'s?", { board: board }))) return;
      T.api("/api/club/accept", { board: board }).then(() => {
        said = _("Accepted: the game with {board} starts.", { board: board });
      }).catch(T.refused).then(() => fetchInfo()).then(() => render(T.live.state(), T.live.me()));
    } else {
      T.api("/api/club/decline", { board: board }).then(() => {
        said = _("Declined: {board} sees no answer and may propose again.", { board: board });
      }).catch(T.refused).then(() => fetchInfo()).then(() => render(T.live.state(), T.live.me()));
    }
  });

  /* ---- "a board of the club" on the new-game form ---- */
  function formRows(S) {
    const ps = (S && S.players) || {};
    const far = SIDES.find((s) => ps[s] && ps[s].kind === "club");
    const you = far ? other(far) : "attackers", me = (ps[you] && ps[you].kind === "board" && ps[you]) || {};
    const boards = ((info && info.boards) || []).filter((b) => !info || b.board !== info.board);
    const chosen = far ? ps[far].board || ps[far].name : boards.length === 1 ? boards[0].board : "";
    return `<div class="row"><label for="nf-club-you">${esc(_("You play"))}</label><select id="nf-club-you">` +
      SIDES.map((s) => `<option value="${s}"${s === you ? " selected" : ""}>${esc(sideName(s))}</option>`).join("") + "</select></div>" +
      `<div class="row"><label for="nf-club-name">${esc(_("Your name"))}</label><input id="nf-club-name" maxlength="40" value="${esc(me.name || "")}"></div>` +
      `<div class="row"><label for="nf-club-board">${esc(_("The other board"))}</label>` +
      `<input id="nf-club-board" list="nf-club-boards" maxlength="32" autocomplete="off" value="${esc(chosen)}">` +
      `<datalist id="nf-club-boards">${boards.map((b) => `<option value="${esc(b.board)}">${esc(b.online ? _("online") : _("offline"))}</option>`).join("")}</datalist></div>` +
      `<p class="small" id="nf-club-seen">${esc(seenText(boards))}</p>` +
      `<p class="small">${esc(_("The game is proposed to that board: it starts when its owner accepts it, or at once when that board proposed the same game."))}</p>`;
  }

  function seenText(boards) {
    if (!boards.length) return _("No other board of the club is on the broker now.");
    return _("Boards on the broker: {boards}", {
      boards: boards.map((b) => b.board + " (" + (b.online ? _("online") : _("offline")) + ")").join(", "),
    });
  }

  /* The players of the new game: this board's side at the board, the other at that board. */
  function players() {
    const you = $("nf-club-you").value, board = $("nf-club-board").value.trim().toLowerCase();
    if (!/^[a-z0-9][a-z0-9_-]{0,31}$/.test(board)) throw new Error(_("Choose the other board of the club (its name, as on the broker)."));
    const out = {};
    out[you] = { kind: "board" };
    const name = $("nf-club-name").value.trim();
    if (name) out[you].name = name;
    out[other(you)] = { kind: "club", board: board };
    return out;
  }

  /* The form's rows again once the boards are known (the form opens before the answer). */
  function refreshForm(S) {
    return fetchInfo().then(() => {
      const rows = document.querySelector("#newform [data-mode=club]");
      if (rows && !rows.contains(document.activeElement)) rows.innerHTML = formRows(S);
    });
  }

  /* ---- the words of the live page for a game with another board (app.js, play.js) ---- */
  /* #msg: waiting for the agreement, or for the other board's move */
  function message(S) {
    const r = S && S.remote;
    if (!r || r.kind !== "club" || S.result !== "ongoing") return "";
    if (r.ref === "") return _("Waiting for {name} to agree on the game: no move counts before.", { name: r.opponent || "?" });
    if (!r.ref || S.turn === r.local_side || S.move_to_make || !S.guidance || S.guidance.kind !== "to_move") return "";
    const a = { name: (S.players[S.turn] || {}).name || "?" };
    return S.turn === "attackers" ? _("The attackers ({name}) play at a distance: waiting for their move.", a)
      : _("The defenders ({name}) play at a distance: waiting for their move.", a);
  }
  /* the move to make chosen at the other board */
  const toMake = (m, a) => (m.side === "attackers" ? _("{name} (attackers, at another board) plays {from} to {to}.", a)
    : _("{name} (defenders, at another board) plays {from} to {to}.", a));
  const kindText = (p) => _("at another board of the club ({board})", { board: p.board || p.name || "?" });
  const who = () => _("at the other board");

  T.club = { render, formRows, players, refreshForm, message, toMake, kindText, who };
  T.live.render();   // the live page again, with these words
})();
