"use strict";
// The players' projector: public, read-only. The standings scroll slowly from top to bottom,
// wait, and start again, so a hall of players can find their own line without touching it.
// Its words come from the catalogue (/words.js, loaded first), plurals by the language's own
// forms: "1 grę", "2 gry", "5 gier". The page's elements are in projector.html; this script
// fills in their text, never markup.
const query = new URLSearchParams(location.search);
speak(query.get("lang") === "en" ? "en" : "pl");
const $ = id => document.getElementById(id);
const HEAD = [_("Place"), _("Player"), _("Club"), _("Big"), _("Small"), _("Games")];
HEAD.forEach((words, k) => { $("head").cells[k].textContent = words; });
const LINE = $("line").content.firstElementChild;

function roundLine(r, missing) {
  const args = {round: r.round, stage: stageName(r.stage)};
  return missing
    ? ngettext("Round {round} ({stage}) — {n} game to come",
               "Round {round} ({stage}) — {n} games to come", missing, args)
    : _("Round {round} ({stage}) — all results in", args);
}

// A round whose results are shown once all its tables are done (release_together).
const heldLine = h => _("Round {round}: results once every table is done ({ready} of {tables} done)", h);

// A player's line of the standings: the template's cells, filled in.
function line(r, club) {
  const tr = LINE.cloneNode(true);
  const [place, name, from, big, small, games] = tr.cells;
  if (r.place !== null && r.place <= 3) tr.className = "top";
  place.textContent = r.place === null ? "–" : `${r.place}.`;
  name.textContent = name.title = r.name;
  // A late arrival: the round they are drawn from.
  if (r.from_round) name.append(" (" + _("from round {round}", {round: r.from_round}) + ")");
  // The judge's marks and the big points taken, each with its stage (standings.js).
  const marks = [marked(r).trim(), r.deductions.length ? deducted(r) : ""].filter(Boolean);
  if (marks.length) {
    const out = document.createElement("span");
    out.className = "out";
    out.textContent = marks.join(" ");
    name.append(" ", out);
  }
  from.textContent = from.title = club ?? "";
  if (tr.className === "top") {
    // The top three's name takes the club's column too, the club beneath it in small type:
    // room for a whole name (wholeNames).
    name.colSpan = 2;
    from.remove();
    const under = document.createElement("small");
    under.className = "club";
    under.textContent = club ?? "";
    name.append(under);
  }
  big.textContent = r.big;
  small.textContent = `${r.small > 0 ? "+" : ""}${r.small}`;
  games.textContent = r.games;
  return tr;
}

// One refresh at a time: events that come while one is under way make one more after it.
let asking = null;
let again = false;
async function refresh() {
  if (asking) { again = true; return; }
  asking = draw().catch(() => {});
  await asking;
  asking = null;
  if (again) { again = false; refresh(); }
}

// The tournament's stream of events (as the boards' live.js): a result is on the screen the
// moment it counts, not at the next poll, which stays for the tournament in play and the
// round's clock.
let events = null;
let listening = null;
let shown = null;  // the board's revision on the screen
function listen(tid) {
  if (listening === tid) return;
  if (events) events.close();
  listening = tid;
  events = new EventSource(`/api/v1/tournaments/${tid}/events`);
  events.addEventListener("revision", e => {
    if (JSON.parse(e.data).revision !== shown) refresh();
  });
}

// A league's season (/projector?season=ID): its table, people by points over the meetings,
// in the standings' columns (points where the big points stand, meetings for games).
async function drawSeason(sid) {
  const [season, table] = await Promise.all(
    [`/api/v1/seasons/${sid}`, `/api/v1/seasons/${sid}/standings`].map(u => fetch(u).then(r => r.json())));
  [_("Place"), _("Player"), "", _("Points"), "", _("Meetings")].forEach((words, k) => {
    $("head").cells[k].textContent = words;
  });
  document.title = season.name ?? _("No such season");
  $("title").textContent = $("title").title = document.title;
  $("round").textContent = ngettext("{n} meeting", "{n} meetings", (season.meetings ?? []).length);
  $("empty").hidden = Array.isArray(table) && table.length > 0;
  $("empty").textContent = _("No meeting has been played yet.");
  $("rows").replaceChildren(...(Array.isArray(table) ? table : []).map(x => {
    const tr = line({place: x.place, name: x.name, deductions: [], big: x.points, small: 0, games: x.meetings}, "");
    tr.cells[tr.cells.length - 2].textContent = "";  // no small points in a season
    return tr;
  }));
  wholeNames();
}

