"use strict";
// The head judge's console. It asks the hub every second (short polling: it works through any
// proxy and a laptop's sleep, and the hub keeps nothing per page). Reading needs nothing;
// every change needs the judge's session (logged in once; see logIn below).
// Its words come from the catalogue (/words.js, loaded first): _(), ngettext(), pgettext().
const query = new URLSearchParams(location.search);
const lang = speak(query.get("lang") === "en" ? "en" : "pl");
// The link to the other language, named in that language (not a translation).
const OTHER = {pl: ["en", "English"], en: ["pl", "Polski"]}[lang];

// The page's fixed words, by the data-t of the element that shows them (index.html).
const LABELS = {
  tournament: _("Tournament"), inPlay: _("In play"), login: _("Log in"), logout: _("Log out"),
  loginWhy: _("The head judge's password:"),
  tabLive: _("Tables"), tabSetup: _("Tournament and players"), tabRound: _("Round"),
  tabScores: _("Tournament results"), tabStandings: _("Standings"),
  newTournament: _("New tournament"), tournamentName: pgettext("tournament", "Name"),
  rules: _("Rules"), format: _("Format"), moveTime: _("Move time (s, empty: the rules')"),
  formatsOwn: _("the format's"), ruleSets: _("Rule sets"), knownPerson: _("Known person"),
  byRating: _("Best-rated apart (first round)"),
  seasons: _("Seasons"), seasonName: _("Season's name"),
  seasonPoints: _("Points for places (empty: each meeting's big points)"),
  seasonBest: _("Best meetings that count (empty: all)"), seasonCreate: _("Create the season"),
  season: _("Season"), seasonAdd: _("Add this tournament to the season"), seasonTable: _("The season's table"),
  seasonProjector: _("on the projector"),
  ruleFile: _("A rule set file (TOML, as klik rules show prints one)"), addRuleSet: _("Add the rule set"),
  roundTime: _("Round time (min, empty: the format's)"),
  releaseTogether: _("Results public once every table is done"), create: _("Create"),
  players: _("Players"), playerName: pgettext("player", "Name"), club: _("Club / school"),
  add: _("Add a player"), csvFile: _("CSV file (name; club)"), enrol: _("Enrol from the file"),
  seed: _("Draw seed"), override: _("despite missing results"), field: _("How many go on"),
  tieBreak: _("Ties: numbers in order"), drawNext: _("Draw the next round"),
  clubsWeight: _("Keep clubs apart (0 = off)"), familyPlayers: _("Players of one family (numbers)"),
  family: _("Family"), markFamily: _("Mark as one family"),
  needs: _("Needs"), needVibration: _("Vibration at the seat"), needLarge: _("Large screen"),
  needQuiet: _("Quiet (no buzzer)"), fixedTable: _("Fixed table (empty: none)"), here: _("Here"),
  sendLineups: _("Send the lineups to the tables"), startRound: _("Start the round on every table"),
  roundOver: _("Round time over"), printSheets: _("Print table sheets"),
  unplacedTitle: _("Results outside the round's lineup (assign or exclude them)"),
  kind: _("Correction"), seat: _("Seat"), value: _("Value"), reason: _("Reason"),
  save: _("Save the correction"), audit: _("Corrections log"), stage: _("Stage"),
  projector: _("Projector"), csvStandings: _("Standings CSV"), csvResults: _("Results CSV"),
  printStandings: _("Print the standings"),
  printBadges: _("Print the badges"), printPlayers: _("Print the enrolment list"),
  reserveTitle: _("A player must leave: a reserve takes the seat for the round's rest"),
  table: _("Table"), reservePlayer: _("Reserve (number)"),
  fromGame: _("From game (empty: the next)"), seatReserve: _("Seat the reserve"),
  refuseAll: _("Refuse all"), installTitle: _("Installing a table from this hub"),
  installHow: _("On the table, connected to the hall's network, type this one line. It checks the script and the bundle before anything runs as administrator."),
  installCard: _("Print the install card"),
  bigOff: _("Big points off"), cancel: _("Cancel"), undraw: _("Undo the draw"),
  release: _("Publish the round's results"),
  needsTitle: _("Needs the judge now"), needsNone: _("Nothing waits for the judge."),
  sanctionPlayer: _("Player"), sanctionKind: pgettext("sanction", "Sanction"),
  warning: _("Warning"), deduction: _("Deduct big points"), exclusion: _("Exclude"),
};
// The hub's values in words: a table's state, how a game ended, why a result does not count,
// the choices of the forms' selects, the kinds of the corrections log.
const STATES = {ready: _("ready"), move: _("move"), timed_out: _("timed out"), paused: _("paused"),
  scoring: _("counting"), done: _("game over")};
const ENDED_BY = {pile: _("pile exhausted"), round_time: _("round time over"),
  judge: _("ended by the judge")};
const ENDINGS = {rummikub: _("Rummikub"), exhausted: _("ended without a Rummikub")};
const HELD = {conflict: _("conflict"), mismatch: _("points mismatch"), players: _("unknown player"),
  excluded: _("excluded"), not_in_round: _("not in the round"), rules: _("other rules"),
  impossible: _("impossible racks: correct a rack sum")};
const TROUBLES = {
  disk_full: _("The hub's disk is full: free some space. Results already taken are safe; the tables will send the rest."),
  database_down: _("The hub's database does not answer. The tables will send their results again."),
};
const FORMATS = {open: _("open"), liga: _("league (seed 001)"), szczecin: _("Szczecin (seed 004)")};
const KINDS = {rack: _("rack sum"), could_open: _("could have opened (200 points, as the rules sign them)"),
  player: _("player (no.)"), exclude: _("exclude the game"), accept: _("accept the result"),
  assign: _("assigned to the round"), withdraw: _("player withdrawn"),
  reinstate: _("player reinstated"), rename: _("player's details changed"), family: _("family marked"),
  undraw: _("draw undone"), warning: _("warning"), deduction: _("big points deducted"),
  release: _("round's results published before every table was done"),
  exclusion: _("excluded from the tournament"), checkin: _("check-in"),
  checkin_open: _("check-in opened"), checkin_close: _("check-in closed"),
  replace: _("seat taken by a reserve"), renumber: _("table renumbered"),
  replace_table: _("paired table replaced by another"),
  repair_table: _("table re-paired to another number, its results carried"),
  link_person: _("linked to a known person"), season: _("added to a season")};

const $ = id => document.getElementById(id);
const seats = m => Object.entries(m || {}).map(([s, v]) => `${s} ${v}`).join(", ");
const signed = m => Object.entries(m || {}).map(([s, v]) => `${s} ${v > 0 ? "+" : ""}${v}`).join(", ");
const clock = iso => iso ? new Date(iso).toLocaleTimeString(lang) : "";
const players = x => Object.entries(x.seats).map(([s, e]) => `${s} ${e.name || "?"}`).join(", ");
// A seat with the player's name where the table told it (its heartbeat's names).
const named = (seat, names) => seat ? `${seat} ${(names || {})[seat] || ""}`.trim() : "";
// A late arrival: the round they are drawn from (" (od rundy 3)"); nothing for round 1. (No
// message inside a template literal's ${}: pybabel's extractor does not see it there.)
const fromRound = n => n > 1 ? " (" + _("from round {round}", {round: n}) + ")" : "";
// A seat a reserve played: " ⇄ name (no.)".
const reserveMark = r => r ? ` ⇄ ${r.name} (${r.reserve})` : "";
let tab = "live";
let tid = Number(query.get("t")) || null;
let tournament = null;
let fixing = null;   // the result being corrected
let heard = new Set(); // tables whose judge call has already chimed

// --- building the page ---------------------------------------------------------------------

// An element from data, never markup from a string: el("td", {class: "bad"}, "text", child).
// Attributes are set by name; true is an attribute without a value; false, null and undefined
// leave it out. Children are text (set as text, never parsed) or elements, in nested arrays
// as they come; false, null and undefined are skipped (so `cond && el(…)` reads well).
function el(tag, attributes, ...children) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== false && value != null) made.setAttribute(name, value === true ? "" : String(value));
  }
  made.append(...children.flat(Infinity).filter(c => c !== false && c != null)
    .map(c => c instanceof Node ? c : String(c)));
  return made;
}

// Puts `fresh` in the place of a parent's children, changing only what differs: a child with
// the same tag and attributes stays and has its own children renewed. The console refreshes
// every second and a live table's row changes as often ("seen 3 s ago"); a button swapped
// between a judge's press and release would lose the click, and the keyboard its focus.
function renew(parent, ...fresh) {
  const next = document.createDocumentFragment();
  next.append(...fresh);
  morph(parent, [...next.childNodes]);
}

function morph(parent, made) {
  const old = [...parent.childNodes];
  made.forEach((node, k) => {
    const was = old[k];
    if (!was) parent.append(node);
    else if (was.isEqualNode(node)) return;
    else if (was.nodeType === Node.TEXT_NODE && node.nodeType === Node.TEXT_NODE) was.data = node.data;
    else if (sameShell(was, node)) morph(was, [...node.childNodes]);
    else was.replaceWith(node);
  });
  for (const gone of old.slice(made.length)) gone.remove();
}

