"use strict";
// A player's own page (/p/CODE): public, read-only, for a phone. It reads /api/v1/p/CODE every
// 5 s and redraws: where to sit now (table, seat, who starts), the next round's seat once it
// is drawn, the player's games as they count and their place. Its words come from the
// catalogue (/words.js, loaded first); the page's elements are in templates/player.html, and
// this script fills in their text, never markup.
const query = new URLSearchParams(location.search);
speak(query.get("lang") === "en" ? "en" : "pl");
const $ = id => document.getElementById(id);
const code = location.pathname.split("/").pop();
const ROW = $("game").content.firstElementChild;

// A short word (a number, a seat's letter, "·") keeps to the word before it: a narrow phone
// breaks "Stół 12 ·" / "miejsce B", never leaving the seat's letter alone on a line.
const glued = text => text.replace(/ (\S{1,3})(?= |$)/g, "\u00a0$1");
const spot = x => glued(pgettext("player", "Table {table} · seat {seat}", x));
const signed = n => `${n > 0 ? "+" : ""}${n}`;

// One game of the player's: round, game, small and big points, and whether it counts.
function line(g) {
  const tr = ROW.cloneNode(true);
  const [round, game, small, big, counts] = tr.cells;
  round.textContent = g.round ?? "–";
  game.textContent = g.game ?? "–";
  small.textContent = signed(g.small);
  big.textContent = g.big;
  counts.textContent = g.counts ? pgettext("player", "counts") : pgettext("player", "held");
  if (!g.counts) counts.className = "held";
  return tr;
}

function draw(me) {
  document.title = `${me.name} — ${me.tournament}`;
  $("tournament").textContent = me.tournament;
  $("name").textContent = me.name;
  if (me.table === null) {
    $("where").textContent = pgettext("player", "Not drawn yet");
    $("round").textContent = pgettext("player", "Your table comes with the draw.");
    $("starts").textContent = "";
  } else {
    $("where").textContent = spot(me);
    $("round").textContent = pgettext("player", "Round {round}", me);
    $("starts").textContent = me.starts === null
      ? pgettext("player", "Whoever draws the highest tile starts the first game.")
      : pgettext("player", "Seat {seat} starts the first game.", {seat: me.starts});
  }
  $("next").hidden = me.next === null;
  if (me.next) $("next-spot").textContent = glued(pgettext("player", "Round {round}: table {table} · seat {seat}", me.next));
  $("place").textContent = me.place === null ? pgettext("player", "None before your first game.") : `${me.place}.`;
  const counted = me.games.filter(g => g.counts).length;
  $("summary").textContent = me.games.length
    ? ngettext("{n} game counts so far", "{n} games count so far", counted)
    : pgettext("player", "No games yet.");
  $("games").replaceChildren(...me.games.map(line));
}

async function refresh() {
  try {
    const answer = await fetch(`/api/v1/p/${encodeURIComponent(code)}`);
    if (!answer.ok) throw new Error(answer.statusText);
    draw(await answer.json());
    const time = new Date().toLocaleTimeString(language);
    $("updated").textContent = pgettext("player", "updated {time}", {time});
  } catch {
    $("updated").textContent = pgettext("player", "the hub does not answer; trying again");
  }
}

refresh();
setInterval(refresh, 5000);