async function draw() {
  const sid = Number(query.get("season")) || null;
  if (sid) return drawSeason(sid);
  let tid = Number(query.get("t")) || null;
  if (!tid) {
    const listed = await (await fetch("/api/v1/tournaments")).json();
    // The tournament the judge marked in play; the newest only when none is marked.
    const playing = listed.find(x => x.in_play) || listed[0];
    tid = playing ? playing.id : null;
  }
  if (!tid) { $("title").textContent = _("No tournament."); return; }
  // The standings as the board shows them to the public, even on the judge's laptop: without
  // a round whose results are released together until its last table is done.
  const [tournament, board] = await Promise.all(
    [`/api/v1/tournaments/${tid}`, `/api/v1/tournaments/${tid}/board`].map(u => fetch(u).then(r => r.json())));
  const rows = board.standings;
  knowStages(board.stages);
  shown = board.revision;
  listen(tid);
  $("held").textContent = board.held.map(heldLine).join(" ");
  phones(tid);
  document.title = _("{name} — Standings", {name: tournament.name});
  $("title").textContent = $("title").title = document.title;
  const last = tournament.rounds.at(-1);
  if (last) {
    const drawn = await (await fetch(`/api/v1/tournaments/${tid}/rounds/${last.round}`)).json();
    const missing = drawn.tables.reduce((n, x) => n + x.missing, 0);
    $("round").textContent = roundLine(last, missing);
    // The round's end on this screen's own clock: the time left as the hub said it, from now.
    endsAt = drawn.left_ms === null || !missing ? null : performance.now() + drawn.left_ms;
  } else {
    endsAt = null;
  }
  tick();
  const played = rows.some(r => r.games > 0);
  $("empty").hidden = played;
  $("empty").textContent = _("No results yet.");
  $("rows").replaceChildren(...(played ? grouped(rows, label => stageRow(label, 6), r => line(r, r.club)) : []));
  wholeNames();
}

// The board's QR code (/t/ID): standings and seatings on every phone in the hall, so the
// crowd in front of the screen thins. Its address as the phones reach the hub is in a header.
let shownFor = null;
async function phones(tid) {
  if (shownFor === tid) return;
  const qr = `/t/${tid}/qr.svg`;
  const answer = await fetch(qr, {method: "HEAD"});
  if (!answer.ok) return;
  shownFor = tid;
  $("qr").src = qr;
  $("qr").alt = $("address").textContent = answer.headers.get("x-klik-address");
  $("scan").textContent = _("Standings and tables on your phone");
  $("phones").hidden = false;
}

// The round's time left, counted down every second between the hub's answers.
let endsAt = null;
// The top three's names whole, read from the back of the hall (issue 37): across the name's
// and the club's columns, wrapped at their spaces onto a second line, and a word still wider
// than that set smaller until it fits. Every other name gives way with an ellipsis, never the
// points.
function wholeNames() {
  for (const td of document.querySelectorAll("#rows tr.top td:nth-child(2)")) {
    td.classList.add("whole");
    let size = parseFloat(getComputedStyle(td).fontSize);
    // Still legible across a hall: never below 28 px on a 1080-line screen (2.6 % of its
    // height), whatever the share of the line's own size that is.
    const least = Math.max(size * 0.6, innerHeight * 28 / 1080);
    while (td.scrollWidth > td.clientWidth && size > least) {
      size *= 0.92;
      td.style.fontSize = `${size}px`;
    }
  }
}

function tick() {
  if (endsAt === null) { $("clock").textContent = ""; return; }
  const s = Math.max(0, Math.ceil((endsAt - performance.now()) / 1000));
  const two = n => String(n).padStart(2, "0");
  const left = s >= 3600 ? `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`
    : `${Math.floor(s / 60)}:${two(s % 60)}`;
  $("clock").textContent = s ? _("Round time left: {left}", {left}) : _("Round time is up");
  $("clock").classList.toggle("low", s < 300);
}
setInterval(tick, 1000);

// Scroll a line at a time; at the bottom wait, then back to the top. A screen that asks for
// reduced motion (prefers-reduced-motion) gets no scrolling: the list turns a page at a time,
// every 10 s, without movement in between.
const view = $("viewport");
const still = matchMedia("(prefers-reduced-motion: reduce)");
let pause = 0;
setInterval(() => {
  if (still.matches) return;
  if (pause > 0) { pause -= 1; return; }
  const bottom = view.scrollHeight - view.clientHeight;
  if (view.scrollTop >= bottom - 1) { view.scrollTop = 0; pause = 40; return; }
  view.scrollTop += 2;
}, 50);
setInterval(() => {
  if (!still.matches) return;
  const bottom = view.scrollHeight - view.clientHeight;
  view.scrollTop = view.scrollTop >= bottom - 1 ? 0 : Math.min(bottom, view.scrollTop + view.clientHeight - 60);
}, 10000);
refresh();
setInterval(refresh, 5000);
