"use strict";
// The head judge's console. It asks the hub every second (short polling: it works through any
// proxy and a laptop's sleep, and the hub keeps nothing per page). Reading needs nothing;
// every change needs the judge's session (logged in once; see logIn below).
const TEXT = {
  pl: {
    title: "Klik — hub sędziego", tables: "Stoły", results: "Wyniki", other: "English",
    table: "Stół", contact: "Kontakt", state: "Stan", mover: "Ruch", left: "Zostało",
    tiles: "Pula", outbox: "Czeka", actions: "",
    never: "jeszcze nie było", now: "teraz", ago: s => `brak kontaktu od ${s} s`,
    judge: "WZYWA SĘDZIEGO", pause: "Pauza", resume: "Wznów", sentCmd: "wysłano…",
    game: "Gra", receipt: "Pokwitowanie", ending: "Koniec", winners: "Wygrani",
    racks: "Tabliczki", small: "Małe", big: "Duże", check: "Punkty", received: "Odebrano",
    rummikub: "Rummikub", exhausted: "koniec bez Rummikuba", conflict: "KONFLIKT",
    endedBy: {pile: "pula wyczerpana", round_time: "koniec czasu rundy", judge: "zakończona przez sędziego"},
    mismatch: "niezgodne", okPts: "zgodne", updated: "odświeżono", offline: "hub nie odpowiada",
    troubles: {disk_full: "Dysk huba jest pełny: zwolnij miejsce. Przyjęte wyniki są bezpieczne; stoły wyślą pozostałe.",
               database_down: "Baza danych huba nie odpowiada. Stoły wyślą wyniki ponownie."},
    states: {ready: "przed startem", move: "ruch", timed_out: "czas minął", paused: "pauza",
             scoring: "liczenie", done: "koniec gry"},
    tournament: "Turniej", none: "— brak —", login: "Zaloguj", logged: "sędzia zalogowany",
    logout: "Wyloguj", loggedOut: "Wylogowano.",
    refused: g => `wynik gry ${g} odrzucony`,
    wait: s => `Zbyt wiele błędnych haseł; spróbuj ponownie za ${s} s.`,
    loginWhy: "Hasło sędziego głównego:", badPassword: "Hasło się nie zgadza.",
    tabLive: "Stoły", tabSetup: "Turniej i gracze", tabRound: "Runda", tabScores: "Wyniki turnieju",
    tabStandings: "Klasyfikacja",
    newTournament: "Nowy turniej", name: "Nazwa / imię i nazwisko", rules: "Zasady",
    format: "Format", moveTime: "Czas ruchu (s)", create: "Utwórz", players: "Gracze",
    club: "Klub / szkoła", add: "Dodaj gracza", csvFile: "Plik CSV (nazwisko; klub)",
    enrol: "Zapisz z pliku", nr: "Nr",
    ruleNames: {tournament: "turniejowe (1 duży pkt)", league: "ligowe (4/2/1/0)"},
    formatNames: {open: "otwarty", liga: "liga (seed 001)", szczecin: "Szczecin (seed 004)"},
    seed: "Ziarno losowania", override: "mimo braków", drawNext: "Losuj następną rundę",
    field: "Ilu awansuje", tieBreak: "Remisy: numery po kolei",
    roundTitle: r => `Runda ${r.round} — ${r.stage}, gier: ${r.games}, ziarno ${r.seed}, powtórzone pary: ${r.repeats}`,
    noRound: "Nie wylosowano jeszcze rundy.", sendLineups: "Wyślij składy na stoły",
    startRound: "Start rundy na wszystkich stołach", roundOver: "Koniec czasu rundy",
    printSheets: "Drukuj karty stołów", seats: "Miejsca", missing: "Brakuje gier",
    allIn: "komplet", drawn: r => `Wylosowano rundę ${r.round}.`, sent: n => `Wysłano do ${n} ${plural(n, {one: "stołu", other: "stołów"})}.`,
    created: id => `Utworzono turniej ${id}.`, enrolled: n => `Zapisano graczy: ${n}.`,
    round: "Runda", counts: "Liczy się", yes: "tak", held: {conflict: "konflikt",
      mismatch: "niezgodne punkty", players: "nieznany gracz", excluded: "wykluczony",
      not_in_round: "poza rundą", rules: "inne zasady"},
    unpaired: ks => plural(ks.length, {
      one: `Uwaga: stół ${ks[0]} nie jest sparowany z hubem (klik pair --table ${ks[0]}).`,
      other: `Uwaga: stoły ${ks.join(", ")} nie są sparowane z hubem (klik pair --table ${ks[0]}).`}),
    inPlay: "Grany turniej", playing: "▶ w grze", markedPlay: id => `Turniej ${id} jest teraz w grze: projektor go pokazuje.`,
    withdrawn: "wycofany",
    calls: (seat, name) => `${seat} ${name} WZYWA SĘDZIEGO`.replace("  ", " "),
    pickResult: "Najpierw wybierz wynik do poprawki: przycisk „Popraw” w jego wierszu.",
    unplacedTitle: "Wyniki spoza składu rundy (przypisz je albo wyklucz)",
    assign: "Przypisz", assignReason: "stół grał bez składu rundy", assigned: "Wynik przypisany do rundy.",
    correctWhat: x => `Poprawiasz wynik ${x.id}: runda ${x.round ?? "–"}, stół ${x.table}, gra ${x.game} — ${players(x)}`,
    corrected: "✎ poprawiony", fix: "Popraw", kind: "Poprawka", seat: "Miejsce", value: "Wartość",
    reason: "Powód", save: "Zapisz poprawkę", audit: "Dziennik poprawek", by: "Kto", at: "Kiedy",
    kinds: {rack: "suma na tabliczce", could_open: "mógł się wyłożyć (−200)", player: "gracz (nr)",
            exclude: "wyklucz grę", accept: "uznaj wynik", assign: "przypisanie do rundy",
            withdraw: "wycofanie gracza", reinstate: "przywrócenie gracza", rename: "zmiana danych gracza",
            undraw: "cofnięte losowanie", warning: "upomnienie", deduction: "odjęte duże punkty",
            exclusion: "wykluczenie z turnieju"},
    savedFix: "Poprawka zapisana.", stage: "Etap", allStages: "wszystkie",
    projector: "Projektor", csvStandings: "CSV klasyfikacji", csvResults: "CSV wyników",
    printStandings: "Drukuj klasyfikację", place: "Miejsce", player: "Gracz", games: "Gier",
  },
  en: {
    title: "Klik — judge's hub", tables: "Tables", results: "Results", other: "Polski",
    table: "Table", contact: "Contact", state: "State", mover: "Mover", left: "Left",
    tiles: "Pool", outbox: "Waiting", actions: "",
    never: "not yet", now: "now", ago: s => `no contact for ${s} s`,
    judge: "CALLS THE JUDGE", pause: "Pause", resume: "Resume", sentCmd: "sent…",
    game: "Game", receipt: "Receipt", ending: "Ending", winners: "Winners",
    racks: "Racks", small: "Small", big: "Big", check: "Points", received: "Received",
    rummikub: "Rummikub", exhausted: "ended without a Rummikub", conflict: "CONFLICT",
    endedBy: {pile: "pile exhausted", round_time: "round time over", judge: "ended by the judge"},
    mismatch: "mismatch", okPts: "ok", updated: "updated", offline: "the hub does not answer",
    troubles: {disk_full: "The hub's disk is full: free some space. Results already taken are safe; the tables will send the rest.",
               database_down: "The hub's database does not answer. The tables will send their results again."},
    states: {ready: "ready", move: "move", timed_out: "timed out", paused: "paused",
             scoring: "counting", done: "game over"},
    tournament: "Tournament", none: "— none —", login: "Log in", logged: "judge logged in",
    logout: "Log out", loggedOut: "Logged out.",
    refused: g => `game ${g}'s result refused`,
    wait: s => `Too many wrong passwords; try again in ${s} s.`,
    loginWhy: "The head judge's password:", badPassword: "Wrong password.",
    tabLive: "Tables", tabSetup: "Tournament and players", tabRound: "Round", tabScores: "Tournament results",
    tabStandings: "Standings",
    newTournament: "New tournament", name: "Name", rules: "Rules",
    format: "Format", moveTime: "Move time (s)", create: "Create", players: "Players",
    club: "Club / school", add: "Add a player", csvFile: "CSV file (name; club)",
    enrol: "Enrol from the file", nr: "No.",
    ruleNames: {tournament: "tournament (1 big point)", league: "league (4/2/1/0)"},
    formatNames: {open: "open", liga: "league (seed 001)", szczecin: "Szczecin (seed 004)"},
    seed: "Draw seed", override: "despite missing results", drawNext: "Draw the next round",
    field: "How many go on", tieBreak: "Ties: numbers in order",
    roundTitle: r => `Round ${r.round} — ${r.stage}, games: ${r.games}, seed ${r.seed}, repeated pairs: ${r.repeats}`,
    noRound: "No round drawn yet.", sendLineups: "Send the lineups to the tables",
    startRound: "Start the round on every table", roundOver: "Round time over",
    printSheets: "Print table sheets", seats: "Seats", missing: "Games missing",
    allIn: "all in", drawn: r => `Round ${r.round} drawn.`, sent: n => `Sent to ${n} ${plural(n, {one: "table", other: "tables"})}.`,
    created: id => `Tournament ${id} created.`, enrolled: n => `Players enrolled: ${n}.`,
    round: "Round", counts: "Counts", yes: "yes", held: {conflict: "conflict",
      mismatch: "points mismatch", players: "unknown player", excluded: "excluded",
      not_in_round: "not in the round", rules: "other rules"},
    unpaired: ks => plural(ks.length, {
      one: `Note: table ${ks[0]} is not paired with the hub (klik pair --table ${ks[0]}).`,
      other: `Note: tables ${ks.join(", ")} are not paired with the hub (klik pair --table ${ks[0]}).`}),
    inPlay: "In play", playing: "▶ in play", markedPlay: id => `Tournament ${id} is in play now: the projector shows it.`,
    withdrawn: "withdrawn",
    calls: (seat, name) => `${seat} ${name} CALLS THE JUDGE`.replace("  ", " "),
    pickResult: "First choose the result to correct: the “Correct” button in its row.",
    unplacedTitle: "Results outside the round's lineup (assign or exclude them)",
    assign: "Assign", assignReason: "the table played without the round's lineup", assigned: "The result is assigned to the round.",
    correctWhat: x => `Correcting result ${x.id}: round ${x.round ?? "–"}, table ${x.table}, game ${x.game} — ${players(x)}`,
    corrected: "✎ corrected", fix: "Correct", kind: "Correction", seat: "Seat", value: "Value",
    reason: "Reason", save: "Save the correction", audit: "Corrections log", by: "Who", at: "When",
    kinds: {rack: "rack sum", could_open: "could have opened (−200)", player: "player (no.)",
            exclude: "exclude the game", accept: "accept the result", assign: "assigned to the round",
            withdraw: "player withdrawn", reinstate: "player reinstated", rename: "player's details changed",
            undraw: "draw undone", warning: "warning", deduction: "big points deducted",
            exclusion: "excluded from the tournament"},
    savedFix: "Correction saved.", stage: "Stage", allStages: "all",
    projector: "Projector", csvStandings: "Standings CSV", csvResults: "Results CSV",
    printStandings: "Print the standings", place: "Place", player: "Player", games: "Games",
  },
};
const query = new URLSearchParams(location.search);
let lang = query.get("lang") === "en" ? "en" : "pl";
const t = () => TEXT[lang];
// The word for n in the console's language, by its plural rules (the browser's CLDR data:
// Polish has one, few and many; a form not given falls back to other).
const plural = (n, forms) => forms[new Intl.PluralRules(lang).select(n)] ?? forms.other;
const esc = s => String(s ?? "").replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
const $ = id => document.getElementById(id);
const seats = m => Object.entries(m || {}).map(([s, v]) => `${s} ${v}`).join(", ");
const signed = m => Object.entries(m || {}).map(([s, v]) => `${s} ${v > 0 ? "+" : ""}${v}`).join(", ");
const clock = iso => iso ? new Date(iso).toLocaleTimeString(lang) : "";
const players = x => Object.entries(x.seats).map(([s, e]) => `${s} ${e.name || "?"}`).join(", ");
// A seat with the player's name where the table told it (its heartbeat's names).
const named = (seat, names) => seat ? `${seat} ${(names || {})[seat] || ""}`.trim() : "";
let tab = "live";
let tid = Number(query.get("t")) || null;
let tournament = null;
let fixing = null;   // the result being corrected
let heard = new Set(); // tables whose judge call has already chimed

