"""The table's web server (aiohttp, on its own thread and event loop): pages, API and WebSocket.

Pages: ``/overlay`` (the OBS browser source), ``/table`` (the table manager's page), ``/club`` (every
table on the broker) and ``/`` (links). API: ``GET /api/state``, ``GET /api/events?since=SEQ``,
``GET /api/record``, ``GET /api/health``, ``GET /api/club``, ``GET /api/frame.jpg``,
``POST /api/command/<name>`` and ``GET /ws`` (pushes the state, then every event and state). A
command from the page, the API or the WebSocket goes through `referee.app.intake.parse_command`,
the same check the MQTT ``cmd/<name>`` topics use, and then `TableService.command`. Bad input gets
a JSON ``{"error": "..."}`` with a 4xx status; nothing here ever blocks the referee's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace
from importlib import resources
from typing import Any

from aiohttp import WSMsgType, web

from referee.app.intake import CommandError, RateLimiter, json_depth_exceeds, parse_command
from referee.app.web.auth import COOKIE, Gate, WebAuthError
from referee.app.web.hub import Client, Hub
from referee.app.web.limits import (
    COMMAND_WAIT,
    EVENTS_PAGE,
    MAX_BAD_MESSAGES,
    MAX_BODY_BYTES,
    MAX_CLIENTS,
    MAX_JSON_DEPTH,
    MAX_WS_MESSAGE,
    SEND_TIMEOUT,
)
from referee.errors import DominoError

PAGES = {"/": "index.html", "/overlay": "overlay.html", "/table": "table.html", "/club": "club.html"}
STATIC = ("overlay.js", "table.js", "club.js", "common.js", "style.css")
CONTENT_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class WebError(DominoError, OSError):
    """The web server cannot run (say, its port is taken); the message names the address."""


def error_response(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure as ``{"error": ...}`` with its status, never a traceback page."""
    try:
        return await handler(request)
    except WebAuthError as error:
        return error_response(error.status, str(error))
    except web.HTTPRequestEntityTooLarge:
        return error_response(413, f"request body larger than {MAX_BODY_BYTES} bytes")
    except web.HTTPException as error:
        if error.status < 400:
            raise
        return error_response(error.status, error.reason)


