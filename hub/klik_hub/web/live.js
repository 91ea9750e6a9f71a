"use strict";
// A public page that follows the day by itself (the player's page, the tournament's board):
// it asks for its answer, draws it, and keeps the tournament's stream of events open
// (/api/v1/tournaments/ID/events), asking again at each event of a revision it does not show
// yet, and once a minute besides (a phone that slept may have missed the stream's break).
// One request at a time: events that come while one is under way make one more after it.
// The page's #updated line says when it was last updated, or that the hub does not answer.
// Loaded after /words.js; `live` returns the page's refresh, for a page's own buttons.
function live({answer, draw, tid = null}) {
  const updated = document.getElementById("updated");
  let asking = null;  // the request under way
  let again = false;  // an event came while it was under way
  let events = null;
  let shown = null;  // the tournament's revision the page shows

  const trouble = () => {
    updated.textContent = pgettext("player", "the hub does not answer; trying again");
  };

  async function refresh() {
    if (asking) { again = true; return; }
    asking = (async () => {
      try {
        const got = await fetch(answer, {cache: "no-store"});
        if (!got.ok) throw new Error(got.statusText);
        const body = await got.json();
        shown = body.revision;
        draw(body);
        listen(tid ?? body.tournament_id);
        const time = new Date().toLocaleTimeString(language);
        updated.textContent = pgettext("player", "updated {time}", {time});
      } catch {
        trouble();
      }
    })();
    await asking;
    asking = null;
    if (again) { again = false; refresh(); }
  }

  // The browser keeps the stream open, and opens it again by itself after a break (the hub
  // says how soon); its first event after that is a refresh if anything changed meanwhile.
  function listen(id) {
    if (events) return;
    events = new EventSource(`/api/v1/tournaments/${id}/events`);
    events.addEventListener("revision", e => {
      if (JSON.parse(e.data).revision !== shown) refresh();
    });
    events.onerror = trouble;
  }

  refresh();
  setInterval(refresh, 60000);
  return refresh;
}
