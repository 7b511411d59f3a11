/* tafl-companion page, the live game. Live state by Server-Sent Events (fallback: polling
   /api/state), the board drawn as SVG, the clocks, the players, the move to make, the session's
   events, and what this viewer may do: the owner (an owner session token, made from the PIN),
   a player (a player link, /?player=TOKEN: his side's moves and draw answers) or a spectator
   (sees everything, acts on nothing). The review, rules cards, analysis, owner's forms and the
   coach's warning load when first used (T.load). Words come from window.T. */
"use strict";
(function () {
  const T = window.T, P = T.play, A = T.announce;
  const { _, N_, esc, sideName, resultText, variantLabel, TO_MOVE, other, playerName } = T;
  const $ = (id) => document.getElementById(id);
  const SIDES = P.SIDES;
  // latest state from the daemon
  let S = null;
  // is the daemon answering?
  let reachable = false;
  /* Credentials: this browser keeps an owner session token (made by POST /api/auth from the
     PIN), never the PIN itself; a PIN from the #pin= link or an older page is held in memory
     only until it is exchanged. A player link's token (/?player=...) is kept: this page then
     acts as that player. */
  let owner = localStorage.getItem("tafl-owner") || "";
  let pin = localStorage.getItem("tafl-pin") || "";
  localStorage.removeItem("tafl-pin");
  let player = localStorage.getItem("tafl-player") || "";
  let me = { role: "spectator", side: null };
  let zoom = false, es = null, pollTimer = null, lastMoves = "", ticker = null;
  let results = {}, resultsKey = "", seenEvent = null;
  // the state a notice belongs to (see showNote)
  let noteKey = "", noteTimer = null;
  // why this page's player link no longer works
  let linkEnded = "";
  window.taflLatency = []; // ms from a move's acceptance to its drawing (tests, bench)

  if (location.hash.indexOf("#pin=") === 0) {
    pin = decodeURIComponent(location.hash.slice(5));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const query = new URLSearchParams(location.search);
  if (query.get("player")) {
    player = query.get("player");
    localStorage.setItem("tafl-player", player);
    query.delete("player");
    const rest = query.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
  }

  const isOwner = () => me.role === "owner";
  const playerOf = (side) => (S && S.players && S.players[side]) || {};

  /* What the companion says now, in this page's language. Structured guidance is rendered from
     its kind; the daemon's English message is the fallback for what has no entry yet. */
  function message() {
    const board = S.board || {};
    if (!board.connected && S.result === "ongoing") {
      return _("The board is not connected: no move can be seen until it is back.") + (board.detail ? " (" + board.detail + ")" : "");
    }
    // a game with another board of the club
    const far = T.club && T.club.message(S);
    if (far) return far;
    // "Move the defender from f4 to i4" is for the hands at the board, not a player's phone
    if (me.role === "player" && S.guidance && S.guidance.kind === "make_move") return _("Waiting for the move to be made at the board.");
    const said = T.guidanceText(S.guidance);
    if (said) return said;
    const over = S.result !== "ongoing";
    const m = S.message || "";
    if (/^(Attackers|Defenders) to move\.?$/.test(m)) return _(TO_MOVE[S.turn]) + ".";
    if (over && (!m || /^(Draw|Attackers win|Defenders win)\b/.test(m))) return resultText(S.result, S.reason) + ".";
    return m;
  }

  /* A part the board plays without (display, buttons, LEDs) that is missing now: which, how to
     check for it, and that it is tried again (board.parts; companion/parts.py). */
  const MISSING_PART = {
    display: N_("The display is missing: the board plays without it and looks for it again every {seconds} s. To check: {check}"),
    buttons: N_("The buttons are missing: the board plays without them and looks for them again every {seconds} s. To check: {check}"),
    leds: N_("The LEDs are missing: the board plays without them (the page shows them) and looks for them again every {seconds} s. To check: {check}"),
  };
  function partsText(parts) {
    return parts.map((p) => {
      const said = MISSING_PART[p.part] ? _(MISSING_PART[p.part], { seconds: Math.round(p.retry_s), check: p.check }) : p.part;
      return said + " (" + p.problem + ")";
    }).join(" ");
  }

  function illegalNow() {
    const kind = S.guidance && S.guidance.kind;
    return kind === "illegal" || Object.values(S.leds || {}).includes("illegal");
  }

  /* ---- drawing ---- */
  function drawBoard() {
    const show = A.settings.threats && S.result === "ongoing" ? S.threat : null;
    const choice = T.remote ? T.remote.pick() : null;
    T.drawBoard($("board"), {
      size: S.size, throne: S.throne, corners: S.corners || [], flip: T.flip,
      pos: T.parseOtn(S.position, S.size), occ: new Set(S.occupied || []), leds: S.leds || {},
      last: S.last, threat: show, pick: choice, back: T.carryBack(S.guidance),
      clear: S.guidance && S.guidance.kind === "setup" ? S.guidance.clear : [],
      taken: S.last ? S.last.captured.map((sq) => ({ square: sq, piece: takenPiece(sq) })) : [],
    });
    $("zoom").hidden = S.size < 13;
    $("boardwrap").classList.toggle("zoom", zoom && S.size >= 13);
  }

  /* The kind of piece the last move captured: the record marks soldiers "x<square>", never
     the king. */
  function takenPiece(sq) {
    const last = S.last;
    if (last.text.indexOf("x" + sq) < 0) return "K";
    return last.side === "attackers" ? "T" : "t";
  }

  function render() {
    if (!S || (T.review && T.review.active())) return;
    drawBoard();
    const over = S.result !== "ongoing";
    const board = S.board || {};
    let head, dot;
    if (!reachable) { head = _("Companion unreachable"); dot = "off"; }
    else if (!board.connected) { head = _("Board not connected"); dot = "off"; }
    else if (over) { head = _("Game over"); dot = "over"; }
    else { head = _(TO_MOVE[S.turn]); dot = S.turn; }
    $("turndot").className = "dot " + dot;
    $("turntext").textContent = head;
    const msg = $("msg");
    msg.textContent = reachable ? message() : _("The companion does not answer: trying again…");
    const roles = Object.values(S.leds || {});
    const kind = S.guidance ? S.guidance.kind : "";
    msg.className = "msg" + (!reachable || !board.connected || illegalNow() || kind === "suspended" ? " bad"
      : roles.includes("capture") || roles.includes("setup") || /^(warning|setup|lift_captured|takeback|make_move)$/.test(kind) ? " act" : "");
    renderOver(over);
    // a position of one's own: the editor follows the board
    if (T.setup) T.setup.live(S);
    // check the pieces' kinds (check.js, on demand)
    if (T.check || kind === "check_pieces") {
      if (T.check) T.check.render(S, me);
      else T.load("check").then(() => S && T.check.render(S, me), () => {});
    }
    const quiet = over && S.guidance && S.guidance.kind === "game_over" && !(S.guidance.squares || []).length;
    // the banner says it (nothing to lift)
    msg.hidden = reachable && board.connected && !!quiet;
    const threat = $("threat");
    const t = A.settings.threats && !over ? S.threat : null;
    threat.hidden = !t;
    if (t) threat.textContent = A.threatWords(t) + ".";
    renderToMake();
    if (S.coach?.warning || T.coach) T.load("coach").then(() => T.coach());
    renderSides(over);
    renderClocks();
    const m = S.match;
    // after the game the banner has it
    $("matchline").hidden = !m || over;
    if (m) $("matchline").textContent = P.matchText(m);
    const house = T.houseRulesText(S.settings && S.settings.options);
    $("houserules").hidden = !house;
    $("houserules").textContent = house;
    renderDrawBanner(over);
    renderDispute();
    renderChat();
    renderYou();
    renderHelp(over);
    if (noteKey && noteKey !== stateKey()) hideNote();
    renderEvents();
    const bs = $("boardstatus");
    if (!reachable) {
      bs.textContent = _("No connection to the companion: the board's state is unknown.");
    } else {
      const detail = board.kind === "sim" ? (isOwner() ? _("a simulated board: click a square to lift or place a piece") : "") : board.detail;
      bs.textContent = (board.connected ? _("Board connected") : _("Board not connected")) +
        ` (${board.kind})` + (detail ? ": " + detail : "") + " · " +
        variantLabel(S.variant, S.size, S.variant_name) + " · " + _("game {id}", { id: S.game });
    }
    bs.className = "small" + (reachable && board.connected ? "" : " bad");
    const missing = (reachable && board.parts) || [];
    $("parts").hidden = !missing.length;
    $("parts").textContent = partsText(missing);
    document.body.classList.toggle("stale", !reachable);
    renderMoves();
    if (T.owner) T.owner.render(S);
    if ($("ctl").hidden && ownerReady) showControls(unlockedHere());
    $("analysebtn").hidden = !over || !S.moves.length;
    document.querySelectorAll("#ctl [data-act=resign]").forEach((b) => { b.hidden = over; });
    if (T.live.extra) T.live.extra(S, me);
    if (S.display || T.panel) (T.panel ? Promise.resolve() : T.loadSmall("panel")).then(() => T.panel.render(S, me)); // the display
    for (const [d, on] of [["explorer"], ["puzzles", T.puzzles || S.puzzle]]) if (on || $(d).open) Promise.resolve(T[d] || T.load(d)).then(() => T[d].render(S));
    // voice: repeat, clocks, position
    $("voicerow").hidden = !(S.voice && isOwner());
    renderClub();
  }

  /* ---- a board of a club: the broker link, the game with another board, proposals
     (club.js, loaded when the board is in a club) ---- */
  function renderClub() {
    if (T.club) T.club.render(S, me);
    else if (S.remote && S.remote.kind === "club") T.load("club").catch(() => {});
  }

  /* The move chosen off the board (a phone player, the computer), to be made at the board. */
  function renderToMake() {
    const m = S.move_to_make, el = $("tomake");
    el.hidden = !m;
    if (!m) return;
    const p = playerOf(m.side), a = { name: p.name ? playerName(p.name) : sideName(m.side), from: m.from, to: m.to }, att = m.side === "attackers";
    let text = m.by === "page" ? (att ? _("{name} (attackers, on a phone) plays {from} to {to}.", a) : _("{name} (defenders, on a phone) plays {from} to {to}.", a))
      : m.by === "online" ? (att ? _("{name} (attackers, online) plays {from} to {to}.", a) : _("{name} (defenders, online) plays {from} to {to}.", a))
      : m.by === "club" && T.club ? T.club.toMake(m, a)
      : (att ? _("The computer (attackers) plays {from} to {to}.", a) : _("The computer (defenders) plays {from} to {to}.", a));
    text += " " + (me.role === "player" && me.side === m.side ? _("Waiting for the move to be made at the board.")
      : _("Make this move on the board."));
    if (m.captures && m.captures.length) {
      text += " " + T.ngettext("Then lift the captured piece on {squares}.", "Then lift the captured pieces on {squares}.",
        m.captures.length, { squares: T.listText(m.captures) });
    }
    el.textContent = text;
  }

  function renderSides(over) {
    for (const side of SIDES) {
      const el = $("side-" + side), p = playerOf(side);
      el.className = "side" + (!over && S.turn === side ? " now" : "") + (me.role === "player" && me.side === side ? " mine" : "");
      const n = (S.captures || {})[side] || 0;
      const took = side === "attackers" ? T.ngettext("took {n} defender", "took {n} defenders", n)
        : T.ngettext("took {n} attacker", "took {n} attackers", n);
      const you = me.role === "player" && me.side === side ? " · " + _("you") : "";
      el.innerHTML = `<b>${esc(sideName(side))}${esc(you)}</b>` +
        (p.name ? `<span class="pname">${esc(playerName(p.name))}</span>` : "") +
        `<span class="small">${esc(P.kindText(p))}</span><span class="small">${esc(took)}</span>` +
        (p.name ? `<span class="small res">${esc(P.resultsText(results[p.name]))}</span>` : "") +
        ((S.hints || {})[side] ? `<span class="small">${esc(T.ngettext("{n} hint used", "{n} hints used", S.hints[side]))}</span>` : "");
    }
    const key = S.game + ":" + S.result + ":" + SIDES.map((s) => playerOf(s).name).join();
    if (key !== resultsKey) {
      resultsKey = key;
      T.getJSON("/api/players").then((j) => { results = j.players || {}; renderSides(S.result !== "ongoing"); }).catch(() => {});
    }
  }

  function renderClocks() {
    const el = $("clocks");
    SIDES.forEach((side) => {
      const p = playerOf(side);
      el.querySelector(`[data-side=${side}] .cname`).textContent = sideName(side) + (p.name ? " · " + playerName(p.name) : "");
    });
    const ticking = P.renderClocks(S, el);
    const pb = $("pausebtn");
    pb.hidden = !isOwner() || !S.clock || S.result !== "ongoing" || (!S.clock.running && !S.clock.paused) ||
      // a game at a distance: the clocks are not paused at one end
      !!(S.remote && S.remote.ref);
    pb.textContent = S.clock && S.clock.paused ? _("Resume the clocks") : _("Pause the clocks");
    if (ticking && !ticker) ticker = setInterval(() => { if (S && P.renderClocks(S, el) === false) stopTicker(); }, 100);
    else if (!ticking) stopTicker();
  }
  function stopTicker() { if (ticker) { clearInterval(ticker); ticker = null; } }

  /* A draw offer, and its answer right where the question is: for the player of the side that
     answers on a link, and for the owner when that side plays here (at the board or on a phone;
     the computer and a player at a distance answer for themselves). */
  function drawAnswerer() {
    const foe = other(S.draw_offer);
    if (me.role === "player") return me.side === foe ? "player" : null;
    return isOwner() && !/^(computer|engine|online|club)$/.test(playerOf(foe).kind || "") ? "owner" : null;
  }

  function renderDrawBanner(over) {
    const b = $("drawbanner");
    b.hidden = over || !S.draw_offer;
    if (b.hidden) { b.dataset.key = ""; return; }
    const foe = other(S.draw_offer), who = drawAnswerer(), key = S.draw_offer + ":" + who;
    if (b.dataset.key === key) return;
    b.dataset.key = key;
    const text = S.draw_offer === "attackers"
      ? _("The attackers offer a draw. The defenders may accept or decline.")
      : _("The defenders offer a draw. The attackers may accept or decline.");
    const accept = who === "player" ? _("Accept the draw")
      : foe === "attackers" ? _("Attackers accept the draw") : _("Defenders accept the draw");
    const btn = (action, words) => `<button type="button" data-draw="${action}">${esc(words)}</button>`;
    b.innerHTML = `<p>${esc(text)}</p>` +
      (who ? `<div class="drawanswer">${btn("accept", accept)}${btn("decline", _("Decline the draw"))}</div>` : "");
  }

  /* The game's chat at a distance where the game is (its history is in the online panel). */
  function renderChat() {
    const chat = (S.remote && S.remote.chat) || [], el = $("chatline");
    const c = chat.length ? chat[chat.length - 1] : null;
    el.hidden = !c;
    if (c) el.textContent = _("{by} says: {text}", { by: c.by, text: c.text });
  }

  /* The other end's record would drop moves of this board's: the board keeps them until the
     owner takes the other end's record (never on its word alone). */
  function renderDispute() {
    const d = S.remote && S.remote.dispute, box = $("disputebox");
    box.hidden = !d;
    if (!d) return;
    const words = { from: d.from };
    const text = S.remote.kind === "online"
      ? _("The server's record of this game disagrees with the board's from move {from} on. The board keeps its moves until you take the server's record.", words)
      : _("The other board's record of this game disagrees with this board's from move {from} on. This board keeps its moves until you take the other board's record.", words);
    $("disputetext").textContent = text;
    const btn = $("disputebtn");
    btn.hidden = !isOwner();
    btn.textContent = _("Take the other end's record");
  }
  $("disputebtn").addEventListener("click", () => {
    if (!confirm(_("Take the other end's record? The board's moves it lacks are taken back."))) return;
    api("/api/remote/take-record", {}).catch(refused);
  });

  $("drawbanner").addEventListener("click", (ev) => {
    const bt = ev.target.closest("button[data-draw]");
    if (!bt || !S || !S.draw_offer) return;
    const who = drawAnswerer(), body = { action: bt.dataset.draw };
    if (who === "owner") body.side = other(S.draw_offer);
    if (who) T.api("/api/draw", body).catch(T.refused);
  });

  /* ---- the computer's help: its thinking, hints ---- */
  const isComputer = (side) => /^(computer|engine)$/.test(playerOf(side).kind || "");
  function canHint() {
    if (!S || S.result !== "ongoing" || S.move_to_make || isComputer(S.turn) || S.hint_pending) return false;
    // no hints against a player at a distance
    if (S.remote && S.remote.ref) return false;
    return isOwner() || (me.role === "player" && me.side === S.turn);
  }

  function renderHelp(over) {
    const th = S.thinking, hint = S.hint, pend = S.hint_pending;
    const think = $("thinking"), ht = $("hinttext"), hb = $("hintbtn"), tb = $("thoughtsbtn");
    think.hidden = !th || over;
    if (!think.hidden) {
      let t = th.side === "attackers" ? _("The computer (attackers) is thinking…") : _("The computer (defenders) is thinking…");
      if (A.settings.thoughts && (th.best || th.score !== undefined || th.mate !== undefined) && advice()) t += " " + T.advice.thoughtText(th);
      think.textContent = t;
    }
    tb.hidden = think.hidden;
    tb.textContent = A.settings.thoughts ? _("Hide what the computer thinks") : _("Show what the computer thinks");
    ht.hidden = !(hint || pend) || over;
    if (!ht.hidden) ht.textContent = !hint ? _("The engine looks for a hint…") : advice() ? T.advice.hintText(hint) : "";
    hb.hidden = !canHint() || !!hint;
    const used = S.hints || {};
    hb.textContent = _("Hint");
    $("help").hidden = think.hidden && ht.hidden && hb.hidden;
    if ((used.attackers || used.defenders) && advice()) hb.title = T.advice.hintsUsedText(used);
  }

  /* The words for the computer's thoughts and hints (advice.js): loaded when first needed. */
  function advice() {
    if (!T.advice) T.load("advice").then(() => render());
    return !!T.advice;
  }

  $("hintbtn").addEventListener("click", () => { api("/api/hint", {}).catch(refused); });
  ["explorer", "puzzles"].forEach((d) => $(d).addEventListener("toggle", () => S && render()));
  // the board says it (POST /api/voice)
  $("voicerow").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-voice]");
    if (b) api("/api/voice", { action: b.dataset.voice }).catch(refused);
  });
  $("thoughtsbtn").addEventListener("click", () => { A.set("thoughts", !A.settings.thoughts); render(); });

  /* ---- the player of a player link (remote.js, loaded for a player only) ---- */
  function renderYou() {
    $("you").hidden = me.role !== "player" && !linkEnded;
    // a link that ended says so until the page is left
    if (me.role !== "player") {
      if (linkEnded) { $("youtext").textContent = linkEnded; $("yourow").innerHTML = ""; $("yourow").dataset.key = ""; }
      return;
    }
    if (T.remote) T.remote.render();
    else T.load("remote").then(() => T.remote.render());
  }

  /* ---- after the game: the result, the match and what to do next (over.js, loaded when a
     game ends) ---- */
  function renderOver(over) {
    $("over").hidden = $("result").hidden = !over;
    if (!over) return;
    $("result").textContent = resultText(S.result, S.reason);
    if (T.over) T.over.render(S, me);
    else T.load("over").then(() => S && S.result !== "ongoing" && T.over.render(S, me));
  }

  /* ---- the session's events: who did what ---- */
  /* The events of the game on the board: those since its "Game N started" (an event that
     names its game must name this one). */
  function gameEvents() {
    const evs = (S && S.events) || [];
    let from = 0;
    for (let i = evs.length - 1; i >= 0; i--) if (evs[i].kind === "new_game") { from = i; break; }
    return evs.slice(from).filter((e) => e.game === undefined || e.game === S.game);
  }

  /* A notice belongs to the state it was shown in: the next move, a new game or the end of the
     game (the banner then says what matters) put it away, and so does half a minute. */
  const stateKey = () => S.game + ":" + S.moves.length + ":" + S.result;
  function showNote(text, strong) {
    const note = $("note");
    note.textContent = text;
    note.hidden = S.result !== "ongoing";
    note.className = "note" + (strong ? " strong" : "");
    noteKey = stateKey();
    clearTimeout(noteTimer);
    noteTimer = setTimeout(hideNote, 30000);
  }
  function hideNote() {
    $("note").hidden = true;
    noteKey = "";
    clearTimeout(noteTimer);
  }

  function renderEvents() {
    const evs = S.events || [];
    const shown = gameEvents().map((e) => [e, P.eventText(e, S)]).filter((x) => x[1]);
    $("happened").hidden = !shown.length;
    $("events").innerHTML = shown.slice(-8).reverse().map(([e, text]) =>
      `<li><span class="small">${esc(timeText(e.t))}</span> ${esc(text)}</li>`).join("");
    const last = evs.length ? evs[evs.length - 1] : null;
    const key = last ? last.id + ":" + last.t : "";
    // what happened before this page opened
    if (seenEvent === null) { seenEvent = key; return; }
    if (key === seenEvent) return;
    const before = seenEvent;
    seenEvent = key;
    const fresh = [];
    for (let i = evs.length - 1; i >= 0 && evs[i].id + ":" + evs[i].t !== before; i--) fresh.unshift(evs[i]);
    const mine = new Set(gameEvents());
    fresh.forEach((e) => {
      const text = P.eventText(e, S);
      if (!text || !mine.has(e)) return;
      // the move to make and a hint have their own boxes: no notice besides
      if (e.kind !== "move_to_make" && e.kind !== "hint") showNote(text, /^(resign|flag|takeback|draw)$/.test(e.kind));
      A.announce(e.kind === "move_to_make" ? "move" : "event", text);
    });
  }

  function timeText(t) {
    try { return new Date(t * 1000).toLocaleTimeString(T.LOCALE, { hour: "2-digit", minute: "2-digit" }); } catch (e) { return ""; }
  }

  function renderMoves() {
    const key = S.game + ":" + S.moves.length + ":" + S.moves[S.moves.length - 1];
    if (key === lastMoves) return;
    lastMoves = key;
    $("nmoves").textContent = S.moves.length ? "(" + S.moves.length + ")" : "";
    const first = S.first === "defenders" ? 1 : 0;
    const plies = first ? [null].concat(S.moves) : S.moves;
    const o = [];
    for (let i = 0; i < plies.length; i += 2) {
      const a = plies[i], d = plies[i + 1];
      const cls = (k) => (k === plies.length - 1 ? ' class="last"' : "");
      o.push(`<li><span${cls(i)}>${a ? esc(a) : "…"}</span><span${cls(i + 1)}>${d ? esc(d) : ""}</span></li>`);
    }
    const ol = $("moves");
    ol.innerHTML = o.join("");
    ol.scrollTop = ol.scrollHeight;
  }

  function apply(state) {
    const prev = S;
    const ended = prev && prev.game === state.game && prev.result === "ongoing" && state.result !== "ongoing";
    const moved = prev && state.moves.length > prev.moves.length && state.game === prev.game;
    if (T.remote && prev && (state.game !== prev.game || state.moves.length !== prev.moves.length)) T.remote.reset();
    S = state;
    render();
    if (moved && state.accepted_at) window.taflLatency.push(Date.now() - state.accepted_at * 1000);
    A.onState(prev, S, message(), illegalNow());
    if (ended && !(T.review && T.review.active())) $("over").scrollIntoView({ block: "nearest", behavior: "smooth" });
    // who a link stands for follows its player: ask again when the seating changes (a new
    // game, the match's next game, a swap of sides or other players), not only with the game
    if (prev && me.role === "player" && seating(prev) !== seating(S)) whoami();
  }

  function seating(s) {
    const p = s.players || {}, name = (side) => (p[side] || {}).name + "/" + (p[side] || {}).kind;
    return [s.game, s.match ? s.match.game : 0, name("attackers"), name("defenders")].join("|");
  }

  /* ---- live connection ---- */
  function setConn(kind, text) {
    const c = $("conn");
    c.className = "conn " + kind;
    c.textContent = text;
    setReachable(kind !== "off");
  }

  function setReachable(ok) {
    if (ok !== reachable) { reachable = ok; render(); }
  }

  function poll() {
    fetch("/api/state", { cache: "no-store" }).then((r) => r.json()).then((s) => {
      if (pollTimer) setConn("poll", _("polling"));
      else reachable = true;
      apply(s);
    }).catch(() => setConn("off", _("offline")));
  }

  function startPolling() {
    if (!pollTimer) { pollTimer = setInterval(poll, 1000); poll(); }
  }

  function connect() {
    if (!window.EventSource) { startPolling(); return; }
    es = new EventSource("/api/events");
    es.onopen = () => {
      if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
      setConn("live", _("live"));
      P.syncTime();
    };
    es.onmessage = (e) => { setConn("live", _("live")); apply(JSON.parse(e.data)); };
    es.onerror = () => {
      // refused (e.g. too many live pages): poll, retry later
      if (es.readyState === 2) {
        es = null;
        startPolling();
        setTimeout(connect, 20000);
      } else {
        setConn("off", _("reconnecting"));
      }
    };
  }

  /* ---- credentials and controls ---- */
  function credentials(withPin) {
    const h = {};
    if (withPin) h["X-Tafl-Pin"] = withPin;
    else if (player) h["X-Tafl-Player"] = player;
    else if (owner) h["X-Tafl-Token"] = owner;
    else if (pin) h["X-Tafl-Pin"] = pin;
    return h;
  }

  async function api(path, body, withPin) {
    const headers = Object.assign({ "Content-Type": "application/json", "X-Tafl-Request": "1" }, credentials(withPin));
    const r = await fetch(path, { method: "POST", headers: headers, body: JSON.stringify(body || {}), credentials: "same-origin" });
    let j = {};
    try { j = await r.json(); } catch (e) { /* not JSON */ }
    if (!r.ok) {
      const err = new Error(j.error || r.status + " " + r.statusText);
      err.status = r.status;
      err.code = j.code || "";
      if (j.reason) { err.reason = j.reason; err.values = j.values || {}; }  /* an import's */
      throw err;
    }
    return j;
  }
  T.api = api;

  /* Who this page acts for: owner, player (and his side) or spectator. */
  function whoami() {
    return fetch("/api/whoami", { cache: "no-store", headers: credentials() }).then((r) => r.json().then((j) => {
      if (r.ok) { me = { role: j.role, side: j.side }; return; }
      me = { role: "spectator", side: null };
      if (j.code === "bad_link" && player) {
        player = "";
        localStorage.removeItem("tafl-player");
        T.load("errors").then(() => { linkEnded = T.errorText({ code: "bad_link", message: j.error }); render(); }, () => {});
        return whoami();
      }
      // said at once, not only at the next control
      if (j.code === "session_expired") {
        forget();
        $("controls").open = true;
        ctlMsg(_("This device's owner session has ended: enter the PIN again."), true);
      }
    })).catch(() => {}).then(showUnlocked);
  }

  function ctlMsg(text, bad) {
    const p = $("ctlmsg");
    p.textContent = text;
    p.className = "small" + (bad ? " bad" : "");
  }

  function say(text, bad) {
    const msg = $("msg");
    msg.textContent = text;
    msg.hidden = false;
    msg.className = "msg" + (bad ? " bad" : " act");
  }

  /* The owner's quick controls: owner.js (loaded on demand) adds rows to them (the draw
     buttons, the evaluation), so they are shown once it has drawn them with a state: drawn
     later, those rows moved "New game or match" down from under a finger (or a test's click,
     seen at load 45: the form never opened). A script that cannot load shows them as they are. */
  let ownerReady = false;
  function showControls(on) {
    if (on && !ownerReady) {
      T.load("owner").catch(() => {}).then(() => { ownerReady = true; showUnlocked(); });
    }
    $("ctl").hidden = !(on && ownerReady && (S || !T.owner));
  }

  const unlockedHere = () => isOwner() || (!player && !!(owner || pin));
  function showUnlocked() {
    const on = unlockedHere();
    showControls(on);
    $("pinform").hidden = on || !!player;
    $("importform").hidden = !on;
    $("controls").hidden = !!player && !on;
    if (S) render();
  }

  function forget() {
    owner = pin = "";
    localStorage.removeItem("tafl-owner");
    if (me.role === "owner") me = { role: "spectator", side: null };
  }

  /* Trade a PIN for an owner session token (kept); the PIN itself is dropped. */
  function unlock(given) {
    return api("/api/auth", {}, given).then((j) => {
      if (j.token) {
        owner = j.token;
        pin = "";
        localStorage.setItem("tafl-owner", owner);
      } else {
        // a daemon without sessions: in memory only, never stored
        pin = given;
      }
      me = { role: j.role || "owner", side: j.side || null };
      showUnlocked();
    });
  }

  const PIN_CODES = ["pin_required", "bad_pin", "session_expired", "forbidden"];
  function refused(e) {
    if (!e || !e.code) { if (e && e.message) { ctlMsg(e.message, true); say(e.message, true); } return; }
    T.load("errors").then(() => T.errorText(e), () => e.message).then((text) => {
      if (e.status === 403 && PIN_CODES.includes(e.code) && me.role !== "player") {
        if (e.code !== "forbidden") forget();
        showUnlocked();
        $("controls").open = true;
        ctlMsg(text, true);
        say(e.code === "forbidden" || e.code === "pin_required" ? _("Read-only: enter the PIN under Controls to move pieces.") : text, true);
      } else {
        ctlMsg(text, true);
        say(text, true);
      }
      if (e.code === "bad_link" && player) whoami();
    });
  }
  T.refused = refused;

  let clicks = Promise.resolve();
  $("board").addEventListener("click", (ev) => {
    const t = ev.target.closest("[data-sq]");
    if (!t || !S) return;
    if (me.role === "player") { T.load("remote").then(() => T.remote.click(t.dataset.sq)); return; }
    if (S.board.kind !== "sim") {
      say(S.board.kind === "replay" ? _("This board is a recorded game being replayed.") : _("Move the pieces on the real board."), false);
      return;
    }
    // one at a time, in the order tapped: two quick taps (lift, place) sent at once could reach
    // the daemon in the other order over two connections, and the place would come first
    clicks = clicks.then(() => api("/api/click", { square: t.dataset.sq }).catch(refused));
  });

  // Tries of the PIN answered out of order (quick taps, a busy daemon: each on a connection of
  // its own) would leave an older try's "Wrong PIN." over the "wait 30 s" of the latest: only
  // the answer to the latest try is shown.
  let pinTry = 0;
  $("pinform").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const given = $("pin").value.trim();
    if (!given) return;
    const mine = ++pinTry;
    unlock(given).then(() => {
      $("pin").value = "";
      ctlMsg(_("Controls unlocked."));
    }).catch((e) => { if (mine === pinTry) refused(e); });
  });

  $("pausebtn").addEventListener("click", () => {
    api("/api/clock", { action: S.clock.paused ? "resume" : "pause" }).catch(refused);
  });

  $("controls").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-act]");
    if (!b) return;
    if (b.dataset.act === "lock") {
      forget();
      showUnlocked();
      ctlMsg(_("Controls locked."));
      return;
    }
    T.load("owner").then(() => T.owner.act(b)).then((m) => m && ctlMsg(m)).catch(refused);
  });
  $("controls").addEventListener("toggle", () => {
    if ($("controls").open && isOwner()) T.load("owner").then(() => T.owner.render(S));
  });

  /* The owner's controls and forms (new game or match, players, phone links, board lights):
     loaded when first opened. */
  document.querySelectorAll("details[data-owner]").forEach((d) => d.addEventListener("toggle", () => {
    if (d.open) T.load("owner").then(() => T.owner.open(d.dataset.owner, S)).catch(() => {});
  }));

  /* online play on a hnefatafl.org server (online.js): loaded when first opened */
  $("online").addEventListener("toggle", () => { if ($("online").open) T.load("online").then(() => T.online.open()); });

  /* ---- past games (listed by review.js), the review, the analysis ---- */
  const review = () => T.load("review");
  $("games").addEventListener("toggle", () => { if ($("games").open) review().then(() => T.review.list()); });
  $("importfile").addEventListener("change", () => review().then(() => T.review.importChosen()));

  /* /review/<id>[#ply] opens the review (a view of its own); "/" the live game. */
  function route() {
    const m = /^\/review\/(\d+)$/.exec(location.pathname);
    const at = /^#\d+$/.test(location.hash) ? +location.hash.slice(1) : null;
    if (m) review().then(() => T.review.open(+m[1], at, false));
    else if (T.review && T.review.active()) T.review.close(false);
  }
  window.addEventListener("popstate", route);
  document.addEventListener("click", (ev) => {
    const a = ev.target.closest("a[data-review]");
    if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    review().then(() => T.review.open(+a.dataset.review));
  });
  $("analysebtn").addEventListener("click", () => {
    review().then(() => T.review.open(S.game, null, true, true));
  });

  /* ---- settings of this browser ---- */
  $("settings").addEventListener("change", (ev) => {
    const el = ev.target;
    if (el.dataset.set) { A.set(el.dataset.set, el.checked); render(); if (T.review) T.review.redraw(); }
    if (el.id === "lang") {
      document.cookie = "tafl-lang=" + el.value + "; path=/; max-age=31536000; samesite=lax";
      location.reload();
    }
    if (el.id === "theme") {
      document.cookie = "tafl-theme=" + el.value + "; path=/; max-age=" + (el.value ? 31536000 : 0) + "; samesite=lax";
      if (el.value) document.documentElement.dataset.theme = el.value;
      else delete document.documentElement.dataset.theme;
    }
  });
  document.querySelectorAll("[data-set]").forEach((el) => { el.checked = !!A.settings[el.dataset.set]; });

  $("flip").addEventListener("click", () => {
    T.flip = !T.flip;
    T.store.set("flip", T.flip);
    if (S) drawBoard();
    if (T.review) T.review.redraw();
  });
  $("zoom").addEventListener("click", () => { zoom = !zoom; if (S) drawBoard(); });
  T.openRules = (what, options) => T.load("rules").then(() => T.showRules(what, options));
  $("rulesbtn").addEventListener("click", () => { if (S) T.openRules(S.variant, S.settings && S.settings.options); });
  $("rulesclose").addEventListener("click", () => $("rulescard").close());

  T.live = { render: () => render(), redraw: () => S && drawBoard(), state: () => S, me: () => me, playerOf, ctlMsg, say };
  showUnlocked();
  poll();
  connect();
  P.syncTime();
  (pin && !player ? unlock(pin).catch(refused) : whoami());
  route();
})();
