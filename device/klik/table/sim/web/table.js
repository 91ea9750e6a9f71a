"use strict";
// The virtual table's page (index.html): it polls the table's state (api/state) and sends the
// presses of its buttons and keys (api/seats/X/button, api/judge, api/orders). Every path is
// relative, so the same page works at / and under a hall's /t/k/.
// Its words come from the catalogue (words.js, loaded first): _(), ngettext(), pgettext(), in
// the table's `language` (its config's; Polish until the first state says otherwise).
// The seats are the page's boxes (index.html lays them out around the table); key 1 is seat A.
const SEATS = [...document.querySelectorAll("[data-seat]")].map((box) => box.dataset.seat).sort();
const KEYS = Object.fromEntries(SEATS.map((seat, k) => [String(k + 1), seat]));
let spoken = null;               // the language the labels are in
let chain = Promise.resolve();   // presses go out one after another, in the order they happened
const down = new Set();
const versions = {};

// The table's values in words: its state, how a move ended, the buzzer's sounds by name.
let STATES = {};
let ENDED = {};
let SOUNDS = {};

// The page's fixed words, by the data-t of the element that shows them (index.html).
function labelWords() {
  return {
    title: _("Klik — virtual table"), keys: _("Keys 1–4: buttons A–D, J: judge"),
    hub: _("Judge's hub →"), pile: _("Pile"), roundTime: _("Round time"), judge: _("Judge (J)"),
    buzzer: _("♪ buzzer"),
    roundOver: _("Round time over"), end: _("End game"), howTo: _("How to play"),
    logTitle: _("Table log"),
  };
}

// How to play: a gesture and what it does, a row each.
function helpRows() {
  return [
    [_("Start"), _("the player before the starter taps (their button is lit)")],
    [_("Who starts (league)"), _("before a round's first game, whoever drew the highest tile holds their button 1 s")],
    [_("Tap"), _("move done, tiles laid, no draw")],
    [_("Hold 1 s"), _("drew a tile — move done (the next player's time starts at the press)")],
    [_("Double tap"), _("empty rack: Rummikub!")],
    [_("Another player: hold 2 s"), _("call the judge: the move is finished, the clock stops before the next; that player's tap withdraws the call or resumes")],
    [_("Counting"), _("the sum of the tiles on the rack: tap +1, hold +10 (repeats), tap then hold at once −10, double tap confirms the sum (another double tap reopens it while anyone is still counting)")],
    [_("Result"), _("tap: the whole table / your own result")],
    [_("Judge"), _("tap: start / pause / resume / next game; hold 3 s: undo the hand-over")],
    [_("Round time over"), _("the hub's order: every player has one more move, then the count")],
  ];
}

// Speak `lang` ("pl" or "en"): every fixed word on the page is written again, once a change.
function relabel(lang) {
  if (lang === spoken) return;
  spoken = speak(lang);
  STATES = { ready: _("ready to start"), move: _("move"), timed_out: _("time is up"),
             paused: _("paused"), scoring: _("counting points"), done: _("game over") };
  ENDED = { tap: _("tap: move done"), hold: _("drew a tile"), timeout: _("time ran out"),
            rummikub: _("Rummikub!") };
  SOUNDS = { warn: _("♪ warning: 10 s"), timeout: _("♪ time is up"), judge: _("♪ judge called"),
             end: _("♪ game over") };
  const labels = labelWords();
  document.title = labels.title;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = labels[el.dataset.t];
  document.getElementById("orders").title = _("The hub's orders (at a real table the head judge sends them)");
  const help = document.querySelector("table.help");
  help.replaceChildren(...helpRows().map(([what, how]) => {
    const row = document.createElement("tr");
    for (const text of [what, how]) row.appendChild(document.createElement("td")).textContent = text;
    return row;
  }));
  for (const seat of SEATS) {
    const box = document.querySelector(`[data-seat="${seat}"]`);
    box.querySelector("img").alt = _("screen {seat}", { seat });
    box.querySelector(".key").textContent = _("key {n}", { n: SEATS.indexOf(seat) + 1 });
  }
}
// The presses go one after another; the page says how many are still on their way
// (data-sending on <body>), so whoever drives it can wait for the table to have them.
let sending = 0;
function post(url, body) {
  sending += 1;
  document.body.dataset.sending = sending;
  chain = chain.then(() => fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
                                        body: JSON.stringify(body) })).catch(() => {})
    .finally(() => { sending -= 1; document.body.dataset.sending = sending; });
  return chain;
}
// Each edge says when it happened, in seconds on this page's clock (the event's own time):
// the table keeps the spacing of a double tap however slowly a request travels.
function press(seat, pressed, e) {
  if (pressed === down.has(seat)) return;
  pressed ? down.add(seat) : down.delete(seat);
  const el = seat === "J" ? document.getElementById("judge") : document.querySelector(`[data-seat="${seat}"] button`);
  if (el) el.classList.toggle("down", pressed);
  const at = (performance.timeOrigin + (e ? e.timeStamp : performance.now())) / 1000;
  post(seat === "J" ? "api/judge" : `api/seats/${seat}/button`, { pressed, at }).then(poll);
}
function hook(el, seat) {
  el.addEventListener("pointerdown", (e) => {
    press(seat, true, e);
    try { el.setPointerCapture(e.pointerId); } catch { /* a synthetic pointer: nothing to capture */ }
  });
  for (const kind of ["pointerup", "pointercancel", "lostpointercapture"]) el.addEventListener(kind, (e) => press(seat, false, e));
  el.addEventListener("contextmenu", (e) => e.preventDefault());
}
for (const seat of SEATS) {
  const box = document.querySelector(`[data-seat="${seat}"]`);
  box.innerHTML = `<img class="screen" data-testid="screen-${seat}">
    <div class="row"><button class="seat-button" data-testid="button-${seat}">${seat}</button>
    <div><div class="name"></div><div class="key"></div>
    <div class="motor" data-testid="vibration-${seat}"></div></div></div>`;
  hook(box.querySelector("button"), seat);
}
hook(document.getElementById("judge"), "J");
for (const button of document.querySelectorAll("#orders button")) {
  button.addEventListener("click", () => post("api/orders", { order: button.dataset.order }).then(poll));
}
addEventListener("keydown", (e) => {
  if (e.repeat) return;
  const seat = KEYS[e.key] || (e.key.toLowerCase() === "j" ? "J" : null);
  if (seat) { e.preventDefault(); press(seat, true, e); }
});
addEventListener("keyup", (e) => {
  const seat = KEYS[e.key] || (e.key.toLowerCase() === "j" ? "J" : null);
  if (seat) { e.preventDefault(); press(seat, false, e); }
});
addEventListener("blur", () => { for (const seat of [...down]) press(seat, false); });