class WebServer:
    """Serves one table (and, with `club`, every table on its broker) on `host`:`port`."""

    def __init__(self, hub: Hub, *, service: Any = None, host: str = "0.0.0.0", port: int = 8080,
                 pin: str | None = None, token: str | None = None, health: Any = None,
                 club: Any = None, frames: Any = None) -> None:
        self.hub = hub
        self.service = service
        self.host = host
        self.port = port
        self.gate = Gate(pin, token)
        self.limiter = RateLimiter()   # per web client, as MQTT's link has one
        self.health = health
        self.club = club
        self.frames = frames
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._stopped: asyncio.Event | None = None

    # -- lifecycle (any thread) --------------------------------------------------------------------
    def start(self, timeout: float = 10.0) -> None:
        """Listen (raises `WebError` when the port is taken) and serve on a thread of its own."""
        self._thread = threading.Thread(target=self._run, name="web", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise WebError(f"web: the server on {self.host}:{self.port} did not start within {timeout:g} s")
        if self._failure is not None:
            self._thread.join(timeout)
            raise WebError(f"web: cannot listen on {self.host}:{self.port}: {self._failure}")

    def stop(self, timeout: float = 10.0) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(timeout)
        self.hub.bind(None)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "", "::") else self.host
        return f"http://{host}:{self.port}"

    def urls(self) -> dict[str, str]:
        return {"overlay": f"{self.url}/overlay", "table": f"{self.url}/table", "club": f"{self.url}/club",
                "api": f"{self.url}/api/state"}

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as error:  # reported to start(); the thread ends
            self._failure = error
        finally:
            self._ready.set()
            loop.close()

    async def _serve(self) -> None:
        self._stopped = asyncio.Event()
        app = self.application()
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        try:
            await site.start()
        except OSError as error:
            await self._runner.cleanup()
            self._failure = error
            self._ready.set()
            return
        addresses = self._runner.addresses
        if addresses:
            self.port = int(addresses[0][1])
        self.hub.bind(asyncio.get_running_loop())
        self._ready.set()
        await self._stopped.wait()
        self.hub.bind(None)
        for client in list(self.hub.clients):
            self.hub.drop(client, "the server is stopping")
        await self._runner.cleanup()

    # -- the application ---------------------------------------------------------------------------
    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[json_errors])
        for path, name in PAGES.items():
            app.router.add_get(path, self._page(name))
        app.router.add_get("/static/{name}", self.static)
        app.router.add_get("/api/state", self.api_state)
        app.router.add_get("/api/events", self.api_events)
        app.router.add_get("/api/record", self.api_record)
        app.router.add_get("/api/health", self.api_health)
        app.router.add_get("/api/club", self.api_club)
        app.router.add_get("/api/frame.jpg", self.api_frame)
        app.router.add_post("/api/command/{name}", self.api_command)
        app.router.add_post("/login", self.login)
        app.router.add_post("/logout", self.logout)
        app.router.add_get("/ws", self.websocket)
        return app

    @staticmethod
    def _asset(name: str) -> bytes:
        return resources.files("referee.app.web").joinpath("static", name).read_bytes()

    def _page(self, name: str) -> Handler:
        async def page(request: web.Request) -> web.StreamResponse:
            return web.Response(body=self._asset(name), content_type="text/html", charset="utf-8",
                                headers={"Cache-Control": "no-store"})
        return page

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in STATIC:
            return error_response(404, f"no static file {name!r}")
        suffix = name[name.rfind("."):]
        return web.Response(body=self._asset(name), content_type=CONTENT_TYPES[suffix], charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    # -- reading ---------------------------------------------------------------------------------
    async def api_state(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.hub.state(), dumps=_dumps)

    async def api_events(self, request: web.Request) -> web.StreamResponse:
        since = _whole_number(request.query.get("since", "0"), "since")
        limit = min(_whole_number(request.query.get("limit", str(EVENTS_PAGE)), "limit"), EVENTS_PAGE)
        events, complete = self.hub.events_since(since, limit)
        return web.json_response({"events": events, "since": since, "complete": complete}, dumps=_dumps)

    async def api_record(self, request: web.Request) -> web.StreamResponse:
        service = self.service
        if service is None:
            return error_response(404, "this server has no table")
        future = service.call(service.record)
        try:
            record = await asyncio.wait_for(asyncio.wrap_future(future), 5.0)
        except TimeoutError:
            return error_response(503, "the referee is busy: try again")
        if record is None:
            return error_response(404, "no match yet: press Start")
        return web.json_response(record, dumps=_dumps)

    async def api_health(self, request: web.Request) -> web.StreamResponse:
        self.gate.check(request.headers, request.cookies)
        document = {"overall": "ok", "parts": {}} if self.health is None else self.health.as_dict()
        document["web"] = {"clients": len(self.hub.clients), "dropped": self.hub.dropped}
        document["camera"] = None if self.frames is None or not self.frames.seen else self.frames.stats()
        return web.json_response(document, dumps=_dumps)

    async def api_club(self, request: web.Request) -> web.StreamResponse:
        tables = {} if self.club is None else self.club.tables()
        return web.json_response({"broker": self.club is not None, "tables": tables}, dumps=_dumps)

    async def api_frame(self, request: web.Request) -> web.StreamResponse:
        self.gate.check(request.headers, request.cookies)
        jpeg = None if self.frames is None else self.frames.latest()
        if jpeg is None:
            return error_response(404, "no camera frame yet")
        return web.Response(body=jpeg, content_type="image/jpeg", headers={"Cache-Control": "no-store"})

    # -- commanding --------------------------------------------------------------------------------
    async def login(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        try:
            if json_depth_exceeds(body.decode("utf-8"), MAX_JSON_DEPTH):
                return error_response(400, f"the login body nests deeper than {MAX_JSON_DEPTH} levels")
            data = json.loads(body or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return error_response(400, "the login body must be JSON: {\"pin\": \"...\"}")
        pin = data.get("pin") if isinstance(data, dict) else None
        if not isinstance(pin, str):
            return error_response(400, f"the login body must name the pin as a string, found {data!r}"[:200])
        session = self.gate.login(pin)
        response = web.json_response({"ok": True})
        response.set_cookie(COOKIE, session, httponly=True, samesite="Strict")
        return response

    async def logout(self, request: web.Request) -> web.StreamResponse:
        response = web.json_response({"ok": True})
        response.del_cookie(COOKIE)
        return response

    async def api_command(self, request: web.Request) -> web.StreamResponse:
        self.gate.check(request.headers, request.cookies)
        body = await request.read()
        return await self._command(request.match_info["name"], body, f"web {request.remote}")

    async def _command(self, name: str, payload: bytes, origin: str) -> web.Response:
        """Check, rate-limit and queue one command, then wait (up to `COMMAND_WAIT`) for the
        referee: 200 when it acted, 409 with its reason when it refused, 202 while still queued."""
        if self.service is None:
            return error_response(404, "this server has no table to command")
        try:
            command = parse_command(name, payload)
        except CommandError as error:
            return error_response(400, str(error))
        if not self.limiter.allow(origin):
            return error_response(429, str(self.limiter.refusal(origin, name)))
        answers: list[str] = []
        number = self.service.command(replace(command, origin="web", reply=answers.append))
        done = await asyncio.get_running_loop().run_in_executor(
            None, self.service.wait_processed, number, COMMAND_WAIT)
        if answers:
            return error_response(409, answers[0])
        return web.json_response({"accepted": str(command), "input": number, "done": done},
                                 status=200 if done else 202)

    # -- the WebSocket -----------------------------------------------------------------------------
    async def websocket(self, request: web.Request) -> web.StreamResponse:
        if len(self.hub.clients) >= MAX_CLIENTS:
            return error_response(503, f"{MAX_CLIENTS} clients are connected already")
        try:
            self.gate.check(request.headers, request.cookies)
            may_command = True
        except WebAuthError:
            may_command = False
        ws = web.WebSocketResponse(max_msg_size=MAX_WS_MESSAGE, heartbeat=30.0)
        origin = f"web {request.remote}"
        # Registered before the handshake's answer, so a client that has its 101 gets every state.
        client = Client()
        client.queue.put_nowait(self.hub.state_message())
        self.hub.clients.add(client)
        try:
            await ws.prepare(request)
        except BaseException:
            self.hub.drop(client, "closed")
            raise
        sender = asyncio.create_task(self._send_loop(ws, client))
        bad = 0
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    bad += 1
                    await self._reply(ws, {"type": "error", "error": "send text frames holding JSON"})
                elif not await self._ws_message(ws, message.data, may_command, origin):
                    bad += 1
                if bad >= MAX_BAD_MESSAGES:
                    await ws.close(code=1008, message=b"too many malformed messages")
                    break
        finally:
            self.hub.drop(client, "closed")
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(sender, SEND_TIMEOUT)
        return ws

    async def _send_loop(self, ws: web.WebSocketResponse, client: Client) -> None:
        while True:
            text = await client.queue.get()
            if text is None:
                break
            try:
                await asyncio.wait_for(ws.send_str(text), SEND_TIMEOUT)
            except (TimeoutError, ConnectionError, RuntimeError):
                self.hub.drop(client, f"a send took longer than {SEND_TIMEOUT:g} s")
                break
        if client.dropped and client.dropped != "closed" and not ws.closed:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=1013, message=client.dropped.encode()[:120]), 1.0)

    @staticmethod
    async def _reply(ws: web.WebSocketResponse, document: dict[str, Any]) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            await ws.send_str(json.dumps(document, ensure_ascii=False))

    async def _ws_message(self, ws: web.WebSocketResponse, text: str, may_command: bool,
                          origin: str) -> bool:
        """Answer one client message; False when it was malformed."""
        if json_depth_exceeds(text, MAX_JSON_DEPTH):
            await self._reply(ws, {"type": "error", "error": f"nests deeper than {MAX_JSON_DEPTH} levels: "
                                                             f"{text[:80]!r}"})
            return False
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            await self._reply(ws, {"type": "error", "error": f"not JSON ({error.msg}): {text[:80]!r}"})
            return False
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "ping":
            await self._reply(ws, {"type": "pong"})
            return True
        if kind == "state":
            await ws.send_str(self.hub.state_message())
            return True
        if kind != "command" or not isinstance(data.get("name"), str):
            await self._reply(ws, {"type": "error", "error": "expected {\"type\": \"ping\"|\"state\"|"
                                   f"\"command\", ...}}, found {text[:80]!r}"})
            return False
        if not may_command:
            await self._reply(ws, {"type": "error", "error": "sign in with the PIN to send commands"})
            return True
        args = data.get("args", {})
        response = await self._command(data["name"], json.dumps(args).encode() if args else b"", origin)
        await self._reply(ws, {"type": "command", "status": response.status,
                               **json.loads(response.body if isinstance(response.body, bytes) else b"{}")})
        return response.status < 400 or response.status in (409, 429)


def _whole_number(text: str, name: str) -> int:
    if not text.isdigit() or len(text) > 12:
        raise web.HTTPBadRequest(reason=f"{name}: found {text[:20]!r}, expected a whole number >= 0")
    return int(text)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