const sameShell = (a, b) => a.nodeType === Node.ELEMENT_NODE && a.nodeName === b.nodeName &&
  a.attributes.length === b.attributes.length &&
  [...a.attributes].every(x => b.getAttribute(x.name) === x.value);

// --- talking to the hub --------------------------------------------------------------------

// The console logs in once (POST /api/v1/session): the hub sets an HttpOnly session cookie,
// which the browser sends with every request of this page and no script can read. The hub
// counts the cookie only with this header, which another site's page cannot send.
const CONSOLE = {"X-Klik-Console": "1"};
let judgeIn = false;  // as the hub last said (GET /api/v1/judge)
let openHub = false;  // no password set (a hub on loopback): nobody logs in or out

// Every request the console makes: it says the console's language, the one the hub writes
// its errors in (the `error` of its JSON answer, which the console shows as it is).
const ask = (url, init = {}) => fetch(url, {...init, headers: {...init.headers, "Accept-Language": lang}});

// Each action the judge takes carries an Idempotency-Key: the hub does it once and answers a
// repeat of the key with the first answer. The same request again within two seconds (a
// double click, a form sent twice before the page knew) is the same action, with the same key;
// a request the network lost is sent once more with its key. (getRandomValues, not
// randomUUID: the hall's hub is often plain HTTP on an address, not a secure context.)
const lately = new Map();  // method, address and body: {key, at}
const freshKey = () => [...crypto.getRandomValues(new Uint8Array(16))]
  .map(b => b.toString(16).padStart(2, "0")).join("");
function keyOf(what) {
  const now = Date.now(), kept = lately.get(what);
  if (kept && now - kept.at < 2000) { kept.at = now; return kept.key; }
  for (const [old, k] of lately) if (now - k.at >= 2000) lately.delete(old);
  const key = freshKey();
  lately.set(what, {key, at: now});
  return key;
}

async function change(method, url, body, type = "application/json", quietHeld = false) {
  const sent = type === "application/json" ? JSON.stringify(body) : body;
  const key = typeof sent === "string" ? keyOf(`${method} ${url} ${sent}`) : freshKey();
  const once = () => ask(url, {method, headers: {"Content-Type": type, "Idempotency-Key": key, ...CONSOLE},
    body: sent});
  const send = () => once().catch(() => once());  // lost on the way: once more, the same key
  let answer = await send();
  if (answer.status === 401) {
    judgeIn = false;
    if (!(await logIn())) return {ok: false, data: {error: _("Wrong password.")}};
    answer = await send();
  }
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok && !(quietHeld && data.held_by)) say(data.error || answer.statusText, true);
  return {ok: answer.ok, status: answer.status, data};
}

// Pairing or renumbering onto a number a paired table holds: the hub says so (409 with
// held_by) and takes it only when told to replace that table, which the judge confirms.
async function takeNumber(url, body) {
  const answer = await change("POST", url, body, "application/json", true);
  if (answer.status !== 409 || !answer.data.held_by) return answer;
  const question = _("{error}. Replace it with this table? That table will have to be paired again.",
    {error: answer.data.error});
  if (!confirm(question)) {
    say(answer.data.error, true);
    return answer;
  }
  return change("POST", url, {...body, replace: true});
}

function logIn() {
  const dialog = $("login");
  dialog.querySelector("input").value = "";
  dialog.showModal();
  return new Promise(done => {
    dialog.addEventListener("close", async () => {
      const password = dialog.querySelector("input").value;
      if (!password) return done(false);
      const answer = await ask("/api/v1/session", {method: "POST",
        headers: {"Content-Type": "application/json", ...CONSOLE},
        body: JSON.stringify({password})});
      judgeIn = answer.ok;
      const wait = answer.headers.get("Retry-After") || "?";
      if (answer.status === 429) say(_("Too many wrong passwords; try again in {s} s.", {s: wait}), true);
      else if (!answer.ok) say(_("Wrong password."), true);
      labels();
      done(answer.ok);
    }, {once: true});
  });
}

async function logOut() {
  await ask("/api/v1/session", {method: "DELETE", headers: CONSOLE});
  judgeIn = false;
  say(_("Logged out."));
  labels();
}

async function whoIsHere() {
  // With no password set on the hub (a hub on loopback) everyone is the judge: no log-in.
  const probe = await ask("/api/v1/judge", {headers: CONSOLE}).catch(() => null);
  judgeIn = probe !== null && probe.ok;
  openHub = judgeIn && (await probe.json().catch(() => ({}))).open === true;
  labels();
}

function say(text, error = false) {
  const line = $("message");
  line.replaceChildren(...[text].flat(Infinity).filter(x => x !== false && x != null));
  line.className = error ? "error" : "done";
}

// Where a message asks the judge to pair a table: the button that opens the Tables tab.
const toTables = () => el("button", {type: "button", "data-goto": "live", "data-testid": "goto-tables"},
  _("Open the Tables tab"));

// With the console's header, so the judge's session opens the judge's reads (the players).
const get = url => ask(url, {headers: CONSOLE}).then(r => r.ok ? r.json() : Promise.reject(r));
// The players' list is the judge's alone (it carries their codes): none until they log in.
const playersOf = tid => get(`/api/v1/tournaments/${tid}/players`)
  .catch(r => r.status === 401 ? [] : Promise.reject(r));

// --- the live tables (every tab's data is asked for only while it is shown) ------------------

function head(id, cols) {
  document.querySelector(`#${id} thead`).replaceChildren(el("tr", {}, cols.map(c => el("th", {}, c))));
}

function contact(seconds) {
  if (seconds === null) return _("not yet");
  return seconds < 5 ? _("now") : _("no contact for {s} s", {s: Math.round(seconds)});
}

// The table's health in plain words (the hub's warnings from its last heartbeat's health,
// the worst first), its readings in the tooltip; "OK" when all is well, "—" when the table
// says nothing of its health (an older table, or none heard yet).
const HEALTH = {
  protocol: _("other protocol than the hub: update before the round"),
  card_full_now: _("card full: the game is not being kept"),
  card_read_only: _("card read-only: the game is not being kept"),
  card_no_permission: _("card refuses writes: the game is not being kept"),
  under_voltage: _("power supply too weak"), hot: _("overheated"), card_full: _("card almost full"),
  version: _("other version than the hub"), clock: _("clock not synchronised"),
};
function health(h, warned) {
  if (!h) return "—";
  const seats = list => (list || []).join(", ");
  const words = warned.map(w => w === "panel_out" ? _("screen {seats} out", {seats: seats(h.panels_out)})
    : w === "stuck" ? _("button {seats} stuck", {seats: seats(h.stuck)}) : HEALTH[w] ?? w);
  const shown = [h.cpu_temp_c != null && `${h.cpu_temp_c} °C`, h.free_mb != null && `${h.free_mb} MB`,
    h.card_errors > 0 && ngettext("{n} failed write", "{n} failed writes", h.card_errors),
    h.version && `v${h.version}`].filter(Boolean).join(" · ");
  if (!words.length) return el("span", {class: "ok", "data-testid": "health", title: shown}, pgettext("health", "OK"));
  return el("b", {class: "bad", "data-testid": "health", title: shown}, words.join("; "));
}

// A seat the judge should watch in this game (the hub picks them from the heartbeat's
// figures): a slow mover, with its mean and longest move time, and repeated timeouts.
function watched(w) {
  const seconds = ms => Math.round(ms / 1000);
  const why = [
    w.slow && _("slow: {mean} s a move on average, longest {longest} s",
      {mean: seconds(w.mean_ms), longest: seconds(w.longest_ms)}),
    w.timeouts > 0 && ngettext("{n} timeout", "{n} timeouts", w.timeouts),
  ].filter(Boolean);
  return el("b", {class: "bad", "data-testid": "watch", "data-seat": w.seat},
    `${named(w.seat, {[w.seat]: w.name})}: ${why.join("; ")}`);
}

function resultRow(row, counted) {
  const check = row.points_check === "ok"
    ? el("span", {class: "ok"}, pgettext("points", "ok"))
    : el("span", {class: "bad"}, pgettext("points", "mismatch"));
  const conflict = row.conflict && [" ", el("span", {class: "bad"}, _("CONFLICT"))];
  // A result the judge corrected shows its points as they count now, not as the table sent.
  const now = row.corrected && counted[row.id];
  const of = key => now ? Object.fromEntries(Object.entries(now.seats).map(([s, e]) => [s, e[key]]))
    : row[key === "rack" ? "racks" : key];
  return el("tr", {class: row.conflict ? "conflict" : "", "data-result": row.id},
    el("td", {}, row.table), el("td", {}, row.game),
    el("td", {class: "receipt"}, `R-${row.receipt}`, conflict, row.corrected && [" ", correctedMark()]),
    el("td", {}, ENDED_BY[row.ended_by] ?? ENDINGS[row.ending] ?? row.ending),
    el("td", {}, winners(row, counted)),
    el("td", {}, seats(of("rack"))), el("td", {}, signed(of("small"))), el("td", {}, seats(of("big"))),
    el("td", {}, check), el("td", {}, clock(row.received_at)));
}

