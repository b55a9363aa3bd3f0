"""The play page in a real headless Chromium (Debian's, driven by Playwright for Python) against a real
``skald serve`` on 127.0.0.1. The narrator is the real ``ChatOllama`` client talking to the project's loopback
Ollama stand-in (``fake_ollama``), so narration streams token by token and a test can hold it mid-turn.

Skipped only when no Chromium is installed (``make test`` installs Debian's ``chromium`` when it can), and then
loudly: a warning names what is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fake_ollama import FakeOllama, Gate, held, taking_turns
from history import free_port
from support import ROOT

playwright = pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser, Page, expect  # noqa: E402

NARRATOR = "story-model"
LINE = ("The lamps gutter as you move through the room, and the talk drops a notch around you. Dust hangs in the "
        "light. Whatever you meant to do, you do it, and the room takes note of it.")
# told in turn with LINE: a narrator telling two turns the same way is refused as a repeat (llm.hygiene)
OTHER_LINE = ("Someone at the back laughs at a joke you did not hear. The fan overhead ticks round. You take it all "
              "in, and the room goes on about its business.")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}  # the narrowest the page is laid out for
PHONE_390 = {"width": 390, "height": 844}  # the phone size every point of the page is tested at
SIZES = pytest.mark.parametrize("viewport", [DESKTOP, PHONE_390], ids=["desktop", "phone"])
SHOTS = (ROOT / os.environ["PLAY_PAGE_SHOTS"]) if os.environ.get("PLAY_PAGE_SHOTS") else None


def _chromium() -> str | None:
    found = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    return found if found and Path(found).exists() else None


@pytest.fixture(scope="module")
def chromium() -> str:
    path = _chromium()
    if path is None:
        message = ("NO CHROMIUM: the browser tests of the play page are SKIPPED. Install Debian's chromium "
                   "(`apt-get install chromium`, which `make test` does when it can) or set CHROMIUM_PATH.")
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama(models=[NARRATOR]) as server:
        server.always(NARRATOR, taking_turns(LINE, OTHER_LINE))
        yield server


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, ollama: FakeOllama) -> Iterator[str]:
    """A real ``skald serve`` process: the narrator online (the stand-in), every other role on its offline rules."""
    env = {"SKALD_LLM": "auto", "SKALD_OLLAMA_BASE_URL": ollama.url, "SKALD_RETRIEVAL": "false",
           "SKALD_NARRATOR_MODEL": NARRATOR, "SKALD_API_CREATE_PER_MINUTE": "0"}
    env |= {f"SKALD_{role.upper()}_ENABLED": "false" for role in ("director", "suggestion_refiner", "evaluator",
                                                                  "beat_classifier", "character", "moderator",
                                                                  "setup")}
    yield from _serve(tmp_path_factory.mktemp("web"), env)


def _serve(folder: Path, settings: dict[str, str]) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKALD_")} | settings
    env["SKALD_LOG_FILE"] = str(folder / "skald.log")  # not the working folder's data/logs
    log = (folder / "serve.log").open("wb")
    for _ in range(3):  # a free port can be taken before the server binds it: then it exits, and another is tried
        port, logged = free_port(), (folder / "serve.log").stat().st_size
        proc = subprocess.Popen([sys.executable, "-m", "skald", "serve", "--host", "127.0.0.1", "--port", str(port),
                                 "--db", str(folder / "web.db")], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            proc.kill()
            proc.wait(10)
            if b"address already in use" in (folder / "serve.log").read_bytes()[logged:].lower():
                continue
            pytest.fail(f"skald serve did not start:\n{(folder / 'serve.log').read_text()}")
        break
    else:
        pytest.fail(f"skald serve found no free port:\n{(folder / 'serve.log').read_text()}")
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


@pytest.fixture(scope="module")
def served_offline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``skald serve`` process with no model at all: what a player without Ollama gets."""
    yield from _serve(tmp_path_factory.mktemp("offline"), {"SKALD_LLM": "off", "SKALD_RETRIEVAL": "false",
                                                          "SKALD_API_CREATE_PER_MINUTE": "0"})


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Browser]:
    with playwright.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