// --- talking to the hub --------------------------------------------------------------------

// The console logs in once (POST /api/v1/session): the hub sets an HttpOnly session cookie,
// which the browser sends with every request of this page and no script can read. The hub
// counts the cookie only with this header, which another site's page cannot send.
const CONSOLE = {"X-Klik-Console": "1"};
let judgeIn = false;  // as the hub last said (GET /api/v1/judge)
let openHub = false;  // no password set (a hub on loopback): nobody logs in or out

async function change(method, url, body, type = "application/json") {
  const send = () => fetch(url, {method, headers: {"Content-Type": type, ...CONSOLE},
    body: type === "application/json" ? JSON.stringify(body) : body});
  let answer = await send();
  if (answer.status === 401) {
    judgeIn = false;
    if (!(await logIn())) return {ok: false, data: {error: t().badPassword}};
    answer = await send();
  }
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) say(data.error || answer.statusText, true);
  return {ok: answer.ok, status: answer.status, data};
}

function logIn() {
  const dialog = $("login");
  dialog.querySelector("input").value = "";
  dialog.showModal();
  return new Promise(done => {
    dialog.addEventListener("close", async () => {
      const password = dialog.querySelector("input").value;
      if (!password) return done(false);
      const answer = await fetch("/api/v1/session", {method: "POST",
        headers: {"Content-Type": "application/json", ...CONSOLE},
        body: JSON.stringify({password})});
      judgeIn = answer.ok;
      if (answer.status === 429) say(t().wait(answer.headers.get("Retry-After") || "?"), true);
      else if (!answer.ok) say(t().badPassword, true);
      labels();
      done(answer.ok);
    }, {once: true});
  });
}