const correctedMark = () => el("span", {class: "mark"}, _("✎ corrected"));

// A judge call chimes once per call: two short tones the judge hears across the hall.
function chime() {
  try {
    const audio = new AudioContext();
    [0, 0.25].forEach(start => {
      const tone = audio.createOscillator();
      tone.frequency.value = 880;
      tone.connect(audio.destination);
      tone.start(audio.currentTime + start);
      tone.stop(audio.currentTime + start + 0.15);
    });
  } catch { /* no sound here: the row's colour still says it */ }
}

// The winners by name; for a result the judge corrected, as they count now in the tournament.
function winners(row, counted) {
  const now = counted[row.id];
  if (now && row.corrected) return now.winners.map(s => `${s} ${now.seats[s].name}`.trim()).join(", ");
  return row.winners.map(s => named(s, row.names)).join(", ");
}

// The tables asking to join (pairing at the table): the judge compares the digits with seat
// A's screen, types the table's number and accepts. The judge's alone: none until logged in.
// Drawn anew only when the requests change, so a number being typed stays.
let askingShown = "";
function askingRows(asking) {
  $("asking").hidden = asking.length === 0;
  const ids = asking.map(a => a.id).join();
  if (ids === askingShown) {
    for (const a of asking) {
      const cell = document.querySelector(`[data-asking-seen="${a.id}"]`);
      if (cell) cell.textContent = contact(a.seen_s_ago);
    }
    return;
  }
  askingShown = ids;
  // A number the judge is typing stays, with the keyboard on it, as other tables come and go.
  const typed = [...document.querySelectorAll("[data-asking-table]")].map(i => [i.dataset.askingTable, i.value]);
  const typing = document.activeElement?.dataset?.askingTable;
  renew($("asking-list").tBodies[0], ...asking.map(a => el("tr", {"data-asking": a.id},
    el("td", {class: "digits"}, `${a.digits.slice(0, 3)} ${a.digits.slice(3)}`),
    el("td", {}, a.link), el("td", {"data-asking-seen": a.id}, contact(a.seen_s_ago)),
    el("td", {}, el("input", {type: "number", min: 1, max: 999, "data-asking-table": a.id,
      "aria-label": _("Table")})),
    el("td", {}, el("button", {"data-accept": a.id, "data-digits": a.digits}, _("Accept")), " ",
      el("button", {"data-refuse": a.id}, _("Refuse"))))));
  for (const [id, value] of typed) {
    const input = document.querySelector(`[data-asking-table="${id}"]`);
    if (input && value) input.value = value;
  }
  if (typing) document.querySelector(`[data-asking-table="${typing}"]`)?.focus();
}

// The tables' install line (klik hub --bundle): the same while the hub runs, asked once.
let installAsked = false;
async function installLine() {
  if (installAsked) return;
  installAsked = true;
  const said = await get("/api/v1/install").catch(() => null);
  $("install").hidden = said === null;
  if (said) {
    $("install-line").textContent = said.line;
    $("install-card").href = `/print/install${lang === "en" ? "?lang=en" : ""}`;
  }
}

async function live() {
  installLine();
  const asking = get("/api/v1/pairing").catch(r => r.status === 401 ? [] : Promise.reject(r));
  const last = tid ? await lastRound() : undefined;
  const [tables, results, counted, drawn] = await Promise.all([get("/api/v1/tables"),
    get("/api/v1/results?limit=200"), tid ? get(`/api/v1/tournaments/${tid}/results`) : [],
    last ? get(`/api/v1/tournaments/${tid}/rounds/${last.round}`) : null]);
  askingRows(await asking);
  const byId = Object.fromEntries(counted.map(x => [x.id, x]));
  renew($("hall"), ...hallTiles(tables, drawn));
  hallNews(tables);
  renew($("results").tBodies[0], ...results.map(r => resultRow(r, byId)));
  const waiting = needs(tables, results, counted);
  $("needs-none").hidden = waiting.length > 0;
  renewNeeds(waiting.map(needLine));
  const calling = new Set(tables.filter(r => r.status && r.status.judge).map(r => r.table));
  if ([...calling].some(n => !heard.has(n))) chime();
  heard = calling;
}

// What needs the judge now, in one list above the hall, oldest first (the time a result came,
// or when this console first saw a table's trouble), each with its action: a judge call, a
// result the hub refused, a table silent for 30 s in a game, a table whose health fails, a
// conflict or a points mismatch, and a result of the tournament held for the judge (other
// players or rules, impossible racks) or filling no slot of the round.
const SILENT_S = 30;
const firstSeen = new Map();  // a need's key: when this console first saw it (ms)
const IN_GAME = new Set(["ready", "move", "timed_out", "paused", "scoring"]);

function needs(tables, results, counted) {
  const found = [];
  const add = (key, at, text, act) => found.push({key, at: at ?? seen(key), text, act});
  for (const row of tables) {
    const s = row.status || {}, show = {kind: "table", table: row.table};
    const where = _("Table {table}", {table: row.table});
    if (s.judge) add(`call:${row.table}`, null, [where, _("{who} calls the judge",
      {who: named(s.called_by ?? s.paused_by ?? "", s.names)}).trim()], show);
    for (const x of Array.isArray(s.refused) ? s.refused : []) add(`refused:${row.table}:${x.seq}`,
      null, [where, _("game {game}'s result refused", {game: x.game}), x.error], show);
    if (row.seen_s_ago !== null && row.seen_s_ago > SILENT_S && IN_GAME.has(s.state))
      add(`silent:${row.table}`, Date.now() - row.seen_s_ago * 1000,
        [where, _("no contact for {s} s", {s: Math.round(row.seen_s_ago)})], show);
    if ((row.warnings || []).length) add(`health:${row.table}:${row.warnings.join()}`, null,
      [where, health(s.health, row.warnings).textContent], show);
  }
  const listed = new Set();
  for (const r of results) {
    if (!r.conflict && r.points_check === "ok") continue;
    listed.add(r.id);
    add(`result:${r.id}`, Date.parse(r.received_at), [_("Table {table}", {table: r.table}),
      _("game {game}", {game: r.game ?? "–"}), `R-${r.receipt}`,
      r.conflict ? _("CONFLICT") : pgettext("points", "mismatch")],
      byFix(r.id, counted));
  }
  // A table's own word that its result is in conflict (a heartbeat's ``conflicts``), where
  // the hub's results above do not list that game's conflict already.
  const inConflict = new Set(results.filter(r => r.conflict).map(r => `${r.table}:${r.game}`));
  for (const row of tables) {
    for (const x of Array.isArray((row.status || {}).conflicts) ? row.status.conflicts : []) {
      if (inConflict.has(`${row.table}:${x.game}`)) continue;
      add(`conflict:${row.table}:${x.seq}`, null, [_("Table {table}", {table: row.table}),
        _("game {game}'s result in conflict", {game: x.game ?? "–"})], {kind: "table", table: row.table});
    }
  }
  for (const x of counted) {
    if (listed.has(x.id) || x.counts || x.held === "excluded") continue;
    const unplaced = x.slot === null;
    add(`result:${x.id}`, Date.parse(x.received_at), [_("Table {table}", {table: x.table}),
      _("game {game}", {game: x.game ?? "–"}), `R-${x.receipt}`,
      HELD[x.held] ?? (unplaced ? _("not in the round") : x.held)],
      unplaced ? {kind: "assign"} : {kind: "fix", result: x.id});
  }
  return found.sort((a, b) => a.at - b.at);
}

// When this console first saw a need with no time of its own.
function seen(key) {
  if (!firstSeen.has(key)) firstSeen.set(key, Date.now());
  return firstSeen.get(key);
}

const byFix = (id, counted) => counted.some(x => x.id === id) ? {kind: "fix", result: id} : null;

const NEED_ACTS = {table: () => _("Show the table"), fix: () => _("Correct"),
                   assign: () => _("Assign")};

function needLine(need) {
  const act = need.act && el("button", {type: "button", "data-need": need.act.kind,
    "data-table": need.act.table, "data-result": need.act.result}, NEED_ACTS[need.act.kind]());
  return el("li", {"data-key": need.key}, el("b", {}, need.text[0]), " ",
    need.text.slice(1).filter(Boolean).join(" · "), act && [" ", act]);
}

// The list's lines kept by their need's key: a need that goes away leaves the others' lines
// in place, so the live region (index.html) reads out the new lines only, never again the
// ones that moved up (renew matches lines by position and would put new ones in their place).
function renewNeeds(fresh) {
  const list = $("needs");
  const kept = new Map([...list.children].map(li => [li.dataset.key, li]));
  const wanted = new Set(fresh.map(li => li.dataset.key));
  for (const [key, li] of kept) if (!wanted.has(key)) li.remove();
  fresh.forEach((li, k) => {
    const old = kept.get(li.dataset.key);
    if (old) morph(old, [...li.childNodes]);
    const line = old ?? li;
    if (list.children[k] !== line) list.insertBefore(line, list.children[k] ?? null);
  });
}

