/* tafl-companion page, the live game. Live state by Server-Sent Events (fallback: polling
   /api/state), the board drawn as SVG, controls behind the PIN, settings of this browser.
   Words come from window.T (core.js), in the page's language. */
"use strict";
(function () {
  const T = window.T;
  const { _, ngettext, esc, sideName, resultText, variantLabel, TO_MOVE, other } = T;
  const $ = (id) => document.getElementById(id);
  const SIDES = ["attackers", "defenders"];
  const A = T.announce;
  let S = null;            // latest state from the daemon
  let reachable = false;   // is the daemon answering?
  /* Controls: this browser keeps an owner session token (made by POST /api/auth from the PIN),
     never the PIN itself (docs/security.md); a PIN from the #pin= link or from an older page is
     held in memory only until it is exchanged. */
  let owner = localStorage.getItem("tafl-owner") || "";
  let pin = localStorage.getItem("tafl-pin") || "";
  localStorage.removeItem("tafl-pin");
  let zoom = false;
  let es = null, pollTimer = null, lastMoves = "";
  window.taflLatency = []; // ms from a move's acceptance to its drawing (tests, bench)

  if (location.hash.indexOf("#pin=") === 0) {
    pin = decodeURIComponent(location.hash.slice(5));
    history.replaceState(null, "", location.pathname + location.search);
  }

  const playerName = (p) => (p && typeof p === "object" ? p.name : p) || "";

  /* What the companion says now, in this page's language. Structured guidance is rendered from
     its kind; the daemon's English message is the fallback for what has no entry yet. */
  function message() {
    const said = T.guidanceText(S.guidance);
    if (said) return said;
    const over = S.result !== "ongoing";
    const m = S.message || "";
    if (/^(Attackers|Defenders) to move\.?$/.test(m)) return _(TO_MOVE[S.turn]) + ".";
    if (over && (!m || /^(Draw|Attackers win|Defenders win)\b/.test(m))) return resultText(S.result, S.reason) + ".";
    return m;
  }

  function illegalNow() {
    const kind = S.guidance && S.guidance.kind;
    return kind === "illegal" || Object.values(S.leds || {}).includes("illegal");
  }

  /* ---- drawing ---- */
  function drawBoard() {
    const show = A.settings.threats && S.result === "ongoing" ? S.threat : null;
    T.drawBoard($("board"), {
      size: S.size, throne: S.throne, corners: S.corners || [], flip: T.flip,
      pos: T.parseOtn(S.position, S.size), occ: new Set(S.occupied || []), leds: S.leds || {},
      last: S.last, threat: show,
      taken: S.last ? S.last.captured.map((sq) => ({ square: sq, piece: takenPiece(sq) })) : [],
    });
    $("zoom").hidden = S.size < 13;
    $("boardwrap").classList.toggle("zoom", zoom && S.size >= 13);
  }

  /* The kind of a piece the last move captured (the record marks soldiers "x<square>"; the
     king is not marked, so a captured square missing from the text is the king's). */
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
    msg.textContent = message();
    const roles = Object.values(S.leds || {});
    const kind = S.guidance ? S.guidance.kind : "";
    msg.className = "msg" + (illegalNow() || kind === "suspended" ? " bad"
      : roles.includes("capture") || roles.includes("setup") || /^(warning|setup|lift_captured|takeback|make_move)$/.test(kind) ? " act" : "");
    const res = $("result");
    res.hidden = !over;
    if (over) res.textContent = resultText(S.result, S.reason);
    const threat = $("threat");
    const t = A.settings.threats && !over ? S.threat : null;
    threat.hidden = !t;
    if (t) threat.textContent = A.threatWords(t) + ".";
    for (const side of SIDES) {
      const el = $("side-" + side);
      el.className = "side" + (!over && S.turn === side ? " now" : "");
      const n = (S.captures || {})[side] || 0;
      const took = side === "attackers" ? ngettext("took {n} defender", "took {n} defenders", n)
        : ngettext("took {n} attacker", "took {n} attackers", n);
      const name = playerName(S.players && S.players[side]);
      el.innerHTML = `<b>${esc(sideName(side))}</b>${name ? esc(name) + "<br>" : ""}<span class="small">${esc(took)}</span>`;
    }
    renderDrawBanner(over);
    const bs = $("boardstatus");
    if (!reachable) {
      bs.textContent = _("No connection to the companion: the board's state is unknown.");
    } else {
      const detail = board.kind === "sim" ? _("a simulated board: click a square to lift or place a piece") : board.detail;
      bs.textContent = (board.connected ? _("Board connected") : _("Board not connected")) +
        ` (${board.kind})` + (detail ? ": " + detail : "") + " · " +
        variantLabel(S.variant, S.size, S.variant_name) + " · " + _("game {id}", { id: S.game });
    }
    bs.className = "small" + (reachable && board.connected ? "" : " bad");
    document.body.classList.toggle("stale", !reachable);
    renderMoves();
    renderDrawRow();
  }

  function renderDrawBanner(over) {
    const b = $("drawbanner");
    b.hidden = over || !S.draw_offer;
    if (!b.hidden) {
      b.textContent = S.draw_offer === "attackers"
        ? _("The attackers offer a draw. The defenders may accept or decline.")
        : _("The defenders offer a draw. The attackers may accept or decline.");
    }
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

  function renderDrawRow() {
    const row = $("drawrow");
    const key = (S.result !== "ongoing") + ":" + S.draw_offer;
    if (row.dataset.key === key) return;
    row.dataset.key = key;
    if (S.result !== "ongoing") { row.innerHTML = ""; return; }
    const btn = (action, side, text) =>
      `<button type="button" data-act="draw" data-action="${action}" data-side="${side}">${esc(text)}</button>`;
    if (S.draw_offer) {
      const foe = other(S.draw_offer);
      row.innerHTML = btn("accept", foe, foe === "attackers" ? _("Attackers accept the draw") : _("Defenders accept the draw")) +
        btn("decline", foe, _("Decline the draw"));
    } else {
      row.innerHTML = btn("offer", "attackers", _("Attackers offer a draw")) +
        btn("offer", "defenders", _("Defenders offer a draw"));
    }
  }

  function apply(state) {
    const prev = S;
    const moved = prev && state.moves.length > prev.moves.length && state.game === prev.game;
    S = state;
    render();
    if (moved && state.accepted_at) window.taflLatency.push(Date.now() - state.accepted_at * 1000);
    A.onState(prev, S, message(), illegalNow());
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
    };
    es.onmessage = (e) => { setConn("live", _("live")); apply(JSON.parse(e.data)); };
    es.onerror = () => {
      if (es.readyState === 2) {   // refused (e.g. too many live pages): poll, retry later
        es = null;
        startPolling();
        setTimeout(connect, 20000);
      } else {
        setConn("off", _("reconnecting"));
      }
    };
  }

  /* ---- controls ---- */
  function ctlMsg(text, bad) {
    const p = $("ctlmsg");
    p.textContent = text;
    p.className = "small" + (bad ? " bad" : "");
  }

  function showUnlocked() {
    const on = !!(owner || pin);
    $("ctl").hidden = !on;
    $("pinform").hidden = on;
    $("importform").hidden = !on;
  }

  function forget() {
    owner = pin = "";
    localStorage.removeItem("tafl-owner");
  }

  /* Trade a PIN for an owner session token (kept); the PIN itself is dropped. */
  function unlock(given) {
    return api("/api/auth", {}, given).then((j) => {
      if (j.token) {
        owner = j.token;
        pin = "";
        localStorage.setItem("tafl-owner", owner);
      } else {
        pin = given;  // a daemon without sessions: in memory only, never stored
      }
      showUnlocked();
    });
  }

  async function api(path, body, withPin) {
    const headers = { "Content-Type": "application/json", "X-Tafl-Request": "1" };
    if (withPin) headers["X-Tafl-Pin"] = withPin;
    else if (owner) headers["X-Tafl-Token"] = owner;
    else if (pin) headers["X-Tafl-Pin"] = pin;
    const r = await fetch(path, {
      method: "POST",
      headers: headers,
      body: JSON.stringify(body || {}),
      credentials: "same-origin",
    });
    let j = {};
    try { j = await r.json(); } catch (e) { /* not JSON */ }
    if (!r.ok) {
      const err = new Error(j.error || r.status + " " + r.statusText);
      err.status = r.status;
      throw err;
    }
    return j;
  }
  T.api = api;

  function refused(e) {
    if (e.status === 403 && /PIN/.test(e.message)) {
      forget();
      showUnlocked();
      $("controls").open = true;
      ctlMsg(e.message, true);
      $("msg").textContent = _("Read-only: enter the PIN under Controls to move pieces.");
    } else {
      ctlMsg(e.message, true);
      $("msg").textContent = e.message;
    }
    $("msg").className = "msg bad";
  }

  $("board").addEventListener("click", (ev) => {
    const t = ev.target.closest("[data-sq]");
    if (!t || !S) return;
    if (S.board.kind !== "sim") {
      $("msg").textContent = S.board.kind === "replay"
        ? _("This board is a recorded game being replayed.") : _("Move the pieces on the real board.");
      return;
    }
    api("/api/click", { square: t.dataset.sq }).catch(refused);
  });

  $("pinform").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const given = $("pin").value.trim();
    if (!given) return;
    unlock(given).then(() => {
      $("pin").value = "";
      ctlMsg(_("Controls unlocked."));
      render();
    }).catch(refused);
  });

  $("controls").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-act]");
    if (!b) return;
    const act = b.dataset.act, side = b.dataset.side;
    let call;
    if (act === "lock") {
      forget();
      showUnlocked();
      ctlMsg(_("Controls locked."));
      return;
    } else if (act === "new") {
      if (S && S.result === "ongoing" && S.moves.length && !confirm(_("Abandon this game and start a new one?"))) return;
      call = api("/api/new", { variant: $("variant").value }).then(() => _("New game started."));
    } else if (act === "takeback") {
      call = api("/api/takeback").then((j) => _("Took back {move}: put the pieces back as the lights show.", { move: j.undone }));
    } else if (act === "swap") {
      call = api("/api/swap").then((j) => _("Attackers: {a}, defenders: {d}.",
        { a: playerName(j.players.attackers), d: playerName(j.players.defenders) }));
    } else if (act === "draw") {
      call = api("/api/draw", { action: b.dataset.action, side: side }).then(() => _("Done."));
    } else if (act === "resign") {
      if (!confirm(side === "attackers" ? _("Do the attackers resign?") : _("Do the defenders resign?"))) return;
      call = api("/api/resign", { side: side }).then(() => _("Resigned."));
    }
    if (call) call.then((m) => ctlMsg(m)).catch(refused);
  });

  $("controls").addEventListener("toggle", () => {
    if (!$("controls").open || $("variant").options.length) return;
    T.getJSON("/api/variants").then((j) => {
      $("variant").innerHTML = j.variants.map((v) =>
        `<option value="${esc(v.id)}">${esc(variantLabel(v.id, v.size, v.name))}</option>`).join("");
      if (S) $("variant").value = S.variant;
    });
  });

  $("invite").addEventListener("toggle", () => {
    if (!$("invite").open) return;
    const local = /^(localhost|127\.|\[::1\])/.test(location.hostname);
    (local ? T.getJSON("/api/links").then((j) => j.urls) : Promise.resolve([location.origin + "/"]))
      .then((urls) => {
        const url = urls[0], alt = _("QR code of {link}", { link: url });
        $("links").innerHTML = `<img class="qr" alt="${esc(alt)}" src="/api/qr.svg?text=${encodeURIComponent(url)}">` +
          urls.map((u) => `<div><a href="${esc(u)}">${esc(u)}</a></div>`).join("");
      });
  });

  /* ---- past games ---- */
  function loadGames() {
    T.getJSON("/api/games?limit=30").then((j) => {
      const none = _("No games yet.");
      $("gamelist").innerHTML = j.games.map((g) => {
        const res = g.result === "ongoing"
          ? (g.reason === "imported" ? _("imported, unfinished") : g.finished ? _("abandoned") : _("in play"))
          : resultText(g.result, g.reason);
        const title = _("Game {id}", { id: g.id });
        const what = T.variantName(g.variant) + " · " + ngettext("{n} move", "{n} moves", g.plies);
        return `<li><a href="/review/${g.id}" data-review="${g.id}">${esc(title)}</a> · ${esc(what)}<br>` +
          `<span class="small">${esc(res)} · ${esc(T.dateText(g.started))}</span></li>`;
      }).join("") || `<li>${esc(none)}</li>`;
    });
  }
  $("games").addEventListener("toggle", () => { if ($("games").open) loadGames(); });

  $("importfile").addEventListener("change", () => {
    const file = $("importfile").files[0];
    if (!file) return;
    const csv = !/\.otg$/i.test(file.name);
    T.review.importFile(file, csv && S ? S.variant : undefined).then(() => {
      $("importfile").value = "";
      loadGames();
    }).catch((e) => { $("importfile").value = ""; alert(e.message); });
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
  $("rulesbtn").addEventListener("click", () => { if (S) T.showRules(S.variant); });
  $("rulesclose").addEventListener("click", () => $("rulescard").close());

  T.live = { render: () => render() };
  showUnlocked();
  if (pin) unlock(pin).catch(refused);  // the #pin= link (or an old page's PIN): exchange it
  poll();
  connect();
  T.review.route();
})();
