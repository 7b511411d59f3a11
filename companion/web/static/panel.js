/* The board's display under the board: the very 128×64 frame the hardware is given (GET
   /api/display: a simulated display in the page's language), cut where the hardware cuts, its
   lines as text for screen readers; on the simulated board for the owner, its buttons (POST
   /api/button; held 1 s: a long press), captioned as the board's. A player on a link is not at
   the board: the display is not theirs to read. docs/panel.md */
(function () {
  "use strict";
  const { _ } = T;
  const LONG_MS = 1000;
  const BUTTONS = [["clock", _("Clock")], ["hint", _("Hint")], ["takeback", _("Take back")],
    ["new", _("Menu · hold: new game")]];
  let root = null, shownKey = null, asked = 0;

  function build() {
    root = document.createElement("div");
    root.id = "boardpanel";
    root.className = "boardpanel";
    const screen = document.createElement("div");
    screen.className = "oled";
    screen.setAttribute("role", "status");
    const frame = document.createElement("img");
    frame.className = "frame";
    frame.width = 256;
    frame.height = 128;
    frame.alt = "";
    // a dark frame until the first answer: the panel keeps its height (nothing below it moves)
    frame.src = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==";
    frame.setAttribute("aria-hidden", "true");
    screen.appendChild(frame);
    for (let i = 0; i < 4; i++) screen.appendChild(document.createElement("div"));
    const row = document.createElement("div");
    row.className = "panelbuttons";
    const caption = document.createElement("span");
    caption.className = "panelcaption";
    caption.textContent = _("The board's buttons:");
    row.appendChild(caption);
    for (const [name, label] of BUTTONS) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.button = name;
      b.textContent = label;
      hold(b);
      row.appendChild(b);
    }
    root.append(screen, row);
    // under the result, the move to make and the guidance
    document.getElementById("threat").after(root);
  }

  function hold(b) {
    let down = 0;
    let timer = null;
    const send = (press) => T.api("/api/button", { button: b.dataset.button, press: press })
      .then(() => { shownKey = null; show(); }).catch(T.refused);
    b.addEventListener("pointerdown", () => {
      down = Date.now();
      timer = setTimeout(() => { timer = null; down = 0; send("long"); }, LONG_MS);
    });
    const up = () => {
      if (timer) { clearTimeout(timer); timer = null; }
      if (down) { down = 0; send("short"); }
    };
    b.addEventListener("pointerup", up);
    b.addEventListener("pointerleave", () => { if (timer) { clearTimeout(timer); timer = null; down = 0; } });
    b.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); send(ev.shiftKey ? "long" : "short"); }
    });
  }

  /* Ask for the frame the display shows now (the latest answer wins). */
  function show() {
    const n = ++asked;
    T.getJSON("/api/display?lang=" + encodeURIComponent(T.I.lang)).then((d) => {
      if (n !== asked) return;
      const rows = root.querySelectorAll(".oled > div");
      rows.forEach((row, i) => { row.textContent = (d.lines || [])[i] || "\u00a0"; });
      const img = root.querySelector(".oled img");
      if (d.image) img.src = d.image;
    }).catch(() => { /* the next state asks again */ });
  }

  function render(S, me) {
    if (!root) build();
    root.hidden = !S.display || (me && me.role === "player");
    if (root.hidden) return;
    const key = JSON.stringify(S.display.lines);
    if (key !== shownKey) { shownKey = key; show(); }
    const buttons = root.querySelector(".panelbuttons");
    buttons.hidden = !(S.board && S.board.kind === "sim" && me && me.role === "owner");
  }

  T.panel = { render };
})();