def _page(browser: Browser, served: str, viewport: dict, errors: list[str], context=None) -> Page:
    context = context or browser.new_context(viewport=viewport)
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" and "409" not in msg.text
            else None)
    page.goto(served)
    return page


def _start(page: Page, *, pack: str | None = None, seed: int | None = None, name: str | None = None) -> None:
    """Start a campaign through the form (on ``pack``, with a seed and a name when given) and wait for its four
    suggestions."""
    expect(page.locator("#pack option")).not_to_have_count(0)
    if pack:
        page.select_option("#pack", pack)
    if seed is not None:
        page.locator("details.more summary").click()
        page.fill("#seed", str(seed))
    if name:
        page.fill("#name", name)
    page.click("#start-button")
    expect(page.locator("#suggestions button")).to_have_count(4)


def _played(page: Page, entries: int) -> None:
    """Wait until the log holds ``entries`` entries and the turn is over (the Play button is enabled again)."""
    expect(page.locator("#log .entry")).to_have_count(entries, timeout=30_000)
    expect(page.locator("#play")).to_be_enabled(timeout=30_000)


def _status(page: Page, field: str) -> str:
    return page.locator(f'#status dd[data-field="{field}"]').inner_text()


def _shot(page: Page, name: str) -> None:
    """Always taken (a screenshot that fails to render fails the test); kept under PLAY_PAGE_SHOTS when set."""
    shot = page.screenshot(full_page=name == "play-page.png")
    assert shot.startswith(b"\x89PNG")
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / name).write_bytes(shot)


def test_a_new_player_starts_plays_five_turns_and_comes_back(browser, served, ollama, tmp_path) -> None:
    errors: list[str] = []
    page = _page(browser, served, DESKTOP, errors)
    _start(page, pack="cinder_reach", seed=8, name="Ada")
    assert "Ada" in page.locator("#log").inner_text()
    start_time, start_money = _status(page, "time"), _status(page, "money")

    # 1: typed, with the narrator held after its first lines: the text shows while the turn is still playing
    gate = Gate()
    ollama.queue(NARRATOR, held(LINE, gate, after=7))  # the first sentence is whole (and shown) by line 7
    page.fill("#input", "look around")
    page.press("#input", "Enter")
    narration = page.locator("#log .entry").nth(1).locator(".narration")
    expect(narration).to_contain_text("The lamps gutter", timeout=30_000)
    expect(page.locator("#play")).to_be_disabled()  # streamed text is on the page before the turn completes
    assert page.locator("#progress").inner_text() != ""
    gate.release()
    _played(page, 2)
    expect(page.locator('#status dd[data-field="time"]')).not_to_have_text(start_time)

    page.fill("#input", "buy a company scrip token")  # 2: money changes hands
    page.press("#input", "Enter")
    _played(page, 3)
    expect(page.locator('#status dd[data-field="money"]')).not_to_have_text(start_money)
    page.fill("#input", "go to the union hall")  # 3: travel
    page.press("#input", "Enter")
    _played(page, 4)
    expect(page.locator('#status dd[data-field="place"]')).to_have_text("Hall of the Ninth Shift")
    # the map is the server's Graphviz drawing (GET .../map.svg): the place you are at marked, the visited shaded
    expect(page.locator("#map svg g.place.current")).to_have_attribute("id", "place-union_hall")
    assert page.locator("#map svg g.place.visited").count() >= 2
    assert page.locator("#map svg g.place").count() == 17 and "15 min" in page.locator("#map svg").text_content()
    page.evaluate("document.activeElement.blur()")  # 4: from outside the typing box, the key 1 picks suggestion 1
    page.keyboard.press("1")
    _played(page, 5)
    page.locator("#suggestions button").nth(1).click()  # 5: a suggestion, clicked
    _played(page, 6)
    expect(page.locator("#offline")).to_be_hidden()  # the narrator is online here
    assert page.locator("#log .check").count() >= 1
    page.set_viewport_size(PHONE)  # a phone: one column, nothing cut off sideways
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.set_viewport_size(DESKTOP)

    page.reload()  # the campaign comes back from the browser's storage, not from the URL
    expect(page.locator("#log .entry")).to_have_count(2)  # the last turn's text, then where you are
    expect(page.locator("#log .entry").first).to_contain_text("Turn 5: >")
    assert "Where you are" in page.locator("#log").inner_text() and "token" not in page.url
    expect(page.locator('#status dd[data-field="place"]')).to_have_text("Hall of the Ninth Shift")
    page.click("#earlier")
    expect(page.locator("#log .entry.old")).to_have_count(5)
    assert errors == []


