"use strict";
// A player's own page (/p/CODE): public, read-only, for a phone. It reads /api/v1/p/CODE, and
// again the moment anything changes (live.js, loaded before it), and redraws: where to sit now (table, seat, who starts),
// the next round's seat once it is drawn, the player's games as they count, their place, and
// what the judge changed about them (new ones since the page last showed them stand out). Its
// words come from the catalogue (/words.js, loaded first); the page's elements are in
// templates/player.html, and this script fills in their text, never markup.
const query = new URLSearchParams(location.search);
speak(query.get("lang") === "en" ? "en" : "pl");
const $ = id => document.getElementById(id);
// A code typed in lower case is the same code (the hub keeps it in upper case): one key for
// the notices this phone has seen, however it was typed.
const code = location.pathname.split("/").pop().toUpperCase();
const ROW = $("game").content.firstElementChild;
const NOTICE = $("notice").content.firstElementChild;
const SEEN = `klik-notices-${code}`;  // how many notices this phone has shown the player

// A short word (a number, a seat's letter, "·") keeps to the word before it: a narrow phone
// breaks "Stół 12 ·" / "miejsce B", never leaving the seat's letter alone on a line.
const glued = text => text.replace(/ (\S{1,3})(?= |$)/g, "\u00a0$1");
const spot = x => glued(pgettext("player", "Table {table} · seat {seat}", x));
const signed = n => `${n > 0 ? "+" : ""}${n}`;

// One game of the player's: round, game, small and big points, and whether it counts. No
// points while its round's results wait for the other tables (release_together).
function line(g) {
  const tr = ROW.cloneNode(true);
  const [round, game, small, big, counts] = tr.cells;
  const waiting = g.small === null;
  round.textContent = g.round ?? "–";
  game.textContent = g.game ?? "–";
  small.textContent = waiting ? "–" : signed(g.small);
  big.textContent = waiting ? "–" : g.big;
  counts.textContent = waiting ? pgettext("player", "waits for the other tables")
    : g.counts ? pgettext("player", "counts") : pgettext("player", "held");
  if (!g.counts) counts.className = waiting ? "waiting" : "held";
  // A seat a reserve played for the rest of its round: marked, and whose it is.
  if (g.reserve) counts.textContent += " · " + pgettext("player", "reserve: {name}", g.reserve);
  return tr;
}

// How the player moved in their last game with the table's figures (a newer table's).
function pace(g) {
  $("pace").hidden = !g;
  if (!g) return;
  const seconds = ms => (ms / 1000).toLocaleString(language, {maximumFractionDigits: 1});
  const m = g.moves;
  let text = ngettext("Your last game: {n} move, {mean} s on average, {longest} s at most.",
                      "Your last game: {n} moves, {mean} s on average, {longest} s at most.",
                      m.count, {mean: seconds(m.mean_ms), longest: seconds(m.longest_ms)});
  if (m.timeouts) text += " " + ngettext("{n} timeout.", "{n} timeouts.", m.timeouts);
  $("pace").textContent = text;
}

// What the judge changed, in the player's words.
function said(n) {
  switch (n.kind) {
    case "correction":
      return pgettext("player", "The judge corrected game {game} of round {round} (table {table}).",
                      {game: n.game ?? "–", round: n.round ?? "–", table: n.table});
    case "rename": return pgettext("player", "The judge changed your name or club.");
    case "withdraw": return pgettext("player", "You are withdrawn from the tournament.");
    case "reinstate": return pgettext("player", "You are back in the tournament.");
    case "warning": return pgettext("player", "The judge gave you a warning.");
    case "deduction":
      return ngettext("The judge took {n} big point from you.",
                      "The judge took {n} big points from you.", n.big);
    case "exclusion": return pgettext("player", "The judge excluded you from the tournament.");
    default: return n.kind;
  }
}

function notices(list) {
  const seen = Number(localStorage.getItem(SEEN) || 0);
  $("notices").hidden = list.length === 0;
  $("notice-list").replaceChildren(...list.map((n, k) => {
    const li = NOTICE.cloneNode(true);
    const [time, text] = li.children;
    time.dateTime = n.at;
    time.textContent = new Date(n.at).toLocaleTimeString(language, {hour: "2-digit", minute: "2-digit"});
    text.textContent = said(n);
    if (k >= seen) li.className = "new";
    return li;
  }).reverse());  // newest first
  const fresh = list.length - seen;
  $("news").hidden = fresh <= 0;
  if (fresh > 0) {
    $("news").textContent = ngettext("{n} new notice from the judge", "{n} new notices from the judge", fresh);
  }
  // Shown once: the next time the page opens they are no longer new.
  localStorage.setItem(SEEN, String(list.length));
}

function draw(me) {
  knowStages(me.stages);
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
  // Their rating across the hub's tournaments (/ratings), and how today moved it.
  $("rating").hidden = !me.rating;
  if (me.rating) {
    const r = me.rating, signed = (r.change_today >= 0 ? "+" : "−") + Math.abs(r.change_today).toFixed(1);
    const said = {value: r.value.toFixed(1), change: signed};
    $("rating").textContent = r.provisional
      ? pgettext("player", "Rating {value} (provisional), today {change}", said)
      : pgettext("player", "Rating {value}, today {change}", said);
  }
  // Which games decide the place: under a format that places by the last stage reached, only
  // that stage's (the final's players by the final alone), not every game played.
  const deciding = me.games.filter(g => g.counts && (me.stage === null || g.stage === me.stage)).length;
  $("summary").textContent = !me.games.length ? pgettext("player", "No games yet.")
    : me.stage === null ? ngettext("{n} game counts so far", "{n} games count so far", deciding)
    : ngettext("Your place is decided by {n} game of the stage: {stage}",
               "Your place is decided by {n} games of the stage: {stage}", deciding, {stage: stageName(me.stage)});
  $("games").replaceChildren(...me.games.map(line));
  pace(me.games.filter(g => g.moves).at(-1));
  notices(me.notices);
  // Check-in: the button while the judge has it open, then what it did; nothing otherwise.
  $("checkin").hidden = !me.check_in_open && !me.checked_in;
  $("check-in").hidden = me.checked_in || !me.check_in_open;
  $("checked").textContent = me.checked_in ? pgettext("player", "You are checked in.") : "";
}

$("check-in").addEventListener("click", async () => {
  $("check-in").disabled = true;
  try {
    const answer = await fetch(`/api/v1/p/${encodeURIComponent(code)}/check-in`, {method: "POST"});
    if (!answer.ok) $("checked").textContent = (await answer.json()).error;
  } catch {
    $("checked").textContent = pgettext("player", "the hub does not answer; trying again");
  }
  $("check-in").disabled = false;
  refresh();
});

const refresh = live({answer: `/api/v1/p/${encodeURIComponent(code)}`, draw});
