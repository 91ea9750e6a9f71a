"use strict";
// The hall on the console's Tables tab: one tile per paired table, in table-number order, as
// Bridgemate Control Software lays out its tables. A tile says, at a glance across the room:
// the number, the state in a word and a sign (never by colour alone), who moves and the time
// left, the seats' names, the games the table still owes the round and the round's time left,
// its health, and the judge's buttons for it. Seven tiles to a row on a 1366 px laptop: 60
// tables fit its width, never scrolled sideways. The helpers (el, _, named, health, …) are
// console.js's; this file only lays tiles out.

// A sign per state, read with its word: a screen reader reads the word, the sign is hidden.
const SIGNS = {ready: "○", move: "▶", timed_out: "◔", paused: "❚❚", scoring: "Σ", done: "✓",
               judge: "⚠", silent: "✕", unheard: "…"};

// The tile's state: the judge's call first, then a table not heard from, then its game's phase.
function tileState(row) {
  const s = row.status || {};
  if (s.judge) return {key: "judge", words: _("{who} CALLS THE JUDGE",
    {who: s.called_by ?? s.paused_by ?? ""}).trim()};
  if (row.seen_s_ago === null) return {key: "unheard", words: contact(null)};
  if (row.seen_s_ago > 10) return {key: "silent", words: contact(row.seen_s_ago)};
  return {key: s.state in SIGNS ? s.state : "unheard", words: STATES[s.state] ?? s.state ?? ""};
}

// The seats by name, the mover's marked (its time left is on the tile's first line) and the
// judge's caller's; a table with no lineup's names (a game begun without the round's) still
// says who moves.
function tileSeats(s) {
  const names = s.names || {};
  const caller = s.judge ? s.called_by ?? s.paused_by : null;
  const seats = Object.keys(names).sort();
  if (s.mover && !seats.includes(s.mover)) seats.unshift(s.mover);
  return seats.map(seat => {
    const sign = seat === caller ? "⚠ " : seat === s.mover ? "▶ " : "";
    return el("li", {class: seat === s.mover ? "mover" : "", "data-testid": seat === s.mover ? "mover" : null},
      sign && el("span", {"aria-hidden": "true"}, sign), `${seat} ${names[seat] ?? ""}`.trim());
  });
}

// The round at this table: the games it still owes and its round time left ("41:05").
function tileRound(x) {
  if (!x) return null;
  const c = x.clock;
  const time = !c ? _("round not started") : c.over_at ? _("round over")
    : c.left_ms === null ? "" : el("span", {class: "clock", title: _("Round time left")}, timeLeft(c.left_ms));
  const owed = x.missing ? ngettext("{n} game owed", "{n} games owed", x.missing) : _("all in");
  return el("div", {class: "round", "data-testid": "tile-round"},
    el("span", {class: x.missing ? "" : "ok"}, owed), time && [" · ", time]);
}

function hallTile(row, drawn) {
  const s = row.status || {};
  const state = tileState(row);
  const kind = s.state === "paused" ? "resume" : ["move", "timed_out"].includes(s.state) ? "pause" : null;
  const refused = (Array.isArray(s.refused) ? s.refused : []).map(x =>
    el("div", {class: "bad", "data-testid": "refused", title: x.error},
      _("game {game}'s result refused", {game: x.game})));
  // The table's own word that a result of it is in conflict, until the judge settles it.
  const conflicts = (Array.isArray(s.conflicts) ? s.conflicts : []).map(x =>
    el("div", {class: "bad", "data-testid": "conflict"},
      "⚠ " + _("game {game}'s result in conflict", {game: x.game ?? "–"})));
  // Re-paired to this number with the proof of its old one: its results under that count.
  const carried = (row.carried || []).length > 0 && el("div", {"data-testid": "carried",
    title: _("Its results under the old number count as that number's")},
    _("table {from} → {table}", {from: row.carried.join(", "), table: row.table}));
  const resending = row.resending_after != null && el("div", {class: "bad", "data-testid": "resending"},
    _("resending results after {seq}", {seq: row.resending_after}));
  const left = s.mover && s.left_ms != null &&
    el("b", {class: "left", "data-testid": "left", title: _("The move's time left")}, `${Math.round(s.left_ms / 1000)} s`);
  // Its game, pile and health in one line; its health only once it says any (an older table
  // says none: nothing to read); a command on its way.
  const figures = [s.game != null && _("game {game}", {game: s.game}),
    s.draw_tiles != null && _("pile {n}", {n: s.draw_tiles}),
    s.health && health(s.health, row.warnings || []),
    s.outbox > 0 && _("{n} to send", {n: s.outbox}),
    row.seen_s_ago >= 5 && state.key !== "silent" && contact(row.seen_s_ago),
    row.commands.length > 0 && _("sent…")].filter(Boolean);
  return el("li", {class: `tile ${state.key}`, "data-table": row.table, "data-testid": `tile-${row.table}`},
    el("div", {class: "top"},
      el("b", {class: "no", title: _("Table {table}", {table: row.table})}, row.table),
      el("span", {class: "state", "data-testid": "state"},
        el("span", {class: "sign", "aria-hidden": "true"}, SIGNS[state.key] + " "),
        state.key === "judge" ? el("b", {"data-testid": "caller"}, state.words) : state.words),
      left),
    el("ul", {class: "names"}, tileSeats(s)),
    tileRound(drawn),
    el("div", {class: "figures"}, figures.map((x, k) => [k > 0 && " · ", x])),
    (row.watch || []).map(w => el("div", {}, watched(w))), refused, conflicts, resending, carried,
    el("div", {class: "acts"},
      kind && el("button", {"data-kind": kind, "data-table": row.table},
        kind === "pause" ? _("Pause") : _("Resume")),
      el("button", {"data-renumber": row.table, title: _("Give this table another number (between games)")},
        _("Renumber"))));
}

// The hall, in table-number order; `drawn` is the round in play's answer (or null).
function hallTiles(tables, drawn) {
  const ofRound = Object.fromEntries(((drawn && drawn.tables) || []).map(x => [x.table, x]));
  return [...tables].sort((a, b) => a.table - b.table).map(row => hallTile(row, ofRound[row.table]));
}

// A tile's change of state, said to a screen reader (#hall-news, a polite live region): the
// tiles redraw every second and a live region over them would read out every second's clock;
// this says only a table whose state changed ("Stół 3: C WZYWA SĘDZIEGO"), once. The hall as
// first shown is no news.
let hallStates = null;  // each table's state, as last said
function hallNews(tables) {
  const now = new Map(tables.map(row => [row.table, tileState(row)]));
  const changed = hallStates === null ? [] : [...now].filter(([n, s]) => hallStates.get(n)?.key !== s.key);
  hallStates = now;
  if (changed.length) $("hall-news").textContent = changed.sort((a, b) => a[0] - b[0])
    .map(([n, s]) => _("Table {table}", {table: n}) + ": " + s.words).join(". ");
}
