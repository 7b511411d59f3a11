/* The board's display (display.lines of the state) under the board and, on the simulated
   board for the owner, its buttons (POST /api/button; held 1 s: a long press). docs/panel.md */
(function () {
  "use strict";
  const { _ } = T;
  const LONG_MS = 1000;
  const BUTTONS = [["clock", _("Clock")], ["hint", _("Hint")], ["takeback", _("Take back")],
    ["new", _("New game")]];
  let root = null;

  function build() {
    root = document.createElement("div");
    root.id = "boardpanel";
    root.className = "boardpanel";
    const screen = document.createElement("div");
    screen.className = "oled";
    screen.setAttribute("role", "status");
    for (let i = 0; i < 4; i++) screen.appendChild(document.createElement("div"));
    const row = document.createElement("div");
    row.className = "panelbuttons";
    for (const [name, label] of BUTTONS) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.button = name;
      b.textContent = label;
      hold(b);
      row.appendChild(b);
    }
    root.append(screen, row);
    document.getElementById("boardwrap").after(root);
  }

  function hold(b) {
    let down = 0;
    let timer = null;
    const send = (press) => T.api("/api/button", { button: b.dataset.button, press: press })
      .then((out) => show(out.display)).catch(T.refused);
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

  function show(lines) {
    const rows = root.querySelectorAll(".oled > div");
    rows.forEach((row, i) => { row.textContent = (lines || [])[i] || "\u00a0"; });
  }

  function render(S, me) {
    if (!root) build();
    root.hidden = !S.display;
    if (!S.display) return;
    show(S.display.lines);
    const buttons = root.querySelector(".panelbuttons");
    buttons.hidden = !(S.board && S.board.kind === "sim" && me && me.role === "owner");
  }

  T.panel = { render };
})();