async function logOut() {
  await fetch("/api/v1/session", {method: "DELETE", headers: CONSOLE});
  judgeIn = false;
  say(t().loggedOut);
  labels();
}

async function whoIsHere() {
  // With no password set on the hub (a hub on loopback) everyone is the judge: no log-in.
  const probe = await fetch("/api/v1/judge", {headers: CONSOLE}).catch(() => null);
  judgeIn = probe !== null && probe.ok;
  openHub = judgeIn && (await probe.json().catch(() => ({}))).open === true;
  labels();
}

function say(text, error = false) {
  const line = $("message");
  line.textContent = text;
  line.className = error ? "error" : "done";
}

const get = url => fetch(url).then(r => r.ok ? r.json() : Promise.reject(r));

// --- the live tables (every tab's data is asked for only while it is shown) ------------------

function head(id, cols) {
  document.querySelector(`#${id} thead`).innerHTML =
    "<tr>" + cols.map(c => `<th>${esc(c)}</th>`).join("") + "</tr>";
}

function contact(seconds) {
  if (seconds === null) return t().never;
  return seconds < 5 ? t().now : t().ago(Math.round(seconds));
}

function tableRow(row) {
  const s = row.status || {};
  const silent = row.seen_s_ago === null || row.seen_s_ago > 10;
  const cls = s.judge ? "judge" : silent ? "silent" : "";
  const left = s.left_ms == null ? "" : (s.left_ms / 1000).toFixed(0) + " s";
  // Pause only a clock that runs (or a timed-out move), resume a paused one; a table before
  // its start or after its game is over offers neither.
  const kind = s.state === "paused" ? "resume" : ["move", "timed_out"].includes(s.state) ? "pause" : null;
  const waiting = row.commands.length ? ` <span>${esc(t().sentCmd)}</span>` : "";
  const who = s.called_by ?? s.paused_by ?? "";  // waiting for the move's end, or stopped
  const caller = s.judge ? ` <b data-testid="caller">${esc(t().calls(who, (s.names || {})[who] ?? ""))}</b>` : "";
  const button = kind ? `<button data-kind="${kind}" data-table="${row.table}">${esc(t()[kind])}</button>` : "";
  // Results the hub refused for good: kept on the table's card, for the judge to enter.
  const refused = (Array.isArray(s.refused) ? s.refused : []).map(x =>
    ` <b class="bad" data-testid="refused" title="${esc(x.error)}">${esc(t().refused(x.game))}</b>`).join("");
  return `<tr class="${cls}" data-table="${row.table}">
    <td>${row.table}</td><td>${esc(contact(row.seen_s_ago))}</td>
    <td>${esc(t().states[s.state] ?? s.state ?? "")}${caller}</td>
    <td>${esc(named(s.mover, s.names))}</td><td>${esc(left)}</td><td>${esc(s.draw_tiles ?? "")}</td>
    <td>${esc(s.outbox ?? "")}${refused}</td>
    <td>${button}${waiting}</td>
  </tr>`;
}

