/* tafl-companion page: the review of a stored game, a view of its own (/review/<id>, #<ply>
   picks the position), loaded when first opened: players, date, variant and its rules, result,
   the match it belongs to (both games, the score), the move list (each move clickable),
   first/previous/next/last and the arrow keys, captured pieces, move times and the clocks after
   each move, a link to share, the downloads, and the engine's analysis (analysis.js). Leaving it
   returns to the live game. */
"use strict";
(function () {
  const T = window.T;
  const { _, ngettext, esc, sideName, resultText, piecesText, variantLabel, dateText, playerName } = T;
  const $ = (id) => document.getElementById(id);
  let R = null;        // the game under review
  let ply = 0;         // position shown: after this many moves
  let better = null;   // the engine's better move shown on the board: {ply, from, to}

  const active = () => !!R;
  let leaving = false;
  window.addEventListener("pagehide", () => { leaving = true; });
  window.addEventListener("beforeunload", () => { leaving = true; });

  function build() {
    const box = $("review");
    if (box.firstChild) return;
    const nav = (k, label, sign) => `<button type="button" data-rv="${k}" aria-label="${esc(label)}">${sign}</button>`;
    box.innerHTML = `<div class="boardcol"><div class="row rvhead"><button type="button" id="rvclose">${esc(_("Back to the live game"))}</button></div>` +
      `<div class="boardwrap"><svg id="rvboard" class="board" role="img" aria-label="${esc(_("the board"))}" viewBox="0 0 11 11"></svg></div>` +
      `<div class="navbar">${nav("first", _("first position"), "&laquo;")}${nav("prev", _("previous move"), "&lsaquo;")}<span id="rvpos"></span>` +
      `${nav("next", _("next move"), "&rsaquo;")}${nav("last", _("last position"), "&raquo;")}</div>` +
      `<p id="rvmsg" class="msg" aria-live="polite"></p><p id="rvclock" class="small" hidden></p>` +
      `<p id="rvnote" class="small note" hidden></p>` +
      `<div class="row"><button type="button" id="rvplayon" hidden>${esc(_("Play on from this position"))}</button></div></div>` +
      `<div class="sidecol"><div id="rvinfo" class="rvinfo"></div><div id="rvmatch" class="rvmatch" hidden></div><div id="rvcaps" class="small"></div>` +
      `<section class="moves"><h2>${esc(_("Moves"))} <span id="rvcount" class="small"></span></h2><ol id="rvmoves"></ol></section>` +
      `<section id="rvanalysis" class="analysis"><h2>${esc(_("Analysis"))}</h2><div id="rvgraph"></div>` +
      `<div class="row"><button type="button" id="rvanalyse">${esc(_("Analyse with the engine"))}</button></div><ol id="rvswings" class="swings"></ol></section>` +
      `<div class="row"><label for="rvlink" class="small">${esc(_("Link to this game"))}</label><input id="rvlink" readonly>` +
      `<button type="button" id="rvcopy">${esc(_("Copy"))}</button></div>` +
      `<div class="row"><a id="rvcsv" class="button" download>${esc(_("Download CSV"))}</a><a id="rvotg" class="button" download>${esc(_("Download .otg"))}</a></div></div>`;
  }

  function open(id, at, push, analyse) {
    build();
    return T.getJSON("/api/review/" + id).then((g) => {
      R = g;
      better = null;
      ply = at === undefined || at === null ? g.moves.length : Math.max(0, Math.min(g.moves.length, at));
      if (push !== false) history.pushState({ review: id }, "", "/review/" + id + (ply !== g.moves.length ? "#" + ply : ""));
      $("live").hidden = true;
      $("review").hidden = false;
      document.body.classList.add("reviewing");
      renderInfo();
      show();
      window.scrollTo(0, 0);
      if (T.analysis) T.analysis.reset();
      if (g.moves.length && (analyse || g.analysed !== false)) return analysis(analyse);
    }).catch((e) => {
      if (leaving) return;   // the page is being reloaded or left: the request was cut off
      if (push === false) close(true);
      if (T.live && T.live.say) T.live.say(_("Cannot open game {id}: {error}", { id: id, error: e.message }), true);
    });
  }

  function close(push) {
    R = null;
    if (T.analysis) T.analysis.reset();
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
    const name = (side) => (p[side] ? esc(playerName(p[side])) : "<i>" + esc(_("unnamed")) + "</i>");
    const result = g.result === "ongoing" && !g.reason ? _("unfinished") : resultText(g.result, g.reason);
    let origin = g.imported ? _("imported from {file}", { file: g.imported.name || "?" }) : "";
    if (g.imported && g.imported.found) {
      const also = (g.imported.fits || []).filter((v) => v !== g.variant).map((v) => T.variantName(v));
      origin += " · " + (also.length ? _("variant found from the moves; they fit {variants} as well", { variants: T.listText(also) })
        : g.imported.found === "header" ? _("variant named in the file") : _("variant found from the moves"));
    }
    const rules = _("Rules"), none = _("No moves.");
    const tc = g.time_control ? _("Clock: {control}", { control: g.time_control }) : "";
    const kinds = g.player_kinds || {};
    const house = T.houseRulesText(g.settings && g.settings.options);
    const kind = (side) => (kinds[side] && kinds[side] !== "board" ? `<span class="small">${esc(T.play.kindText({ kind: kinds[side], level: (g.player_levels || {})[side] }))}</span>` : "");
    $("rvinfo").innerHTML =
      `<div><b>${esc(sideName("attackers"))}</b>${name("attackers")} ${kind("attackers")}</div>` +
      `<div><b>${esc(sideName("defenders"))}</b>${name("defenders")} ${kind("defenders")}</div>` +
      `<div class="wide">${esc(variantLabel(g.variant, g.size, g.rules && g.rules.name))} · <button type="button" class="link" id="rvrules">${esc(rules)}</button>${tc ? " · " + esc(tc) : ""}</div>` +
      (house ? `<div class="wide">${esc(house)}</div>` : "") +
      `<div class="wide">${esc(startedText(g))}${origin ? " · " + esc(origin) : ""}</div>` +
      `<div class="wide result-line">${esc(result)}</div>`;
    renderMatch();
    const first = g.first === "defenders" ? 1 : 0;
    const plies = first ? [null].concat(g.moves) : g.moves;
    const o = [];
    for (let i = 0; i < plies.length; i += 2) {
      const cell = (m) => (m ? `<button type="button" class="mv" data-ply="${m.ply}">${esc(m.text)}</button>` : "<span>…</span>");
      o.push(`<li>${cell(plies[i])}${plies[i + 1] ? cell(plies[i + 1]) : ""}</li>`);
    }
    $("rvmoves").innerHTML = o.join("") || `<li class="small">${esc(none)}</li>`;
    $("rvcount").textContent = g.moves.length ? "(" + g.moves.length + ")" : "";   // as the live list
    const link = location.origin + "/review/" + g.id;
    $("rvlink").value = link;
    $("rvcsv").href = `/api/games/${g.id}/record.csv`;
    $("rvotg").href = `/api/games/${g.id}/game.otg`;
    $("rvanalysis").hidden = g.moves.length === 0;
    const me = T.live ? T.live.me() : {};
    $("rvanalyse").hidden = me.role !== "owner" || (g.result === "ongoing" && T.live && T.live.state() && T.live.state().game === g.id);
  }

  /* An ISO day ("2019-03-04") in the page's language, without a time of day. */
  function dayText(iso) {
    const [y, m, d] = iso.split("-").map(Number), day = new Date(y, m - 1, d);
    try { return day.toLocaleDateString(T.LOCALE, { dateStyle: "medium" }); } catch (e) { return day.toLocaleDateString(); }
  }

  /* When the game was played: date and time for a game played here; for an imported one the
     day its file gives (a file has no time of day: none is made up), or that it gives none. */
  function startedText(g) {
    if (!g.imported) return dateText(g.started);
    return g.imported.date ? dayText(g.imported.date) : _("the file gives no date");
  }

  /* The same for a row of the games list, which says "imported" where the result does not. */
  function listDate(g) {
    if (!g.imported) return dateText(g.started);
    const said = g.reason === "imported";   /* "imported, unfinished" */
    if (!g.imported.date) return said ? _("no date") : _("imported, no date");
    const day = dayText(g.imported.date);
    return said ? day : _("{date}, imported", { date: day });
  }

  /* The match this game belongs to: both games (each opens here) and the score. */
  function renderMatch() {
    const m = R.match, box = $("rvmatch");
    box.hidden = !m;
    if (!m) return;
    const games = m.games.map((g) => {
      const title = _("Game {n}", { n: g.match_game });
      const who = _("{attackers} attacks, {defenders} defends", { attackers: playerName(g.players.attackers), defenders: playerName(g.players.defenders) });
      const res = g.result === "ongoing" ? _("unfinished") : resultText(g.result, g.reason);
      const link = g.id === R.id ? `<b>${esc(title)}</b>` : `<a href="/review/${g.id}" data-review="${g.id}">${esc(title)}</a>`;
      return `<li>${link}: ${esc(who)} · ${esc(res)}</li>`;
    }).join("");
    const score = T.play.matchText(Object.assign({}, m, { game: R.match_game, games: 2 }));
    const head = _("Match {id}", { id: m.id });
    box.innerHTML = `<b>${esc(head)}</b> <span>${esc(score)}</span><ul>${games}</ul>` +
      `<div class="row"><a class="button" download href="/api/matches/${m.id}/record.csv">${esc(_("Download the match (CSV)"))}</a>` +
      `<a class="button" download href="/api/matches/${m.id}/games.otg">${esc(_("Download the match (.otg)"))}</a></div>`;
  }

  function show() {
    const g = R, n = g.moves.length;
    const m = ply ? g.moves[ply - 1] : null;
    const settings = T.announce ? T.announce.settings : { threats: true };
    const hint = better && better.ply === ply ? better : null;
    T.drawBoard($("rvboard"), {
      size: g.size, throne: g.throne, corners: g.corners, flip: T.flip,
      pos: T.parseOtn(g.positions[ply], g.size),
      last: m ? { from: m.from, to: m.to } : null, taken: m ? m.captured : [],
      threat: settings.threats ? g.threats[ply] : null,
      leds: hint ? { [hint.from]: "hint_from", [hint.to]: "hint_to" } : {},
    });
    $("rvpos").textContent = _("Move {i} of {n}", { i: ply, n: n });
    /* whole sentences, each ending with its full stop */
    const said = [];
    if (m) {
      said.push(_("{side}: {move}.", { side: sideName(m.side), move: m.text }));
      if (m.captured.length) said.push(_("Captured: {pieces}.", { pieces: piecesText(m.captured.map((c) => c.piece)) }));
      if (!g.imported && m.t) {
        const before = ply > 1 ? g.moves[ply - 2].t : g.started;
        said.push(_("Played {time} after the previous move.", { time: duration(m.t - before) }));
      }
    } else {
      said.push(_("Start position."));
      if (g.first === "defenders") said.push(_("The defenders move first."));
    }
    if (ply === n && g.result !== "ongoing") said.push(resultText(g.result, g.reason) + ".");
    const threat = settings.threats && g.threats[ply];
    if (threat && T.announce) said.push(T.announce.threatWords(threat) + ".");
    if (hint) {
      const a = { from: hint.from, to: hint.to, played: hint.played || "" };
      said.push(hint.side === "attackers" ? _("Better for the attackers here: {from} to {to} instead of {played}.", a)
        : _("Better for the defenders here: {from} to {to} instead of {played}.", a));
    }
    const puzzle = g.imported && g.imported.puzzle;
    if (puzzle && puzzle.start === ply && ply < n) {
      const side = g.moves[ply] ? g.moves[ply].side : null;
      said.push(side === "defenders" ? _("The puzzle starts here: the defenders to move.")
        : side === "attackers" ? _("The puzzle starts here: the attackers to move.") : _("The puzzle starts here."));
    }
    $("rvmsg").textContent = said.join(" ");
    /* the file's own comment on this move (its annotator's words, in the file's language) */
    const note = g.imported && g.imported.comments && g.imported.comments[String(ply)];
    $("rvnote").hidden = !note;
    $("rvnote").textContent = note || "";
    const left = m && m.left;
    $("rvclock").hidden = !left;
    if (left) {
      $("rvclock").textContent = _("Clocks after this move: attackers {a}, defenders {d}",
        { a: T.play.clockText(left.attackers), d: T.play.clockText(left.defenders) });
    }
    const taken = { attackers: [], defenders: [] };
    g.moves.slice(0, ply).forEach((mv) => mv.captured.forEach((c) => taken[mv.side].push(c.piece)));
    const nothing = _("nothing");
    $("rvcaps").innerHTML = ["attackers", "defenders"].map((side) => {
      const line = side === "attackers" ? _("Taken by the attackers: {pieces}", { pieces: piecesText(taken[side]) || nothing })
        : _("Taken by the defenders: {pieces}", { pieces: piecesText(taken[side]) || nothing });
      return `<div>${esc(line)}</div>`;
    }).join("");
    document.querySelectorAll("#rvmoves .mv").forEach((b) => {
      b.classList.toggle("now", +b.dataset.ply === ply);
    });
    const now = document.querySelector("#rvmoves .mv.now");
    if (now) now.scrollIntoView({ block: "nearest" });
    const me = T.live ? T.live.me() : {};
    /* play on only under rules a new game can have: a preset with its house rules (an
       imported rule set of its own, or rules beyond the house rules, cannot start a game) */
    const options = Object.keys((R.settings && R.settings.options) || {});
    $("rvplayon").hidden = me.role !== "owner" || R.variant === "opentafl" ||
      options.some((k) => !T.HOUSE_RULES.includes(k));
    $("review").querySelectorAll("[data-rv]").forEach((b) => {
      const k = b.dataset.rv;
      b.disabled = (k === "first" || k === "prev") ? ply === 0 : ply === n;
    });
    if (T.analysis) T.analysis.mark(ply);
  }

  function duration(s) {
    s = Math.max(0, Math.round(s));
    const h = Math.floor(s / 3600), mm = Math.floor(s / 60) % 60, ss = s % 60;
    const two = (x) => (x < 10 ? "0" : "") + x;
    return (h ? h + ":" + two(mm) : mm) + ":" + two(ss);
  }

  function go(to, hint) {
    if (!R) return;
    ply = Math.max(0, Math.min(R.moves.length, to));
    better = hint || null;
    history.replaceState(history.state, "", "/review/" + R.id + (ply !== R.moves.length ? "#" + ply : ""));
    show();
  }

  function step(k) {
    go(k === "first" ? 0 : k === "last" ? R.moves.length : ply + (k === "next" ? 1 : -1));
  }

  /* A new game from the position shown (an imported game, a game from a book, a moment to
     try again): same variant and house rules, the side to move then, the players' names. */
  function playOn() {
    const g = R, turn = ply < g.moves.length ? g.moves[ply].side
      : ply ? T.other(g.moves[ply - 1].side) : g.first;
    const players = {};
    ["attackers", "defenders"].forEach((side) => { if (g.players[side]) players[side] = { name: g.players[side] }; });
    const body = { variant: g.variant, position: g.positions[ply], turn: turn, players: players,
      options: (g.settings && g.settings.options) || {} };
    if (T.live.state() && T.live.state().result === "ongoing" && T.live.state().moves.length &&
        !confirm(_("Abandon this game and start a new one?"))) return;
    T.api("/api/new", body).then(() => { close(); T.live.ctlMsg(_("New game started.")); })
      .catch((e) => T.load("errors").then(() => T.errorText(e), () => e.message)
        .then((text) => { $("rvmsg").textContent = text; $("rvmsg").className = "msg bad"; }));
  }

  /* The engine's analysis (analysis.js, loaded on demand): stored, or asked for now. */
  function analysis(start) {
    return T.load("analysis").then(() => T.analysis.show(R, start, go));
  }

  $("review").addEventListener("click", (ev) => {
    const b = ev.target.closest("button");
    if (!b || !R) return;
    if (b.dataset.rv) step(b.dataset.rv);
    else if (b.dataset.ply) go(+b.dataset.ply);
    else if (b.id === "rvclose") close();
    else if (b.id === "rvanalyse") analysis(true);
    else if (b.id === "rvplayon") playOn();
    else if (b.id === "rvrules") T.openRules(Object.assign({}, R.rules, { id: R.variant }), R.settings && R.settings.options);
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

  /* ---- import (the owner): an .otg file or CSV records, then review ---- */
  /* The largest file the daemon takes (web.limits: max_import_body, 4 MiB, sent as JSON): the
     file itself is held to 4 MB less what JSON adds to it. */
  const MAX_IMPORT = 4 * 1024 * 1024 - 64 * 1024;
  function importFile(file, variant) {
    return file.text().then((text) => T.api("/api/import", { name: file.name, text: text, variant: variant }))
      .then((j) => {
        const already = (j.already || []).length, fresh = j.games.length - already;
        const a = { n: fresh, variant: j.variant ? T.variantName(j.variant) : "", ids: (j.already || []).join(", ") };
        const also = (j.fits || []).slice(1).map((v) => T.variantName(v)).filter((v) => v !== a.variant);
        let text = !fresh ? "" : j.found ? T.ngettext("Imported {n} game as {variant} (found from the file).", "Imported {n} games as {variant} (found from the file).", fresh, a)
          : T.ngettext("Imported {n} game.", "Imported {n} games.", fresh, a);
        if (already) {
          text += (text ? " " : "") + T.ngettext("Already stored, not imported again: game {ids}.",
            "Already stored, not imported again: games {ids}.", already, a);
        }
        if (also.length) text += " " + _("The moves fit {variants} as well: choose the variant on the form to import it as that.", { variants: T.listText(also) });
        $("importmsg").textContent = text;
        $("importmsg").className = "small";
        $("importmsg").hidden = false;
        open(j.games[0], j.ply === null || j.ply === undefined ? undefined : j.ply);
        return j.games;
      });
  }

  /* The file chosen on the import form: a CSV file's variant is the one chosen there, else
     found from the file (never the live game's: a record may come from any variant). */
  function importChosen() {
    const file = $("importfile").files[0];
    if (!file) return Promise.resolve();
    const csv = !/\.otg$/i.test(file.name);
    $("importmsg").hidden = true;
    if (file.size > MAX_IMPORT) {   /* refused before it is sent (the daemon would say 413) */
      $("importfile").value = "";
      return T.load("errors").then(() => T.errorText({ code: "too_large", message: "larger than " + MAX_IMPORT + " bytes" }),
        () => "").then((text) => {
        $("importmsg").textContent = text;
        $("importmsg").className = "small bad";
        $("importmsg").hidden = false;
      });
    }
    return importFile(file, csv ? $("importvariant").value || undefined : undefined).then(() => {
      $("importfile").value = "";
      list();
    }).catch((e) => {
      $("importfile").value = "";
      T.load("errors").then(() => T.errorText(e), () => e.message).then((text) => {
        $("importmsg").textContent = text;
        $("importmsg").className = "small bad";
        $("importmsg").hidden = false;
      });
    });
  }

  /* The variants a CSV file may be imported as (the import form's choice). */
  function fillVariants() {
    const sel = $("importvariant");
    if (sel.dataset.ready) return;
    sel.dataset.ready = "1";
    T.getJSON("/api/variants").then((j) => {
      sel.insertAdjacentHTML("beforeend", j.variants.map((v) =>
        `<option value="${esc(v.id)}">${esc(variantLabel(v.id, v.size, v.name))}</option>`).join(""));
    }).catch(() => { delete sel.dataset.ready; });
  }

  /* ---- past games ---- */
  function list() {
    fillVariants();
    T.getJSON("/api/games?limit=30").then((j) => {
      const none = _("No games yet.");
      $("gamelist").innerHTML = j.games.map((g) => {
        const res = g.result === "ongoing"
          ? (g.reason === "imported" ? _("imported, unfinished") : g.finished ? _("abandoned") : _("in play"))
          : resultText(g.result, g.reason);
        const title = _("Game {id}", { id: g.id });
        const what = T.variantName(g.variant, g.settings && g.settings.name) + " · " + T.ngettext("{n} move", "{n} moves", g.plies);
        const match = g.match ? " · " + _("match {id}, game {n}", { id: g.match, n: g.match_game }) : "";
        const when = listDate(g);
        return `<li><a href="/review/${g.id}" data-review="${g.id}">${esc(title)}</a> · ${esc(what + match)}<br>` +
          `<span class="small">${esc(playerName(g.players.attackers))} – ${esc(playerName(g.players.defenders))} · ${esc(res)} · ${esc(when)}</span></li>`;
      }).join("") || `<li>${esc(none)}</li>`;
    });
  }

  T.review = { open, close, active, importFile, importChosen, list, go, redraw: () => R && show(), game: () => R };
})();
