/* tafl-companion page: online play on a hnefatafl.org server (window.T.online), loaded when the
   "Play online" section is first opened. The account (log in or create), the live lobby with
   its open games (join), a seek of one's own (side, board, rated, time: the server's presets or
   one's own), and the online game: the opponent, the chat, draw and resignation; or a game of
   two others in progress, watched on the board (both sides' moves are moves to make). Reads
   GET /api/online while the section is open; the controls are the owner's (the PIN). */
"use strict";
(function () {
  const T = window.T;
  const { _, esc, other } = T;
  const $ = (id) => document.getElementById(id);
  const box = $("onlinepanel");
  let O = null, timer = null, lastKey = "";

  const STATUS = {
    off: _("Not logged in."),
    connecting: _("Connecting to the server…"),
    lobby: _("Logged in: in the lobby."),
    seeking: _("Waiting for an opponent…"),
    playing: _("Playing online."),
    watching: _("Watching a game on the server."),
    reconnecting: _("Reconnecting…"),
    error: _("The server refused."),
  };
  const SIDE = { attackers: _("attackers"), defenders: _("defenders") };
  const BOARD = { copenhagen: _("Copenhagen 11×11"), "copenhagen-13": _("13×13"), brandubh: _("Brandubh 7×7") };

  /* the client's messages that the page words itself (by "code"); others are shown as sent */
  const CODES = {
    watch_asked: _("Asking the server for the game…"),
    watching: _("Watching: make each move shown on the board, for both sides; the game ends when the server says so."),
    watch_unanswered: _("The server did not answer: that game is over, or there is no such game."),
    watch_bad_record: _("The server sent a record of the game that breaks the rules: ignored, the board keeps the game as it stands."),
    watch_own_game: _("That is a game of your account: it is played on the board, not watched."),
    game_gone: _("The server no longer has the game: it ended without a result the board can show (a draw the players agreed on is not shown to watchers)."),
    link_lost: _("The link to the server broke: reconnecting."),
    unreachable: _("The server cannot be reached: trying again."),
    line_too_long: _("The server sent a line too long to read: dropped, the link goes on."),
    busy: _("Finish or stop the game on the board first."),
    record_contradicts: _("The server's record of the game lacks moves it had accepted: the board keeps them until you decide (above the board)."),
  };
  /* the server's refusals of the login (error_code), in the page's words */
  const ERRORS = {
    wrong_version: _("The server speaks another protocol version: set version in the [online] section of the board's configuration."),
    wrong_password: _("The server refused the password."),
    account_not_in_database: _("The server has no such account: tick “Create this account” to create it."),
    logged_in_already: _("The server still holds this account's previous connection (after a crash it keeps it for up to 15 minutes): the board tries again."),
    already_exists: _("An account of that name exists already."),
    profane_or_sexual: _("The server refused that user name."),
    is_not_alphanumeric: _("A user name may have letters, digits and single - or _ only."),
    retried_too_soon: _("The server asks to wait before the next login: the board tries again."),
  };

  const isOwner = () => T.live.me().role === "owner";
  const say = (text, bad) => { const m = $("onlinemsg"); if (m) { m.textContent = text; m.classList.toggle("bad", !!bad); } };

  /* a span of seconds in the largest units that fit (two at most): "3 d 6 h", "15 min", "8 s" */
  const UNITS = [[86400, (n) => _("{n} d", { n })], [3600, (n) => _("{n} h", { n })],
    [60, (n) => _("{n} min", { n })], [1, (n) => _("{n} s", { n })]];
  function span(sec) {
    const parts = [];
    let left = Math.round(sec);
    UNITS.forEach(([size, words]) => {
      const n = Math.floor(left / size);
      if (n && parts.length < 2) { parts.push(words(n)); left -= n * size; }
    });
    return parts.length ? parts.join(" ") : UNITS[3][1](0);
  }

  /* the API's time control ("15+10": minutes + seconds, "8s+2", "none") in words */
  function tcText(tc) {
    if (tc === "none") return _("no clock");
    const m = /^(\d+(?:\.\d+)?)(s?)\+(\d+)$/.exec(tc || "");
    if (!m) return tc;
    const main = m[2] ? Number(m[1]) : Number(m[1]) * 60;
    return span(main) + " + " + span(Number(m[3]));
  }

  function loginForm() {
    const help = _("This server's protocol sends the password unencrypted: use a password that you use nowhere else.");
    const user = _("User name"), pw = _("Password"), create = _("Create this account"), go = _("Log in");
    return `<p class="small warn">${esc(help)}</p>
      <form id="onlinelogin" class="row">
        <label>${esc(user)} <input name="user" autocomplete="username" maxlength="16" required></label>
        <label>${esc(pw)} <input name="password" type="password" autocomplete="new-password" maxlength="32"></label>
        <label class="check"><input name="create" type="checkbox"> ${esc(create)}</label>
        <button type="submit">${esc(go)}</button>
      </form>`;
  }

  function lobby() {
    const games = O.open_games || [];
    if (!games.length) {
      const none = _("No open games right now.");
      return `<p class="small">${esc(none)}</p>`;
    }
    const join = _("Join");
    const rows = games.map((g) => {
      const who = g.rating ? `${g.by} (${Math.round(g.rating)})` : g.by;
      const rated = g.rated ? _("rated") : _("unrated");
      const mine = other(g.side), free = g.side;
      const seat = g.mine ? _("your game: you play the {side}", { side: SIDE[mine] || mine }) : _("you play the {side}", { side: SIDE[free] || free });
      const btn = g.mine || !isOwner() ? "" : `<button type="button" data-join="${g.id}">${esc(join)}</button>`;
      return `<li data-game="${g.id}"><b>${esc(who)}</b> · ${esc(BOARD[g.variant] || g.variant)} · ${esc(tcText(g.time_control))} · ${esc(rated)} · ${esc(seat)} ${btn}</li>`;
    });
    return `<ul class="onlinegames">${rows.join("")}</ul>`;
  }

  const named = (name, rating) => (rating ? `${name} (${Math.round(rating)})` : name);

  /* games of two others in progress: to watch on the board */
  function liveList() {
    const games = O.live_games || [];
    if (!games.length) {
      const none = _("No games in progress right now.");
      return `<p class="small">${esc(none)}</p>`;
    }
    const watch = _("Watch on the board");
    const current = O.game && O.game.watching && !O.game.over ? O.game.id : null;
    const rows = games.map((g) => {
      const r = g.ratings || {};
      const who = _("{attackers} (attackers) against {defenders} (defenders)", { attackers: named(g.attackers, r.attackers), defenders: named(g.defenders, r.defenders) });
      const rated = g.rated ? _("rated") : _("unrated");
      const btn = !isOwner() || g.id === current ? "" : `<button type="button" data-watch="${g.id}">${esc(watch)}</button>`;
      return `<li data-live="${g.id}">${esc(who)} · ${esc(BOARD[g.variant] || g.variant)} · ${esc(tcText(g.time_control))} · ${esc(rated)} ${btn}</li>`;
    });
    return `<ul class="onlinegames">${rows.join("")}</ul>`;
  }

  function watchInfo(g) {
    const r = g.ratings || {};
    const line = _("Watching game {id}: {attackers} (attackers) against {defenders} (defenders).", { id: g.id, attackers: named(g.attackers, r.attackers), defenders: named(g.defenders, r.defenders) });
    const how = _("Both sides' moves appear as moves to make: make each on the board and lift the pieces the lights show as captured.");
    const rated = g.rated ? _("rated") : _("unrated");
    const stop = _("Stop watching");
    const button = isOwner() && !g.over ? `<div class="row"><button type="button" data-online="unwatch">${esc(stop)}</button></div>` : "";
    const chat = (O.chat || []).map((c) => `<li><b>${esc(c.by)}</b>: ${esc(c.text)}</li>`).join("");
    return `<p><b>${esc(line)}</b> ${esc(tcText(g.time_control))} · ${esc(rated)}</p>
      <p class="small">${esc(how)}</p>${button}<ul class="onlinechat">${chat}</ul>`;
  }

  function seekForm() {
    const side = _("Your side"), board = _("Board"), clock = _("Clock"), rated = _("Rated"), open = _("Open a game"), own = _("Own (minutes+seconds)");
    const sides = Object.keys(SIDE).map((s) => `<option value="${s}">${esc(SIDE[s])}</option>`).join("");
    const boards = (O.variants || []).map((v) => `<option value="${v}"${v === "copenhagen" ? " selected" : ""}>${esc(BOARD[v] || v)}</option>`).join("");
    const tcs = (O.presets || []).map((p) => `<option value="${p}"${p === "15+10" ? " selected" : ""}>${esc(tcText(p))}</option>`).join("");
    return `<form id="onlineseek" class="row">
      <label>${esc(side)} <select name="side">${sides}</select></label>
      <label>${esc(board)} <select name="variant">${boards}</select></label>
      <label>${esc(clock)} <select name="time_control">${tcs}</select></label>
      <label>${esc(own)} <input name="custom" size="8" placeholder="10+5"></label>
      <label class="check"><input name="rated" type="checkbox"> ${esc(rated)}</label>
      <button type="submit">${esc(open)}</button>
    </form>`;
  }

  function gameInfo() {
    const g = O.game;
    if (!g) return "";
    if (g.watching) return watchInfo(g);
    const who = g.rating ? `${g.opponent} (${Math.round(g.rating)})` : g.opponent;
    const line = _("Online game {id} against {who}: the board plays the {side}.", { id: g.id, who: who, side: SIDE[g.side] || g.side });
    const rated = g.rated ? _("rated") : _("unrated");
    const offer = g.draw_offer ? _("Your opponent offers a draw: accept it, or play on to decline.") : "";
    const drawWord = g.draw_offer ? _("Accept the draw") : _("Offer a draw");
    const resign = _("Resign");
    const buttons = isOwner() && !g.over ? `<div class="row">
        <button type="button" data-online="draw">${esc(drawWord)}</button>
        <button type="button" data-online="resign">${esc(resign)}</button></div>` : "";
    const chat = (O.chat || []).map((c) => `<li><b>${esc(c.by)}</b>: ${esc(c.text)}</li>`).join("");
    return `<p><b>${esc(line)}</b> ${esc(tcText(g.time_control))} · ${esc(rated)}</p>
      ${offer ? `<p class="warn">${esc(offer)}</p>` : ""}${buttons}<ul class="onlinechat">${chat}</ul>`;
  }

  /* The forms are drawn when the panel's layout changes (so typing is never lost); the
     status, the lobby and the game are redrawn on every refresh. */
  function render() {
    if (!O) return;
    const loggedIn = ["lobby", "seeking", "playing", "watching"].includes(O.status);
    const watching = !!(O.game && O.game.watching && !O.game.over);
    const playing = !!(O.game && !O.game.over) && !watching;
    const seeking = O.seek !== null || O.join !== null;
    const layout = JSON.stringify([isOwner(), loggedIn, playing, watching, seeking, !!O.game]);
    if (layout !== lastKey) {
      lastKey = layout;
      let html = `<p id="onlinestatus"></p><div id="onlinegame" class="onlinegame"></div>`;
      if (!isOwner()) {
        const owner = _("The owner logs in and opens or joins games (Controls, with the PIN).");
        html += `<p class="small">${esc(owner)}</p>`;
      } else if (!loggedIn) {
        html += loginForm();
      }
      if (isOwner() && playing) {
        const send = _("Send");
        html += `<form id="onlinechat" class="row"><input name="text" maxlength="1000"><button type="submit">${esc(send)}</button></form>`;
      }
      if (loggedIn && !playing && !watching) {
        const open = _("Open games"), leave = _("Withdraw");
        html += `<h3>${esc(open)}</h3><div id="onlinelobby"></div>`;
        if (isOwner()) html += seeking ? `<button type="button" data-online="leave">${esc(leave)}</button>` : seekForm();
      }
      if (loggedIn && !playing) {
        const live = _("Games in progress");
        html += `<h3>${esc(live)}</h3><div id="onlinelive"></div>`;
      }
      const about = _("Moves, clocks and results of an online game are the server's; the board stores every move first.");
      const how = _("How online play works");
      const help = [
        _("Join an open game, or open one of your own: when the game starts on the server it starts on the board, and you play the board's side with the real pieces."),
        _("Your opponent's moves appear as moves to make: make them on the board and lift the pieces the lights show as captured. Your own moves are sent as soon as the board accepts them."),
        _("To decline a draw offer, just play on. A resignation is sent when it is your turn. If the network or the power goes, the board logs in again by itself and continues the game; your clock runs on the server meanwhile."),
        _("To follow a strong game with the real pieces, watch a game in progress: each move of both sides appears as a move to make. The result is the server's; Stop watching frees the board."),
      ].map((t) => `<p class="small">${esc(t)}</p>`).join("");
      html += `<details class="onlinehelp"><summary>${esc(how)}</summary>${help}</details>`;
      html += `<p class="small">${esc(about)}</p><p id="onlinemsg" class="small" role="status"></p>`;
      box.innerHTML = html;
    }
    const game = $("onlinegame"), list = $("onlinelobby"), live = $("onlinelive");
    const gameHtml = gameInfo();
    if (game && game.innerHTML !== gameHtml) game.innerHTML = gameHtml;
    if (game) game.hidden = !gameHtml;
    if (list) { const l = lobby(); if (list.innerHTML !== l) list.innerHTML = l; }
    if (live) { const l = liveList(); if (live.innerHTML !== l) live.innerHTML = l; }
    status();
  }

  function status() {
    const el = $("onlinestatus");
    if (!el) return;
    let text = STATUS[O.status] || O.status;
    if (O.user) text += " " + _("Account: {user} on {server}.", { user: O.user, server: O.server });
    // only what the page words itself: the client's own sentences (English, for the log) would
    // repeat the status or leave English in another language's page
    const said = O.code && CODES[O.code];
    if (O.error) text += " " + (ERRORS[O.error_code] || O.error);
    else if (said) text += " " + said;
    if (O.retry_in) text += " " + _("Next try in {n} s.", { n: Math.ceil(O.retry_in) });
    el.textContent = text;
    el.classList.toggle("bad", O.status === "error");
  }

  function refresh() {
    return T.getJSON("/api/online").then((j) => { O = j; render(); }, (e) => say(e.message, true));
  }

  function post(path, body) {
    return T.api(path, body).then(() => refresh()).catch((e) => say(e.message || String(e), true));
  }

  box.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = ev.target;
    if (f.id === "onlinelogin") {
      post("/api/online/login", { user: f.user.value.trim(), password: f.password.value, create: f.create.checked });
      f.password.value = "";
    } else if (f.id === "onlineseek") {
      const tc = f.custom.value.trim() || f.time_control.value;
      post("/api/online/seek", { side: f.side.value, variant: f.variant.value, rated: f.rated.checked, time_control: tc });
    } else if (f.id === "onlinechat") {
      const text = f.text.value.trim();
      if (text) post("/api/online/chat", { text: text });
      f.text.value = "";
    }
  });

  box.addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-join], button[data-watch], button[data-online]");
    if (!b) return;
    if (b.dataset.join) { post("/api/online/join", { id: Number(b.dataset.join) }); return; }
    if (b.dataset.watch) { post("/api/online/watch", { id: Number(b.dataset.watch) }); return; }
    const act = b.dataset.online, side = O.game ? O.game.side : null;
    if (act === "leave") post("/api/online/leave", {});
    else if (act === "unwatch") post("/api/online/unwatch", {});
    else if (act === "draw") post("/api/draw", { action: O.game.draw_offer ? "accept" : "offer", side: side });
    else if (act === "resign" && confirm(_("Do you resign?"))) post("/api/resign", { side: side });
  });

  function open() {
    refresh();
    if (!timer) timer = setInterval(() => { if ($("online").open) refresh(); }, 1000);
  }

  T.online = { open, refresh };
})();