function resultRow(row, counted) {
  const check = row.points_check === "ok"
    ? `<span class="ok">${esc(t().okPts)}</span>` : `<span class="bad">${esc(t().mismatch)}</span>`;
  const conflict = row.conflict ? ` <span class="bad">${esc(t().conflict)}</span>` : "";
  const mark = row.corrected ? ` <span class="mark">${esc(t().corrected)}</span>` : "";
  return `<tr class="${row.conflict ? "conflict" : ""}">
    <td>${row.table}</td><td>${row.game}</td>
    <td class="receipt">R-${esc(row.receipt)}${conflict}${mark}</td>
    <td>${esc(t().endedBy[row.ended_by] ?? t()[row.ending] ?? row.ending)}</td><td>${esc(winners(row, counted))}</td>
    <td>${esc(seats(row.racks))}</td><td>${esc(signed(row.small))}</td><td>${esc(seats(row.big))}</td>
    <td>${check}</td><td>${esc(clock(row.received_at))}</td>
  </tr>`;
}

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
  } catch (_) { /* no sound here: the row's colour still says it */ }
}

// The winners by name; for a result the judge corrected, as they count now in the tournament.
function winners(row, counted) {
  const now = counted[row.id];
  if (now && row.corrected) return now.winners.map(s => `${s} ${now.seats[s].name}`.trim()).join(", ");
  return row.winners.map(s => named(s, row.names)).join(", ");
}

