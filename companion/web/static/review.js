/* tafl-companion page: the review of a stored game, a view of its own (/review/<id>, #<ply>
   picks the position): players, date, variant and its rules, result, the move list (each move
   clickable), first/previous/next/last and the arrow keys, captured pieces, move times, a
   link to share and the downloads. Leaving it returns to the live game. */
"use strict";
(function () {
  const T = window.T;
  const { _, ngettext, esc, sideName, resultText, piecesText, variantLabel, dateText } = T;
  const $ = (id) => document.getElementById(id);
  let R = null;        // the game under review
  let ply = 0;         // position shown: after this many moves

  const active = () => !!R;

  function open(id, at, push) {
    return T.getJSON("/api/review/" + id).then((g) => {
      R = g;
      ply = at === undefined || at === null ? g.moves.length : Math.max(0, Math.min(g.moves.length, at));
      if (push !== false) history.pushState({ review: id }, "", "/review/" + id + (ply !== g.moves.length ? "#" + ply : ""));
      $("live").hidden = true;
      $("review").hidden = false;
      document.body.classList.add("reviewing");
      renderInfo();
      show();
      window.scrollTo(0, 0);
    }).catch((e) => {
      alert(_("Cannot open game {id}: {error}", { id: id, error: e.message }));
      if (push === false) close(true);
    });
  }

  function close(push) {
    R = null;
    $("review").hidden = true;
    $("live").hidden = false;
    document.body.classList.remove("reviewing");
    if (push !== false) history.pushState(null, "", "/");
    if (T.live) T.live.render();
  }

  function renderInfo() {
    const g = R, p = g.players;
    $("turntext").textContent = _("Review of game {id}", { id: g.id });
    $("turndot").className = "dot review";
    const name = (side) => (p[side] ? esc(p[side]) : "<i>" + esc(_("unnamed")) + "</i>");
    const result = g.result === "ongoing" && !g.reason ? _("unfinished") : resultText(g.result, g.reason);
    const origin = g.imported ? _("imported from {file}", { file: g.imported.name || "?" }) : "";
    const rules = _("Rules"), none = _("No moves.");
    $("rvinfo").innerHTML =
      `<div><b>${esc(sideName("attackers"))}</b>${name("attackers")}</div>` +
      `<div><b>${esc(sideName("defenders"))}</b>${name("defenders")}</div>` +
      `<div class="wide">${esc(variantLabel(g.variant, g.size))} · <button type="button" class="link" id="rvrules">${esc(rules)}</button></div>` +
      `<div class="wide">${esc(dateText(g.started))}${origin ? " · " + esc(origin) : ""}</div>` +
      `<div class="wide result-line">${esc(result)}</div>`;
    const first = g.first === "defenders" ? 1 : 0;
    const plies = first ? [null].concat(g.moves) : g.moves;
    const o = [];
    for (let i = 0; i < plies.length; i += 2) {
      const cell = (m) => (m ? `<button type="button" class="mv" data-ply="${m.ply}">${esc(m.text)}</button>` : "<span>…</span>");
      o.push(`<li>${cell(plies[i])}${plies[i + 1] ? cell(plies[i + 1]) : ""}</li>`);
    }
    $("rvmoves").innerHTML = o.join("") || `<li class="small">${esc(none)}</li>`;
    $("rvcount").textContent = ngettext("{n} move", "{n} moves", g.moves.length);
    const link = location.origin + "/review/" + g.id;
    $("rvlink").value = link;
    $("rvcsv").href = `/api/games/${g.id}/record.csv`;
    $("rvotg").href = `/api/games/${g.id}/game.otg`;
  }

  function show() {
    const g = R, n = g.moves.length;
    const m = ply ? g.moves[ply - 1] : null;
    const settings = T.announce ? T.announce.settings : { threats: true };
    T.drawBoard($("rvboard"), {
      size: g.size, throne: g.throne, corners: g.corners, flip: T.flip,
      pos: T.parseOtn(g.positions[ply], g.size),
      last: m ? { from: m.from, to: m.to } : null, taken: m ? m.captured : [],
      threat: settings.threats ? g.threats[ply] : null,
    });
    $("rvpos").textContent = _("Move {i} of {n}", { i: ply, n: n });
    let text = _("Start position.");
    if (m) {
      text = _("{side}: {move}", { side: sideName(m.side), move: m.text });
      if (m.captured.length) {
        text += " — " + _("captured {pieces}", { pieces: piecesText(m.captured.map((c) => c.piece)) });
      }
      if (!g.imported && m.t) {
        const before = ply > 1 ? g.moves[ply - 2].t : g.started;
        text += " · " + _("{time} after the previous move", { time: duration(m.t - before) });
      }
    } else if (g.first === "defenders") {
      text += " " + _("The defenders move first.");
    }
    if (ply === n && g.result !== "ongoing") text += " " + resultText(g.result, g.reason);
    const threat = settings.threats && g.threats[ply];
    if (threat && T.announce) text += " " + T.announce.threatWords(threat) + ".";
    $("rvmsg").textContent = text;
    const taken = { attackers: [], defenders: [] };
    g.moves.slice(0, ply).forEach((mv) => mv.captured.forEach((c) => taken[mv.side].push(c.piece)));
    const nothing = _("nothing");
    $("rvcaps").innerHTML = ["attackers", "defenders"].map((side) => {
      const line = _("{side} captured: {pieces}", { side: sideName(side), pieces: piecesText(taken[side]) || nothing });
      return `<div>${esc(line)}</div>`;
    }).join("");
    document.querySelectorAll("#rvmoves .mv").forEach((b) => {
      b.classList.toggle("now", +b.dataset.ply === ply);
    });
    const now = document.querySelector("#rvmoves .mv.now");
    if (now) now.scrollIntoView({ block: "nearest" });
    $("review").querySelectorAll("[data-rv]").forEach((b) => {
      const k = b.dataset.rv;
      b.disabled = (k === "first" || k === "prev") ? ply === 0 : ply === n;
    });
  }

  function duration(s) {
    s = Math.max(0, Math.round(s));
    const h = Math.floor(s / 3600), mm = Math.floor(s / 60) % 60, ss = s % 60;
    const two = (x) => (x < 10 ? "0" : "") + x;
    return (h ? h + ":" + two(mm) : mm) + ":" + two(ss);
  }

  function go(to) {
    if (!R) return;
    ply = Math.max(0, Math.min(R.moves.length, to));
    history.replaceState(history.state, "", "/review/" + R.id + (ply !== R.moves.length ? "#" + ply : ""));
    show();
  }

  function step(k) {
    go(k === "first" ? 0 : k === "last" ? R.moves.length : ply + (k === "next" ? 1 : -1));
  }

  $("review").addEventListener("click", (ev) => {
    const b = ev.target.closest("button");
    if (!b || !R) return;
    if (b.dataset.rv) step(b.dataset.rv);
    else if (b.dataset.ply) go(+b.dataset.ply);
    else if (b.id === "rvclose") close();
    else if (b.id === "rvrules") T.showRules(Object.assign({}, R.rules, { id: R.variant }));
    else if (b.id === "rvcopy") {
      $("rvlink").select();
      const done = () => { $("rvcopy").textContent = _("Copied"); };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText($("rvlink").value).then(done);
      else { try { document.execCommand("copy"); done(); } catch (e) { /* selected: copy by hand */ } }
    }
  });

  document.addEventListener("keydown", (ev) => {
    if (!R || ev.altKey || ev.ctrlKey || ev.metaKey || /INPUT|SELECT|TEXTAREA/.test(ev.target.tagName)) return;
    const k = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[ev.key];
    if (k) { ev.preventDefault(); step(k); }
    else if (ev.key === "Escape" && !document.querySelector("dialog[open]")) close();
  });

  /* Links to /review/<id> open here without reloading the page. */
  document.addEventListener("click", (ev) => {
    const a = ev.target.closest("a[data-review]");
    if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    open(+a.dataset.review);
  });

  function route() {
    const m = /^\/review\/(\d+)$/.exec(location.pathname);
    const at = /^#\d+$/.test(location.hash) ? +location.hash.slice(1) : null;
    if (m) open(+m[1], at, false);
    else if (R) close(false);
  }
  window.addEventListener("popstate", route);

  /* ---- import (the owner): an .otg file or CSV records, then review ---- */
  function importFile(file, variant) {
    return file.text().then((text) => T.api("/api/import", { name: file.name, text: text, variant: variant }))
      .then((j) => { open(j.games[0]); return j.games; });
  }

  T.review = { open, close, active, route, importFile, redraw: () => R && show() };
})();
