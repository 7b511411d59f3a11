/* tafl-companion phone page. Live state by Server-Sent Events (fallback: polling /api/state),
   the board drawn as SVG, controls behind the PIN. No framework, no build step. */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const SIDES = ["attackers", "defenders"];
  const NAMES = { t: "attacker", T: "defender", K: "king" };
  let S = null;            // latest state from the daemon
  let pin = localStorage.getItem("tafl-pin") || "";
  let flip = localStorage.getItem("tafl-flip") === "1";
  let replay = null;       // {id, positions, moves, i} while replaying a past game
  let es = null, pollTimer = null, lastMoves = "";
  window.taflLatency = []; // ms from a move's acceptance to its drawing (tests, bench)

  if (location.hash.indexOf("#pin=") === 0) {
    pin = decodeURIComponent(location.hash.slice(5));
    localStorage.setItem("tafl-pin", pin);
    history.replaceState(null, "", location.pathname + location.search);
  }

  const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
  const sqName = (f, r) => String.fromCharCode(97 + f) + (r + 1);

  /* OTN: records separated by "/", the first record is rank 1; digits count empty squares. */
  function parseOtn(otn, n) {
    const out = {};
    const rows = otn.split("/").filter((x, i, a) => !(x === "" && (i === 0 || i === a.length - 1)));
    rows.forEach((row, r) => {
      let f = 0;
      for (const m of row.match(/\d+|[tTK]/g) || []) {
        if (/\d/.test(m)) f += parseInt(m, 10);
        else { if (f < n && r < n) out[sqName(f, r)] = m; f += 1; }
      }
    });
    return out;
  }

  /* ---- drawing the board ---- */
  function xy(sq, n) {
    const f = sq.charCodeAt(0) - 97, r = parseInt(sq.slice(1), 10) - 1;
    return flip ? [n - 1 - f, r] : [f, n - 1 - r];
  }

  function drawBoard() {
    if (!S) return;
    const live = !replay, G = live ? S : replay.geo, n = G.size;
    const pos = parseOtn(live ? S.position : replay.positions[replay.i].position, n);
    const occ = live ? new Set(S.occupied) : null;
    const leds = live ? S.leds : {};
    const special = new Set(G.corners.concat(G.throne ? [G.throne] : []));
    const o = [];
    for (let f = 0; f < n; f++) {
      for (let r = 0; r < n; r++) {
        const sq = sqName(f, r), [x, y] = xy(sq, n);
        o.push(`<rect class="sq${special.has(sq) ? " special" : ""}" x="${x}" y="${y}" width="1" height="1"/>`);
        if (special.has(sq)) {
          o.push(`<path class="cross" d="M${x + .15} ${y + .15}L${x + .85} ${y + .85}M${x + .85} ${y + .15}L${x + .15} ${y + .85}"/>`);
        }
      }
    }
    for (let i = 0; i < n; i++) {   // coordinates
      const f = flip ? n - 1 - i : i, r = flip ? i : n - 1 - i;
      o.push(`<text class="coord" x="${i + .5}" y="${n + .25}">${String.fromCharCode(97 + f)}</text>`);
      o.push(`<text class="coord" x="-.28" y="${i + .5}">${r + 1}</text>`);
    }
    const last = live ? S.last : lastOfReplay();
    if (last) {
      const [x1, y1] = xy(last.from, n), [x2, y2] = xy(last.to, n);
      o.push(`<rect class="lmsq" x="${x1 + .06}" y="${y1 + .06}" width=".88" height=".88"/>`);
      o.push(`<rect class="lmsq" x="${x2 + .06}" y="${y2 + .06}" width=".88" height=".88"/>`);
      o.push(`<line class="lm" x1="${x1 + .5}" y1="${y1 + .5}" x2="${x2 + .5}" y2="${y2 + .5}"/>`);
    }
    for (const sq in leds) {          // the LED mirror
      const [x, y] = xy(sq, n);
      o.push(`<rect class="led ${esc(leds[sq])}" x="${x + .05}" y="${y + .05}" width=".9" height=".9" rx=".12"/>`);
    }
    const squares = new Set(Object.keys(pos));
    if (occ) occ.forEach((s) => squares.add(s));
    squares.forEach((sq) => {
      const [x, y] = xy(sq, n), cx = x + .5, cy = y + .5;
      let piece = pos[sq];
      if (!piece && leds[sq] === "capture" && last && last.captured.indexOf(sq) >= 0) {
        piece = last.text.indexOf("x" + sq) < 0 ? "K" : last.side === "attackers" ? "T" : "t";
      } else if (!piece) {   // the sensors see a piece where the game has none
        o.push(`<circle class="p ghost" cx="${cx}" cy="${cy}" r=".36"/><text class="q" x="${cx}" y="${cy}">?</text>`);
        return;
      }
      const lifted = occ && !occ.has(sq) ? " lifted" : "";
      o.push(`<circle class="p ${piece}${lifted}" cx="${cx}" cy="${cy}" r=".38"/>`);
      if (piece === "K") {
        o.push(`<path class="kc" d="M${cx - .18} ${cy}H${cx + .18}M${cx} ${cy - .18}V${cy + .18}"/>`);
      }
      if (leds[sq] === "capture") {
        o.push(`<path class="mark" d="M${cx - .2} ${cy - .2}L${cx + .2} ${cy + .2}M${cx + .2} ${cy - .2}L${cx - .2} ${cy + .2}"/>`);
      }
    });
    for (const sq in leds) {
      if (leds[sq] === "illegal" && !pos[sq]) {
        const [x, y] = xy(sq, n);
        o.push(`<path class="mark" d="M${x + .25} ${y + .25}L${x + .75} ${y + .75}M${x + .75} ${y + .25}L${x + .25} ${y + .75}"/>`);
      }
    }
    for (let f = 0; f < n; f++) {     // click targets on top
      for (let r = 0; r < n; r++) {
        const sq = sqName(f, r), [x, y] = xy(sq, n);
        const what = pos[sq] ? NAMES[pos[sq]] + " on " + sq : sq;
        o.push(`<rect class="hit" data-sq="${sq}" x="${x}" y="${y}" width="1" height="1"><title>${what}</title></rect>`);
      }
    }
    const b = $("board");
    b.setAttribute("viewBox", `-.56 -.06 ${n + .62} ${n + .62}`);
    b.innerHTML = o.join("");
  }

  function lastOfReplay() {
    if (!replay || replay.i === 0) return null;
    const m = replay.moves[replay.i - 1];
    return m ? { from: m.from, to: m.to } : null;
  }

  /* ---- the rest of the page ---- */
  function render() {
    if (!S) return;
    drawBoard();
    const over = S.result !== "ongoing";
    $("turndot").className = "dot " + (over ? "over" : S.turn);
    $("turntext").textContent = over ? "Game over" : cap(S.turn) + " to move";
    const msg = $("msg");
    msg.textContent = S.message || "";
    const roles = Object.values(S.leds || {});
    msg.className = "msg" + (roles.includes("illegal") || /^Illegal/i.test(S.message) ? " bad"
      : roles.includes("capture") || roles.includes("setup") ? " act" : "");
    const res = $("result");
    res.hidden = !over;
    if (over) {
      res.textContent = (S.result === "draw" ? "Draw" : cap(S.result) + " win") +
        (S.reason_text ? " — " + S.reason_text : "");
    }
    for (const side of SIDES) {
      const el = $("side-" + side);
      const foe = side === "attackers" ? "defenders" : "attackers";
      el.className = "side" + (!over && S.turn === side ? " now" : "");
      el.innerHTML = `<b>${cap(side)}</b>${esc(S.players[side].name)} · captured ${S.captures[side]}` +
        (S.draw_offer === side ? `<br>offers a draw to the ${foe}` : "");
    }
    const bs = $("boardstatus");
    const b = S.board || {};
    bs.textContent = (b.connected ? "Board connected" : "Board NOT connected") +
      ` (${b.kind})` + (b.detail ? ": " + b.detail : "") + ` · ${S.variant_name} · game ${S.game}`;
    bs.className = "small" + (b.connected ? "" : " bad");
    renderMoves();
    renderDraw();
  }

  function renderMoves() {
    const key = S.game + ":" + S.moves.length + ":" + S.moves[S.moves.length - 1];
    if (key === lastMoves) return;
    lastMoves = key;
    $("nmoves").textContent = S.moves.length ? `(${S.moves.length})` : "";
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

  function renderDraw() {
    const row = $("drawrow");
    const key = (S.result !== "ongoing") + ":" + S.draw_offer;
    if (row.dataset.key === key) return;
    row.dataset.key = key;
    if (S.result !== "ongoing") { row.innerHTML = ""; return; }
    if (S.draw_offer) {
      const foe = S.draw_offer === "attackers" ? "defenders" : "attackers";
      row.innerHTML = `<button type="button" data-act="draw" data-action="accept" data-side="${foe}">${cap(foe)} accept the draw</button>` +
        `<button type="button" data-act="draw" data-action="decline" data-side="${foe}">Decline</button>`;
    } else {
      row.innerHTML = SIDES.map((s) =>
        `<button type="button" data-act="draw" data-action="offer" data-side="${s}">${cap(s)} offer a draw</button>`).join("");
    }
  }

  function apply(state) {
    const moved = S && state.moves.length > S.moves.length && state.game === S.game;
    S = state;
    render();
    if (moved && state.accepted_at) {
      window.taflLatency.push(Date.now() - state.accepted_at * 1000);
    }
  }

  /* ---- live connection ---- */
  function setConn(kind, text) {
    const c = $("conn");
    c.className = "conn " + kind;
    c.textContent = text;
  }

  function poll() {
    fetch("/api/state", { cache: "no-store" }).then((r) => r.json()).then((s) => {
      apply(s);
      if (pollTimer) setConn("poll", "polling");
    }).catch(() => setConn("off", "offline"));
  }

  function startPolling() {
    if (!pollTimer) { pollTimer = setInterval(poll, 1000); poll(); }
  }

  function connect() {
    if (!window.EventSource) { startPolling(); return; }
    es = new EventSource("/api/events");
    es.onopen = () => {
      if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
      setConn("live", "live");
    };
    es.onmessage = (e) => { setConn("live", "live"); apply(JSON.parse(e.data)); };
    es.onerror = () => {
      if (es.readyState === 2) {   // refused (e.g. too many live pages): poll, retry later
        es = null;
        startPolling();
        setTimeout(connect, 20000);
      } else {
        setConn("off", "reconnecting");
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
    $("ctl").hidden = !pin;
    $("pinform").hidden = !!pin;
  }

  async function api(path, body) {
    const r = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Tafl-Request": "1", "X-Tafl-Pin": pin },
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

  function refused(e) {
    if (e.status === 403 && /PIN/.test(e.message)) {
      pin = "";
      localStorage.removeItem("tafl-pin");
      showUnlocked();
      $("controls").open = true;
      ctlMsg(e.message, true);
      $("msg").textContent = "Read-only: enter the PIN under Controls to move pieces.";
      $("msg").className = "msg bad";
    } else {
      ctlMsg(e.message, true);
      $("msg").textContent = e.message;
      $("msg").className = "msg bad";
    }
  }

  $("board").addEventListener("click", (ev) => {
    const t = ev.target.closest("[data-sq]");
    if (!t || replay || !S) return;
    if (S.board.kind !== "sim") {
      $("msg").textContent = S.board.kind === "replay"
        ? "This board is a recorded game being replayed." : "Move the pieces on the real board.";
      return;
    }
    api("/api/click", { square: t.dataset.sq }).catch(refused);
  });

  $("pinform").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const given = $("pin").value.trim();
    if (!given) return;
    pin = given;
    api("/api/auth").then(() => {
      localStorage.setItem("tafl-pin", pin);
      $("pin").value = "";
      showUnlocked();
      ctlMsg("Controls unlocked.");
      render();
    }).catch(refused);
  });

  $("controls").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-act]");
    if (!b) return;
    const act = b.dataset.act;
    let call;
    if (act === "lock") {
      pin = "";
      localStorage.removeItem("tafl-pin");
      showUnlocked();
      ctlMsg("Controls locked.");
      return;
    } else if (act === "new") {
      const v = $("variant").value;
      if (S && S.result === "ongoing" && S.moves.length && !confirm("Abandon this game and start a new one?")) return;
      call = api("/api/new", { variant: v }).then(() => "New game started.");
    } else if (act === "takeback") {
      call = api("/api/takeback").then((j) => `Took back ${j.undone}: put the pieces back as the lights show.`);
    } else if (act === "swap") {
      call = api("/api/swap").then((j) => `Attackers: ${j.players.attackers}, defenders: ${j.players.defenders}.`);
    } else if (act === "draw") {
      call = api("/api/draw", { action: b.dataset.action, side: b.dataset.side }).then(() => "Done.");
    } else if (act === "resign") {
      if (!confirm(cap(b.dataset.side) + " resign?")) return;
      call = api("/api/resign", { side: b.dataset.side }).then(() => "Resigned.");
    }
    if (call) call.then((m) => ctlMsg(m)).catch(refused);
  });

  $("controls").addEventListener("toggle", () => {
    if (!$("controls").open || $("variant").options.length) return;
    fetch("/api/variants").then((r) => r.json()).then((j) => {
      $("variant").innerHTML = j.variants.map((v) =>
        `<option value="${esc(v.id)}">${esc(v.name)} (${v.size}×${v.size})</option>`).join("");
      if (S) $("variant").value = S.variant;
    });
  });

  /* ---- past games and replay ---- */
  function loadGames() {
    fetch("/api/games?limit=30").then((r) => r.json()).then((j) => {
      $("gamelist").innerHTML = j.games.map((g) => {
        const when = new Date(g.started * 1000).toLocaleString();
        const res = g.result === "ongoing" ? (g.finished ? "abandoned" : "in play")
          : g.result === "draw" ? "draw" : g.result + " win";
        return `<li>#${g.id} ${esc(g.variant)} · ${g.plies} moves · ${esc(res)}<br><span class="small">${esc(when)}</span><br>` +
          `<button type="button" data-replay="${g.id}">Replay</button>` +
          `<a href="/api/games/${g.id}/record.csv" download>CSV</a> <a href="/api/games/${g.id}/game.otg" download>.otg</a></li>`;
      }).join("") || "<li>No games yet.</li>";
    });
  }

  $("games").addEventListener("toggle", () => { if ($("games").open) loadGames(); });
  $("gamelist").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-replay]");
    if (!b) return;
    fetch("/api/games/" + b.dataset.replay).then((r) => r.json()).then((g) => {
      replay = { id: g.id, positions: g.positions, moves: g.moves, i: g.positions.length - 1,
        geo: { size: g.size, throne: g.throne, corners: g.corners } };
      showReplay();
      window.scrollTo(0, 0);
    });
  });

  function showReplay() {
    $("replaybar").hidden = !replay;
    if (replay) {
      const m = replay.i ? replay.moves[replay.i - 1].text : "start";
      $("replaytext").textContent = `Replay of game ${replay.id}: move ${replay.i}/${replay.positions.length - 1} (${m})`;
    }
    drawBoard();
  }

  $("replaybar").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-rp]");
    if (!b || !replay) return;
    const last = replay.positions.length - 1;
    const k = b.dataset.rp;
    if (k === "close") replay = null;
    else replay.i = k === "first" ? 0 : k === "last" ? last
      : Math.max(0, Math.min(last, replay.i + (k === "next" ? 1 : -1)));
    showReplay();
  });

  $("flip").addEventListener("click", () => {
    flip = !flip;
    localStorage.setItem("tafl-flip", flip ? "1" : "0");
    drawBoard();
  });

  showUnlocked();
  poll();
  connect();
})();
