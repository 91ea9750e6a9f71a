"use strict";
// The players' projector: public, read-only. The standings scroll slowly from top to bottom,
// wait, and start again, so a hall of players can find their own line without touching it.
// Plurals by the language's own rules (the browser's CLDR data): "1 grę", "2 gry", "5 gier".
const PLURAL = {pl: new Intl.PluralRules("pl"), en: new Intl.PluralRules("en")};
const TEXT = {
  pl: {title: "Klasyfikacja", head: ["Miejsce", "Gracz", "Klub", "Duże", "Małe", "Gier"],
       games: {one: "grę", few: "gry", many: "gier", other: "gry"},
       round: (r, missing) => `Runda ${r.round} (${r.stage})` + (missing ? ` — czekamy na ${missing} ${plural("pl", missing, "games")}` : " — komplet wyników"),
       none: "Brak turnieju.", empty: "Jeszcze nie ma wyników.", excluded: "wykluczony"},
  en: {title: "Standings", head: ["Place", "Player", "Club", "Big", "Small", "Games"],
       games: {one: "game", other: "games"},
       round: (r, missing) => `Round ${r.round} (${r.stage})` + (missing ? ` — ${missing} ${plural("en", missing, "games")} to come` : " — all results in"),
       none: "No tournament.", empty: "No results yet.", excluded: "excluded"},
};
const plural = (lang, n, word) => TEXT[lang][word][PLURAL[lang].select(n)] ?? TEXT[lang][word].other;
const query = new URLSearchParams(location.search);
const lang = query.get("lang") === "en" ? "en" : "pl";
const t = TEXT[lang];
const esc = s => String(s ?? "").replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
document.documentElement.lang = lang;
const NUMBERS = [0, 3, 4, 5];  // right-aligned, as the numbers under them
document.getElementById("head").innerHTML =
  t.head.map((h, i) => `<th class="${NUMBERS.includes(i) ? "num" : ""}">${h}</th>`).join("");

async function refresh() {
  let tid = Number(query.get("t")) || null;
  if (!tid) {
    const listed = await (await fetch("/api/v1/tournaments")).json();
    // The tournament the judge marked in play; the newest only when none is marked.
    const playing = listed.find(x => x.in_play) || listed[0];
    tid = playing ? playing.id : null;
  }
  if (!tid) { document.getElementById("title").textContent = t.none; return; }
  const [tournament, rows, players] = await Promise.all(
    [`/api/v1/tournaments/${tid}`, `/api/v1/tournaments/${tid}/standings`, `/api/v1/tournaments/${tid}/players`]
      .map(u => fetch(u).then(r => r.json())));
  document.title = `${tournament.name} — ${t.title}`;
  document.getElementById("title").textContent = `${tournament.name} — ${t.title}`;
  const last = tournament.rounds.at(-1);
  if (last) {
    const drawn = await (await fetch(`/api/v1/tournaments/${tid}/rounds/${last.round}`)).json();
    const missing = drawn.tables.reduce((n, x) => n + x.missing, 0);
    document.getElementById("round").textContent = t.round(last, missing);
  }
  const clubs = Object.fromEntries(players.map(p => [p.id, p.club]));
  const played = rows.some(r => r.games > 0);
  document.getElementById("empty").hidden = played;
  document.getElementById("empty").textContent = t.empty;
  document.getElementById("rows").innerHTML = played ? rows.map(r => `<tr class="${r.place <= 3 ? "top" : ""}">
    <td class="num">${r.place}.</td><td title="${esc(r.name)}">${esc(r.name)}${r.excluded ? ` <span class="out">(${esc(t.excluded)})</span>` : ""}</td><td title="${esc(clubs[r.player])}">${esc(clubs[r.player])}</td>
    <td class="num">${r.big}</td><td class="num">${r.small > 0 ? "+" : ""}${r.small}</td>
    <td class="num">${r.games}</td></tr>`).join("") : "";
}

// Scroll a line at a time; at the bottom wait, then back to the top.
const view = document.getElementById("viewport");
let pause = 0;
setInterval(() => {
  if (pause > 0) { pause -= 1; return; }
  const bottom = view.scrollHeight - view.clientHeight;
  if (view.scrollTop >= bottom - 1) { view.scrollTop = 0; pause = 40; return; }
  view.scrollTop += 2;
}, 50);
refresh();
setInterval(refresh, 5000);
