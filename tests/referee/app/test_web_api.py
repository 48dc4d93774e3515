"""The web server's API and WebSocket with a real aiohttp client: answers, refusals and bad input."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.app.assembly import Table, build_table
from referee.app.config import parse_config
from referee.app.health import Health
from referee.app.intake import COMMAND_BURST, RateLimiter
from referee.app.lineview import lay_out
from referee.app.ports import Input
from referee.app.web import Hub, WebServer
from referee.app.web.limits import CLIENT_QUEUE, MAX_BODY_BYTES, MAX_WS_MESSAGE

from .conftest import USERS, Broker, Watcher

TOKEN = "s3cret-token"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    config = parse_config({"table": {"id": "api-1", "rules": "muggins", "players": ["Ayşe", "Burak"]},
                           "web": {"host": "127.0.0.1", "port": 0, "pin": "4321", "token": TOKEN}},
                          environ={})
    health = Health()
    health.ok("camera", "30 fps")
    health.degraded("scoreboard", "reconnecting")
    built = build_table(config, data_dir=tmp_path, health=health)
    built.start(tick_interval=None)
    yield built
    built.stop()


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


async def call(method: str, url: str, **kwargs: Any) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as session, session.request(method, url, **kwargs) as response:
        text = await response.text()
        try:
            return response.status, json.loads(text)
        except json.JSONDecodeError:
            return response.status, text


def bearer(secret: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def test_reading_the_state_events_and_record(table: Table) -> None:
    assert table.web is not None
    url = table.web.url
    status, state = run(call("GET", url + "/api/state"))
    assert status == 200 and state["phase"] == "waiting" and state["players"] == ["Ayşe", "Burak"]
    assert run(call("GET", url + "/api/record")) == (404, {"error": "no match yet: press Start"})
    for inp in (Input("start"), Input("lead", {"player": "Ayşe"}), Input("placed", {"tile": "5-5"})):
        table.service.feed(inp)
    assert table.service.wait_processed(timeout=10)
    status, state = run(call("GET", url + "/api/state"))
    assert state["turn"] == "Burak" and state["last_play"]["tile"] == "5-5" and state["scores"]["Ayşe"] == 10
    status, answer = run(call("GET", url + "/api/events?since=1"))
    assert status == 200 and [e["event"] for e in answer["events"]] == ["lead-claimed", "play"]
    assert all(e["seq"] > 1 for e in answer["events"]) and answer["complete"]
    status, record = run(call("GET", url + "/api/record"))
    assert status == 200 and record["hands"][0]["events"][-1] == {"player": "Ayşe", "play": "5-5", "t": 0.0}
    for bad in ("abc", "-1", "1.5", "9" * 20):
        status, answer = run(call("GET", url + f"/api/events?since={bad}"))
        assert status == 400 and "since" in answer["error"] and "whole number" in answer["error"]
    status, page = run(call("GET", url + "/overlay"))
    assert status == 200 and "<svg id=\"line\"" in page
    assert run(call("GET", url + "/static/../../etc/passwd"))[0] == 404


def test_commands_need_the_pin_or_token_and_pass_the_one_check(table: Table) -> None:
    assert table.web is not None
    url = table.web.url + "/api/command/"
    status, answer = run(call("POST", url + "start"))
    assert status == 401 and "PIN" in answer["error"]
    assert run(call("POST", url + "start", headers=bearer("nope"))) == (403, {"error": "wrong token"})
    assert run(call("POST", url + "start", headers={"Authorization": "Basic eDp5"}))[0] == 401
    # The same messages as MQTT's cmd/<name>: parse_command is the check.
    status, answer = run(call("POST", url + "away", headers=bearer(), data=b'{"player": 3}'))
    assert status == 400 and answer["error"] == "cmd/away: field 'player' is 3, expected a player name"
    status, answer = run(call("POST", url + "reboot", headers=bearer()))
    assert status == 400 and "unknown command 'reboot'" in answer["error"]
    status, answer = run(call("POST", url + "start", headers=bearer(), data=b"x" * (MAX_BODY_BYTES + 1)))
    assert status == 413 and str(MAX_BODY_BYTES) in answer["error"]
    assert table.service.core is None   # nothing of that reached the referee
    status, answer = run(call("POST", url + "start", headers=bearer()))
    assert status == 200 and answer["accepted"] == "start" and answer["done"]   # the referee has acted
    assert table.service.core is not None and table.service.core.phase == "playing"
    logged = table.service.log.inputs(table.service.match_id)
    assert [(i.kind, i.data) for i in logged] == [("start", {})]


def test_login_health_and_a_wrong_pin(table: Table) -> None:
    assert table.web is not None
    url = table.web.url

    async def scenario() -> None:
        # unsafe: keep cookies from an IP address (127.0.0.1), as a browser does
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
            async with session.get(url + "/api/health") as response:
                assert response.status == 401
            async with session.post(url + "/login", json={"pin": "0000"}) as response:
                assert response.status == 403 and (await response.json())["error"] == "wrong PIN"
            async with session.post(url + "/login", data=b"{oops") as response:
                assert response.status == 400 and "JSON" in (await response.json())["error"]
            async with session.post(url + "/login", data=b"[" * 5000 + b"]" * 5000) as response:
                assert response.status == 400 and "nests deeper" in (await response.json())["error"]
            async with session.post(url + "/login", json={"pin": "4321"}) as response:
                assert response.status == 200
            async with session.get(url + "/api/health") as response:
                health = await response.json()
            assert health["overall"] == "degraded"
            assert health["parts"]["scoreboard"] == {**health["parts"]["scoreboard"], "state": "degraded",
                                                     "why": "reconnecting"}
            async with session.post(url + "/api/command/pass") as response:   # the session cookie
                # Signed in; the referee itself refuses (no match yet) and says why.
                assert response.status == 409
                assert (await response.json())["error"] == "cmd/pass: press Start to begin a match"
    run(scenario())


def test_commands_from_one_web_client_are_rate_limited(table: Table) -> None:
    assert table.web is not None
    url = table.web.url + "/api/command/sync"
    table.web.limiter = RateLimiter(now=lambda: 0.0)   # time stands still: no token comes back

    async def burst() -> list[int]:
        async with aiohttp.ClientSession() as session:
            statuses = []
            for _ in range(COMMAND_BURST + 5):
                async with session.post(url, headers=bearer()) as response:
                    statuses.append(response.status)
                    if response.status == 429:
                        assert "too many commands from web 127.0.0.1" in (await response.json())["error"]
            return statuses
    statuses = run(burst())
    assert statuses == [200] * COMMAND_BURST + [429] * 5


def test_too_many_wrong_pins_are_throttled(table: Table) -> None:
    assert table.web is not None
    statuses = [run(call("POST", table.web.url + "/login", json={"pin": f"{n:04}"}))[0] for n in range(12)]
    assert statuses[:10] == [403] * 10 and statuses[10:] == [429, 429]
    # Even the right PIN waits out the minute: a guesser learns nothing from it.
    assert run(call("POST", table.web.url + "/login", json={"pin": "4321"}))[0] == 429


def test_websocket_pushes_state_and_events_and_answers_bad_messages(table: Table) -> None:
    assert table.web is not None
    url = table.web.url

    async def scenario() -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "/ws") as ws:
            first = await ws.receive_json(timeout=5)
            assert first["type"] == "state" and first["state"]["phase"] == "waiting"
            await ws.send_str("{not json")
            assert "not JSON" in (await ws.receive_json(timeout=5))["error"]
            await ws.send_str("[" * 2000 + "]" * 2000)   # 4 kB of brackets: no RecursionError
            assert "nests deeper than" in (await ws.receive_json(timeout=5))["error"]
            await ws.send_bytes(b"\x00\x01")
            assert "text frames" in (await ws.receive_json(timeout=5))["error"]
            await ws.send_json({"type": "command", "name": "start"})
            assert "sign in" in (await ws.receive_json(timeout=5))["error"]
            await ws.send_json({"type": "ping"})
            assert (await ws.receive_json(timeout=5)) == {"type": "pong"}
            table.service.feed(Input("start"))
            kinds = set()
            while kinds != {"state", "event"}:
                kinds.add((await ws.receive_json(timeout=5))["type"])
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(url + "/ws", headers=bearer()) as ws:
            await ws.receive_json(timeout=5)
            await ws.send_json({"type": "command", "name": "away", "args": {"player": "Nobody?"}})
            while (answer := await ws.receive_json(timeout=5))["type"] != "command":
                pass
            assert answer["status"] == 409 and "Nobody?" in answer["error"], answer   # not at this table
            await ws.send_json({"type": "command", "name": "away", "args": {"player": "Burak"}})
            while (answer := await ws.receive_json(timeout=5))["type"] != "command":
                pass
            assert answer["status"] == 200 and answer["accepted"] == "away player=Burak"
            await ws.send_json({"type": "command", "name": "away", "args": {"who": "Cem"}})
            while (answer := await ws.receive_json(timeout=5))["type"] != "command":
                pass
            assert answer["status"] == 400 and "unknown field(s) who" in answer["error"]
            await ws.send_str("x" * (MAX_WS_MESSAGE + 1))
            closing = await ws.receive(timeout=5)
            while closing.type == aiohttp.WSMsgType.TEXT:
                closing = await ws.receive(timeout=5)
            closed = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
            assert closing.type in closed
            assert ws.close_code == 1009
    run(scenario())


def test_a_slow_client_is_dropped_and_stalls_nobody() -> None:
    """A client that never reads: its queue fills and it is dropped; the referee's publishes never
    wait, and a client that reads gets every state."""
    hub = Hub()
    server = WebServer(hub, host="127.0.0.1", port=0)
    server.start()
    try:
        slow = socket.create_connection(("127.0.0.1", server.port))
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:   # the handshake; from here on it never reads again
            answer += slow.recv(1)
        assert answer.startswith(b"HTTP/1.1 101")
        total, burst = CLIENT_QUEUE * 4, CLIENT_QUEUE // 2
        padding = "x" * 40_000
        got: list[int] = []
        progress = threading.Condition()

        async def reader(ready: asyncio.Event) -> None:
            async with aiohttp.ClientSession() as session, session.ws_connect(server.url + "/ws") as ws:
                await ws.receive_json(timeout=5)
                ready.set()
                while len(got) < total:
                    message = await ws.receive_json(timeout=20)
                    with progress:
                        got.append(message["state"]["n"])
                        progress.notify_all()

        def referee() -> float:
            """The consumer thread's side: bursts of states, the next when the reader has the last."""
            spent = 0.0
            for first in range(0, total, burst):
                started = time.perf_counter()
                for n in range(first, first + burst):
                    hub.publish_state({"n": n, "padding": padding})
                spent += time.perf_counter() - started
                with progress:
                    assert progress.wait_for(lambda end=first + burst: len(got) >= end, 20)
            return spent

        async def scenario() -> float:
            ready = asyncio.Event()
            task = asyncio.create_task(reader(ready))
            await asyncio.wait_for(ready.wait(), 10)
            assert len(hub.clients) == 2   # both are registered before their handshakes' answers
            spent = await asyncio.to_thread(referee)
            await asyncio.wait_for(task, 60)
            return spent

        spent = run(scenario())
        assert got == list(range(total))
        with hub.changed:   # the server forgets the reader once its handler sees the close, not before
            hub.changed.wait_for(lambda: len(hub.clients) == 0, 10)
        assert hub.dropped == 1 and len(hub.clients) == 0
        assert spent / total < 0.005   # a publish only queues: well under a frame interval
        slow.close()
    finally:
        server.stop()