$("needs").addEventListener("click", async e => {
  const b = e.target.closest("button[data-need]");
  if (!b) return;
  if (b.dataset.need === "table") {
    const row = document.querySelector(`#hall li[data-table="${b.dataset.table}"]`);
    row?.scrollIntoView({block: "center"});
    (row?.querySelector("button") ?? row)?.focus();
  } else if (b.dataset.need === "assign") {
    show("round");
  } else {
    await show("scores");
    document.querySelector(`#tresults button[data-fix="${b.dataset.result}"]`)?.click();
  }
});

// --- the tournament ------------------------------------------------------------------------

// The tournament's last round. A form sent before the page's first refresh has come back
// (a quick judge, a slow hall) asks for the tournament itself rather than doing nothing.
async function lastRound() {
  if (tournament === null && tid !== null) tournament = await get(`/api/v1/tournaments/${tid}`);
  knowStages(tournament?.stages);
  return tournament ? tournament.rounds.at(-1) : undefined;
}

async function tournaments() {
  const listed = await get("/api/v1/tournaments");
  // The tournament the judge marked in play, not merely the newest (a test tournament).
  if (tid === null && listed.length) tid = (listed.find(x => x.in_play) || listed[0]).id;
  renew($("tournament"), el("option", {value: ""}, _("— none —")), ...listed.map(x =>
    el("option", {value: x.id, selected: x.id === tid}, `${x.id}. ${x.name}`,
      x.in_play && " " + _("▶ in play"))));
  tournament = tid ? await get(`/api/v1/tournaments/${tid}`) : null;
  knowStages(tournament?.stages);
}

// The rule sets the hub knows: the new tournament's choice, and the list with each set's file.
// Asked again only when the tab is drawn after a set was added (they change rarely).
let ruleSetsShown = null;
async function ruleSets() {
  const listed = await get("/api/v1/rules");
  const key = JSON.stringify(listed);
  if (key === ruleSetsShown) return;
  ruleSetsShown = key;
  const title = s => lang === "en" ? s.title_en : s.title_pl;
  const chosen = $("t-rules").value;
  renew($("t-rules"), el("option", {value: ""}, LABELS.formatsOwn), ...listed.map(s =>
    el("option", {value: s.name, selected: s.name === chosen}, `${title(s)} (${s.name})`)));
  head("rule-sets", [_("Rule set"), _("Version"), _("Move time (s)"), _("Source"), ""]);
  renew($("rule-sets").tBodies[0], ...listed.map(s => el("tr", {"data-rule-set": s.name},
    el("td", {}, `${title(s)} (${s.name})`), el("td", {}, s.version), el("td", {}, s.move_time_s),
    el("td", {}, s.shipped ? s.source : _("added by the judge")),
    el("td", {}, el("a", {href: `/api/v1/rules/${encodeURIComponent(s.name)}`, target: "_blank"},
      _("file"))))));
}

// The seasons: the new season's form, and the current tournament added to one of them.
let seasonPicked = null;  // the season just made, chosen once the list shows it
async function seasons() {
  const listed = await get("/api/v1/seasons");
  const pick = $("season-add").elements.season, chosen = seasonPicked ?? Number(pick.value);
  seasonPicked = null;
  const key = JSON.stringify(listed);
  if (pick.dataset.key !== key) {
    pick.dataset.key = key;
    renew(pick, ...listed.map(s => el("option", {value: s.id, selected: s.id === chosen},
      s.name + " (" + ngettext("{n} meeting", "{n} meetings", s.meetings.length) + ")")));
  }
  const season = listed.find(s => s.id === Number(pick.value));
  $("season-add").querySelector("button").disabled = !tid || !season || season.meetings.includes(tid);
  $("season-link").hidden = $("season-projector").hidden = !season;
  if (season) {
    $("season-link").href = `/s/${season.id}${lang === "en" ? "?lang=en" : ""}`;
    $("season-projector").href = `/projector?season=${season.id}${lang === "en" ? "&lang=en" : ""}`;
  }
}

async function setup() {
  await ruleSets();
  await seasons();
  // Plain links, opened in a new tab: the session cookie opens these pages (guard.py).
  for (const what of ["badges", "players"]) {
    const link = $(`print-${what}`);
    link.hidden = !tid;
    if (tid) link.href = `/print/${what}?t=${tid}${lang === "en" ? "&lang=en" : ""}`;
  }
  const [players, present] = tid
    ? await Promise.all([playersOf(tid), get(`/api/v1/tournaments/${tid}/check-in`)])
    : [[], null];
  checkIn = present;
  window.playersById = Object.fromEntries(players.map(p => [p.id, p]));
  // A player's tick: here (checked in from their page or at the desk) or not; none once withdrawn.
  const tick = p => el("input", {type: "checkbox", "data-tick": p.id, checked: p.checked_in,
    disabled: !p.active, "aria-label": _("{name} is here", {name: p.name})});
  renew($("players").tBodies[0], ...players.map(p => el("tr", {class: !p.active && "bad", "data-player": p.id},
    el("td", {}, p.id), el("td", {}, p.name, !p.active && " (" + _("withdrawn") + ")", fromRound(p.from_round)),
    el("td", {}, p.club),
    el("td", {}, p.family), el("td", {"data-testid": `player-needs-${p.id}`}, needsSaid(p.needs)),
    el("td", {}, tick(p)), el("td", {class: "acts"}, playerActs(p)))));
  for (const b of [$("checkin-toggle"), $("checkin-absent")]) b.hidden = !present;
  if (!present) { $("checkin-state").textContent = ""; return; }
  const here = present.checked_in.length;
  const all = here + present.absent.length;
  $("checkin-state").textContent = {
    open: _("Check-in open: {here} of {all} here.", {here, all}),
    closed: _("Check-in closed: {here} of {all} here.", {here, all}),
  }[present.check_in] ?? _("Check-in not opened: every player not withdrawn is drawn.");
  $("checkin-toggle").textContent = present.check_in === "open" ? _("Close the check-in") : _("Open the check-in");
  $("checkin-absent").textContent = ngettext("Withdraw {n} absent player", "Withdraw {n} absent players",
    present.absent.length);
  $("checkin-absent").disabled = !present.check_in || !present.absent.length;
}

async function round() {
  const last = tournament && tournament.rounds.at(-1);
  for (const b of document.querySelectorAll("[data-send]")) b.disabled = !last;
  if (!last) {
    $("round-title").textContent = _("No round drawn yet.");
    $("round").tBodies[0].replaceChildren();
    $("undraw").hidden = true;
    $("release").hidden = true;
    return;
  }
  $("undraw").hidden = false;
  $("sheets").href = `/print/sheets?t=${tid}&round=${last.round}${lang === "en" ? "&lang=en" : ""}`;
  const [drawn, players] = await Promise.all([
    get(`/api/v1/tournaments/${tid}/rounds/${last.round}`), playersOf(tid)]);
  const names = Object.fromEntries(players.map(p => [p.id, p.name]));
  // A seeded stage (semifinal, final) is seated from the standings: its seed draws nothing,
  // and who meets again is the seating's doing, not the draw's, so neither is shown.
  $("round-title").textContent = drawn.seeded
    ? _("Round {round} — {stage}, games: {games}", {...drawn, stage: stageName(drawn.stage)})
    : _("Round {round} — {stage}, games: {games}, seed {seed}, repeated pairs: {repeats}",
        {...drawn, stage: stageName(drawn.stage)});
  head("round", [_("Table"), _("Seats"), _("Games missing"), _("Round time"),
    drawn.seeded ? _("One club") : _("Meet again, one club")]);
  // The judge's check of the draw, table by table: who meets again, who sits with their own
  // club or family.
  const who = p => `${names[p] ?? ""} (${p})`;
  const checks = {};
  // The reserves who took a seat, by table and seat: "B: Ala (2) ⇄ Ola (17), from game 2".
  const reserves = Object.fromEntries(drawn.replacements.map(r => [`${r.table}${r.seat}`, r]));
  const taken = (table, s) => {
    const r = reserves[`${table}${s}`];
    return r ? ` ⇄ ${who(r.reserve)}, ` + _("from game {game}", {game: r.from_game}) : "";
  };
  const check = (table, text) => (checks[table] = checks[table] || []).push(text);
  for (const x of drawn.seeded ? [] : drawn.repeated_pairs) check(x.table,
    _("{a} and {b} meet again ({met}×)", {a: who(x.players[0]), b: who(x.players[1]), met: x.met}));
  for (const x of drawn.same_club) check(x.table, _("one club, {club}: {players}",
    {club: x.club, players: x.players.map(who).join(", ")}));
  for (const x of drawn.same_family) check(x.table, _("one family, {family}: {players}",
    {family: x.family, players: x.players.map(who).join(", ")}));
  renew($("round").tBodies[0], ...drawn.tables.map(x => el("tr", {"data-table": x.table},
    el("td", {}, x.table),
    el("td", {class: "seats"}, Object.entries(x.seats).map(([s, p]) =>
      el("span", {}, `${s}: ${names[p] ?? ""} (${p})${taken(x.table, s)}`))),
    el("td", {class: x.missing ? "bad" : "ok"}, x.missing || _("all in")),
    el("td", {class: "clock", "data-testid": `clock-${x.table}`}, tableClock(x, drawn)),
    el("td", {class: "checks"}, (checks[x.table] || []).join("; ")))));
  // A round whose results wait for its other tables (release_together): the judge may
  // publish them now.
  $("release").hidden = !drawn.held;
  $("round-clock").textContent = drawn.left_ms === null ? "" :
    _("Round time left: {left}", {left: timeLeft(drawn.left_ms)});
  // Results that fill no slot: the judge puts each in its table's game (assign) or excludes it.
  $("unplaced-title").hidden = !drawn.unplaced.length;
  const games = Array.from({length: drawn.games}, (unused, k) => k + 1);
  // A form the judge is filling in stays as it is through the refreshes (every second): only
  // when the results offered change are the forms laid out again, each kept one with it.
  const offered = drawn.unplaced.map(x => `${drawn.round}:${x.id}`);
  const kept = new Map([...$("unplaced").children].map(f => [`${f.dataset.round}:${f.dataset.result}`, f]));
  if (offered.join() !== [...kept.keys()].join()) $("unplaced").replaceChildren(...drawn.unplaced.map(x =>
    kept.get(`${drawn.round}:${x.id}`) ||
    el("form", {class: "row assign", "data-result": x.id, "data-round": drawn.round},
      el("b", {}, _("R-{receipt} · Table {table} · {time}: {seats}",
        {receipt: x.receipt, table: x.table, time: clock(x.received_at), seats: seats(x.names)})),
      el("label", {}, el("span", {}, _("Table")), el("select", {name: "table"},
        drawn.tables.map(d => el("option", {selected: d.table === x.table}, d.table)))),
      el("label", {}, el("span", {}, _("Game")), el("select", {name: "game"},
        games.map(g => el("option", {}, g)))),
      el("label", {}, el("span", {}, _("Reason")), el("input", {name: "reason", required: true,
        maxlength: 500, size: 28, value: _("the table played without the round's lineup")})),
      el("button", {}, _("Assign")))));
  window.drawnTables = Object.fromEntries(drawn.tables.map(x => [x.table, x.seats]));
}