def test_an_offline_game_at_desktop_and_phone_widths(browser, served_offline) -> None:
    """No model at all: the offline label shows once, and the screenshots of docs/play-page.png come from here
    (``PLAY_PAGE_SHOTS=docs make test`` writes them)."""
    errors: list[str] = []
    page = _page(browser, served_offline, DESKTOP, errors)
    _start(page, seed=8)
    expect(page.locator("#offline")).to_be_visible()
    for move in ("look around", "2", "go to the union hall", "1"):
        page.fill("#input", move)
        page.press("#input", "Enter")
        expect(page.locator("#play")).to_be_enabled(timeout=30_000)
    _played(page, 5)
    expect(page.locator("#offline")).to_have_count(1)
    expect(page.locator(".episode-card").first).to_contain_text("Episode 1 begins")  # the episode's card
    expect(page.locator("#quests")).to_contain_text("stage")
    page.locator("#input").focus()
    _shot(page, "play-page.png")
    assert "> 2" not in page.locator("#log").inner_text()  # a number shows the suggestion it played
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.locator("#log .entry").last.scroll_into_view_if_needed()  # the newest turn, as a player sees it
    _shot(page, "play-page-phone.png")
    assert errors == []


def test_a_second_tab_racing_a_turn_sees_the_409_message(browser, served) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    first = _page(browser, served, DESKTOP, errors, context)
    _start(first)
    second = _page(browser, served, DESKTOP, errors, context)  # same browser storage: the same campaign
    expect(second.locator("#suggestions button")).to_have_count(4)
    second.locator("#suggestions button").first.click()
    _played(second, 2)
    first.fill("#input", "search the room")  # still based on turn 0
    first.press("#input", "Enter")
    notice = first.locator("#notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("moved on")
    expect(first.locator("#log")).to_contain_text("Where things stand now")
    expect(first.locator("#log")).to_contain_text("Turn 1, played elsewhere: >")  # what the other tab played
    top, bottom, height = _in_view(first, "#notice")
    assert 0 <= top and bottom <= height  # the message is where the player is looking
    first.fill("#input", "search the room")  # and it plays on from there
    first.press("#input", "Enter")
    expect(first.locator("#log .entry")).to_have_count(4)
    assert errors == []
    context.close()


def test_errors_show_a_message_with_a_retry_never_a_blank_page(browser, served) -> None:
    errors: list[str] = []
    page = _page(browser, served, DESKTOP, errors)
    _start(page)
    page.context.set_offline(True)  # the server is gone, as far as the page can tell
    page.fill("#input", "look around")
    page.press("#input", "Enter")
    expect(page.locator("#notice")).to_contain_text("did not answer")
    expect(page.locator("#notice-retry")).to_be_visible()
    page.context.set_offline(False)
    page.click("#notice-retry")
    expect(page.locator("#log .entry")).to_have_count(2, timeout=30_000)
    page.evaluate("const held = JSON.parse(localStorage.getItem('skald.campaigns'));"
                  "held.push({id: 'nope', token: 'bad', played: 1});"
                  "localStorage.setItem('skald.campaigns', JSON.stringify(held));"
                  "sessionStorage.setItem('skald.current', 'nope')")
    page.reload()  # a stored campaign the server does not know: a message and the start form, and it is forgotten
    expect(page.locator("#notice")).to_contain_text("not on this server")
    expect(page.locator("#start")).to_be_visible()
    expect(page.locator("#my-campaigns li")).to_have_count(1)  # the one played above stays


@SIZES
def test_the_page_has_a_content_security_policy_and_no_serious_accessibility_violations(browser, served,
                                                                                         viewport) -> None:
    from axe_playwright_python.sync_playwright import Axe

    answer = httpx.get(served)
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in answer.text and "style=" not in answer.text  # nothing inline
    errors: list[str] = []
    page = _page(browser, served, viewport, errors)
    expect(page.locator("#pack option")).not_to_have_count(0)
    axe = Axe()
    for where in ("start", "game", "your campaigns", "guided creation"):
        if where == "game":
            page.click("#start-button")
            expect(page.locator("#suggestions button")).to_have_count(4)
        elif where == "your campaigns":
            page.click("#leave")
            expect(page.locator("#my-campaigns li")).to_have_count(1)
        elif where == "guided creation":
            page.click("#guided")
            expect(page.locator("#setup-asked")).to_contain_text("name")
            page.fill("#setup-input", "Ada")
            page.press("#setup-input", "Enter")
            page.get_by_role("button", name="she/her").click()
            expect(page.locator("#setup-choices button")).not_to_have_count(3)  # the backgrounds, as buttons
        found = axe.run(page)
        serious = [v for v in found.response["violations"] if v["impact"] in ("serious", "critical")]
        assert serious == [], (where, [(v["id"], v["help"], [n["target"] for n in v["nodes"]]) for v in serious])
    assert errors == []


@SIZES
def test_a_scene_a_fork_undo_redo_switch_and_delete_from_the_page(browser, served_offline, viewport) -> None:
    errors: list[str] = []
    page = _page(browser, served_offline, viewport, errors)
    _start(page, pack="cinder_reach")
    page.fill("#input", "Hesper, Rhea, what do you both make of the water?")  # two people at once: a scene
    page.press("#input", "Enter")
    _played(page, 2)
    lines = page.locator(".scene-lines").first
    lines.locator("summary").click()
    expect(lines).to_contain_text("Hesper")
    page.once("dialog", lambda dialog: dialog.accept("other way"))  # as typed: the space becomes '-'
    page.click("#fork")
    expect(page.locator("#branch")).to_have_text("branch other-way")
    expect(page.locator("#log .entry").last).to_contain_text("“Switch” beside main under Branches goes back")
    page.fill("#input", "look around")
    page.press("#input", "Enter")
    _played(page, 4)
    page.click("#undo")
    expect(page.locator("#log .entry")).to_have_count(5)
    expect(page.locator("#log .entry").last).to_contain_text("Undone")
    expect(page.locator("#log .entry").last).to_contain_text("“Redo” replays what was undone")  # the page's words
    expect(page.locator("#redo")).to_be_visible()  # the undone turn can be replayed
    page.click("#redo")
    expect(page.locator("#log .entry").last).to_contain_text("Redone")
    expect(page.locator("#redo")).to_be_hidden()
    branches = page.locator("#branches li")
    expect(branches).to_have_count(2)
    expect(branches.nth(1)).to_contain_text("other-way (you are here): turn 2, The Slag & Lantern, from main at turn 1")
    expect(branches.nth(0)).to_contain_text("main: turn 1")
    page.get_by_role("button", name="Switch to branch main").click()  # back to the line the fork left
    expect(page.locator("#branch")).to_have_text("")
    expect(page.locator("#log .entry")).to_have_count(2)  # main's story now: its last turn, then where it stands
    expect(page.locator("#log .entry").first).to_contain_text("Turn 1: >")
    expect(page.locator("#log .entry").last).to_contain_text("Where you are")
    expect(branches.nth(0)).to_contain_text("main (you are here)")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete branch other-way").click()
    expect(branches).to_have_count(2)  # main, and the line saying there is only one
    expect(branches.nth(1)).to_contain_text("Only this line so far")
    assert errors == []


@SIZES
def test_guided_creation_asks_one_question_at_a_time_with_choices_as_buttons(browser, served_offline,
                                                                             viewport) -> None:
    """The ordinary form steps aside; each question comes alone, its choices as buttons with readable labels (never
    ids), free text only where the question takes it; Finish shows once the name, pronouns and background are
    answered; the answers so far read as question and answer, not as numbers."""
    errors: list[str] = []
    page = _page(browser, served_offline, viewport, errors)
    expect(page.locator("#pack option")).not_to_have_count(0)
    page.select_option("#pack", "cinder_reach")
    page.click("#guided")
    expect(page.locator("#setup-asked")).to_contain_text("name")
    expect(page.locator("#new")).to_be_hidden()  # the ordinary start form steps aside
    expect(page.locator("#setup-finish")).to_be_hidden()  # nothing to finish yet
    expect(page.locator("#setup-choices button")).to_have_count(0)  # a name is typed
    page.fill("#setup-input", "Mara Venn")
    page.press("#setup-input", "Enter")
    expect(page.locator("#setup-asked")).to_contain_text("pronouns")
    page.fill("#setup-input", "banana")
    page.press("#setup-input", "Enter")
    expect(page.locator("#setup-error")).to_contain_text("does not read as pronouns")  # refused, nothing lost
    expect(page.locator("#setup-asked")).to_contain_text("pronouns")
    page.get_by_role("button", name="she/her").click()  # a choice, as a button (own words would do too)
    expect(page.locator("#setup-asked")).to_contain_text("Who were they before this?")
    choices = page.locator("#setup-choices button")
    assert choices.count() >= 2
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", page.locator("#setup").inner_text())  # no raw ids
    expect(page.locator("#setup-form")).to_be_hidden()  # a choice only: no free text to misread
    page.keyboard.type("a giant squid")  # typed at a choice question: it answers nothing
    page.keyboard.press("Enter")
    expect(page.locator("#setup-log li")).to_have_count(2)
    expect(page.locator("#setup-asked")).to_contain_text("Who were they before this?")
    if viewport is not DESKTOP:
        _shot(page, "guided-creation-phone.png")
    choices.nth(1).click()
    expect(page.locator("#setup-finish")).to_be_visible()  # name, pronouns and background: it may finish now
    expect(page.locator("#setup-finish")).to_contain_text("the rest as suggested")
    log = page.locator("#setup-log li")
    expect(log).to_have_count(3)
    expect(log.nth(0)).to_contain_text("What is your character's name? Mara Venn")
    expect(log.nth(1)).to_contain_text("she/her")
    assert not re.search(r"\b\d+\. \d", page.locator("#setup-log").inner_text())  # never "6. 2"
    page.locator("#setup-choices button").first.click()  # the background's own question, by its button
    expect(log).to_have_count(4)
    page.click("#setup-finish")
    expect(page.locator("#suggestions button")).to_have_count(4)
    expect(page.locator("#game")).to_be_visible()
    page.fill("#input", "/status")
    page.press("#input", "Enter")
    expect(page.locator("#log .entry").last).to_contain_text("Mara Venn (she/her)")
    assert [e for e in errors if "422" not in e] == []  # the refused pronouns' answer, in the console


@pytest.fixture(scope="module")
def served_without_dot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``skald serve`` process that cannot draw maps: no Graphviz ``dot`` on its PATH."""
    yield from _serve(tmp_path_factory.mktemp("nodot"), {"SKALD_LLM": "off", "SKALD_RETRIEVAL": "false",
                                                         "SKALD_API_CREATE_PER_MINUTE": "0",
                                                         "PATH": str(Path(sys.executable).parent)})


def test_the_map_is_a_list_of_places_when_the_server_cannot_draw_it(browser, served_without_dot) -> None:
    errors: list[str] = []
    page = _page(browser, served_without_dot, DESKTOP, errors)
    _start(page, pack="cinder_reach", seed=8)
    places = page.locator("#map .map-list li.place")
    expect(places).to_have_count(17)
    expect(page.locator("#map .map-list li.place.current")).to_contain_text("(you are here)")
    expect(page.locator("#map svg")).to_have_count(0)
    assert "Kettle Row 5 min" in page.locator("#map").inner_text()  # each place's ways with their travel times
    assert page.locator("#notice").is_hidden()  # no error message: the map's data is all there
    assert [e for e in errors if "503" not in e] == []  # only the map.svg request's 503 in the console


def test_a_shared_result_opens_in_the_page_by_its_share_id(browser, served_offline) -> None:
    """An episode played to its end through the API; its share id opens the result in the page (?share=ID), with no
    token and nothing of the campaign; an unknown id says so."""
    with httpx.Client(base_url=served_offline, timeout=30) as client:
        made = client.post("/campaigns", json={"pack": "cinder_reach", "seed": 5}).json()
        auth = {"Authorization": f"Bearer {made['token']}"}
        ended = None
        for _ in range(12):
            turn = client.post(f"/campaigns/{made['campaign_id']}/turns", json={"input": "look around"},
                               headers=auth).json()
            if turn["episode"] and turn["episode"]["ended"]:
                ended = turn["episode"]["evaluation"]
                break
        assert ended is not None
    errors: list[str] = []
    page = _page(browser, f"{served_offline}/?share={ended['share_id']}", DESKTOP, errors)
    expect(page.locator("#shared")).to_be_visible()
    expect(page.locator("#shared h2")).to_contain_text(f"A shared episode: {ended['title']}")
    expect(page.locator("#shared")).to_contain_text(ended["summary"][:60])
    assert made["campaign_id"] not in page.locator("#shared").inner_text()
    missing = _page(browser, f"{served_offline}/?share=0123456789ab", DESKTOP, errors)
    expect(missing.locator("#shared")).to_contain_text("No episode result has that share id")
    assert [e for e in errors if "404" not in e] == []


@SIZES
def test_what_is_typed_is_safe(browser, served, ollama, viewport) -> None:
    """A sentence that starts with a digit is typed, not played as that suggestion; words typed while a turn runs
    stay in the box; an empty Enter says what to do; a line near the limit shows a counter; the game screen is hidden
    before there is a game."""
    errors: list[str] = []
    page = _page(browser, served, viewport, errors)
    expect(page.locator("#game")).to_be_hidden()  # the start page shows no dead game controls
    _start(page, pack="cinder_reach", seed=4)
    page.locator("#input").focus()
    page.keyboard.type("2")
    expect(page.locator("#input-hint")).to_contain_text("Enter plays suggestion 2")  # a preview, not a play
    page.keyboard.type(" drinks for me and Tobin, please")
    expect(page.locator("#input")).to_have_value("2 drinks for me and Tobin, please")  # no suggestion played
    expect(page.locator("#log .entry")).to_have_count(1)
    page.fill("#input", "")
    page.press("#input", "Enter")
    expect(page.locator("#input-hint")).to_contain_text("Type what you do")
    gate = Gate()
    ollama.queue(NARRATOR, held(LINE, gate, after=3))
    page.fill("#input", "look around")
    page.press("#input", "Enter")
    expect(page.locator("#play")).to_be_disabled()
    expect(page.locator("#fork")).to_be_disabled()  # no branch can start mid-turn
    page.locator("#input").type("ask Hesper about the water")  # typed while the turn runs
    gate.release()
    _played(page, 2)
    expect(page.locator("#input")).to_have_value("ask Hesper about the water")  # kept
    page.fill("#input", "/help")  # command output keeps its lines
    page.press("#input", "Enter")
    _played(page, 3)
    shown = page.locator("#log .entry").nth(2).locator(".narration")
    expect(shown).to_have_class("narration command-output")
    assert shown.evaluate("n => n.getBoundingClientRect().height") > 100 and "\n" in shown.inner_text()
    first = page.locator("#suggestions button").first  # what a suggestion costs, seen and heard
    expect(first.locator(".cost")).to_contain_text(re.compile(r"(safe|risky|dangerous)"))
    assert re.search(r"(safe|risky|dangerous)", first.get_attribute("aria-label"))
    page.fill("#input", "x" * 1600)
    page.dispatch_event("#input", "input")
    expect(page.locator("#input-hint")).to_contain_text("1600 / 2000 characters")
    assert errors == []


def _in_view(page: Page, selector: str) -> tuple[float, float, float]:
    """(top, bottom, window height) of the element, in the viewport's coordinates."""
    return page.locator(selector).evaluate("n => { const r = n.getBoundingClientRect(); "
                                           "return [r.top, r.bottom, window.innerHeight]; }")


@SIZES
def test_the_page_follows_the_turn_unless_the_player_scrolled_up(browser, served_offline, viewport) -> None:
    """After every turn the newest narration's start is in view, and the box too when they fit together; a player
    who scrolled up to read is not yanked down: a "New turn" button takes them there."""
    errors: list[str] = []
    page = _page(browser, served_offline, viewport, errors)
    _start(page, seed=6)
    for n, move in enumerate(("look around", "who runs this place?", "listen", "wait"), start=2):
        page.fill("#input", move)
        page.press("#input", "Enter")
        _played(page, n)
        top, _, height = _in_view(page, "#log .entry:last-child")
        assert 0 <= top < height, (move, top, height)
        _, form_bottom, _ = _in_view(page, "#turn-form")
        if form_bottom - top <= height - 16:  # the turn and the box fit in the window together: both are in view
            assert _in_view(page, "#input")[1] <= height, move
    page.evaluate("window.scrollTo(0, 0)")
    page.evaluate("document.activeElement.blur()")
    page.fill("#input", "look around")
    page.evaluate("window.scrollTo(0, 0)")  # reading the story's start while the turn plays
    page.press("#input", "Enter")
    _played(page, 6)
    expect(page.locator("#new-turn")).to_be_visible()
    assert page.evaluate("window.scrollY") < 50  # not yanked down
    page.click("#new-turn")
    top, _, height = _in_view(page, "#log .entry:last-child")
    assert 0 <= top < height
    expect(page.locator("#new-turn")).to_be_hidden()
    assert errors == []


@SIZES
def test_progress_says_when_the_server_is_slow_and_names_the_stage_running(browser, served, ollama,
                                                                           viewport) -> None:
    """While the narration arrives the progress line says it is being told, not an earlier stage; after 5 seconds
    with nothing new (the page's clock, run forward, not waited for) it says the server or the model is slow."""
    errors: list[str] = []
    context = browser.new_context(viewport=viewport)
    context.clock.install()
    page = _page(browser, served, viewport, errors, context=context)
    _start(page, pack="cinder_reach", seed=9)
    gate = Gate()
    ollama.queue(NARRATOR, held(LINE, gate, after=7))  # the first sentence is whole (and shown) by line 7
    page.fill("#input", "look around")
    page.press("#input", "Enter")
    expect(page.locator("#log .entry").nth(1).locator(".narration")).to_contain_text("The lamps gutter",
                                                                                       timeout=30_000)
    expect(page.locator("#progress")).to_have_text("telling it…")
    page.clock.run_for(6000)
    expect(page.locator("#progress")).to_contain_text("the server or the model is slow")
    page.click("#keep-waiting")  # wait on: the offer goes, the turn goes on
    expect(page.locator("#slow")).to_be_hidden()
    gate.release()
    _played(page, 2)
    expect(page.locator("#progress")).to_have_text("")

    gate = Gate()  # slow again, and this time stopped: nothing is played, the words are back in the box
    ollama.queue(NARRATOR, held(OTHER_LINE, gate, after=5))  # the first sentence is whole (and shown) by line 5
    page.fill("#input", "ask Hesper about the water")
    page.press("#input", "Enter")
    expect(page.locator("#play")).to_be_disabled()
    # stopped while the narration is held, every stage before it reported (a busy machine takes longer to get there)
    expect(page.locator("#log .entry").nth(2).locator(".narration")).to_contain_text("Someone at the back",
                                                                                       timeout=30_000)
    expect(page.locator("#progress")).to_have_text("telling it…")
    page.clock.run_for(6000)
    expect(page.locator("#slow")).to_be_visible()
    with page.expect_response(lambda r: r.url.endswith("/cancel")) as cancelled:  # wait on: the server has it
        page.click("#stop-turn")
    assert cancelled.value.ok and cancelled.value.json()["state"] == "stopping"
    expect(page.locator("#progress")).to_contain_text("Stopping the turn")
    gate.release()  # the held model call ends; the turn stops at Commit
    expect(page.locator("#input-hint")).to_contain_text("Stopped: nothing was played", timeout=30_000)
    _played(page, 2)
    expect(page.locator("#input")).to_have_value("ask Hesper about the water")
    page.press("#input", "Enter")  # and it plays at once: the campaign is not held
    _played(page, 3)
    context.close()
    assert errors == []


@SIZES
def test_my_campaigns_are_kept_resumed_and_forgotten(browser, served_offline, viewport) -> None:
    """Starting another campaign keeps the first one: the start screen lists both with where they stand, each tab
    stays on its own campaign across a reload, a campaign resumes from the list, and forgetting one asks first."""
    errors: list[str] = []
    context = browser.new_context(viewport=viewport)
    page = _page(browser, served_offline, viewport, errors, context)
    expect(page.locator("#mine")).to_be_hidden()  # nothing played in this browser yet
    _start(page, pack="cinder_reach", seed=3, name="Ada")
    page.fill("#input", "go to Kettle Row")
    page.press("#input", "Enter")
    _played(page, 2)
    page.click("#leave")
    expect(page.locator("#start")).to_be_visible()
    mine = page.locator("#my-campaigns li")
    expect(mine).to_have_count(1)
    expect(mine.first).to_contain_text("Ada, Cinder Reach · Kettle Row, turn 1")
    _start(page, pack="saltmarsh_reach", name="Bo")
    expect(page.locator("#game")).to_be_visible()
    page.reload()  # this tab stays on its own campaign
    expect(page.locator("#status dd[data-field='place']")).not_to_have_text("Kettle Row")
    other = _page(browser, served_offline, viewport, errors, context)  # a new tab: the campaign played last
    expect(other.locator("#suggestions button")).to_have_count(4)
    page.click("#leave")
    expect(mine).to_have_count(2)
    expect(mine.first).to_contain_text("Bo")  # most recently played first
    if viewport is DESKTOP:
        _shot(page, "start-page.png")
    page.get_by_role("button", name="Resume Ada, Cinder Reach").click()
    expect(page.locator("#status dd[data-field='place']")).to_have_text("Kettle Row")
    expect(page.locator("#log .entry").first).to_contain_text("Turn 1: > go to Kettle Row")
    other.reload()  # the other tab is not moved to Ada's campaign
    expect(other.locator("#status dd[data-field='place']")).not_to_have_text("Kettle Row")
    page.click("#leave")
    page.once("dialog", lambda dialog: dialog.dismiss())  # asked first: dismissed, nothing forgotten
    page.get_by_role("button", name="Forget Bo, Saltmarsh Reach").click()
    expect(mine).to_have_count(2)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Forget Bo, Saltmarsh Reach").click()
    expect(mine).to_have_count(1)
    expect(mine.first).to_contain_text("Ada")
    context.close()
    assert errors == []


@SIZES
def test_an_episode_ends_and_the_next_starts_from_its_card_and_help_lists_what_the_page_takes(
        browser, served_offline, viewport) -> None:
    """The result card of an ended episode says what its share link is for and has a Next episode button; between
    episodes a button under the story starts the next one too. "Commands you can type" shows a compact help of what
    the page takes (no /quit), in no game time."""
    errors: list[str] = []
    page = _page(browser, served_offline, viewport, errors)
    _start(page, pack="cinder_reach", seed=5)
    expect(page.locator("#next-episode")).to_be_hidden()  # nothing to start before the first episode has begun
    expect(page.locator("#undo")).to_be_disabled()  # nor to undo
    page.click("#commands")
    _played(page, 2)
    helped = page.locator("#log .entry").last
    font = helped.locator(".narration p").first.evaluate("n => getComputedStyle(n).fontFamily")
    assert "mono" in font  # the help's columns line up
    expect(helped).to_contain_text("/journal")
    expect(helped).to_contain_text("The buttons under the story undo, redo and retry a turn")
    assert "/quit" not in helped.inner_text() and "/undo" not in helped.inner_text()
    played = 2
    for _ in range(14):
        page.fill("#input", "look around")
        page.press("#input", "Enter")
        played += 1
        _played(page, played)
        if page.locator(".episode-card h3", has_text="ends").count():
            break
        expect(page.locator('#status dd[data-field="episode"]')).to_contain_text(
            re.compile(r"First Shift: (\d+ story turns? left|its last story turn)"))  # its end is no surprise
    card = page.locator(".episode-card", has_text="ends").last
    expect(card).to_contain_text("nothing else of your campaign")  # what the share link is for
    expect(page.locator("#next-episode")).to_be_visible()  # between episodes, under the story too
    page.click("#undo")  # back before the end: its card's button would start an episode that has not ended
    played += 1
    _played(page, played)
    expect(card.locator("button.next-episode")).to_have_count(0)
    expect(page.locator("#next-episode")).to_be_hidden()
    page.click("#redo")
    played += 1
    _played(page, played)
    expect(page.locator("#next-episode")).to_be_visible()
    page.click("#next-episode")
    _played(page, played + 1)
    expect(page.locator("#log .entry").last).to_contain_text("You take up episode 2")
    expect(page.locator("#next-episode")).to_be_hidden()
    assert errors == []