def test_a_taken_port_costs_the_pages_not_the_table(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = parse_config({"web": {"host": "127.0.0.1", "port": port}}, environ={})
        table = build_table(config, data_dir=tmp_path)
        table.start(tick_interval=None)
        try:
            assert table.web is None
            assert any(f"127.0.0.1:{port}" in note and "without its web pages" in note
                       for note in table.notes)
            table.service.feed(Input("start"))
            assert table.service.wait_processed(timeout=10) and table.service.core is not None
        finally:
            table.stop()


TILES = [f"{low}-{high}" for low in range(7) for high in range(low, 7)]
PLACEMENT = st.fixed_dictionaries({"tile": st.sampled_from(TILES),
                                   "end": st.sampled_from(["left", "right", "up", "down"]),
                                   "joined": st.integers(0, 6), "shown": st.integers(0, 6)})


@settings(max_examples=200, deadline=None)
@given(st.lists(PLACEMENT, max_size=28), st.booleans())
def test_line_layout_never_overlaps(placements: list[dict[str, Any]], spinner: bool) -> None:
    """Whatever the order of arms, the boxes of the line never overlap and lie within its bounds."""
    # As the engine lays them: a lead first; up and down only once a spinner (the first double) lies.
    line: list[dict[str, Any]] = []
    for placed in placements:
        if not line:
            line.append({**placed, "end": "lead"})
        elif placed["end"] in ("left", "right") or (spinner and any(
                p["tile"][0] == p["tile"][2] for p in line)):
            line.append(placed)
    layout = lay_out(line, spinner_rule=spinner)
    boxes = []
    for tile in layout["tiles"]:
        w, h = (1.0, 0.5) if tile["dir"] == "h" else (0.5, 1.0)
        boxes.append((tile["x"] - w, tile["y"] - h, tile["x"] + w, tile["y"] + h))
    x0, y0, x1, y1 = layout["bounds"]
    for index, (a0, b0, a1, b1) in enumerate(boxes):
        assert x0 <= a0 and a1 <= x1 and y0 <= b0 and b1 <= y1
        for c0, d0, c1, d1 in boxes[index + 1:]:
            assert a1 <= c0 or c1 <= a0 or b1 <= d0 or d1 <= b0, (line, layout)


def test_the_managers_page_gets_the_newest_camera_frame_with_what_vision_saw() -> None:
    """Rendered frames through the real tracker into the tap; the API serves the annotated JPEG."""
    import cv2
    import numpy as np

    from referee.app.camera import demo_camera
    from referee.app.web.frames import FRAME_WIDTH, FrameTap

    clock = [0.0]
    tap = FrameTap(now=lambda: clock[0], every=1.0)
    film, tracker = demo_camera((1280, 720), 3)
    frames = list(film.new_hand(boneyard=0)) + list(film.play(0, "6-6", None))
    kept = 0
    for frame in frames:
        tracker.feed(frame.t, frame.image)
        clock[0] = frame.t
        kept += tap.offer(frame.image, tracker)
    assert 1 <= kept <= frames[-1].t + 1   # at most one a second
    assert not tap.offer(frames[-1].image, tracker)   # too soon after the last one kept
    assert tracker.tiles, "the tracker saw the lead"
    clock[0] += 1.0
    assert tap.offer(frames[-1].image, tracker)
    jpeg = tap.latest()
    assert jpeg is not None
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[1] == FRAME_WIDTH and image.shape[0] == round(720 * FRAME_WIDTH / 1280)
    blue, green, red = (image[:, :, n].astype(int) for n in range(3))
    # The outline of a tile: green in the line, orange loose.
    outline = (green > 150) & (red < 90) & (blue < 90) | (red > 200) & (green > 120) & (blue < 60)
    plain = cv2.resize(frames[-1].image, (image.shape[1], image.shape[0]))
    pg, pr, pb = (plain[:, :, n].astype(int) for n in (1, 2, 0))
    already = (pg > 150) & (pr < 90) & (pb < 90) | (pr > 200) & (pg > 120) & (pb < 60)
    assert outline.sum() > 50 + already.sum()
    hub = Hub()
    server = WebServer(hub, host="127.0.0.1", port=0, token=TOKEN, frames=tap)
    server.start()
    try:
        assert run(call("GET", server.url + "/api/frame.jpg"))[0] == 401

        async def fetch() -> tuple[int, str, bytes]:
            async with aiohttp.ClientSession() as session, \
                    session.get(server.url + "/api/frame.jpg", headers=bearer()) as response:
                return response.status, response.content_type, await response.read()
        assert run(fetch()) == (200, "image/jpeg", jpeg)
        status, health = run(call("GET", server.url + "/api/health", headers=bearer()))
        arrivals = ([frame.t for frame in frames] + [frames[-1].t, frames[-1].t + 1.0])[-30:]
        fps = (len(arrivals) - 1) / (arrivals[-1] - arrivals[0])
        assert status == 200 and health["camera"] == {"frames": len(frames) + 2, "fps": round(fps, 1),
                                                      "last_frame_age": 0.0}
    finally:
        server.stop()


def test_events_survive_a_restart_and_say_when_older_ones_are_forgotten(tmp_path: Path) -> None:
    config = parse_config({"web": {"host": "127.0.0.1", "port": 0}}, environ={})
    first = build_table(config, data_dir=tmp_path)
    first.start(tick_interval=None)
    first.service.feed(Input("start"))
    assert first.service.wait_processed(timeout=10)
    first.stop()
    again = build_table(config, data_dir=tmp_path)   # the same event log: a restarted service
    again.start(tick_interval=None)
    try:
        assert again.web is not None
        status, answer = run(call("GET", again.web.url + "/api/events?since=0"))
        assert status == 200 and [e["event"] for e in answer["events"]] == ["start"] and answer["complete"]
    finally:
        again.stop()
    small = Hub(backlog=3)
    small.seed([{"seq": n, "event": "x"} for n in range(1, 6)])
    assert small.events_since(0, 10) == ([{"seq": n, "event": "x"} for n in (3, 4, 5)], False)
    assert small.events_since(2, 10) == ([{"seq": n, "event": "x"} for n in (3, 4, 5)], True)


def test_one_command_path_for_the_api_and_mqtt(tmp_path: Path, broker: Broker) -> None:
    """The same payload gets the same refusal from the API and from cmd/<name>; a correction sent
    over MQTT acts exactly as one from the page."""
    config = parse_config({
        "table": {"id": "path-1", "rules": "muggins", "players": ["Ayşe", "Burak"]},
        "mqtt": {"enabled": True, "url": broker.url, "username": "referee", "password": USERS["referee"]},
        "web": {"host": "127.0.0.1", "port": 0, "token": TOKEN}}, environ={})
    table = build_table(config, data_dir=tmp_path)
    table.start(tick_interval=None)
    manager = Watcher(broker, "manager")
    try:
        assert table.web is not None and table.link is not None and table.link.connected.wait(10)
        manager.subscribe("domino/path-1/cmd/errors")
        for name, payload in (("away", b'{"player": 3}'), ("correct", b'{"tile": "3-5", "x": 1}'),
                              ("missed", b'{"tile": "2-4"}')):
            status, answer = run(call("POST", table.web.url + f"/api/command/{name}", headers=bearer(),
                                      data=payload))
            assert status == 400
            manager.publish(f"domino/path-1/cmd/{name}", payload.decode())
            assert manager.next_json("cmd/errors")["error"] == answer["error"]
        for inp in (Input("start"), Input("lead", {"player": "Ayşe"}), Input("placed", {"tile": "5-5"}),
                    Input("placed", {"tile": "5-0"})):
            table.service.feed(inp)
        assert table.service.wait_processed(timeout=10)
        revision = table.web.hub.revision
        manager.publish("domino/path-1/cmd/correct", '{"tile": "5-3"}')
        with table.web.hub.changed:
            assert table.web.hub.changed.wait_for(lambda: table.web.hub.revision > revision, 10)
        assert table.service.wait_processed(timeout=10)
        status, state = run(call("GET", table.web.url + "/api/state"))
        assert state["last_play"] == {**state["last_play"], "player": "Burak", "tile": "5-3", "points": 0}
        assert state["corrections"][-1] == {**state["corrections"][-1], "kind": "correct", "was": "5-0"}
        assert state["scores"] == {"Ayşe": 10, "Burak": 0}
        logged = [i.kind for i in table.service.log.inputs(table.service.match_id)]
        assert logged[-1] == "correct"
        status, answer = run(call("POST", table.web.url + "/api/command/correct", headers=bearer(),
                                  data=b'{"tile": "6-6"}'))
        assert (status, answer) == (409, {"error": "cmd/correct: cannot correct 5-3 to 6-6: 6-6 does not "
                                                   "fit the line before 5-3"})
        assert run(call("GET", table.web.url + "/api/state"))[1]["scores"] == {"Ayşe": 10, "Burak": 0}
    finally:
        manager.close()
        table.stop()


SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
JSON_VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12)
MESSAGES = (st.text(max_size=200) | JSON_VALUES.map(json.dumps)
            | st.fixed_dictionaries(
                {"type": st.sampled_from(["command", "ping", "state", "x"])},
                optional={"name": st.text(max_size=12) | st.sampled_from(["pass", "away"]),
                          "args": JSON_VALUES}).map(json.dumps))


def test_any_websocket_message_gets_one_answer_and_the_server_goes_on(table: Table) -> None:
    """Whatever a client sends, it is answered (an error, pong, a state or a command's result) on
    a socket that stays open; the referee behind it goes on."""
    assert table.web is not None
    url = table.web.url + "/ws"
    kinds = {"error", "pong", "state", "command"}

    async def exchange(text: str) -> dict[str, Any]:
        async with aiohttp.ClientSession() as session, session.ws_connect(url, headers=bearer()) as ws:
            await ws.receive_json(timeout=5)   # the state it starts with
            await ws.send_str(text)
            while True:   # a command's own state/event messages may come before its answer
                answer = await ws.receive_json(timeout=10)
                if answer["type"] in kinds:
                    return dict(answer)

    @settings(max_examples=60, deadline=None)
    @given(MESSAGES)
    def one(text: str) -> None:
        answer = run(exchange(text))
        assert answer["type"] in kinds
        if answer["type"] == "error":
            assert answer["error"]

    one()
    status, state = run(call("GET", table.web.url + "/api/state"))
    assert status == 200 and state["players"] == ["Ayşe", "Burak"]
    assert table.service.feed(Input("start")) and table.service.wait_processed(timeout=10)
