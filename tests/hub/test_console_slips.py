"""The judge's console under pressure, in real headless Chromium against a real hub: the live
tables name the players and the caller and offer no pause where nothing runs; a correction
always names its game and goes to it; a result played without the round's lineup is assigned
to its table's game from the round's board."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from klik_hub import hall
from klik_hub.storage.store import Store
from tests.helpers.browser import no_then_yes
from tests.helpers.hubkit import post, sealed
from tests.helpers.tourney import API, Hall, create, enrol, lowest_goes_out, results
from tests.hub.test_tournament_tables import sql_commands

Hub = tuple[str, Store]


@pytest.fixture
def page(chromium_page: Page) -> Page:
    return chromium_page


def beat(url: str, hall: Hall, table: int, body: dict[str, object]) -> None:
    device, key = hall.keys[table]
    status = {"game": 1, "left_ms": 20_000, "draw_tiles": 30, "judge": False,
              "paused_by": None, "outbox": 0, "last_seq": 1, "acks": [], **body}  # fmt: skip
    answer = post(url, "/api/v1/heartbeats", sealed(device, key, 1, status, kind="heartbeat"))
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_console_names_and_places_every_fix(page: Page, hub: Hub) -> None:
    url, store = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 16)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 4}).json()
    hall = Hall(url, store, 4)
    hall.play(tid, {**drawn, "tables": drawn["tables"][:3]}, lowest_goes_out, "tournament")
    four = drawn["tables"][3]["seats"]
    nobody = dict.fromkeys(four)  # table 4 never had its lineup: "Gracz A-D"
    hall.report(None, None, 4, nobody, lowest_goes_out(1, 4, 1, four), rules="tournament")
    names = {p["id"]: p["name"] for p in httpx.get(f"{url}{API}/{tid}/players").json()}
    one = drawn["tables"][0]["seats"]
    on_screens = {s: names[p] for s, p in one.items()}
    beat(url, hall, 1, {"state": "paused", "mover": "B", "judge": True, "paused_by": "C",
                        "names": on_screens})  # fmt: skip
    beat(url, hall, 2, {"state": "done", "mover": None, "left_ms": None})
    beat(url, hall, 3, {"state": "move", "mover": "A"})

    page.goto(url)
    row = page.locator("#hall > li[data-table='1']")
    expect(row.get_by_test_id("caller")).to_have_text("C WZYWA SĘDZIEGO")
    expect(row).to_contain_text(f"⚠ C {on_screens['C']}")  # the caller by name
    expect(row).to_contain_text(f"B {on_screens['B']}")  # the mover by name
    commands = "button[data-kind]"  # a row's command buttons (Renumber is on every row)
    expect(row.locator(commands)).to_have_text("Wznów")
    expect(page.locator(f"#hall > li[data-table='2'] {commands}")).to_have_count(0)  # done
    expect(page.locator(f"#hall > li[data-table='3'] {commands}")).to_have_text("Pauza")

    # The correction form is hidden until a result is chosen, and names that result.
    page.get_by_test_id("tab-scores").click()
    rows = page.locator("#tresults tbody tr")
    expect(rows).to_have_count(3)
    expect(page.locator("#correct")).to_be_hidden()
    listed = {r["table"]: r for r in results(url, tid)}
    for table in (3, 1):  # one correction after another: each goes to its own game
        page.locator(
            f"#tresults tbody tr[data-result='{listed[table]['id']}'] button[data-fix]"
        ).click()
        expect(page.locator("#correct")).to_be_visible()
        expect(page.locator("#correct-what")).to_contain_text(f"stół {table}, gra 1")
        loser = next(s for s, e in listed[table]["seats"].items() if e["rack"] > 0)
        expect(page.locator("#correct-what")).to_contain_text(listed[table]["seats"][loser]["name"])
        page.get_by_test_id("c-kind").select_option("rack")
        page.get_by_test_id("c-seat").select_option(loser)
        page.get_by_test_id("c-value").fill("40")
        page.get_by_test_id("c-reason").fill(f"stół {table}: źle zliczona tabliczka")
        page.get_by_test_id("c-save").click()
        expect(page.get_by_test_id("message")).to_have_text("Poprawka zapisana.")
        expect(page.locator("#correct")).to_be_hidden()
    log = httpx.get(f"{url}{API}/{tid}/corrections").json()
    assert [(c["result"], c["reason"]) for c in log] == [
        (listed[1]["id"], "stół 1: źle zliczona tabliczka"),
        (listed[3]["id"], "stół 3: źle zliczona tabliczka"),
    ]

    # Table 4's result came without the lineup: the round's board offers it for its game.
    page.get_by_test_id("tab-round").click()
    expect(page.locator("#round tbody tr[data-table='4'] td.bad")).to_have_text("1")
    offered = page.get_by_test_id("unplaced").locator("form")
    expect(offered).to_have_count(1)
    expect(offered).to_contain_text("Stół 4")
    # What the judge types stays through the console's refreshes (one a second).
    offered.locator("input[name=reason]").fill("stół 4 zagrał bez składu rundy")
    for _ in range(2):
        shown = page.locator("#updated").text_content()
        expect(page.locator("#updated")).not_to_have_text(shown or "")
    expect(offered.locator("input[name=reason]")).to_have_value("stół 4 zagrał bez składu rundy")
    offered.get_by_role("button", name="Przypisz").click()
    expect(page.get_by_test_id("message")).to_have_text("Wynik przypisany do rundy.")
    expect(page.locator("#round tbody tr[data-table='4'] td.ok")).to_have_text("komplet")
    expect(offered).to_have_count(0)
    assigned = [r for r in results(url, tid) if r["table"] == 4]
    assert [(r["counts"], r["slot"]) for r in assigned] == [
        (True, {"round": 1, "table": 4, "game": 1})
    ]
    log = httpx.get(f"{url}{API}/{tid}/corrections").json()
    assert log[0]["reason"] == "stół 4 zagrał bez składu rundy"


SEND_LINEUPS = {"pl": "Wyślij składy na stoły", "en": "Send the lineups to the tables"}
SENT = {
    "pl": {
        8: "Wysłano do 1 stołu. Nie wysłano do stołu 2: nie jest sparowany. "
        "Przejdź do zakładki Stoły",
        12: "Wysłano do 1 stołu. Nie wysłano do stołów 2, 3: nie są sparowane. "
        "Przejdź do zakładki Stoły",
    },
    "en": {
        12: "Sent to 1 table. Not sent to tables 2, 3: they are not paired. Open the Tables tab"
    },
}


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize(
    ("players", "lang", "message"),
    [
        (  # one table unpaired: "stół … jest"
            8,
            "pl",
            "Wylosowano rundę 1. Uwaga: stół 2 nie jest sparowany z hubem: sparuj go w zakładce "
            "Stoły. Przejdź do zakładki Stoły",
        ),
        (  # two: "stoły … są"
            12,
            "pl",
            "Wylosowano rundę 1. Uwaga: stoły 2, 3 nie są sparowane z hubem: sparuj je w zakładce "
            "Stoły. Przejdź do zakładki Stoły",
        ),
        (  # the same in English
            12,
            "en",
            "Round 1 drawn. Note: tables 2, 3 are not paired with the hub: pair them on the Tables "
            "tab. Open the Tables tab",
        ),
    ],
)
def test_a_draw_with_unpaired_tables_warns_at_once_in_the_language_s_plurals(
    page: Page, hub: Hub, players: int, lang: str, message: str
) -> None:
    url, store = hub
    tid = create(url, name="Liga")
    enrol(url, tid, players)
    hall.devices.pair(store, 1)
    page.goto(f"{url}/?t={tid}&lang={lang}")
    page.get_by_test_id("tab-round").click()
    page.get_by_test_id("r-draw").click()
    expect(page.get_by_test_id("message")).to_have_text(message)
    page.get_by_test_id("goto-tables").click()  # where the judge pairs them
    expect(page.locator("#tab-live")).to_be_visible()
    expect(page.locator("#tab-round")).to_be_hidden()

    # The lineups go to the paired table; the others are named, with the way to pair them.
    page.get_by_test_id("tab-round").click()
    page.get_by_role("button", name=SEND_LINEUPS[lang]).click()
    expect(page.get_by_test_id("message")).to_have_text(SENT[lang][players])
    page.get_by_test_id("goto-tables").click()
    expect(page.locator("#tab-live")).to_be_visible()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_names_are_shown_as_text_and_the_words_by_their_context(page: Page, hub: Hub) -> None:
    """A name that looks like markup is a name (the console builds elements, never markup from
    data), and one English word with two Polish ones ("Name": "Nazwa", "Imię i nazwisko")
    comes out as its context says."""
    url, _ = hub
    named = '<b>Liga</b> & "Turniej"'
    tid = create(url, name=named)
    player = '<img src=x onerror="document.title=1">Ala'
    answer = httpx.post(f"{url}{API}/{tid}/players", json=[{"name": player, "club": "<i>SP</i>"}])
    assert answer.status_code == 201, answer.text
    page.goto(f"{url}/?t={tid}")
    page.get_by_test_id("tab-setup").click()
    expect(page.locator("#players tbody tr td:not(.acts)")).to_have_text(
        ["1", player, "<i>SP</i>", "", "", ""]  # the needs cell too: none
    )
    expect(page.locator("#players img, #players i")).to_have_count(0)
    expect(page.get_by_test_id("tournament").locator("option:checked")).to_have_text(
        f"{tid}. {named}"
    )
    expect(page.locator("#create label").first).to_have_text("Nazwa")
    expect(page.locator("#players thead")).to_have_text(
        "NrImię i nazwiskoKlub / szkołaRodzinaPotrzebyObecnyDziałania sędziego"
    )


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_refresh_leaves_the_judges_buttons_in_place(page: Page, hub: Hub) -> None:
    """The console refreshes every second and a live table's row changes as often (how long
    since its last contact): the row's buttons stay the same elements, so the keyboard's focus
    stays on them and a click between press and release still reaches them."""
    url, store = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 8)
    drawn = httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 4}).json()
    hall = Hall(url, store, 2)
    hall.play(tid, {**drawn, "tables": drawn["tables"][:1]}, lowest_goes_out, "tournament")
    beat(url, hall, 2, {"state": "move", "mover": "A"})
    page.goto(url)

    row = page.locator("#hall > li[data-table='2']")
    pause = row.locator("button[data-kind]")
    expect(pause).to_have_text("Pauza")
    pause.focus()
    page.evaluate("window.held = document.activeElement")
    for step_s, silent_s in ((7, 7), (2, 9)):  # the row changes twice while the judge aims
        store.now_ms.ms += step_s * 1000
        expect(row).to_contain_text(f"brak kontaktu od {silent_s} s")
    expect(pause).to_be_focused()
    assert page.evaluate("document.activeElement === window.held")

    page.get_by_test_id("tab-scores").click()
    fix = page.locator("#tresults tbody tr button[data-fix]")
    expect(fix).to_have_count(1)
    fix.focus()
    for _ in range(2):  # two refreshes of an unchanged list
        shown = page.locator("#updated").text_content()
        expect(page.locator("#updated")).not_to_have_text(shown or "")
    expect(fix).to_be_focused()
    page.keyboard.press("Enter")  # the judge's keyboard, still on the row's button
    expect(page.locator("#correct")).to_be_visible()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_double_click_draws_once_and_says_so_without_an_error(page: Page, hub: Hub) -> None:
    """Both clicks send the same action with one Idempotency-Key: the hub draws once and
    answers the second with the first's answer, so the console shows no false error."""
    url, store = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 8)
    for table in (1, 2):
        hall.devices.pair(store, table)
    page.goto(f"{url}/?t={tid}")
    page.get_by_test_id("tab-round").click()
    keys: list[str | None] = []
    page.on(
        "request", lambda r: r.method == "POST" and keys.append(r.headers.get("idempotency-key"))
    )
    page.get_by_test_id("r-draw").dblclick()
    expect(page.get_by_test_id("message")).to_have_text("Wylosowano rundę 1.")
    expect(page.locator("#round tbody tr")).to_have_count(2)
    assert len(keys) == 2
    assert keys[0] == keys[1]
    assert keys[0] is not None
    assert len(keys[0]) == 32
    assert page.get_by_test_id("message").get_attribute("class") == "done"
    assert len(httpx.get(f"{url}{API}/{tid}").json()["rounds"]) == 1


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_round_s_end_for_every_table_is_asked_first(page: Page, hub: Hub) -> None:
    """*Koniec czasu rundy* reaches every table and cannot be taken back: one click asks,
    and nothing is sent unless the judge says yes."""
    url, store = hub
    tid = create(url, name="Liga")
    enrol(url, tid, 8)
    for table in (1, 2):
        hall.devices.pair(store, table)
    assert httpx.post(f"{url}{API}/{tid}/rounds", json={"seed": 4}).status_code == 201
    page.goto(f"{url}/?t={tid}")
    page.get_by_test_id("tab-round").click()
    asked = no_then_yes(page)
    over = page.get_by_test_id("r-over")
    over.click()  # no: nothing sent
    over.click()  # yes
    expect(page.get_by_test_id("message")).to_have_text("Wysłano do 2 stołów.")
    assert asked[0].startswith("Zakończyć teraz czas rundy 1 na wszystkich stołach?")
    assert len(asked) == 2
    queued = [(x["table_no"], x["kind"]) for x in sql_commands(store)]
    assert queued == [(1, "round-over"), (2, "round-over")]
