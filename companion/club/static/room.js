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
    const size = state.size || 11;
    const grid = el("div", "board");
    grid.style.gridTemplateColumns = `repeat(${size}, 1fr)`;
    const cells = parseOtn(position || state.position || "", size);
    const special = new Set([state.throne, ...(state.corners || [])]);
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

  function playersRow(state) {
    const row = el("div", "players");
    const p = state.players || {};
    row.appendChild(el("span", "", (p.attackers && p.attackers.name) || t("Attackers")));
    row.appendChild(el("span", "", (p.defenders && p.defenders.name) || t("Defenders")));
    return row;
  }

  function clocksRow(state) {
    const row = el("div", "clocks");
    if (!state.clock) return row;
    for (const side of ["attackers", "defenders"]) {
      const c = el("span", state.clock.running === side ? "running" : "",
        clockText(timeLeft(state.clock, side)));
      c.dataset.side = side;
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

  function renderRoom() {
    const room = $("room");
    room.replaceChildren();
    const link = $("link");
    link.hidden = summary.link === "connected" || summary.link === undefined;
    link.textContent = t("The broker link is down: the boards shown may be out of date.");
    if (!summary.boards.length) {
      room.appendChild(el("p", "empty", t("No board has published a game yet.")));
      return;
    }
    for (const b of summary.boards) {
      const s = b.state;
      const card = el("a", "card" + (b.online === false ? " offline" : ""));
      card.href = "#board=" + encodeURIComponent(b.board);
      const h = el("h2");
      h.appendChild(el("span", "", b.board));
      h.appendChild(el("span", "", b.online === false ? t("offline") : (s.variant_name || s.variant)));
      card.appendChild(h);
      card.appendChild(playersRow(s));
      card.appendChild(drawBoard(s, s.position, s.last));
      card.appendChild(clocksRow(s));
      card.appendChild(statusLine(s, s.plies));
      room.appendChild(card);
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
    box.appendChild(playersRow(s));
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
      for (const span of row.children) span.textContent = clockText(timeLeft(clock, span.dataset.side));
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
  es.onmessage = (ev) => { try { onSummary(JSON.parse(ev.data)); } catch (e) { /* skip */ } };
  fetch("/api/club").then((r) => r.json()).then(() => route());
  setInterval(tick, 500);
  route();
})();