let polling = false;
async function poll() {
  if (polling) return; polling = true;
  try {
    const state = await (await fetch("api/state")).json();
    render(state);
  } catch (e) {
    document.getElementById("status").textContent = _("no connection to the virtual table");
  } finally { polling = false; }
}
function render(state) {
  relabel(state.language || "pl");
  const who = state.mover ? ` — ${state.mover}` : "";
  const left = state.time_left_s == null ? "" : ` ${Math.ceil(state.time_left_s)} s`;
  const what = STATES[state.state] || state.state;
  document.getElementById("status").textContent =
    _("Table {table}, game {game}: {state}", { table: state.table, game: state.game_no, state: what }) + who + left;
  document.getElementById("pile").textContent = state.draw_tiles_left;
  // The hub's round clock, as the seats' status line shows it (m:ss, rounded up).
  document.getElementById("round-time").hidden = state.round_left_s == null;
  if (state.round_left_s != null) {
    document.getElementById("round-left").textContent = clock(Math.ceil(state.round_left_s), 0);
  }
  document.getElementById("buzzer").classList.toggle("on", state.buzzer);
  const hub = document.getElementById("hub");
  hub.hidden = !state.hub_url;
  if (state.hub_url && hub.getAttribute("href") !== state.hub_url) hub.href = state.hub_url;
  for (const seat of SEATS) {
    const box = document.querySelector(`[data-seat="${seat}"]`);
    const seated = state.seats.includes(seat);
    box.classList.toggle("absent", !seated);
    if (!seated) continue;
    box.querySelector("button").classList.toggle("lit", !!state.leds[seat]);
    // The seat's vibration motor (issue 40), lit as the buzzer is while it runs.
    const motor = box.querySelector(".motor");
    motor.textContent = _("≋ vibration");
    motor.classList.toggle("on", !!(state.vibration || {})[seat]);
    box.querySelector(".name").textContent = state.names[seat] || _("Player {seat}", { seat });
    const v = state.screens[seat];
    if (v !== undefined && versions[seat] !== v) {
      versions[seat] = v;
      box.querySelector("img").src = `api/seats/${seat}/screen.png?v=${v}`;
    }
  }
  document.getElementById("log").textContent = logLines(state).slice(-14).join("\n");
}
// Game time, m:ss from the first move's start, as the players lived it.
function clock(at, t0) {
  const s = Math.max(0, Math.floor(at - (t0 ?? at)));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
function said(line) {
  if (line.sound) return SOUNDS[line.sound] || `♪ ${line.sound}`;
  return line.text;  // the table's log line, in the table's language (klik.table.record.notes)
}
function logLines(state) {
  const t0 = state.started_at;
  const entries = (state.moves || []).map((m) => {
    // A timed-out move's penalty: the tiles drawn for it.
    const drew = m.ended_by === "timeout" && m.drew
      ? " " + ngettext("(penalty: {n} tile)", "(penalty: {n} tiles)", m.drew) : "";
    return { at: m.end, text: `${m.seat}: ${ENDED[m.ended_by] || m.ended_by}${drew}` };
  });
  for (const line of state.log || []) entries.push({ at: line.at, text: said(line) });
  entries.sort((a, b) => a.at - b.at);
  return entries.map((e) => `${clock(e.at, t0)}  ${e.text}`);
}
relabel("pl");  // the default, until the table's state says its language
setInterval(poll, 150);
poll();
