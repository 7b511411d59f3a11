// The tournament room: every board of the club live (summary stream), one board in full.
"use strict";
(function () {
  const W = JSON.parse(document.getElementById("words").textContent);
  const t = (s) => W[s] || s;
  const $ = (id) => document.getElementById(id);
  let summary = { boards: [] };
  let detail = null; // {board, entry, review, ply}

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function parseOtn(otn, size) {
    const rows = otn.replace(/^\/|\/$/g, "").split("/");
    const cells = [];
    for (const row of rows) {
      const out = [];
      let num = "";
      for (const ch of row) {
        if (ch >= "0" && ch <= "9") { num += ch; continue; }
        if (num) { for (let i = 0; i < +num; i++) out.push(""); num = ""; }
        out.push(ch);
      }
      if (num) for (let i = 0; i < +num; i++) out.push("");
      cells.push(out);
    }
    return cells.length === size ? cells : null; // cells[rank-1][file]
  }

  function squareName(file, rank) { return String.fromCharCode(97 + file) + (rank + 1); }

  function drawBoard(state, position, last) {
    const size = state.size;
    if (!Number.isInteger(size) || size < 5 || size > 19) throw new Error("bad size");
    const grid = el("div", "board");
    grid.style.gridTemplateColumns = `repeat(${size}, 1fr)`;
    const cells = parseOtn(position || state.position || "", size);
    const special = new Set([state.throne, ...(Array.isArray(state.corners) ? state.corners : [])]);
    const marked = new Set(last ? [last.from, last.to] : []);
    for (let rank = size - 1; rank >= 0; rank--) {
      for (let file = 0; file < size; file++) {
        const name = squareName(file, rank);
        const sq = el("div", "sq" + ((file + rank) % 2 ? " alt" : "")
          + (special.has(name) ? " special" : "") + (marked.has(name) ? " last" : ""));
        sq.title = name;
        const piece = cells && cells[rank] ? cells[rank][file] : "";
        if (piece) sq.appendChild(el("span", "pc " + piece));
        grid.appendChild(sq);
      }
    }
    return grid;
  }

  function clockText(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    const m = Math.floor(s / 60);
    return m + ":" + String(s % 60).padStart(2, "0");
  }

  function timeLeft(clock, side) {
    let left = clock[side];
    if (clock.running === side && typeof clock.at === "number") {
      left -= Math.max(0, Date.now() / 1000 - clock.at);
    }
    return left;
  }

  function resultText(state) {
    if (state.result === "attackers") return t("Attackers win");
    if (state.result === "defenders") return t("Defenders win");
    if (state.result === "draw") return t("Draw");
    return (state.turn === "attackers" ? t("Attackers") : t("Defenders")) + " " + t("to move");
  }

  const SIDES = ["attackers", "defenders"];
  const sideWord = (side) => (side === "attackers" ? t("Attackers") : t("Defenders"));

  // Who plays each side: for two boards playing each other (the room's "pair"), each side as
  // its own board names its player, with the board; else the board's own players.
  function sides(b) {
    if (b.pair && b.pair.sides) return b.pair.sides;
    const p = b.state.players || {};
    const out = {};
    for (const side of SIDES) {
      const q = p[side] || {};
      out[side] = { name: q.name, board: q.kind === "club" ? q.board : null };
    }
    return out;
  }

  function who(s) {
    const name = s.name || "";
    return s.board && s.board !== name ? (name ? name + " (" + s.board + ")" : s.board) : name;
  }

  function playersRow(b) {
    const row = el("div", "players");
    const sd = sides(b);
    for (const side of SIDES) {
      const span = el("span", "player " + side, sideWord(side) + ": " + (who(sd[side]) || "–"));
      span.dataset.side = side;
      row.appendChild(span);
    }
    return row;
  }

  // The clocks, each labelled with its side; the red one is the side to move's (the card's
  // text says the same), never a side whose move is still to be carried out on a board.
  function clocksRow(state) {
    const row = el("div", "clocks");
    if (!state.clock) return row;
    const running = state.result === "ongoing" && state.clock.running === state.turn
      ? state.turn : null;
    for (const side of SIDES) {
      const c = el("span", "clock " + side + (running === side ? " running" : ""));
      c.dataset.side = side;
      c.appendChild(el("span", "label", sideWord(side)));
      c.appendChild(el("span", "time", clockText(timeLeft(state.clock, side))));
      row.appendChild(c);
    }
    row.dataset.clock = JSON.stringify(state.clock);
    return row;
  }

  function statusLine(state, plies) {
    const bits = [resultText(state)];
    if (state.result !== "ongoing" && state.reason_text) bits.push(state.reason_text);
    if (state.last) bits.push(t("Last move") + ": " + state.last.text);
    bits.push(t("Moves") + ": " + plies);
    return el("div", "status", bits.join(" · "));
  }

  let serverLost = false;
  function showLink() {
    const link = $("link");
    const down = summary.link !== "connected" && summary.link !== undefined;
    link.hidden = !down && !serverLost;
    link.textContent = serverLost
      ? t("This page has lost the room's server: reconnecting.")
      : t("The room has lost the club's broker (its own link is down): reconnecting. The boards below may be out of date.");
    document.body.classList.toggle("stale", down || serverLost);
  }

  function card(b, linkDown) {
    const s = b.state;
    const offline = !linkDown && b.online === false;
    const c = el("a", "card" + (offline ? " offline" : ""));
    c.href = "#board=" + encodeURIComponent(b.board);
    c.dataset.board = b.board;
    const h = el("h2");
    h.appendChild(el("span", "boards", b.pair ? b.board + " – " + b.pair.board : b.board));
    h.appendChild(el("span", "", offline ? t("offline") : (s.variant_name || s.variant)));
    c.appendChild(h);
    c.appendChild(playersRow(b));
    c.appendChild(drawBoard(s, s.position, s.last));
    c.appendChild(clocksRow(s));
    c.appendChild(statusLine(s, s.plies));
    return c;
  }

  function renderRoom() {
    const room = $("room");
    room.replaceChildren();
    showLink();
    if (!summary.boards.length) {
      room.appendChild(el("p", "empty", t("No board has published a game yet.")));
      return;
    }
    const linkDown = summary.link !== "connected";
    for (const b of summary.boards) {
      if (b.pair && !b.pair.lead) continue; // one game, one card: the other board shows it
      try {
        room.appendChild(card(b, linkDown));
      } catch (e) { // one board's state must never stop the others
        const bad = el("div", "card bad");
        bad.dataset.board = b.board;
        bad.appendChild(el("h2", "", String(b.board)));
        bad.appendChild(el("p", "", t("This board's state cannot be shown.")));
        room.appendChild(bad);
      }
    }
  }

  function renderDetail() {
    const box = $("detail");
    box.replaceChildren();
    if (!detail || !detail.entry) return;
    const s = detail.entry.state;
    const h = el("h2", "", detail.board + " · " + t("Game") + " " + s.game + " · "
      + (s.variant_name || s.variant));
    box.appendChild(h);
    const inRoom = (summary.boards || []).find((x) => x.board === detail.board) || {};
    box.appendChild(playersRow({ state: s, pair: inRoom.pair }));
    const rev = detail.review;
    if (rev && detail.ply !== null) {
      const ply = detail.ply;
      const lastText = ply > 0 ? rev.moves[ply - 1] : null;
      const m = lastText ? /^([a-z]+\d+)-([a-z]+\d+)/.exec(lastText) : null;
      box.appendChild(drawBoard(s, rev.positions[ply], m ? { from: m[1], to: m[2] } : null));
      const ctl = el("div", "review");
      const go = (n) => () => { detail.ply = Math.max(0, Math.min(rev.moves.length, n)); renderDetail(); };
      const buttons = [["Start", 0], ["Back", ply - 1], ["Forward", ply + 1], ["End", rev.moves.length]];
      for (const [label, n] of buttons) {
        const b = el("button", "", t(label));
        b.addEventListener("click", go(n));
        ctl.appendChild(b);
      }
      ctl.appendChild(el("span", "", t("Move") + " " + ply + " / " + rev.moves.length));
      box.appendChild(ctl);
    } else {
      box.appendChild(drawBoard(s, s.position, s.last));
    }
    box.appendChild(clocksRow(s));
    box.appendChild(statusLine(s, (s.moves || []).length));
    const list = el("ol", "moves");
    for (const mv of s.moves || []) list.appendChild(el("li", "", mv));
    box.appendChild(list);
  }

  async function loadDetail() {
    if (!detail) return;
    const name = detail.board;
    const r = await fetch("/api/club/" + encodeURIComponent(name));
    if (!detail || detail.board !== name) return;
    detail.entry = r.ok ? await r.json() : null;
    const s = detail.entry && detail.entry.state;
    if (s && s.result !== "ongoing") {
      const rv = await fetch("/api/club/" + encodeURIComponent(name) + "/review");
      if (rv.ok && detail && detail.board === name) {
        const doc = await rv.json();
        if (!detail.review || detail.review.game !== doc.game) detail.ply = doc.moves.length;
        detail.review = doc;
      }
    } else if (detail) {
      detail.review = null;
      detail.ply = null;
    }
    renderDetail();
  }

  function route() {
    const m = /^#board=(.+)$/.exec(location.hash);
    if (m) {
      const name = decodeURIComponent(m[1]);
      if (!detail || detail.board !== name) detail = { board: name, entry: null, review: null, ply: null };
      $("room").hidden = true;
      $("detail").hidden = false;
      loadDetail();
    } else {
      detail = null;
      $("room").hidden = false;
      $("detail").hidden = true;
      renderRoom();
    }
  }

  function tick() {
    for (const row of document.querySelectorAll(".clocks[data-clock]")) {
      const clock = JSON.parse(row.dataset.clock);
      for (const span of row.children) {
        const time = span.querySelector(".time");
        if (time) time.textContent = clockText(timeLeft(clock, span.dataset.side));
      }
    }
  }

  let seen = {};
  function onSummary(doc) {
    summary = doc;
    if (detail) {
      const b = doc.boards.find((x) => x.board === detail.board);
      const key = b ? JSON.stringify([b.state.game, b.state.plies, b.state.result, b.state.clock]) : "";
      if (key !== seen[detail.board]) { seen[detail.board] = key; loadDetail(); }
    } else {
      renderRoom();
    }
  }

  window.addEventListener("hashchange", route);
  const es = new EventSource("/api/events");
  es.onmessage = (ev) => {
    serverLost = false;
    try { onSummary(JSON.parse(ev.data)); } catch (e) { /* skip */ }
  };
  es.onerror = () => { serverLost = true; showLink(); };
  es.onopen = () => { serverLost = false; showLink(); };
  fetch("/api/club").then((r) => r.json()).then(() => route());
  setInterval(tick, 500);
  route();
})();
