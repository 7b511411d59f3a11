/* tafl-companion page: the owner's controls and forms (window.T.owner), loaded when the owner
   first opens them. Takeback, swap, draw offers and answers for either side, resignations, the
   match's next game; a new game or a two-game match (variant, house rules, players, the computer, the time
   control), the players' names and kinds, the phone links (spectators, and one player link per
   side, each with a QR code), and the board's lights. */
"use strict";
(function () {
  const T = window.T, P = T.play;
  const { _, esc, sideName, variantLabel, other } = T;
  const $ = (id) => document.getElementById(id);
  const SIDES = P.SIDES;
  let variants = null;
  const DEFAULT_LEVEL = 6;   // the engine's default (companion/engine/levels.py; a browser test checks)

  /* House rules: their names and values in words. */
  const OPTION = {
    sheltered_king: _("The board edge never encloses the king (sheltered king)"),
    chain_capture: _("Chain capture (several enemy pieces alternating with your own)"),
    king_armed: _("The king helps to capture"),
    escape: _("The king escapes to"),
    repetition: _("A position repeated three times"),
  };
  const VALUE = {
    true: _("yes"), false: _("no"), corners: _("the corners"), edge: _("any edge square"),
    off: _("is allowed"), draw: _("is a draw"), defenders_lose: _("loses for the defenders"),
  };
  const valueText = (v) => VALUE[String(v)] || String(v);

  const sel = (id, options, value) => `<select id="${id}">` + options.map(([v, text]) =>
    `<option value="${esc(v)}"${String(v) === String(value) ? " selected" : ""}>${esc(text)}</option>`).join("") + "</select>";
  const kinds = () => [["board", _("at the board")], ["page", _("on a phone (player link)")], ["computer", _("the computer")]];
  /* "level 6: strong (≈ 1450)": the rating measured against fixed anchors, where there is one
     (/api/variants "levels"; docs/engine.md) */
  const rating = (n) => { const lv = variants && (variants.levels || []).find((x) => x.level === n); return lv && lv.rating; };
  const levels = () => P.LEVEL.map((_n, i) => [i + 1, rating(i + 1)
    ? _("level {n}: {name} (≈ {rating})", { n: i + 1, name: P.levelName(i + 1), rating: rating(i + 1) })
    : _("level {n}: {name}", { n: i + 1, name: P.levelName(i + 1) })]);
  const ratingNote = () => (variants && (variants.levels || []).some((x) => x.rating)
    ? `<p class="small">${esc(_("≈: an approximate rating (Elo) in Copenhagen, from games against the computer's full strength at 0.1 s a move (rated 2000)."))}</p>` : "");

  /* Each side: a name, and who plays it (at the board, on a phone, the computer at a level). */
  function playerRows(prefix, S) {
    return SIDES.map((side) => {
      const p = (S && S.players && S.players[side]) || {};
      return `<fieldset><legend>${esc(sideName(side))}</legend><div class="row">` +
        `<label for="${prefix}-name-${side}">${esc(_("Name"))}</label>` +
        `<input id="${prefix}-name-${side}" maxlength="40" value="${esc(p.kind === "computer" || p.kind === "engine" ? "" : p.name || "")}"></div>` +
        `<div class="row"><label for="${prefix}-kind-${side}">${esc(_("Plays"))}</label>` +
        sel(`${prefix}-kind-${side}`, kinds(), p.kind === "engine" ? "computer" : p.kind || "board") + "</div>" +
        `<div class="row" data-level="${side}"><label for="${prefix}-level-${side}">${esc(_("Strength"))}</label>` +
        sel(`${prefix}-level-${side}`, levels(), p.level || DEFAULT_LEVEL) + "</div></fieldset>";
    }).join("");
  }

  /* A game against the computer: the side the person plays, where, the computer's strength and
     its time per move. */
  function computerRows(S) {
    const ps = (S && S.players) || {};
    const cpu = SIDES.find((s) => ps[s] && ps[s].kind === "computer");
    const you = cpu ? T.other(cpu) : "attackers", me = ps[you] && !isComputer(ps[you]) ? ps[you] : {};
    const secs = [["", _("as its level plays")]].concat([1, 2, 5, 10, 30].map((n) => [n, T.ngettext("{n} second", "{n} seconds", n)]));
    return `<div class="row"><label for="nf-you">${esc(_("You play"))}</label>` +
      sel("nf-you", SIDES.map((x) => [x, sideName(x)]), you) + "</div>" +
      `<div class="row"><label for="nf-you-name">${esc(_("Your name"))}</label><input id="nf-you-name" maxlength="40" value="${esc(me.name || "")}"></div>` +
      `<div class="row"><label for="nf-you-kind">${esc(_("Where you play"))}</label>` +
      sel("nf-you-kind", kinds().slice(0, 2), me.kind === "page" ? "page" : "board") + "</div>" +
      `<div class="row"><label for="nf-level">${esc(_("Strength"))}</label>` + sel("nf-level", levels(), (cpu && ps[cpu].level) || DEFAULT_LEVEL) + "</div>" +
      `<div class="row"><label for="nf-secs">${esc(_("Time per move"))}</label>` + sel("nf-secs", secs, (cpu && ps[cpu].seconds) || "") + "</div>" + ratingNote() +
      `<p class="small">${esc(_("With a game clock (below) the computer keeps to it as well."))}</p>`;
  }

  /* The person's side changed: where he plays and his name are that side's player's (a person
     at the board or on a phone), else at the board, unnamed; never kept from the other side
     (a phone game's "on a phone" made the person a phone player against the computer). */
  function youAs(S, you) {
    const p = (S && S.players && S.players[you]) || {}, person = !isComputer(p) && p.kind !== "club" && p.kind !== "online";
    $("nf-you-kind").value = person && p.kind === "page" ? "page" : "board";
    $("nf-you-name").value = person ? p.name || "" : "";
  }

  /* A board of a club may play another board of the club (club.js adds the form's rows). */
  const inClub = (S) => !!(S && S.remote && S.remote.kind === "club");
  const clubRows = (S) => (T.club ? T.club.formRows(S) : "");

  /* ---- new game or match ---- */
  function newForm(S) {
    const box = $("newform");
    if (box.dataset.ready) {   // opened again: the players as they are now
      box.querySelector("[data-mode=people]").innerHTML = playerRows("nf", S);
      box.querySelector("[data-mode=computer]").innerHTML = computerRows(S);
      if (T.club) T.club.refreshForm(S).then(showFields);
      showFields();
      return Promise.resolve();
    }
    const club = inClub(S) ? T.load("club").then(() => T.club.refreshForm(S)) : Promise.resolve();
    return club.then(() => T.getJSON("/api/variants")).then((j) => {
      variants = j;
      box.dataset.ready = "1";
      const opts = Object.keys(j.options).map((k) => `<div class="row"><label for="nf-opt-${k}">${esc(OPTION[k] || k)}</label>` +
        `<select id="nf-opt-${k}" data-opt="${k}"></select></div>`).join("");
      const tc = (S && S.clock && S.clock.control) || { main: 300, increment: 0, periods: 0, period: 30 };
      const tcKind = !S || !S.clock ? "none" : tc.periods ? "overtime" : tc.increment ? "fischer" : "sudden";
      const num = (id, v, label) => `<label class="num">${esc(label)} <input id="${id}" type="number" min="0" step="any" value="${v}"></label>`;
      box.innerHTML = `<div class="form">` +
        `<div class="row"><label for="variant">${esc(_("Variant"))}</label><select id="variant">` +
        j.variants.map((v) => `<option value="${esc(v.id)}">${esc(variantLabel(v.id, v.size, v.name))}</option>`).join("") +
        `</select></div>` +
        `<div class="row"><label for="nf-start">${esc(_("Start from"))}</label>` +
        sel("nf-start", [["start", _("the variant's start position")], ["setup", _("a position of my own (a study, an endgame)")]], "start") +
        `</div><div id="nf-setup" hidden></div>` +
        `<details><summary>${esc(_("House rules"))}</summary>${opts}</details>` +
        `<fieldset><legend>${esc(_("Who plays"))}</legend><div class="row"><label for="nf-mode">${esc(_("Opponent"))}</label>` +
        sel("nf-mode", [["people", _("two people")], ["computer", _("the computer")]].concat(T.club ? [["club", _("a board of the club")]] : []),
          S && SIDES.some((x) => S.players[x] && S.players[x].kind === "computer") ? "computer"
            : S && SIDES.some((x) => S.players[x] && S.players[x].kind === "club") ? "club" : "people") + "</div>" +
        `<div data-mode="people">${playerRows("nf", S)}</div><div data-mode="computer">${computerRows(S)}</div>` +
        `<div data-mode="club">${clubRows(S)}</div></fieldset>` +
        `<fieldset><legend>${esc(_("Clock"))}</legend><div class="row">` +
        sel("nf-tc", [["none", _("no clock")], ["sudden", _("sudden death")], ["fischer", _("main time + increment (Fischer)")],
          ["overtime", _("main time + overtime periods")]], tcKind) + `</div><div class="row">` +
        num("nf-main", +(tc.main / 60).toFixed(2), _("minutes")) + num("nf-inc", tc.increment, _("+ seconds a move")) +
        num("nf-periods", tc.periods || 3, _("periods")) + num("nf-period", tc.period || 30, _("seconds each")) +
        `</div></fieldset>` +
        `<div class="row"><label for="nf-coach">${esc(_("Coach"))}</label>` +
        sel("nf-coach", [["none", _("nobody")], ["attackers", _("warn the attackers of a losing move")],
          ["defenders", _("warn the defenders of a losing move")]], (S && S.coach && S.coach.side) || "none") + `</div>` +
        `<div class="row"><button type="button" data-act="new">${esc(_("New game"))}</button>` +
        `<button type="button" data-act="newmatch">${esc(_("New match: two games, sides swapped"))}</button></div></div>`;
      if (S) $("variant").value = S.variant;
      fillOptions();
      box.addEventListener("change", (ev) => {
        if (ev.target.id === "variant") fillOptions();
        if (ev.target.id === "nf-you") youAs(T.live.state(), ev.target.value);
        if (ev.target.id === "variant" || ev.target.id === "nf-start") setupBox();
        showFields();
      });
      showFields();
    });
  }

  /* A position of one's own (setup.js, loaded when chosen): the editor under the variant. */
  function setupBox() {
    const on = $("nf-start").value === "setup", el = $("nf-setup");
    el.hidden = !on;
    if (on) T.load("setup").then(() => T.setup.open(el, $("variant").value)).catch(T.refused);
    else if (T.setup) T.setup.close();   // the board is the game's again
  }

  /* Each house rule offers its values; the variant's own value is marked. */
  function fillOptions() {
    const v = variants.variants.find((x) => x.id === $("variant").value) || variants.variants[0];
    for (const k in variants.options) {
      const own = v.options[k];
      $("nf-opt-" + k).innerHTML = variants.options[k].map((val) =>
        `<option value="${esc(val)}"${String(val) === String(own) ? " selected" : ""}>${esc(valueText(val) + (String(val) === String(own) ? " " + _("(as the variant)") : ""))}</option>`).join("");
    }
  }

  function showFields() {
    const tc = $("nf-tc").value;
    $("nf-main").parentNode.hidden = tc === "none";
    $("nf-inc").parentNode.hidden = tc !== "fischer" && tc !== "overtime";
    $("nf-periods").parentNode.hidden = $("nf-period").parentNode.hidden = tc !== "overtime";
    const mode = $("nf-mode").value;
    document.querySelectorAll("#newform [data-mode]").forEach((d) => { d.hidden = d.dataset.mode !== mode; });
    $("newform").querySelector("[data-act=newmatch]").hidden = mode === "club";   // single games only
    levelRows("nf");
  }

  function levelRows(prefix) {
    SIDES.forEach((side) => {
      const row = document.querySelector(`#${prefix === "nf" ? "newform" : "playersform"} [data-level=${side}]`);
      if (row) row.hidden = $(`${prefix}-kind-${side}`).value !== "computer";
    });
  }

  function timeControl() {
    const tc = $("nf-tc").value, n = (id) => String(+$(id).value || 0);
    if (tc === "none") return "none";
    if (tc === "sudden") return n("nf-main");
    const base = n("nf-main") + "+" + n("nf-inc");
    return tc === "overtime" ? base + "/" + n("nf-periods") + "x" + n("nf-period") : base;
  }

  /* Names: the computer is called "Computer" (its level is shown beside it); a person whose
     name is left empty keeps his side's name, unless the computer had that side (a person is
     never called "Computer", nor the computer by a person's name, which would count its games
     in that person's results). */
  const isComputer = (p) => p && (p.kind === "computer" || p.kind === "engine");
  const DEFAULT_NAME = { attackers: "Player 1", defenders: "Player 2" };
  function nameFor(side, typed, kind) {
    if (typed) return typed;
    if (kind === "computer") return _("Computer");
    const S = T.live.state(), was = S && S.players && S.players[side];
    return isComputer(was) || (was && was.name === _("Computer")) ? DEFAULT_NAME[side] : undefined;
  }

  function players(prefix) {
    const out = {};
    if (prefix === "nf" && $("nf-mode").value === "club") return T.club.players();
    if (prefix === "nf" && $("nf-mode").value === "computer") {
      const you = $("nf-you").value, cpu = T.other(you);
      out[you] = { kind: $("nf-you-kind").value };
      const name = nameFor(you, $("nf-you-name").value.trim(), out[you].kind);
      if (name) out[you].name = name;
      out[cpu] = { kind: "computer", level: +$("nf-level").value, name: nameFor(cpu, "", "computer") };
      if ($("nf-secs").value) out[cpu].seconds = +$("nf-secs").value;
      return out;
    }
    SIDES.forEach((side) => {
      const p = { kind: $(`${prefix}-kind-${side}`).value };
      p.name = nameFor(side, $(`${prefix}-name-${side}`).value.trim(), p.kind);
      if (p.kind === "computer") { p.level = +$(`${prefix}-level-${side}`).value; }
      if (!p.name) delete p.name;
      out[side] = p;
    });
    return out;
  }

  function startGame(match) {
    const S = T.live.state();
    if (S && S.result === "ongoing" && S.moves.length && !confirm(_("Abandon this game and start a new one?"))) return null;
    const v = variants.variants.find((x) => x.id === $("variant").value);
    const options = {};
    for (const k in variants.options) {
      const val = $("nf-opt-" + k).value, own = String(v.options[k]);
      if (val !== own) options[k] = val === "true" ? true : val === "false" ? false : val;
    }
    const coach = $("nf-coach").value;
    const body = { variant: v.id, options: options, time_control: timeControl(), players: players("nf"),
      coach: coach === "none" ? null : coach };
    const from = $("nf-start").value === "setup" && T.setup ? T.setup.value() : null;
    if (from) Object.assign(body, from);   // the daemon checks the position for the variant
    if (match) body.match = true;
    // a board of the club plays a side: the game is only proposed until that board agrees
    const club = Object.values(body.players || {}).find((p) => p && p.kind === "club");
    return T.api("/api/new", body).then(() => {
      if (from) { $("nf-start").value = "start"; setupBox(); }   // played from it now: put away
      backToBoard();
      if (club) return _("Proposed to {board}: the game starts when {board} agrees.", { board: club.board || "?" });
      return match ? _("A new match has started.") : _("New game started.");
    });
  }

  /* The game has started: the form is put away and the board comes back into view (the
     computer's first move, the set-up guidance, the "Game N started" note are there). */
  function backToBoard() {
    $("newgame").open = false;
    window.scrollTo({ top: 0, behavior: "instant" });
  }

  /* ---- players ---- */
  function playersForm(S) {
    if (!variants) return T.getJSON("/api/variants").then((j) => { variants = j; return playersForm(S); });
    const box = $("playersform");
    box.innerHTML = `<div class="form">${playerRows("pf", S)}` +
      `<div class="row"><button type="button" data-act="players">${esc(_("Save the players"))}</button></div></div>`;
    box.onchange = () => levelRows("pf");
    levelRows("pf");
    return Promise.resolve();
  }

  function savePlayers() {
    return T.api("/api/players", players("pf")).then((j) => {
      const S = T.live.state();
      return S && S.result !== "ongoing" ? _("Saved: the players apply to the next game.") : _("Saved.");
    });
  }

  /* ---- phone links: the page for spectators, and a player link per side ---- */
  function qr(url, label) {
    const alt = _("QR code of {link}", { link: url });
    return `<div><b>${esc(label)}</b><img class="qr" alt="${esc(alt)}" src="/api/qr.svg?text=${encodeURIComponent(url)}">` +
      `<a href="${esc(url)}">${esc(url)}</a></div>`;
  }

  function linksBox(S) {
    const local = /^(localhost|127\.|\[::1\])/.test(location.hostname);
    const page = local ? T.getJSON("/api/links").then((j) => j.urls) : Promise.resolve([location.origin + "/"]);
    return Promise.all([page, T.api("/api/links")]).then(([urls, j]) => {
      const origin = new URL(urls[0]).origin;
      let html = `<p class="small">${esc(_("Spectators open this link or scan the code with a phone's camera: they see everything and can change nothing."))}</p>` +
        qr(urls[0], _("For spectators"));
      html += `<p class="small">${esc(_("A player link lets one person play one side from a phone: he taps his moves, offers or answers a draw and may resign, for his side only. Give each link only to its player."))}</p>`;
      SIDES.forEach((side) => {
        const l = j.links[side], p = S.players[side] || {};
        const who = { name: l.player || p.name || "?" };
        const label = side === "attackers" ? _("Player link of the attackers ({name})", who) : _("Player link of the defenders ({name})", who);
        html += qr(origin + l.path, label);
        if (p.kind !== "page") html += `<p class="small bad">${esc(_("This side plays at the board now: set it to “on a phone” under Players so that the link can choose moves."))}</p>`;
      });
      $("links").innerHTML = `<div class="links">${html}</div>`;
    });
  }

  /* ---- the board's lights ---- */
  function lightsBox(S) {
    const on = !S.lights || S.lights.raichi !== false;
    $("lights").innerHTML = `<label class="check"><input type="checkbox" id="raichileds"${on ? " checked" : ""}> ` +
      `${esc(_("Light the escape squares the king has a free line to (raichi, tuichi)"))}</label>` +
      `<p class="small">${esc(_("For everyone at the board. The warning on this page is a setting of each phone (Settings)."))}</p>`;
    $("raichileds").addEventListener("change", (ev) => {
      T.api("/api/lights", { raichi: ev.target.checked }).then(() => T.live.ctlMsg(_("Saved."))).catch(T.refused);
    });
    return Promise.resolve();
  }

  const OPEN = { new: newForm, players: playersForm, links: linksBox, lights: lightsBox };
  function open(name, S) {
    return (OPEN[name] || (() => Promise.resolve()))(S).catch(T.refused);
  }

  /* ---- the quick controls ---- */
  function render(S) {
    if (!S) return;
    const m = S.match;
    $("ctl").querySelector("[data-act=next]").hidden = !(m && m.next);
    evalRow(S);
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

  /* Evaluation on request (POST /api/eval): the engine's score of the position now, in words
     (advice.js), until the position changes; never a move to make. Analysis mode: every
     position of a game of two people, as it comes. While the owner's switch of it is being
     asked for, a state published meanwhile does not turn it back. */
  let analysisAsked = null;
  function evalRow(S) {
    let p = $("evaltext");
    if (!p) {
      const row = $("ctl").querySelector(".row");
      row.insertAdjacentHTML("beforeend", `<button type="button" data-act="eval">${esc(_("Evaluate the position"))}</button>`);
      row.insertAdjacentHTML("afterend", `<label class="check" id="analysisbox"><input type="checkbox" id="analysismode"> ` +
        `${esc(_("Evaluate every position (analysis mode)"))}</label><p id="evaltext" class="small" role="status"></p>`);
      $("analysismode").addEventListener("change", (ev) => {
        analysisAsked = ev.target.checked;
        T.api("/api/eval", { analysis: ev.target.checked })
          .then(() => { analysisAsked = null; })
          .catch((e) => { analysisAsked = null; ev.target.checked = false; T.refused(e); });
      });
      p = $("evaltext");
    }
    const ev = S.evaluation, over = S.result !== "ongoing";
    const people = SIDES.every((s) => S.players[s] && ["board", "page"].includes(S.players[s].kind));
    $("ctl").querySelector("[data-act=eval]").hidden = over;
    $("analysisbox").hidden = over || !people;
    $("analysismode").checked = analysisAsked !== null ? analysisAsked : !!(ev && ev.analysis);
    p.hidden = !ev || over;
    if (p.hidden) return;
    p.classList.toggle("bad", !!ev.error);
    if (ev.error) { p.textContent = _("The engine could not evaluate the position: {why}", { why: ev.error }); return; }
    if (ev.score === null) { p.textContent = _("The engine looks at the position…"); return; }
    if (!T.advice) { T.load("advice").then(() => evalRow(T.live.state())); return; }
    p.textContent = _("The engine's view: {eval} (its best move: {move}).",
      { eval: T.advice.evalText(ev.score, ev.side), move: ev.best || "?" });
  }

  /* A control's button: its request, then the words for the owner (a promise), or null. */
  function act(b) {
    const a = b.dataset.act, side = b.dataset.side, api = T.api;
    if (a === "new" || a === "newmatch") return startGame(a === "newmatch");
    if (a === "players") return savePlayers();
    if (a === "takeback") {
      return api("/api/takeback").then((j) => (j.reopened ? _("The game is open again.")
        : j.moves && j.moves.length > 1 ? _("Took back {move} and the computer's reply {reply}: put the pieces back as the lights show.", { move: j.undone, reply: j.moves[0] })
          : _("Took back {move}: put the pieces back as the lights show.", { move: j.undone })));
    }
    if (a === "swap") {
      return api("/api/swap").then((j) => (j.applies_to === "next_game"
        ? _("For the next game: attackers {a}, defenders {d}.", { a: j.players.attackers, d: j.players.defenders })
        : _("Attackers: {a}, defenders: {d}.", { a: j.players.attackers, d: j.players.defenders })));
    }
    if (a === "eval") return api("/api/eval").then(() => "");
    if (a === "next") return api("/api/next").then(() => _("The next game of the match has started."));
    if (a === "draw") return api("/api/draw", { action: b.dataset.action, side: side }).then(() => _("Done."));
    if (a === "resign") {
      if (!confirm(side === "attackers" ? _("Do the attackers resign?") : _("Do the defenders resign?"))) return null;
      return api("/api/resign", { side: side }).then(() => _("Resigned."));
    }
    return null;
  }

  T.owner = { open, act, render };
  render(T.live.state());
})();