async function live() {
  const [tables, results, counted] = await Promise.all([get("/api/v1/tables"),
    get("/api/v1/results?limit=200"), tid ? get(`/api/v1/tournaments/${tid}/results`) : []]);
  const byId = Object.fromEntries(counted.map(x => [x.id, x]));
  $("tables").tBodies[0].innerHTML = tables.map(tableRow).join("");
  $("results").tBodies[0].innerHTML = results.map(r => resultRow(r, byId)).join("");
  const calling = new Set(tables.filter(r => r.status && r.status.judge).map(r => r.table));
  if ([...calling].some(n => !heard.has(n))) chime();
  heard = calling;
}

// --- the tournament ------------------------------------------------------------------------

async function tournaments() {
  const listed = await get("/api/v1/tournaments");
  // The tournament the judge marked in play, not merely the newest (a test tournament).
  if (tid === null && listed.length) tid = (listed.find(x => x.in_play) || listed[0]).id;
  $("tournament").innerHTML = `<option value="">${esc(t().none)}</option>` + listed.map(x =>
    `<option value="${x.id}" ${x.id === tid ? "selected" : ""}>${x.id}. ${esc(x.name)}${x.in_play ? " " + esc(t().playing) : ""}</option>`).join("");
  tournament = tid ? await get(`/api/v1/tournaments/${tid}`) : null;
}

