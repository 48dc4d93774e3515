"""The web pages in a real headless Chromium, during real demo matches and against a real mosquitto.

One browser for the whole module (starting Chromium is the slow part). The demo runs its match
through the service exactly as `domino-referee demo --no-vision` does; after every input it fed,
`on_step` compares what the overlay shows with the referee's own state.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.app.assembly import Table, build_table
from referee.app.config import parse_config
from referee.app.demo import demo_config, run_demo
from referee.app.ports import Input

from .browser import HEIGHT, WIDTH, chromium, transparent_screenshot, wait_until
from .conftest import USERS, Broker

pytestmark = pytest.mark.slow

READ_OVERLAY = """
const q = (s) => document.querySelector(s);
return {rev: Number(document.body.dataset.rev),
  scores: Object.fromEntries([...document.querySelectorAll('#scores .player')].map(
    (li) => [li.dataset.player, li.querySelector('.score').textContent])),
  names: [...document.querySelectorAll('#scores .player .name')].map((n) => n.textContent),
  onMove: [...document.querySelectorAll('#scores .player.on-move')].map((li) => li.dataset.player),
  turn: q('#turn').dataset.player, remaining: q('#clock').dataset.remaining, clock: q('#clock').textContent,
  warning: q('#clock').dataset.warning,
  tiles: [...document.querySelectorAll('#line g.tile')].map((g) => [g.dataset.tile, g.dataset.arm]),
  last: q('#last-play').dataset.tile,
  popup: q('#popup').classList.contains('hidden') ? '' : q('#popup').dataset.kind};
"""
BOXES = """return [...document.querySelectorAll('#stage .box')].filter((b) => !b.classList.contains('hidden'))
  .map((b) => { const r = b.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; });"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = chromium()
    yield driver
    driver.quit()


def demo_args(tmp_path: Path, rules: str, players: list[str], target: int | None = None) -> Any:
    config = tmp_path / "table.toml"
    names = ", ".join(json.dumps(name, ensure_ascii=False) for name in players)
    config.write_text(f'[table]\nid = "web-demo"\nrules = "{rules}"\nplayers = [{names}]\n'
                      '[web]\nhost = "127.0.0.1"\nport = 0\npin = "2468"\n', encoding="utf-8")
    return argparse.Namespace(config=str(config), rules=None, players=None, hands=None, target=target,
                              out=str(tmp_path / "out"))


def shown(value: float) -> str:
    return f"{value:g}"


def canonical(tile: str) -> str:
    low, high = sorted(int(half) for half in tile.split("-"))
    return f"{low}-{high}"