// "42:05", "1:02:05": the time left as the hub last said, counted in whole seconds up.
function timeLeft(ms) {
  const s = Math.ceil(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
  const two = n => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

// A table's round clock: a Start for a table not started yet (a late table counts its time
// from its own start), its time left with the judge's extra time, and "+5 min" while it runs.
function tableClock(x, drawn) {
  const c = x.clock;
  if (!c) return el("button", {"data-start-table": x.table, "data-testid": `start-${x.table}`}, _("Start"));
  if (c.over_at) return _("over");
  if (c.left_ms === null) return _("started {time}", {time: clock(c.started_at)});
  const extra = c.extra_s ? " " + _("({min} min given)", {min: Math.round(c.extra_s / 60)}) : "";
  return [timeLeft(c.left_ms) + extra, " ",
    el("button", {"data-extend": x.table, "data-testid": `extend-${x.table}`}, _("+5 min"))];
}

// What an entry of the audit log is about, in the judge's words: the game a correction is
// of ("stół 3, runda 1, gra 2"), or the player an event names ("gracz 5 Ewa Nowak").
function whatOf(c, result, names) {
  if (c.result != null) return result
    ? _("table {table}, round {round}, game {game}", {...result, game: result.game ?? "–"})
    : _("result {id}", {id: c.result});
  return c.player ? _("player {id} {name}", {id: c.player, name: names[c.player] ?? ""}) : "";
}
// An entry's value in words: yes or no for a flag, else the number or text.
const said = c => c.value === true ? _("yes") : c.value === false ? _("no")
  : String(c.value ?? c.big ?? c.round ?? c.table ?? "");
// Who made an entry: the judge, the player (checking in on their page) or the table.
const WHO = {judge: () => pgettext("who", "judge"), player: () => pgettext("who", "player"),
             table: () => pgettext("who", "table")};

function statusOf(x) {
  return [x.counts ? el("span", {class: "ok"}, _("yes")) : el("span", {class: "bad"}, HELD[x.held]),
    x.corrected && [" ", correctedMark()]];
}

async function scores() {
  if (!tid) return;
  const [listed, audit, players] = await Promise.all([
    get(`/api/v1/tournaments/${tid}/results`), get(`/api/v1/tournaments/${tid}/corrections`),
    playersOf(tid)]);
  const byId = Object.fromEntries(listed.map(x => [x.id, x]));
  const names = Object.fromEntries(players.map(p => [p.id, p.name]));
  renew($("tresults").tBodies[0], ...listed.map(x =>
    el("tr", {class: x.counts ? "" : "held", "data-result": x.id},
      el("td", {}, x.round), el("td", {}, x.table), el("td", {}, x.game),
      el("td", {class: "receipt"}, `R-${x.receipt}`),
      el("td", {}, Object.entries(x.seats).map(([s, e], k) => [k > 0 && el("br"),
        `${s} ${e.name || "?"}${reserveMark(e.reserve)}: ${e.rack} → ${e.small > 0 ? "+" : ""}${e.small} / ${e.big}`])),
      el("td", {}, statusOf(x)), el("td", {}, el("button", {"data-fix": x.id}, _("Correct")), " ",
        el("button", {type: "button", "data-sanction": x.id, "data-testid": `sanction-${x.id}`},
          _("Sanction"))))));
  renew($("audit").tBodies[0], ...audit.map(c => el("tr", {"data-entry": `${c.log}:${c.id}`},
    el("td", {}, whatOf(c, byId[c.result], names)), el("td", {}, KINDS[c.kind] ?? c.kind),
    el("td", {}, c.seat), el("td", {}, c.to != null ? `${c.table} → ${c.to}` : said(c)),
    el("td", {}, c.reason), el("td", {}, WHO[c.by]?.() ?? c.by), el("td", {}, clock(c.at)))));
  window.resultsById = byId;
}

async function standings() {
  if (!tid) return;
  const stage = $("stage").value;
  const stages = [...new Set(tournament.rounds.map(r => r.stage))];
  renew($("stage"), el("option", {value: ""}, pgettext("stages", "all")),
    ...stages.map(s => el("option", {value: s, selected: s === stage}, stageName(s))));
  const where = stage ? `?stage=${encodeURIComponent(stage)}` : "";
  const rows = await get(`/api/v1/tournaments/${tid}/standings${where}`);
  renew($("standings").tBodies[0], ...grouped(rows, label => stageRow(label, 8),
  r => el("tr", {class: r.status === "classified" || r.status === "unplaced" ? "" : "bad"},
    [r.place === null ? "–" : r.place, r.player,
      [r.name, fromRound(r.from_round), r.reserve_games > 0 && " ⇄", marked(r)], stageName(r.stage) ?? "–",
      r.big, r.small, r.games, deducted(r)].map(v => el("td", {}, v)))));
  const en = lang === "en" ? "&lang=en" : "";
  $("projector").href = `/projector?t=${tid}${en}`;
  $("csv-standings").href = `/api/v1/tournaments/${tid}/standings.csv${where}${where ? "&" : "?"}lang=${lang}`;
  $("csv-results").href = `/api/v1/tournaments/${tid}/results.csv?lang=${lang}`;
  $("print-standings").href = `/print/standings?t=${tid}${en}`;
}

const SHOW = {live, setup, round, scores, standings};

async function refresh() {
  try {
    const health = await get("/api/v1/health");
    $("trouble").hidden = health.ok;
    $("trouble").textContent = health.ok ? "" : (TROUBLES[health.trouble] || health.error);
    await tournaments();
    await SHOW[tab]();
    $("updated").textContent = _("updated {time}", {time: new Date().toLocaleTimeString(lang)});
  } catch {
    $("updated").textContent = _("the hub does not answer");
  }
}

// --- labels, in the chosen language --------------------------------------------------------

function labels() {
  document.title = _("Klik — judge's hub");
  $("title").textContent = document.title;
  $("tables-title").textContent = _("The hall");
  $("asking-title").textContent = _("Tables asking to join");
  $("results-title").textContent = _("Results");
  for (const e of document.querySelectorAll("[data-t]")) e.textContent = LABELS[e.dataset.t];
  const choices = {format: FORMATS, kind: KINDS};
  for (const [name, words] of Object.entries(choices)) {
    for (const o of document.querySelectorAll(`select[name=${name}] option`)) o.textContent = words[o.value];
  }
  $("who").textContent = judgeIn && !openHub ? _("judge logged in") : "";
  $("login-open").hidden = judgeIn;
  $("logout").hidden = !judgeIn || openHub;
  const [otherLang, otherName] = OTHER;
  const next = new URLSearchParams(location.search);
  otherLang === "en" ? next.set("lang", "en") : next.delete("lang");
  $("lang").textContent = otherName;
  $("lang").href = "?" + next.toString();
  head("asking-list", [_("Digits on seat A"), _("Link"), _("Contact"), _("Table"), ""]);
  head("results", [_("Table"), _("Game"), _("Receipt"), _("Ending"), _("Winners"), _("Racks"),
    _("Small"), _("Big"), _("Points"), _("Received")]);
  head("players", [_("No."), pgettext("player", "Name"), _("Club / school"), _("Family"), _("Needs"),
    _("Here"), _("The judge's actions")]);
  head("round", [_("Table"), _("Seats"), _("Games missing"), _("Round time"), _("Meet again, one club")]);
  head("tresults", [_("Round"), _("Table"), _("Game"), _("Receipt"), _("Seats"), _("Counts"), ""]);
  head("audit", [pgettext("audit", "Of"), _("Correction"), _("Seat"), _("Value"), _("Reason"), _("Who"),
    _("When")]);
  head("standings", [_("Place"), _("No."), _("Player"), pgettext("standings", "Stage"), _("Big"),
    _("Small"), _("Games"), pgettext("standings", "Deducted")]);
  for (const b of document.querySelectorAll("nav button")) {
    b.classList.toggle("on", b.dataset.tab === tab);
    b.setAttribute("aria-selected", String(b.dataset.tab === tab));  // a tab list, for a screen reader
    // One stop of Tab for the whole list (the tab shown); the arrows go between the tabs.
    b.tabIndex = b.dataset.tab === tab ? 0 : -1;
  }
}
// --- what the judge does -------------------------------------------------------------------

// What the judge does to one player, from their row: each a real button named by its action,
// opening one dialog that names the player, asks for the reason (kept in the log) and says
// what cannot be taken back. Escape or Anuluj sends nothing.
const ACTS = {
  change: {label: () => _("Change player's details"), fields: ["name", "club", "family", "needs"]},
  // At the desk: here or not, and the needs the player tells (the check-in's own route).
  checkin: {label: () => _("Check-in and needs"), fields: ["here", "needs"], noReason: true},
  withdraw: {label: () => _("Withdraw"), fields: [],
    what: p => _("Withdraw player {id} {name}? They are not drawn into any further round; their games so far count as the format says.", p)},
  reinstate: {label: () => _("Reinstate"), fields: [],
    what: p => _("Reinstate player {id} {name}? They are drawn again from the next round.", p)},
  warning: {label: () => _("Warning"), fields: [],
    what: p => _("A warning for player {id} {name}: logged, no points taken.", p)},
  deduction: {label: () => _("Deduct big points"), fields: ["big"],
    what: p => _("Big points off for player {id} {name}, in the stage being played.", p)},
  exclusion: {label: () => _("Exclude"), fields: [],
    what: p => _("Exclude player {id} {name} from the tournament? They are not drawn again and are marked on the standings. This cannot be undone.", p)},
  // The person across tournaments (ratings, seasons): one the hub suggests, never by itself.
  person: {label: () => _("Link to a known person"), fields: ["person"],
    what: p => _("Player {id} {name} is the same person as one who played here before: their ratings and seasons count as one.", p)},
  // From a result's row: one of its players, and which of the three sanctions.
  sanction: {label: () => _("Sanction"), fields: ["player", "sanction", "big"],
    what: () => _("A sanction for a player of this game: a warning, big points off in the stage being played, or exclusion from the tournament (which cannot be undone).")},
};
let acting = null;  // {act, player}
let sanctioned = {};  // a result's players, by seat, while its sanction dialog is open

// A sanction from a result's row: the dialog offers the game's players, seat by seat, and
// the three sanctions; the reason starts with the game it is about, for the log.
function sanctionFrom(x) {
  sanctioned = Object.fromEntries(Object.entries(x.seats)
    .filter(([, e]) => e.player != null).map(([s, e]) => [s, {id: e.player, name: e.name}]));
  const pick = $("act-form").elements.player;
  pick.replaceChildren(...Object.entries(sanctioned).map(([s, p]) =>
    el("option", {value: s}, `${s}: ${p.name} (${p.id})`)));
  openAct("sanction", {id: null, name: ""});
  const f = $("act-form").elements;
  f.reason.value = _("R-{receipt}, table {table}, game {game}: ", {...x, game: x.game ?? "–"});
  showBig();
}
// The points field only for a deduction.
const showBig = () => {
  if (acting?.act === "sanction") $("act-form").querySelector("[data-field=big]").hidden =
    $("act-form").elements.sanction.value !== "deduction";
};

function playerActs(p) {
  const acts = ["change", "checkin", p.active ? "withdraw" : "reinstate", "warning", "deduction", "exclusion", "person"];
  return acts.map(act => el("button", {type: "button", "data-act": act, "data-player": p.id,
    "data-testid": `act-${act}-${p.id}`}, ACTS[act].label()));
}

// A player's needs (issue 40): the seat's setup, sent to the table with the lineup, and a
// table the draw always seats them at. In words, never a colour or an icon alone.
const NEEDS = ["vibration", "large", "quiet"];
function needsSaid(needs) {
  if (!needs) return "";
  const said = [];
  if (needs.fixed_table != null) said.push(_("fixed table {table}", {table: needs.fixed_table}));
  if (needs.large) said.push(_("large screen"));
  if (needs.vibration) said.push(_("vibration"));
  if (needs.quiet) said.push(_("quiet (no buzzer)"));
  return said.join(", ");
}
// The needs the dialog changes: only those keys (the hub keeps the others as they are).
function neededNow(player, f) {
  const was = player.needs || {}, now = {};
  for (const key of NEEDS) if (f[key].checked !== Boolean(was[key])) now[key] = f[key].checked;
  const table = f.fixed_table.value === "" ? null : Number(f.fixed_table.value);
  if (table !== (was.fixed_table ?? null)) now.fixed_table = table;
  return now;
}

function openAct(act, player) {
  acting = {act, player};
  const form = $("act-form"), how = ACTS[act];
  form.reset();
  $("act-title").textContent = how.label();
  $("act-what").textContent = how.what ? how.what(player) : `${player.id} ${player.name}`;
  for (const label of form.querySelectorAll("[data-field]")) label.hidden = !how.fields.includes(label.dataset.field);
  for (const name of ["name", "club", "family"]) form.elements[name].value = player[name] ?? "";
  const needs = player.needs || {};
  for (const key of NEEDS) form.elements[key].checked = Boolean(needs[key]);
  form.elements.fixed_table.value = needs.fixed_table ?? "";
  form.elements.here.checked = Boolean(player.checked_in);
  // The check-in's route keeps no reason: none is asked for.
  form.elements.reason.required = !how.noReason;
  form.elements.reason.closest("label").hidden = Boolean(how.noReason);
  $("act-ok").textContent = how.label();
  $("act-ok").disabled = false;
  if (act === "person") known(player);
  $("act").showModal();
  (how.fields.length ? form.elements[how.fields[0]] : form.elements.reason).focus();
}

// The people this enrolment may be: the same name (the same club first), with where they
// played; linking waits for the judge's choice, and there is nothing to choose without one.
async function known(player) {
  const pick = $("act-form").elements.person;
  pick.replaceChildren();
  $("act-ok").disabled = true;
  const found = await get(`/api/v1/tournaments/${tid}/players/${player.id}/people`);
  pick.replaceChildren(...found.map(x => el("option", {value: x.person},
    `${x.name}${x.club ? ", " + x.club : ""} (${x.tournaments.join(", ") || "—"})`)));
  if (!found.length) pick.append(el("option", {value: "", disabled: true, selected: true},
    _("no one of this name has played here before")));
  $("act-ok").disabled = !found.length;
}

$("act-form").elements.sanction.addEventListener("change", showBig);
// A dialog keeps the keyboard while it is open: Tab from its last control comes back to its
// first, Shift+Tab from its first to its last (a modal dialog leaves the page's other
// elements out, but Tab would go on to the browser's own bar and lose the judge's place).
for (const dialog of document.querySelectorAll("dialog")) dialog.addEventListener("keydown", e => {
  if (e.key !== "Tab") return;
  const stops = [...dialog.querySelectorAll("input, select, textarea, button, a[href]")]
    .filter(x => !x.disabled && x.getClientRects().length > 0);
  const [first, last] = [stops[0], stops.at(-1)];
  if (!first || document.activeElement !== (e.shiftKey ? first : last)) return;
  e.preventDefault();
  (e.shiftKey ? last : first).focus();
});
// Not a submit button: Enter in the reason submits the form with its action, not Anuluj.
$("act-cancel").addEventListener("click", () => $("act").close("cancel"));
$("act").addEventListener("close", async () => {
  if ($("act").returnValue !== "ok" || !acting) return;
  const {act, player} = acting, f = $("act-form").elements;
  acting = null;
  const reason = f.reason.value;
  let answer;
  const kind = act === "sanction" ? f.sanction.value : act;
  if (act === "sanction") Object.assign(player, sanctioned[f.player.value]);
  if (kind === "checkin") {
    const sent = {checked_in: f.here.checked};
    const needs = neededNow(player, f);
    if (Object.keys(needs).length) sent.needs = needs;
    answer = await change("POST", `/api/v1/tournaments/${tid}/players/${player.id}/check-in`, sent);
  } else if (kind === "person") {
    answer = await change("PUT", `/api/v1/tournaments/${tid}/players/${player.id}/person`,
      {person: Number(f.person.value), reason});
  } else if (["warning", "deduction", "exclusion"].includes(kind)) {
    const sent = {player: player.id, kind, reason};
    if (kind === "deduction") sent.big = Number(f.big.value);
    answer = await change("POST", `/api/v1/tournaments/${tid}/sanctions`, sent);
  } else {
    const sent = {reason};
    if (act === "withdraw" || act === "reinstate") sent.active = act === "reinstate";
    for (const name of act === "change" ? ["name", "club", "family"] : []) {
      if (f[name].value !== (player[name] ?? "")) sent[name] = f[name].value;
    }
    const needs = act === "change" ? neededNow(player, f) : {};
    if (Object.keys(needs).length) sent.needs = needs;
    answer = await change("PATCH", `/api/v1/tournaments/${tid}/players/${player.id}`, sent);
  }
  if (answer.ok) say(_("Saved: {action} — player {id} {name}.", {action: ACTS[kind].label(), ...player}));
  refresh();
});

// Undo the last round's draw while none of its results has come (the hub names the tables
// that reported otherwise): its lineups leave the tables and the pages.
$("undraw").addEventListener("click", async () => {
  const last = await lastRound();
  if (!last) { say(_("No round drawn yet."), true); return; }
  if (!confirm(_("Undo the draw of round {round}? Its tables and seats are gone from the console, the projector and the players' pages, and the round can be drawn again.", {round: last.round}))) return;
  const answer = await change("DELETE", `/api/v1/tournaments/${tid}/rounds/${last.round}`, {reason: _("draw undone")});
  if (answer.ok) { say(_("The draw of round {round} is undone.", {round: last.round})); tournament = null; }
  refresh();
});

// Publish a held round's results now, before every table is done: the public sees them at
// once, and there is no holding them back again, so the judge is asked first.
$("release").addEventListener("click", async () => {
  const last = await lastRound();
  if (!last) return;
  if (!confirm(_("Publish the results of round {round} now, before every table is done? The projector, the board and the players' phones show them at once, and each later result as it comes.", {round: last.round}))) return;
  const answer = await change("POST", `/api/v1/tournaments/${tid}/rounds/${last.round}/release`,
    {reason: _("round's results published before every table was done")});
  if (answer.ok) say(_("The results of round {round} are public.", {round: last.round}));
  refresh();
});

function show(next) {
  tab = next;
  for (const s of document.querySelectorAll("section")) s.hidden = s.id !== `tab-${tab}`;
  say("");
  labels();
  return refresh();
}

$("tabs").addEventListener("click", e => { const b = e.target.closest("button"); if (b) show(b.dataset.tab); });
// The tab list as WAI-ARIA's pattern has it: ← and → (or Home, End) show the next tab and keep
// the keyboard on it, so a judge without a mouse reaches every tab in one stop of Tab.
$("tabs").addEventListener("keydown", e => {
  const all = [...document.querySelectorAll("#tabs [role=tab]")];
  const at = all.indexOf(document.activeElement);
  const to = {ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: all.length - 1}[e.key];
  if (at < 0 || to === undefined) return;
  e.preventDefault();
  const next = all[(to + all.length) % all.length];
  show(next.dataset.tab);
  next.focus();
});
$("players").addEventListener("click", e => {
  const b = e.target.closest("button[data-act]");
  if (!b) return;
  const player = (window.playersById || {})[b.dataset.player];
  if (player) openAct(b.dataset.act, player);
});
$("message").addEventListener("click", e => { const b = e.target.closest("button[data-goto]"); if (b) show(b.dataset.goto); });
$("play").addEventListener("click", async () => {
  if (!tid) return;
  const answer = await change("POST", `/api/v1/tournaments/${tid}/play`, {});
  if (answer.ok) { say(_("Tournament {id} is in play now: the projector shows it.", {id: tid})); refresh(); }
});

$("tournament").addEventListener("change", e => { tid = Number(e.target.value) || null; refresh(); });
$("stage").addEventListener("change", () => refresh());
$("login-open").addEventListener("click", () => logIn());
$("logout").addEventListener("click", () => logOut());

$("create").addEventListener("submit", async e => {
  e.preventDefault();
  const f = new FormData(e.target);
  const sent = {name: f.get("name"), format: f.get("format")};
  // Left empty: the format's rule set, and that set's move time.
  if (f.get("rules")) sent.rules = f.get("rules");
  if (f.get("move_time_s") !== "") sent.move_time_s = Number(f.get("move_time_s"));
  if (f.get("release_together")) sent.release_together = true;
  if (f.get("round_time_min") !== "") sent.round_time_s = Math.round(Number(f.get("round_time_min")) * 60);
  const answer = await change("POST", "/api/v1/tournaments", sent);
  if (answer.ok) { tid = answer.data.id; say(_("Tournament {id} created.", {id: tid})); e.target.reset(); refresh(); }
});

$("rule-set").addEventListener("submit", async e => {
  e.preventDefault();
  const file = e.target.elements.file.files[0];
  if (!file) return;
  const answer = await change("POST", "/api/v1/rules", {toml: await file.text()});
  if (answer.ok) {
    say(_("Rule set {name} (version {version}) added.", answer.data));
    e.target.reset();
    refresh();
  }
});

$("season-new").addEventListener("submit", async e => {
  e.preventDefault();
  const f = new FormData(e.target);
  const sent = {name: f.get("name")};
  const points = String(f.get("points")).split(/[,;\s]+/).filter(Boolean).map(Number);
  sent.points = points.length ? points : "big";
  if (f.get("best") !== "") sent.best = Number(f.get("best"));
  const answer = await change("POST", "/api/v1/seasons", sent);
  if (answer.ok) {
    say(_("Season {id} created.", answer.data));
    e.target.reset();
    $("season-add").elements.season.dataset.key = "";
    seasonPicked = answer.data.id;
    refresh();
  }
});

$("season-add").addEventListener("submit", async e => {
  e.preventDefault();
  const sid = Number(e.target.elements.season.value);
  const answer = await change("POST", `/api/v1/seasons/${sid}/tournaments`, {tournament: tid});
  if (answer.ok) {
    say(_("Tournament {tid} is a meeting of the season now.", {tid}));
    e.target.elements.season.dataset.key = "";
    refresh();
  }
});
$("season-add").elements.season.addEventListener("change", () => seasons());

$("enrol-one").addEventListener("submit", async e => {
  e.preventDefault();
  const f = new FormData(e.target);
  const answer = await change("POST", `/api/v1/tournaments/${tid}/players`, [{name: f.get("name"), club: f.get("club")}]);
  if (answer.ok) { say(_("Players enrolled: {n}.", {n: answer.data.length})); e.target.reset(); refresh(); }
});

// A family: the draw never seats its players at one table while the tables allow it. Each
// player's label is a change of theirs in the judge's log; an empty label clears it.
$("family").addEventListener("submit", async e => {
  e.preventDefault();
  const f = new FormData(e.target);
  const numbers = String(f.get("players")).split(/[\s,;]+/).filter(Boolean).map(Number);
  const family = String(f.get("family")).trim();
  for (const n of numbers) {
    const answer = await change("PATCH", `/api/v1/tournaments/${tid}/players/${n}`,
      {family, reason: _("family marked for the draw")});
    if (!answer.ok) return;
  }
  say(_("Family marked: {players}.", {players: numbers.join(", ")}));
  e.target.reset();
  refresh();
});

// Check-in: open or close it, tick a player at the desk, withdraw the absentees in one step.
let checkIn = null;
$("checkin-toggle").addEventListener("click", async () => {
  const open = !checkIn || checkIn.check_in !== "open";
  const answer = await change("POST", `/api/v1/tournaments/${tid}/check-in`, {open});
  if (answer.ok) { say(open ? _("Check-in open: the players' pages show its button.") : _("Check-in closed.")); refresh(); }
});
$("checkin-absent").addEventListener("click", async () => {
  const n = checkIn ? checkIn.absent.length : 0;
  if (!n || !confirm(ngettext("Withdraw {n} player who has not checked in?",
                              "Withdraw {n} players who have not checked in?", n))) return;
  const answer = await change("POST", `/api/v1/tournaments/${tid}/check-in/absent`, {});
  if (answer.ok) {
    // By number and name: "Wycofani: 17" read as seventeen players withdrawn.
    const gone = answer.data.withdrawn.map(id => _("No. {id} {name}",
      {id, name: ((window.playersById || {})[id] || {}).name || ""}).trim());
    say(ngettext("Withdrawn as absent: player {players}.", "Withdrawn as absent: players {players}.",
      gone.length, {players: gone.join(", ")}));
    refresh();
  }
});
document.addEventListener("change", async e => {
  const box = e.target.closest("input[data-tick]");
  if (!box) return;
  const answer = await change("POST", `/api/v1/tournaments/${tid}/players/${box.dataset.tick}/check-in`,
    {checked_in: box.checked});
  if (!answer.ok) box.checked = !box.checked;
  refresh();
});

$("enrol-csv").addEventListener("submit", async e => {
  e.preventDefault();
  const file = e.target.elements.file.files[0];
  if (!file) return;
  const answer = await change("POST", `/api/v1/tournaments/${tid}/players`, await file.arrayBuffer(), "text/csv");
  if (answer.ok) { say(_("Players enrolled: {n}.", {n: answer.data.length})); e.target.reset(); refresh(); }
});

$("draw").addEventListener("submit", async e => {
  e.preventDefault();
  const f = new FormData(e.target);
  const sent = {override: f.get("override") === "on"};
  if (f.get("by_rating")) sent.by_rating = true;
  // The round this page means to draw: a second click (or another judge's console) drawing
  // it meanwhile is 409, not a round more.
  if (tournament) sent.round = tournament.rounds.length + 1;
  if (f.get("seed") !== "") sent.seed = Number(f.get("seed"));
  if (f.get("field") !== "") sent.field = Number(f.get("field"));
  if (f.get("clubs_weight") !== "") sent.clubs_weight = Number(f.get("clubs_weight"));
  const ties = String(f.get("tie_break")).split(/[\s,;]+/).filter(Boolean).map(Number);
  if (ties.length) sent.tie_break = ties;
  const answer = await change("POST", `/api/v1/tournaments/${tid}/rounds`, sent);
  if (answer.ok) {
    const unpaired = answer.data.unpaired || [];
    const note = unpaired.length > 0 && ngettext(
      "Note: table {tables} is not paired with the hub: pair it on the Tables tab.",
      "Note: tables {tables} are not paired with the hub: pair them on the Tables tab.",
      unpaired.length, {tables: unpaired.join(", ")});
    const absent = answer.data.absent || [];
    const away = absent.length > 0 && ngettext(
      "Not drawn, not checked in: player {players}.", "Not drawn, not checked in: players {players}.",
      absent.length, {players: absent.join(", ")});
    const said = [_("Round {round} drawn.", {round: answer.data.round}), note, away].filter(Boolean);
    say([said.join(" "), note && [" ", toTables()]], !!note);
    refresh();
  }
});

document.addEventListener("click", async e => {
  const accept = e.target.closest("button[data-accept]");
  if (accept) {
    const id = accept.dataset.accept;
    const number = Number(document.querySelector(`[data-asking-table="${id}"]`).value);
    if (!number) return say(_("Type the table's number first."), true);
    accept.disabled = true;
    const answer = await takeNumber(`/api/v1/pairing/${id}`,
      {table: number, digits: accept.dataset.digits});
    if (answer.ok) say(_("Table {table} paired.", {table: number}));
    accept.disabled = false;
    refresh();
    return;
  }
  if (e.target.closest("#refuse-all")) {
    // A flood of requests, or a hall to pair afresh: every table asking hears "refused".
    if (!confirm(_("Refuse every table asking to join?"))) return;
    const answer = await change("DELETE", "/api/v1/pairing");
    if (answer.ok) say(ngettext("{n} request refused.", "{n} requests refused.", answer.data.count));
    refresh();
    return;
  }
  const refuse = e.target.closest("button[data-refuse]");
  if (refuse) {
    refuse.disabled = true;
    await change("DELETE", `/api/v1/pairing/${refuse.dataset.refuse}`);
    refresh();
    return;
  }
  const renumber = e.target.closest("button[data-renumber]");
  if (renumber) {
    const from = Number(renumber.dataset.renumber);
    const typed = prompt(_("Table {table}'s new number:", {table: from}));
    if (typed === null || typed.trim() === "") return;
    const number = Number(typed);
    if (!Number.isInteger(number) || number < 1 || number > 999) {
      return say(_("A table's number is 1 to 999."), true);
    }
    renumber.disabled = true;
    const answer = await takeNumber(`/api/v1/tables/${from}/renumber`, {table: number});
    if (answer.ok) say(_("Table {from} is now table {table}.", {from, table: number}));
    renumber.disabled = false;
    refresh();
    return;
  }
  const command = e.target.closest("button[data-kind]");
  if (command) {
    command.disabled = true;
    await change("POST", `/api/v1/tables/${command.dataset.table}/commands`, {kind: command.dataset.kind});
    refresh();
    return;
  }
  const send = e.target.closest("button[data-send]");
  if (send) {
    const last = await lastRound();  // a click before the page's first refresh, too
    if (!last) { say(_("No round drawn yet."), true); return; }
    // The round's end reaches every table at once and cannot be taken back: asked first.
    if (send.dataset.send === "round-over" && !confirm(_(
        "End round {round}'s time at every table now? At each table every seat makes one last move and the game ends; no new game starts. This cannot be undone.",
        {round: last.round}))) return;
    const answer = await change("POST", `/api/v1/tournaments/${tid}/rounds/${last.round}/commands`, {kind: send.dataset.send});
    if (answer.ok) {
      // A table not paired yet is named, not a reason to hold the round's other tables.
      const sentTo = answer.data.filter(x => !x.unpaired).length;
      const left = answer.data.filter(x => x.unpaired).map(x => x.table);
      say([ngettext("Sent to {n} table.", "Sent to {n} tables.", sentTo),
           left.length > 0 && [" ", ngettext("Not sent to table {tables}: it is not paired.",
             "Not sent to tables {tables}: they are not paired.", left.length,
             {tables: left.join(", ")}), " ", toTables()]], left.length > 0);
    }
    return;
  }
  const late = e.target.closest("button[data-start-table]");
  if (late) {
    late.disabled = true;
    const last = await lastRound();  // a click before the page's first refresh, too
    if (!last) { say(_("No round drawn yet."), true); return; }
    const answer = await change("POST", `/api/v1/tournaments/${tid}/rounds/${last.round}/commands`,
      {kind: "start", tables: [Number(late.dataset.startTable)]});
    if (answer.ok) say(_("Table {table} started.", {table: late.dataset.startTable}));
    refresh();
    return;
  }
  const extend = e.target.closest("button[data-extend]");
  if (extend) {
    extend.disabled = true;
    const last = await lastRound();  // a click before the page's first refresh, too
    if (!last) { say(_("No round drawn yet."), true); return; }
    const answer = await change("POST",
      `/api/v1/tournaments/${tid}/rounds/${last.round}/tables/${extend.dataset.extend}/extend`,
      {seconds: 300, reason: _("extra time given at the table")});
    if (answer.ok) say(_("Table {table}: 5 minutes more.", {table: extend.dataset.extend}));
    refresh();
    return;
  }
  const sanction = e.target.closest("button[data-sanction]");
  if (sanction) {
    sanctionFrom(window.resultsById[sanction.dataset.sanction]);
    return;
  }
  const fix = e.target.closest("button[data-fix]");
  if (fix) {
    fixing = window.resultsById[fix.dataset.fix];
    $("correct").reset();
    $("correct").hidden = false;
    $("correct-what").textContent = _(
      "Correcting result {id}: round {round}, table {table}, game {game} — {players}",
      {...fixing, round: fixing.round ?? "–", players: players(fixing)});
    $("correct").elements.reason.focus();
  }
});

// A player must leave mid-round: the reserve plays their seat for the round's remaining
// games (logged; the player who left is withdrawn; the format decides whom the games count for).
$("reserve").addEventListener("submit", async e => {
  e.preventDefault();
  const last = await lastRound();
  if (!last) { say(_("No round drawn yet."), true); return; }
  const f = new FormData(e.target);
  const sent = {table: Number(f.get("table")), seat: f.get("seat"), reserve: Number(f.get("reserve")),
                reason: f.get("reason")};
  if (f.get("from_game") !== "") sent.from_game = Number(f.get("from_game"));
  const answer = await change("POST", `/api/v1/tournaments/${tid}/rounds/${last.round}/replacements`, sent);
  if (answer.ok) {
    say(_("Table {table}, seat {seat}: the reserve plays from game {game}.",
      {table: answer.data.table, seat: answer.data.seat, game: answer.data.from_game}));
    e.target.reset();
    refresh();
  }
});

$("correct").addEventListener("submit", async e => {
  e.preventDefault();
  // The form always names the result it corrects; without one nothing is sent.
  if (!fixing) { say(_("First choose the result to correct: the “Correct” button in its row."), true); e.target.hidden = true; return; }
  const f = new FormData(e.target);
  const kind = f.get("kind");
  const raw = String(f.get("value")).trim().toLowerCase();
  const value = ["rack", "player"].includes(kind) ? Number(raw) : !["false", "nie", "no", "0"].includes(raw);
  const sent = {kind, seat: f.get("seat") || null, value, reason: f.get("reason")};
  const answer = await change("POST", `/api/v1/tournaments/${tid}/results/${fixing.id}/corrections`, sent);
  if (answer.ok) { say(_("Correction saved.")); e.target.reset(); e.target.hidden = true; fixing = null; refresh(); }
});

document.addEventListener("submit", async e => {
  const form = e.target.closest("form.assign");
  if (!form) return;
  e.preventDefault();
  const f = new FormData(form);
  const table = Number(f.get("table"));
  const sent = {kind: "assign", round: Number(form.dataset.round), table, game: Number(f.get("game")),
                players: window.drawnTables[table], reason: f.get("reason")};
  const answer = await change("POST", `/api/v1/tournaments/${tid}/results/${form.dataset.result}/corrections`, sent);
  if (answer.ok) { say(_("The result is assigned to the round.")); refresh(); }
});

labels();
whoIsHere();
refresh();
setInterval(refresh, 1000);