async function setup() {
  const players = tid ? await get(`/api/v1/tournaments/${tid}/players`) : [];
  $("players").tBodies[0].innerHTML = players.map(p =>
    `<tr${p.active ? "" : ' class="bad"'}><td>${p.id}</td><td>${esc(p.name)}${p.active ? "" : ` (${esc(t().withdrawn)})`}</td><td>${esc(p.club)}</td></tr>`).join("");
}

async function round() {
  const last = tournament && tournament.rounds.at(-1);
  for (const b of document.querySelectorAll("[data-send]")) b.disabled = !last;
  if (!last) { $("round-title").textContent = t().noRound; $("round").tBodies[0].innerHTML = ""; return; }
  $("sheets").href = `/print/sheets?t=${tid}&round=${last.round}${lang === "en" ? "&lang=en" : ""}`;
  const [drawn, players] = await Promise.all([
    get(`/api/v1/tournaments/${tid}/rounds/${last.round}`), get(`/api/v1/tournaments/${tid}/players`)]);
  const names = Object.fromEntries(players.map(p => [p.id, p.name]));
  $("round-title").textContent = t().roundTitle(drawn);
  $("round").tBodies[0].innerHTML = drawn.tables.map(x => `<tr data-table="${x.table}">
    <td>${x.table}</td>
    <td class="seats">${Object.entries(x.seats).map(([s, p]) => `<span>${s}: ${esc(names[p])} (${p})</span>`).join("")}</td>
    <td class="${x.missing ? "bad" : "ok"}">${x.missing ? x.missing : esc(t().allIn)}</td></tr>`).join("");
  // Results that fill no slot: the judge puts each in its table's game (assign) or excludes it.
  $("unplaced-title").hidden = !drawn.unplaced.length;
  const tables = drawn.tables.map(x => `<option>${x.table}</option>`).join("");
  const games = Array.from({length: drawn.games}, (_, k) => `<option>${k + 1}</option>`).join("");
  $("unplaced").innerHTML = drawn.unplaced.map(x => `<form class="row assign" data-result="${x.id}" data-round="${drawn.round}">
    <b>R-${esc(x.receipt)} · ${esc(t().table)} ${x.table} · ${esc(clock(x.received_at))}: ${esc(seats(x.names))}</b>
    <label><span>${esc(t().table)}</span><select name="table">${tables.replace(`<option>${x.table}</option>`, `<option selected>${x.table}</option>`)}</select></label>
    <label><span>${esc(t().game)}</span><select name="game">${games}</select></label>
    <label><span>${esc(t().reason)}</span><input name="reason" required maxlength="500" size="28" value="${esc(t().assignReason)}"></label>
    <button>${esc(t().assign)}</button></form>`).join("");
  window.drawnTables = Object.fromEntries(drawn.tables.map(x => [x.table, x.seats]));
}

function statusOf(x) {
  const mark = x.corrected ? ` <span class="mark">${esc(t().corrected)}</span>` : "";
  return (x.counts ? `<span class="ok">${esc(t().yes)}</span>` : `<span class="bad">${esc(t().held[x.held])}</span>`) + mark;
}

