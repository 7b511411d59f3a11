/* tafl-companion page: the engine's analysis of a game in the review (window.T.analysis), loaded
   on demand. An evaluation graph over the moves drawn as inline SVG (no library): above the
   middle line the attackers stand better, below the defenders; the moves where it swung most are
   marked and listed, and each shows the engine's better move on the board (hint colours). The
   analysis runs in the daemon (GET/POST /api/games/<id>/analysis); the page polls its progress. */
"use strict";
(function () {
  const T = window.T;
  const { _, esc, sideName, num, signed } = T;
  const $ = (id) => document.getElementById(id);
  const CAP = 10;        // soldiers: the graph's top and bottom (a forced result is drawn there)
  let A = null, game = null, go = null, timer = null;

  function reset() {
    if (timer) { clearTimeout(timer); timer = null; }
    A = game = null;
    if ($("rvgraph")) { $("rvgraph").innerHTML = ""; $("rvswings").innerHTML = ""; }
  }

  /* Show the stored analysis of review R, or (start) ask the daemon to make it. */
  function show(R, start, goTo) {
    if (timer) { clearTimeout(timer); timer = null; }
    game = R;
    go = goTo;
    const url = "/api/games/" + R.id + "/analysis";
    const ask = start ? T.api(url, {}) : T.getJSON(url);
    return ask.then(progress).catch((e) => say(e.message, true));
  }

  function say(text, bad) {
    $("rvgraph").innerHTML = `<p class="small${bad ? " bad" : ""}">${esc(text)}</p>`;
  }

  function progress(j) {
    if (!game || (j.game !== undefined && j.game !== game.id)) return;
    if (j.status === "done" && j.review) { A = j.review; draw(); return; }
    if (j.status === "none" && $("rvanalyse").hidden) say(_("No analysis of this game yet: the owner can start one."));
    if (j.status === "queued") {   // a finished game waits for the background analysis
      const owner = T.live && T.live.me().role === "owner";
      $("rvanalyse").hidden = !owner;
      say(owner ? _("This game is analysed in the background shortly; or start it now.")
        : _("This game is analysed in the background shortly."));
      timer = setTimeout(() => T.getJSON("/api/games/" + game.id + "/analysis").then(progress).catch((e) => say(e.message, true)), 2000);
    } else if (j.status === "running") {
      $("rvanalyse").hidden = true;
      say(_("The engine analyses the game: position {done} of {total}…", { done: j.done || 0, total: j.total || "?" }));
      timer = setTimeout(() => T.getJSON("/api/games/" + game.id + "/analysis").then(progress).catch((e) => say(e.message, true)), 700);
    } else if (j.status === "failed") {
      say(_("The analysis failed: {error}", { error: j.error || "?" }), true);
    }
  }

  const clip = (v) => Math.max(-CAP, Math.min(CAP, v));
  /* An evaluation (soldiers, from the attackers' point of view) for the list of swings. */
  const scoreText = (v) => (Math.abs(v) >= 900 ? (v > 0 ? _("attackers win") : _("defenders win")) : signed(v, 1));

  /* The graph: x = the position (0 = start, then after each move), y = the evaluation in
     soldiers from the attackers' point of view (clipped at ±10); labelled axes and a legend. */
  const W = 300, H = 120;
  function draw() {
    const ev = A.evaluations, n = Math.max(1, ev.length - 1), mid = H / 2;
    const x = (i) => (i / n) * W, y = (v) => mid - (clip(v) / CAP) * (mid - 4);
    const pts = ev.map((v, i) => x(i).toFixed(1) + "," + y(v).toFixed(1)).join(" ");
    const swing = new Set(A.swings);
    const dots = A.plies.filter((p) => swing.has(p.ply)).map((p) =>
      `<circle class="swing" cx="${x(p.ply).toFixed(1)}" cy="${y(p.after).toFixed(1)}" r="4"/>`).join("");
    const title = _("Evaluation after each move: above the line the attackers stand better, below the defenders");
    const up = _("attackers better"), down = _("defenders better"), axis = _("move");
    const legend = _("the engine's evaluation after each move, in soldiers (pieces), cut off at ±10");
    const lost = _("the moves that lost most");
    const text = (cls, tx, ty, words, anchor) => `<text class="${cls}" x="${tx}" y="${ty}" text-anchor="${anchor || "start"}">${esc(words)}</text>`;
    const half = Math.round(n / 2);
    $("rvgraph").innerHTML = `<svg class="evgraph" viewBox="-26 -2 ${W + 30} ${H + 18}" role="img" aria-label="${esc(title)}">` +
      `<title>${esc(title)}</title><rect class="evbg" x="0" y="0" width="${W}" height="${mid}"/>` +
      `<line class="evzero" x1="0" y1="${mid}" x2="${W}" y2="${mid}"/>` +
      `<line class="evaxis" x1="0" y1="0" x2="0" y2="${H}"/><line class="evaxis" x1="0" y1="${H}" x2="${W}" y2="${H}"/>` +
      `<polygon class="evarea" points="0,${mid} ${pts} ${x(ev.length - 1).toFixed(1)},${mid}"/>` +
      `<polyline class="evline" points="${pts}"/>${dots}<line id="evnow" class="evnow" y1="0" y2="${H}"/>` +
      text("evlabel", 4, 11, "▲ " + up) + text("evlabel", 4, H - 5, "▼ " + down) +
      text("evtick", -3, 8, signed(CAP, 0), "end") + text("evtick", -3, mid + 3, num(0, 0), "end") +
      text("evtick", -3, H - 1, num(-CAP, 0), "end") +
      text("evtick", 0, H + 11, "0", "middle") + (half > 0 && half < n ? text("evtick", x(half), H + 11, String(half), "middle") : "") +
      text("evtick", W, H + 11, String(n), "end") + text("evtick", W / 2 + 24, H + 11, axis, "start") + `</svg>` +
      `<p class="small evlegend"><span><span class="evkey"></span> ${esc(legend)}</span>` +
      `<span><span class="evkey dot"></span> ${esc(lost)}</span></p>` +
      `<p class="small">${esc(_("Tap the graph to go to that move."))}</p>`;
    const svg = $("rvgraph").querySelector("svg");
    svg.addEventListener("click", (e) => {
      const pt = svg.createSVGPoint();
      pt.x = e.clientX;
      pt.y = e.clientY;
      const at = pt.matrixTransform(svg.getScreenCTM().inverse());
      go(Math.max(0, Math.min(n, Math.round((at.x / W) * n))));
    });
    $("rvanalyse").hidden = true;
    const list = A.swings.map((ply) => A.plies[ply - 1]).filter(Boolean);
    $("rvswings").innerHTML = list.length ? list.map((p) => {
      // numbered as the move list numbers it (a move: one of each side's; "5." holds plies 9, 10)
      const n = Math.floor((p.ply - 1 + (game && game.first === "defenders" ? 1 : 0)) / 2) + 1;
      const head = _("Move {n}, {side}: {move}", { n: n, side: sideName(p.side), move: p.move });
      const a = { loss: num(p.loss, 1), before: scoreText(p.before), after: scoreText(p.after) };
      const lost = p.loss >= 500 ? _("a decisive mistake ({before} → {after})", a) : _("lost {loss} soldiers ({before} → {after})", a);
      const best = p.best_move ? _("better: {move}", { move: p.best_move }) : "";
      return `<li><button type="button" class="link" data-swing="${p.ply}">${esc(head)}</button> · ${esc(lost)}${best ? " · " + esc(best) : ""}</li>`;
    }).join("") : `<li class="small">${esc(_("No move lost much: a well played game."))}</li>`;
    mark(T.review && T.review.game() ? currentPly() : 0);
  }

  function currentPly() {
    const m = /#(\d+)$/.exec(location.hash);
    return m ? +m[1] : game ? game.moves.length : 0;
  }

  /* The current position on the graph. */
  function mark(ply) {
    const line = $("evnow");
    if (!line || !A) return;
    const n = Math.max(1, A.evaluations.length - 1), x = ((ply / n) * W).toFixed(1);
    line.setAttribute("x1", x);
    line.setAttribute("x2", x);
  }

  document.addEventListener("click", (ev) => {
    const b = ev.target.closest("[data-swing]");
    if (!b || !A) return;
    const p = A.plies[+b.dataset.swing - 1];
    const best = p.best_move ? p.best_move.split("-") : null;
    go(p.ply - 1, best ? { ply: p.ply - 1, from: best[0], to: best[1], side: p.side, played: p.move } : null);
  });

  T.analysis = { show, reset, mark };
})();
