/* tafl-companion page: who plays and how long they have (window.T.play). The clocks (counted
   down in the page from the daemon's reading), the players of each side with their results,
   the move a remote player chooses by tapping (legal targets from /api/legal), the session's
   events worded for everyone ("who did what"). */
"use strict";
(function () {
  const T = window.T;
  const { _, N_, ngettext, esc, sideName, listText, num, playerName } = T;
  const SIDES = ["attackers", "defenders"];

  /* ---- the daemon's wall clock (the clocks count from its readings) ---- */
  // daemon's wall time minus this device's, seconds
  let offset = 0;
  function syncTime() {
    const t0 = Date.now();
    return T.getJSON("/api/time").then((j) => {
      const t1 = Date.now();
      if (t1 - t0 < 1000) offset = j.now - (t0 + t1) / 2000;
    }).catch(() => {});
  }
  const serverNow = () => Date.now() / 1000 + offset;

  /* ---- clocks ---- */
  /* One side's time now: {shown, periods, overtime, flag (seconds until the flag falls)}. */
  function sideTime(c, side) {
    const ctl = c.control || {}, ot = (c.overtime || {})[side] || {};
    let main = ot.in_overtime ? 0 : c[side], periods = ot.periods || 0;
    let left = ot.in_overtime ? c[side] : ctl.period || 0;
    let rest = c.running === side && !c.paused && c.flagged == null ? Math.max(0, serverNow() - c.at) : 0;
    const use = Math.min(main, rest);
    main -= use;
    rest -= use;
    while (main <= 0 && rest > 0 && periods > 0) {
      const u = Math.min(left, rest);
      left -= u;
      rest -= u;
      if (left <= 1e-9) { periods -= 1; left = periods > 0 ? ctl.period : 0; }
    }
    const over = main <= 0 && (ctl.periods || 0) > 0;
    const flag = main + (periods > 0 ? left + (periods - 1) * ctl.period : 0);
    return { shown: Math.max(0, over && periods > 0 ? left : main), periods: periods, overtime: over, flag: Math.max(0, flag) };
  }

  function clockText(s) {
    if (s < 10) return num(Math.floor(s * 10) / 10, 1);
    s = Math.floor(s);
    const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, x = s % 60;
    const two = (v) => (v < 10 ? "0" : "") + v;
    return (h ? h + ":" + two(m) : m) + ":" + two(x);
  }

  /* The time control in words: "5 min + 3 s", "10 min, then 3 × 30 s". */
  function controlText(ctl) {
    const min = num(ctl.main / 60, 2, 0);
    let t = ctl.increment ? _("{main} min + {inc} s", { main: min, inc: ctl.increment }) : _("{main} min", { main: min });
    if (ctl.periods) t = _("{main}, then {periods} × {period} s", { main: t, periods: ctl.periods, period: ctl.period });
    return t;
  }

  // seconds: the low-time warning (as the daemon's clock)
  const LOW = 10;
  let lowWarned = {};

  function renderClocks(S, el) {
    const c = S.clock;
    el.hidden = !c;
    if (!c) return false;
    let ticking = false;
    el.querySelectorAll(".clock").forEach((face) => {
      const side = face.dataset.side, t = sideTime(c, side);
      const run = c.running === side && !c.paused && S.result === "ongoing";
      const low = c.flagged !== side && t.flag < LOW && S.result === "ongoing";
      const out = c.flagged === side;
      face.className = "clock" + (run ? " run" : "") + (low ? " low" : "") + (out ? " out" : "");
      face.querySelector(".ctime").textContent = out ? "0:00" : clockText(t.shown);
      const ot = t.overtime ? ngettext("overtime: {n} period left", "overtime: {n} periods left", t.periods) : "";
      face.querySelector(".cinfo").textContent = out ? _("out of time") : ot;
      ticking = ticking || run;
      const key = S.game + side;
      if (low && run && !lowWarned[key] && T.announce) {
        lowWarned[key] = true;
        T.announce.announce("threat", side === "attackers" ? _("The attackers have less than ten seconds.") : _("The defenders have less than ten seconds."));
      }
    });
    const paused = c.paused && S.result === "ongoing";
    // no clock runs before the game's first move is on the board (the daemon's rule)
    const first = !S.moves.length && !c.running && S.result === "ongoing";
    const head = paused ? _("Clocks paused") : first ? _("The clocks start with the first move") : "";
    el.querySelector(".cstate").textContent = (head ? head + " · " : "") + controlText(c.control);
    el.classList.toggle("paused", paused);
    return ticking;
  }

  /* ---- players ---- */
  const LEVEL = [N_("beginner"), N_("novice"), N_("casual"), N_("club"), N_("keen"), N_("strong"),
    N_("expert"), N_("master"), N_("grandmaster"), N_("full strength")];
  const levelName = (n) => _(LEVEL[n - 1] || "") || String(n);
  function kindText(p) {
    if (!p) return "";
    if (p.kind === "page") return _("on a phone");
    if (p.kind === "online") return p.rating ? _("online, rating {n}", { n: Math.round(p.rating) }) : _("online");
    if (p.kind === "computer") return _("computer, level {n} ({name})", { n: p.level, name: levelName(p.level) });
    if (p.kind === "engine") return _("engine: {command}", { command: p.command || "" });
    if (p.kind === "club") return T.club ? T.club.kindText(p) : p.board || p.name || "";
    return _("at the board");
  }

  /* "3 games · wins: 2 as attackers, 1 as defenders · 1 draw" */
  function resultsText(r) {
    if (!r || !r.games) return _("no finished games yet");
    const parts = [ngettext("{n} game", "{n} games", r.games),
      _("wins: {a} as attackers, {d} as defenders", { a: r.wins_attackers, d: r.wins_defenders })];
    if (r.draws) parts.push(ngettext("{n} draw", "{n} draws", r.draws));
    return parts.join(" · ");
  }

  /* ---- the match ---- */
  function matchText(m) {
    const sc = m.score || {}, names = m.players || Object.keys(sc);
    const score = names.map((n) => playerName(n) + " " + scoreText(sc[n] || 0)).join(" – ");
    let head = _("Match, game {n} of {games}", { n: m.game, games: m.games });
    if (m.finished) {
      head = m.winner ? _("Match over: {name} wins", { name: playerName(m.winner) }) : _("Match over: drawn");
      const how = { moves: _("the quicker win in moves decided"), time: _("more time left decided") }[m.decided_by];
      if (how) head += " (" + how + ")";
    }
    return head + " · " + score;
  }
  const scoreText = (x) => (x % 1 ? (Math.floor(x) || "") + "½" : String(x));

  /* ---- the session's events, worded for everyone ---- */
  function who(by, S, e) {
    if (by === "owner") return _("by the owner");
    if (by === "board") return _("at the board");
    if (by === "computer" || (e && e.computer)) return _("by the computer");
    if (by === "engine") return _("by the engine");
    if (by === "club") return T.club ? T.club.who() : "";
    if (by === "attackers" || by === "defenders") {
      // who played that side when it happened (kept with the event), else the side's player now
      if (e && /^(computer|engine)$/.test(e.by_kind || "")) return _("by the computer");
      const name = e && e.name ? e.name : S && S.players && S.players[by] ? S.players[by].name : "";
      if (name) return _("by {name}", { name: playerName(name) });
      return by === "attackers" ? _("by the attackers' player") : _("by the defenders' player");
    }
    return "";
  }
  const per = (side, a, d) => (side === "attackers" ? a : d);

  function eventWords(e) {
    const s = e.side;
    switch (e.kind) {
      case "takeback":
        if (e.reopened === "agreement") return _("The draw agreement was taken back: play on");
        if (e.reopened === "resignation") return _("The resignation was taken back: play on");
        if (e.moves && e.moves.length > 1) return _("Moves {moves} were taken back", { moves: T.listText(e.moves.slice().reverse()) });
        return _("Move {move} was taken back", { move: e.move || "?" });
      case "draw":
        if (e.action === "offer") return per(s, _("The attackers offer a draw"), _("The defenders offer a draw"));
        if (e.action === "accept") return per(s, _("The attackers accept the draw"), _("The defenders accept the draw"));
        if (e.action === "decline") return per(s, _("The attackers decline the draw"), _("The defenders decline the draw"));
        if (e.action === "lapsed") return per(s, _("The attackers' draw offer lapsed with the defenders' move"), _("The defenders' draw offer lapsed with the attackers' move"));
        return "";
      case "resign": return per(s, _("The attackers resigned"), _("The defenders resigned"));
      case "swap": return e.next_game ? _("The players swap sides for the next game") : _("The players swapped sides");
      case "players": return _("The players were changed");
      case "colours": return _("The pieces were checked: they are right");
      case "flag": return per(s, _("The attackers ran out of time"), _("The defenders ran out of time"));
      case "clock": return e.action === "pause" ? _("The clocks were paused") : _("The clocks run again");
      case "new_game": return _("Game {id} started", { id: e.game });
      case "move_to_make": {
        const a = { from: (e.move || "").split("-")[0], to: (e.move || "").split("-")[1] };
        if (e.by === "computer" || e.by === "engine") {
          return per(e.side, _("The computer (attackers) chose {from} to {to}: to be made at the board", a),
            _("The computer (defenders) chose {from} to {to}: to be made at the board", a));
        }
        return per(e.side, _("The attackers chose {from} to {to}: to be made at the board", a),
          _("The defenders chose {from} to {to}: to be made at the board", a));
      }
      case "refused": return e.code === "not_the_move_to_make" ? _("{move} was not accepted: it is not the move to make", { move: e.move || "?" })
        : _("{move} was not accepted", { move: e.move || "?" });
      case "storage": return e.ok ? _("The store writes again: nothing was lost") : "";
      case "match_over": return e.winner ? _("The match is over: {name} wins", { name: playerName(e.winner) }) : _("The match is over: drawn");
      case "player_error": {
        const a = { error: e.message || "" };
        return per(e.by, _("The attackers' computer player failed: {error}", a), _("The defenders' computer player failed: {error}", a));
      }
      case "hint": {
        const a = { from: (e.move || "").split("-")[0], to: (e.move || "").split("-")[1] };
        return per(e.side, _("Hint for the attackers: {from} to {to}", a), _("Hint for the defenders: {from} to {to}", a));
      }
      case "hint_failed": return _("No hint: {error}", { error: e.message || "" });
    }
    return "";
  }

  /* A whole sentence: "Move d3-e3 was taken back (at the board)." */
  function eventText(e, S) {
    const what = eventWords(e);
    if (!what) return "";
    const by = ["owner", "board", "attackers", "defenders", "club"].includes(e.by) && !["flag", "storage", "match_over", "player_error", "new_game", "hint_failed"].includes(e.kind)
      ? who(e.by, S, e) : "";
    return (by ? _("{what} ({who})", { what: what, who: by }) : what) + ".";
  }

  T.play = { syncTime, serverNow, sideTime, clockText, controlText, renderClocks, kindText, levelName, LEVEL,
    resultsText, matchText, scoreText, eventText, per, SIDES };
})();