async function scores() {
  if (!tid) return;
  const [listed, audit] = await Promise.all([
    get(`/api/v1/tournaments/${tid}/results`), get(`/api/v1/tournaments/${tid}/corrections`)]);
  $("tresults").tBodies[0].innerHTML = listed.map(x => `<tr class="${x.counts ? "" : "held"}" data-result="${x.id}">
    <td>${x.round}</td><td>${x.table}</td><td>${x.game}</td><td class="receipt">R-${esc(x.receipt)}</td>
    <td>${Object.entries(x.seats).map(([s, e]) =>
      `${s} ${esc(e.name || "?")}: ${e.rack} → ${e.small > 0 ? "+" : ""}${e.small} / ${e.big}`).join("<br>")}</td>
    <td>${statusOf(x)}</td><td><button data-fix="${x.id}">${esc(t().fix)}</button></td></tr>`).join("");
  $("audit").tBodies[0].innerHTML = audit.map(c => `<tr><td>${esc(c.result ?? (c.player ? `#${c.player}` : ""))}</td>
    <td>${esc(t().kinds[c.kind] ?? c.kind)}</td><td>${esc(c.seat ?? "")}</td><td>${esc(String(c.value ?? c.big ?? c.round ?? ""))}</td>
    <td>${esc(c.reason)}</td><td>${esc(c.by)}</td><td>${esc(clock(c.at))}</td></tr>`).join("");
  window.resultsById = Object.fromEntries(listed.map(x => [x.id, x]));
}

async function standings() {
  if (!tid) return;
  const stage = $("stage").value;
  const stages = [...new Set(tournament.rounds.map(r => r.stage))];
  $("stage").innerHTML = `<option value="">${esc(t().allStages)}</option>` + stages.map(s =>
    `<option ${s === stage ? "selected" : ""}>${esc(s)}</option>`).join("");
  const where = stage ? `?stage=${encodeURIComponent(stage)}` : "";
  const rows = await get(`/api/v1/tournaments/${tid}/standings${where}`);
  $("standings").tBodies[0].innerHTML = rows.map(r => `<tr><td>${r.place}</td><td>${r.player}</td>
    <td>${esc(r.name)}</td><td>${r.big}</td><td>${r.small}</td><td>${r.games}</td></tr>`).join("");
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
    $("trouble").textContent = health.ok ? "" : (t().troubles[health.trouble] || health.error);
    await tournaments();
    await SHOW[tab]();
    $("updated").textContent = `${t().updated} ${new Date().toLocaleTimeString(lang)}`;
  } catch (error) {
    $("updated").textContent = t().offline;
  }
}

// --- labels, in the chosen language --------------------------------------------------------

function labels() {
  document.documentElement.lang = lang;
  document.title = t().title;
  $("title").textContent = t().title;
  $("tables-title").textContent = t().tables;
  $("results-title").textContent = t().results;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t()[el.dataset.t];
  for (const o of document.querySelectorAll("select[name=rules] option")) o.textContent = t().ruleNames[o.value];
  for (const o of document.querySelectorAll("select[name=format] option")) o.textContent = t().formatNames[o.value];
  for (const o of document.querySelectorAll("select[name=kind] option")) o.textContent = t().kinds[o.value];
  $("who").textContent = judgeIn && !openHub ? t().logged : "";
  $("login-open").hidden = judgeIn;
  $("logout").hidden = !judgeIn || openHub;
  const other = $("lang");
  other.textContent = t().other;
  const next = new URLSearchParams(location.search);
  lang === "pl" ? next.set("lang", "en") : next.delete("lang");
  other.href = "?" + next.toString();
  head("tables", [t().table, t().contact, t().state, t().mover, t().left, t().tiles, t().outbox, t().actions]);
  head("results", [t().table, t().game, t().receipt, t().ending, t().winners, t().racks,
    t().small, t().big, t().check, t().received]);
  head("players", [t().nr, t().name, t().club]);
  head("round", [t().table, t().seats, t().missing]);
  head("tresults", [t().round, t().table, t().game, t().receipt, t().seats, t().counts, ""]);
  head("audit", [t().results, t().kind, t().seat, t().value, t().reason, t().by, t().at]);
  head("standings", [t().place, t().nr, t().player, t().big, t().small, t().games]);
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("on", b.dataset.tab === tab);
}

// --- what the judge does -------------------------------------------------------------------

function show(next) {
  tab = next;
  for (const s of document.querySelectorAll("section")) s.hidden = s.id !== `tab-${tab}`;
  say("");
  labels();
  refresh();
}

$("tabs").addEventListener("click", e => { const b = e.target.closest("button"); if (b) show(b.dataset.tab); });
$("play").addEventListener("click", async () => {
  if (!tid) return;
  const answer = await change("POST", `/api/v1/tournaments/${tid}/play`, {});
  if (answer.ok) { say(t().markedPlay(tid)); refresh(); }
});

$("tournament").addEventListener("change", e => { tid = Number(e.target.value) || null; refresh(); });
$("stage").addEventListener("change", () => refresh());
$("login-open").addEventListener("click", () => logIn());
$("logout").addEventListener("click", () => logOut());

$("create").addEventListener("submit", async e => {
  e.preventDefault();
  const f = new FormData(e.target);
  const sent = {name: f.get("name"), rules: f.get("rules"), format: f.get("format"),
                move_time_s: Number(f.get("move_time_s"))};
  const answer = await change("POST", "/api/v1/tournaments", sent);
  if (answer.ok) { tid = answer.data.id; say(t().created(tid)); e.target.reset(); refresh(); }
});

$("enrol-one").addEventListener("submit", async e => {
  e.preventDefault();
  const f = new FormData(e.target);
  const answer = await change("POST", `/api/v1/tournaments/${tid}/players`, [{name: f.get("name"), club: f.get("club")}]);
  if (answer.ok) { say(t().enrolled(answer.data.length)); e.target.reset(); refresh(); }
});

$("enrol-csv").addEventListener("submit", async e => {
  e.preventDefault();
  const file = e.target.elements.file.files[0];
  if (!file) return;
  const answer = await change("POST", `/api/v1/tournaments/${tid}/players`, await file.arrayBuffer(), "text/csv");
  if (answer.ok) { say(t().enrolled(answer.data.length)); e.target.reset(); refresh(); }
});

$("draw").addEventListener("submit", async e => {
  e.preventDefault();
  const f = new FormData(e.target);
  const sent = {override: f.get("override") === "on"};
  // The round this page means to draw: a second click (or another judge's console) drawing
  // it meanwhile is 409, not a round more.
  if (tournament) sent.round = tournament.rounds.length + 1;
  if (f.get("seed") !== "") sent.seed = Number(f.get("seed"));
  if (f.get("field") !== "") sent.field = Number(f.get("field"));
  const ties = String(f.get("tie_break")).split(/[\s,;]+/).filter(Boolean).map(Number);
  if (ties.length) sent.tie_break = ties;
  const answer = await change("POST", `/api/v1/tournaments/${tid}/rounds`, sent);
  if (answer.ok) {
    const unpaired = answer.data.unpaired || [];
    say(t().drawn(answer.data) + (unpaired.length ? " " + t().unpaired(unpaired) : ""), unpaired.length > 0);
    refresh();
  }
});

document.addEventListener("click", async e => {
  const command = e.target.closest("button[data-kind]");
  if (command) {
    command.disabled = true;
    await change("POST", `/api/v1/tables/${command.dataset.table}/commands`, {kind: command.dataset.kind});
    refresh();
    return;
  }
  const send = e.target.closest("button[data-send]");
  if (send) {
    const last = tournament.rounds.at(-1);
    const answer = await change("POST", `/api/v1/tournaments/${tid}/rounds/${last.round}/commands`, {kind: send.dataset.send});
    if (answer.ok) say(t().sent(answer.data.length));
    return;
  }
  const fix = e.target.closest("button[data-fix]");
  if (fix) {
    fixing = window.resultsById[fix.dataset.fix];
    $("correct").reset();
    $("correct").hidden = false;
    $("correct-what").textContent = t().correctWhat(fixing);
    $("correct").elements.reason.focus();
  }
});

$("correct").addEventListener("submit", async e => {
  e.preventDefault();
  // The form always names the result it corrects; without one nothing is sent.
  if (!fixing) { say(t().pickResult, true); e.target.hidden = true; return; }
  const f = new FormData(e.target);
  const kind = f.get("kind");
  const raw = String(f.get("value")).trim().toLowerCase();
  const value = ["rack", "player"].includes(kind) ? Number(raw) : !["false", "nie", "no", "0"].includes(raw);
  const sent = {kind, seat: f.get("seat") || null, value, reason: f.get("reason")};
  const answer = await change("POST", `/api/v1/tournaments/${tid}/results/${fixing.id}/corrections`, sent);
  if (answer.ok) { say(t().savedFix); e.target.reset(); e.target.hidden = true; fixing = null; refresh(); }
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
  if (answer.ok) { say(t().assigned); refresh(); }
});

labels();
whoIsHere();
refresh();
setInterval(refresh, 1000);
