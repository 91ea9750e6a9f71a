"use strict";
// The tournament's public board (/t/ID): public, read-only, for a phone. It reads
// /api/v1/tournaments/ID/board, and again the moment anything changes (live.js, loaded before
// it): the last drawn round's tables, who sits where and
// which tables are done, and the standings (of a tournament that releases results together,
// without the rounds whose last tables still play: a line says so). Typing a name marks that player's table and line
// and hides the other tables. Its words come from the catalogue (/words.js, loaded first);
// the page's elements are in templates/board.html, and this script fills in their text,
// never markup.
const query = new URLSearchParams(location.search);
speak(query.get("lang") === "en" ? "en" : "pl");
const $ = id => document.getElementById(id);
const tid = document.currentScript.dataset.tournament;
const TABLE = $("table").content.firstElementChild;
const SEAT = $("seat").content.firstElementChild;
const LINE = $("line").content.firstElementChild;
let board = null;

// Names compared without case or Polish letters' tails: "lucja" finds "Łucja".
const plain = text => text.toLocaleLowerCase(language).normalize("NFD")
  .replace(/[\u0300-\u036f]/g, "").replace(/ł/g, "l");
const searched = () => plain($("search").value.trim());

function roundLine(r) {
  const missing = r.tables.reduce((n, t) => n + t.missing, 0);
  const args = {round: r.round, stage: stageName(r.stage)};
  return missing
    ? ngettext("Round {round} ({stage}) — {n} game to come",
               "Round {round} ({stage}) — {n} games to come", missing, args)
    : _("Round {round} ({stage}) — all results in", args);
}

// A round whose results are shown once all its tables are done (release_together).
const heldLine = h => _("Round {round}: results once every table is done ({ready} of {tables} done)", h);

function tableBox(t, wanted) {
  const box = TABLE.cloneNode(true);
  const [title, state] = box.querySelector("h3").children;
  title.textContent = pgettext("board", "Table {table}", {table: t.table});
  state.textContent = t.missing ? ngettext("{n} game to come", "{n} games to come", t.missing)
                                : pgettext("board", "done");
  if (!t.missing) state.className = "done";
  let found = false;
  box.querySelector("ol").replaceChildren(...t.seats.map(s => {
    const li = SEAT.cloneNode(true);
    const [letter, name] = li.children;
    letter.textContent = s.seat;
    name.textContent = s.name;
    if (wanted && plain(s.name).includes(wanted)) { li.className = "found"; found = true; }
    return li;
  }));
  if (wanted && !found) box.classList.add("hidden");
  return box;
}

function standingLine(r, wanted) {
  const tr = LINE.cloneNode(true);
  const [place, who, big, small, games] = tr.cells;
  const [name, club] = who.children;
  place.textContent = r.place === null ? "–" : `${r.place}.`;
  name.textContent = r.name + marked(r) +
    (r.from_round ? " (" + _("from round {round}", {round: r.from_round}) + ")" : "");
  // Under the name: the club, and the big points the judge took, with their stage.
  club.textContent = [r.club, deducted(r)].filter(Boolean).join(" · ");
  big.textContent = r.big;
  small.textContent = `${r.small > 0 ? "+" : ""}${r.small}`;
  games.textContent = r.games;
  if (wanted && plain(r.name).includes(wanted)) tr.className = "found";
  return tr;
}

function draw() {
  if (!board) return;
  const wanted = searched();
  knowStages(board.stages);
  document.title = board.name;
  $("name").textContent = board.name;
  $("round").textContent = board.round ? roundLine(board.round) : pgettext("board", "No round drawn yet.");
  $("held").hidden = board.held.length === 0;
  $("held").textContent = board.held.map(heldLine).join(" ");
  // The league's season(s) this is a meeting of: their tables, one link each.
  $("seasons").hidden = !board.seasons.length;
  $("seasons").replaceChildren(...board.seasons.flatMap((s, i) => [i ? " · " : "",
    Object.assign(document.createElement("a"), {href: `/s/${s.id}${language === "en" ? "?lang=en" : ""}`,
      textContent: pgettext("board", "Season: {name}", s)})]));
  $("seatings").hidden = !board.round;
  if (board.round) $("tables").replaceChildren(...board.round.tables.map(t => tableBox(t, wanted)));
  $("standings").replaceChildren(...grouped(board.standings, label => stageRow(label, 5), r => standingLine(r, wanted)));
}

$("search").addEventListener("input", draw);
live({answer: `/api/v1/tournaments/${tid}/board`, tid, draw: shown => { board = shown; draw(); }});