def get_json(url: str, headers: dict[str, str] | None = None, data: bytes | None = None) -> Any:
    request = urllib.request.Request(url, data=data, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def check_overlay(browser: Any, table: Table, *, timeout: float = 10.0) -> dict[str, Any]:
    """Wait until the overlay shows the published state, then compare it with the referee's."""
    assert table.web is not None
    state = table.web.hub.state()
    core = table.service.core
    assert core is not None
    shown_rev = "return Number(document.body.dataset.rev)"
    wait_until(browser, lambda d: d.execute_script(shown_rev) >= state["rev"], timeout,
               f"the overlay never showed state {state['rev']}")
    seen = browser.execute_script(READ_OVERLAY)
    assert seen["scores"] == {name: shown(value) for name, value in core.scores().items()}
    assert seen["turn"] == (core.turn() or "")
    assert seen["onMove"] == ([core.turn()] if core.turn() else [])
    drawn = sorted(canonical(tile) for tile, _ in seen["tiles"])
    assert drawn == sorted(canonical(tile) for tile in core.on_table())
    assert [tile for tile, _ in seen["tiles"]] == [box["tile"] for box in state["line"]["tiles"]]
    assert [arm for _, arm in seen["tiles"]] == [box["arm"] for box in state["line"]["tiles"]]
    clock = state["clock"]
    if clock is None or clock["remaining"] is None:
        assert seen["clock"] == "–"
    else:
        assert float(seen["remaining"]) == clock["remaining"] == core.remaining(core.last_t)
        # The overlay counts the running clock down by itself between states.
        assert 0 <= math.ceil(clock["remaining"]) - int(seen["clock"].split(":")[-1]) <= 2
    assert seen["last"] == ((core.last_play or {}).get("tile") or "")
    return seen


def test_overlay_follows_a_demo_match_after_every_event(browser: Any, tmp_path: Path) -> None:
    """Italian (a move clock), two players with Turkish names: after every input the overlay's
    scores, turn, clock and line of play are the referee's; a reload mid-match shows everything at
    once; a 1920×1080 screenshot is transparent outside the overlay's boxes."""
    steps: list[dict[str, Any]] = []
    checks: dict[str, Any] = {}

    def on_step(table: Table) -> None:
        assert table.web is not None
        if not steps:
            browser.get(table.web.url + "/overlay?layout=full")
        steps.append(check_overlay(browser, table))
        tiles = len(steps[-1]["tiles"])
        if tiles >= 4 and "reload" not in checks:
            browser.refresh()
            checks["reload"] = check_overlay(browser, table, timeout=5)
            assert len(checks["reload"]["tiles"]) == tiles
        if tiles >= 6 and "screenshot" not in checks:
            checks["screenshot"] = transparent_screenshot(browser)
            checks["boxes"] = browser.execute_script(BOXES)
            for layout in ("bar", "corner"):   # every layout's boxes lie on the canvas, apart
                browser.get(table.web.url + f"/overlay?layout={layout}")
                check_overlay(browser, table)
                boxes = browser.execute_script(BOXES)
                assert len(boxes) >= 4
                for n, (left, top, right, bottom) in enumerate(boxes):
                    assert 0 <= left < right <= WIDTH and 0 <= top < bottom <= HEIGHT, (layout, boxes)
                    for other in boxes[n + 1:]:
                        assert right <= other[0] or other[2] <= left or bottom <= other[1] \
                            or other[3] <= top, (layout, boxes)
            browser.get(table.web.url + "/overlay?layout=full")

    args = demo_args(tmp_path, "italian", ["Ayşe", "Çağrı"], target=20)
    result = run_demo(demo_config(args), seed=3, out=tmp_path / "out", vision=False, on_step=on_step)
    assert result.agree, result.summary
    assert len(steps) > 10 and {"reload", "screenshot"} <= set(checks)
    assert steps[-1]["names"] == ["Ayşe", "Çağrı"]
    assert any(step["clock"] != "–" for step in steps)
    popups = [step["popup"] for step in steps if step["popup"]]
    assert "hand" in popups or "domino" in popups or "block" in popups, popups
    assert steps[-1]["popup"] == "match"
    image, boxes = checks["screenshot"], checks["boxes"]
    assert image.shape == (HEIGHT, WIDTH, 4)
    assert len(boxes) >= 4
    alpha = image[:, :, 3]
    inside = alpha.astype(bool) & False
    margin = 28   # the boxes' drop shadow
    for left, top, right, bottom in boxes:
        x0, y0 = max(int(left) - margin, 0), max(int(top) - margin, 0)
        inside[y0:int(bottom) + margin, x0:int(right) + margin] = True
        # Each box itself is drawn (its panel is opaque enough to read on any scene).
        assert alpha[int(top) + 20:int(bottom) - 20, int(left) + 20:int(right) - 20].min() > 128
    assert inside.mean() < 0.6
    assert alpha[~inside].max() == 0, "pixels outside the overlay's boxes are not transparent"
    target = os.environ.get("DOMINO_OVERLAY_SCREENSHOT")
    if target:   # how docs/overlay.png is made
        import cv2
        cv2.imwrite(target, image)


def test_the_managers_page_corrects_a_misread_play(browser: Any, tmp_path: Path) -> None:
    """Muggins scores every play: a wrong PIN is refused; the manager corrects the tile just played
    to another (as if the camera had misread it) and back, and each time the overlay, the
    scoreboard and the record follow; the match still ends as the engine's replay says."""
    done: dict[str, Any] = {}

    def on_step(table: Table) -> None:
        core = table.service.core
        assert table.web is not None and core is not None
        last = core.last_play
        if done or last is None or not last["points"] or last["end"] in (None, "lead"):
            return
        url = table.web.url
        # A wrong PIN: the page says so and shows nothing; the API refuses a wrong token.
        browser.get(url + "/table")
        wait_until(browser, lambda d: d.find_element("id", "login").is_displayed())
        browser.find_element("id", "pin").send_keys("1111")
        browser.find_element("id", "login-button").click()
        wait_until(browser, lambda d: d.find_element("id", "login-error").text == "wrong PIN")
        assert not browser.find_element("id", "manager").is_displayed()
        with pytest.raises(urllib.error.HTTPError) as refused:
            get_json(url + "/api/command/undo", {"Authorization": "Bearer 1111"}, b"")
        assert refused.value.code == 403
        assert json.load(refused.value)["error"] == "wrong token"
        browser.find_element("id", "pin").clear()
        browser.find_element("id", "pin").send_keys("2468")
        browser.find_element("id", "login-button").click()
        wait_until(browser, lambda d: d.find_element("id", "manager").is_displayed())
        # On a phone: nothing wider than the screen, the correction at hand.
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        wait_until(browser, lambda d: d.execute_script("return innerWidth") == 390)
        assert browser.execute_script("return document.scrollingElement.scrollWidth") <= 390
        assert browser.find_element("id", "correct-button").is_displayed()
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        overlay = browser.current_window_handle
        browser.switch_to.new_window("tab")
        browser.get(url + "/overlay")
        check_overlay(browser, table)
        manager_tab, overlay_tab = overlay, browser.current_window_handle
        truth = str(last["tile"])
        joined = next(box for box in reversed(core.state(core.last_t)["line"]["tiles"])
                      if canonical(box["tile"]) == canonical(truth))
        pip = joined["b"] if last["end"] in ("left", "up") else joined["a"]   # the half it joined with
        shown_pip = sum(int(h) for h in truth.split("-")) - pip
        board = table.devices[0].board.emulator   # the demo's emulated scoreboard
        on_table = {canonical(t) for t in core.on_table()}
        wrong = next(f"{pip}-{other}" for other in range(7)
                     if other != pip and canonical(f"{pip}-{other}") not in on_table
                     and abs(other - shown_pip) not in (0, 5))
        before = dict(core.scores())
        for tile in (wrong, truth):
            browser.switch_to.window(manager_tab)
            field = browser.find_element("id", "correct-tile")
            field.clear()
            field.send_keys(tile)
            revision = table.web.hub.revision
            browser.find_element("id", "correct-button").click()
            wait_until(browser, lambda d, tile=tile: d.find_element("id", "result").text
                       == f"done: correct tile={tile}")
            with table.web.hub.changed:
                assert table.web.hub.changed.wait_for(lambda r=revision: table.web.hub.revision > r, 10)
            assert table.service.wait_processed(timeout=10)
            browser.switch_to.window(overlay_tab)
            seen = check_overlay(browser, table)
            assert seen["last"] == tile
            scores = tuple(round(v) for v in core.scores().values())
            assert board.wait_for(lambda model, scores=scores: tuple(model.state.scores) == scores, 10)
            record = get_json(url + "/api/record")
            events = [e for hand in record["hands"] for e in hand["events"] if "play" in e]
            assert events[-1]["play"] == tile
            assert record["corrections"][-1]["tile"] == tile
            done.setdefault("wrong_scores", dict(core.scores()))
        assert done["wrong_scores"] != before   # the misread scored otherwise, and the board showed it
        assert core.scores() == before
        browser.close()
        browser.switch_to.window(manager_tab)
        done["corrections"] = list(core.corrections)

    args = demo_args(tmp_path, "muggins", ["Ayşe", "Burak"], target=150)
    result = run_demo(demo_config(args), seed=2, out=tmp_path / "out", vision=False, on_step=on_step)
    assert done, "no scoring play to correct in this match"
    assert [c["kind"] for c in done["corrections"]] == ["correct", "correct"]
    assert result.agree, result.summary
    written = json.loads(result.records[0].read_text(encoding="utf-8"))
    assert [c["tile"] for c in written["corrections"]] == [c["tile"] for c in done["corrections"]]


def test_the_club_page_shows_three_tables_on_one_broker(browser: Any, tmp_path: Path, broker: Broker) -> None:
    """Three tables publish to one real mosquitto; one table's club page shows all three, live."""
    tables: list[Table] = []
    players = [["Ayşe", "Burak"], ["Cem", "Deniz"], ["Efe", "Çağrı"]]
    try:
        for number, names in enumerate(players, 1):
            config = parse_config({
                "table": {"id": f"club-{number}", "rules": "muggins", "players": names},
                "mqtt": {"enabled": True, "url": broker.url, "username": "referee",
                         "password": USERS["referee"]},
                "web": {"enabled": number == 1, "host": "127.0.0.1", "port": 0}}, environ={})
            table = build_table(config, data_dir=tmp_path / f"t{number}")
            table.start(tick_interval=None)
            tables.append(table)
        leads = ["5-5", "6-4", "3-2"]
        for table, names, lead in zip(tables, players, leads, strict=True):
            service = table.service
            for inp in (Input("start"), Input("lead", {"player": names[0]}), Input("placed", {"tile": lead})):
                service.feed(inp)
            assert service.wait_processed(timeout=10)
            assert table.link is not None and table.link.flush(10)
        web = tables[0].web
        assert web is not None
        browser.get(web.url + "/club")

        def cards(driver: Any) -> dict[str, Any]:
            return dict(driver.execute_script(
                """return Object.fromEntries([...document.querySelectorAll('.club-card')].map((c) =>
                     [c.dataset.table, {status: c.dataset.status,
                      scores: Object.fromEntries([...c.querySelectorAll('tr')].map(
                        (r) => [r.dataset.player, r.querySelector('.score').textContent])),
                      turn: (c.querySelector('tr.on-move') || {dataset: {}}).dataset.player || ''}]));"""))

        def expected() -> dict[str, Any]:
            result = {}
            for table in tables:
                core = table.service.core
                assert core is not None
                result[table.service.settings.table_id] = {
                    "status": "online", "turn": core.turn() or "",
                    "scores": {name: shown(value) for name, value in core.scores().items()}}
            return result

        wait_until(browser, lambda d: cards(d) == expected(), 15,
                   "the club page never showed the three tables")
        want_before = expected()
        assert cards(browser)["club-1"]["scores"]["Ayşe"] == "10"   # 5-5 scores ten in muggins
        # Live: a play at table 3 and table 2 going offline show up without a reload.
        tables[2].service.feed(Input("placed", {"tile": "2-5"}))
        assert tables[2].service.wait_processed(timeout=10)
        tables.pop(1).stop()
        want = {**expected(), "club-2": {**want_before["club-2"], "status": "offline"}}
        wait_until(browser, lambda d: cards(d) == want, 15,
                   "the club page did not follow table 3 and table 2")
    finally:
        for table in tables:
            table.stop()
