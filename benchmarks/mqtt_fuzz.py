"""MQTT fuzz: random and malformed commands over every `cmd/` topic against a real service and broker.

    python -m benchmarks.mqtt_fuzz [--payloads 100000] [--window 200] [--seed 1]

A real mosquitto (the shipped ACL, a generated password file) and a real `domino-referee run`
process (its table inputs on stdin, `--progress` on stdout). The table starts a match and four
tiles are played; then the manager's account sends `--payloads` commands that must all be refused:
random bytes, bracket bombs up to 5,000 deep, payloads up to 1 MB, invalid UTF-8, JSON of the wrong
type, unknown or missing fields, names too long or with control characters, players not at the
table, unknown command names, on every command topic (`cmd/errors`, the service's own answer
topic, is the one it ignores). At most `--window` are outstanding at a time (closed loop, so no
broker queue limit drops any). Then one more tile is played and must be accepted.

Reported: payloads sent and answered on `cmd/errors` (each must be answered exactly once), that
the service still referees (the legal play after the fuzz is an accepted `play` event) and that the
network thread lives (a last valid command is acted on), the service's RSS at 10 % of the payloads
(after warm-up) and at the end, and the rate: answered payloads per second against the broker's
own rate for the same payloads and window on one hop (publisher -> broker -> subscriber, no
service). Exit status 1 if a payload went unanswered or was answered twice, the play was not
accepted, or the RSS grew by more than `RSS_GROWTH_LIMIT_MB` after the warm-up.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import json
import os
import queue
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from referee.app.intake import COMMANDS, MAX_NAME_CHARS, MAX_PAYLOAD_BYTES, CommandError, parse_command

ROOT = Path(__file__).resolve().parents[1]
ACL = ROOT / "config" / "mosquitto" / "domino.acl"
USERS = {"referee": "fuzz-ref", "manager": "fuzz-mgr", "viewer": "fuzz-view"}
TABLE = "fuzz"
PLAYERS = ("Ayşe", "Burak")
# One hand of five tiles: seat 0 leads any tile and every tile fits one end only (tests' HAND).
HAND = ["3-4", "4-4", "4-6", "6-6", "6-1"]
RSS_GROWTH_LIMIT_MB = 10.0
TOPIC_NAMES = [*COMMANDS, "reboot", "", "PASS", "start2", "x" * 200, "ün/ı", "undo/extra"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.05):
                return
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"{what} exited with {process.returncode}") from None
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=0.025)
    raise RuntimeError(f"{what} did not open port {port}")


def start_broker(directory: Path) -> tuple[subprocess.Popen[bytes], int]:
    passwords = directory / "passwd"
    passwords.write_text("")
    for user, password in USERS.items():
        subprocess.run(["mosquitto_passwd", "-b", str(passwords), user, password], check=True)
    port = free_port()
    conf = directory / "mosquitto.conf"
    conf.write_text(f"user {getpass.getuser()}\nper_listener_settings false\nallow_anonymous false\n"
                    f"password_file {passwords}\nacl_file {ACL}\nlistener {port} 127.0.0.1\n")
    log = open(directory / "mosquitto.log", "wb")  # noqa: SIM115 - the process owns it
    process = subprocess.Popen(["mosquitto", "-c", str(conf)], stdout=log, stderr=log)
    wait_for_port(port, process, "mosquitto")
    return process, port


# -- payloads ------------------------------------------------------------------------------------
def _name(rng: random.Random) -> object:
    choice = rng.randrange(9)
    if choice == 0:
        return "Zed"                                          # not at the table
    if choice == 1:
        return "x" * rng.randrange(MAX_NAME_CHARS + 1, 5000)  # too long
    if choice == 2:
        return "Ay\x00şe" if rng.random() < 0.5 else "Cem\n"  # control characters
    if choice == 3:
        return rng.choice([3, None, True, [], {}, 1.5, "", "  "])
    if choice == 4:
        return "\ud800" + "Efe"                               # a lone surrogate (JSON \\ud800)
    if choice == 5:
        return " Burak"                                       # leading space
    if choice == 6:
        return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(1, 30))) + "\u200b"
    if choice == 7:
        return rng.choice(["Ayşe\u2028", "\x7f", "Zed" * 5])
    return "Q" + "".join(rng.choice("abcdefghij") for _ in range(rng.randrange(1, 12)))


def payloads(rng: random.Random) -> Iterator[tuple[str, bytes]]:
    """(command name, payload) pairs, endlessly; some may happen to be valid (the caller skips those)."""
    while True:
        name = rng.choice(TOPIC_NAMES)
        kind = rng.randrange(12)
        if kind == 0:
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
        elif kind == 1:
            depth = rng.randrange(3, 5000)
            body = b"[" * depth + b"]" * depth if rng.random() < 0.5 else b'{"player":' * depth
        elif kind == 2:
            huge = 1_000_000 if rng.random() < 0.01 else 2048
            size = rng.choice([MAX_PAYLOAD_BYTES + 1, 4096, 65536, huge])
            body = json.dumps({"player": "y" * size}).encode()
        elif kind == 3:
            body = b'{"player": "\xff\xfe' + bytes(rng.randrange(128, 256) for _ in range(5)) + b'"}'
        elif kind == 4:
            body = json.dumps(rng.choice([[1, 2], "Cem", 42, None, True, [{"player": "Cem"}]])).encode()
        elif kind == 5:
            body = json.dumps({rng.choice(["force", "who", "Player", "tile"]): "Cem"}).encode()
        elif kind == 6:
            body = b"{}" if COMMANDS.get(name, ((), ()))[0] else b'{"player": "Ay\xc5\x9fe", "x": 1}'
        elif kind == 7:
            body = json.dumps({"player": _name(rng)}, ensure_ascii=rng.random() < 0.5).encode(
                "utf-8", errors="surrogatepass")
        elif kind == 8:
            body = json.dumps({"player": rng.choice(PLAYERS), "substitute": _name(rng)}).encode(
                "utf-8", errors="surrogatepass")
        elif kind == 9:
            text = json.dumps({"player": rng.choice(PLAYERS)})
            cut = rng.randrange(1, len(text))
            body = text[:cut].encode()                         # truncated JSON
        elif kind == 10:
            body = rng.choice([b"null", b"[]", b"1e999", b"-", b'"', b"{", b"}", b"{\"player\"}", b"\x00"])
        else:
            body = b'{"player": "' + b"\\" * rng.randrange(1, 50) + b'"}'
        yield name, body


def must_be_refused(name: str, body: bytes) -> bool:
    """Whether the service must answer (refuse) this payload; the fuzz sends only those."""
    if name == "errors" or "/" in name:
        return False       # the service's own answer topic; a deeper topic is not a command
    try:
        parse_command(name, body, players=PLAYERS)
    except CommandError:
        return True
    return False


# -- the run -------------------------------------------------------------------------------------
@dataclass
class Counter:
    """Messages on one topic, for a closed-loop sender."""

    count: int = 0
    changed: threading.Condition = field(default_factory=threading.Condition)

    def add(self, *_: object) -> None:
        with self.changed:
            self.count += 1
            self.changed.notify_all()

    def wait_for(self, target: int, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: self.count >= target, timeout)


def client(port: int, user: str, *, window: int = 20) -> paho.Client:
    mqtt = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
    mqtt.username_pw_set(user, USERS[user])
    mqtt.max_inflight_messages_set(window)
    connected = threading.Event()
    mqtt.on_connect = lambda *args: connected.set()
    mqtt.connect("127.0.0.1", port)
    mqtt.loop_start()
    if not connected.wait(10):
        raise RuntimeError(f"{user} could not connect")
    return mqtt


def subscribe(mqtt: paho.Client, topic: str) -> None:
    done = threading.Event()
    mqtt.on_subscribe = lambda *args: done.set()
    mqtt.subscribe(topic, qos=1)
    if not done.wait(10):
        raise RuntimeError(f"no SUBACK for {topic}")


def closed_loop(sender: paho.Client, topic_of: list[str], bodies: list[bytes], answers: Counter,
                window: int, *, base: int = 0) -> float:
    """Send each payload with at most `window` unanswered; returns the seconds it took."""
    started = time.perf_counter()
    for n, (topic, body) in enumerate(zip(topic_of, bodies, strict=True)):
        if not answers.wait_for(base + n + 1 - window, 60):
            raise RuntimeError(f"payload {n - window + 1} of {len(bodies)} was never answered")
        sender.publish(topic, body, qos=1)
    if not answers.wait_for(base + len(bodies), 60):
        raise RuntimeError(f"{base + len(bodies) - answers.count} payloads never answered")
    return time.perf_counter() - started


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


@dataclass
class FuzzResult:
    sent: int
    answered: int
    extra_answers: int
    play_accepted: bool
    alive: bool
    rss_warm_mb: float
    rss_end_mb: float
    seconds: float
    broker_seconds: float
    kinds: dict[str, int]

    @property
    def ok(self) -> bool:
        return (self.answered == self.sent and self.extra_answers == 0 and self.play_accepted and self.alive
                and self.rss_end_mb - self.rss_warm_mb <= RSS_GROWTH_LIMIT_MB)


def run_fuzz(count: int, *, seed: int = 1, window: int = 200, directory: Path | None = None) -> FuzzResult:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as scratch:
        work = directory or Path(scratch)
        broker, port = start_broker(work)
        service = None
        clients: list[paho.Client] = []
        try:
            secret = work / "referee-password"
            secret.write_text(USERS["referee"] + "\n")
            config = work / "table.toml"
            config.write_text(
                f'[table]\nid = "{TABLE}"\nrules = "turkish"\nplayers = ["Ayşe", "Burak"]\n'
                '[table.options]\nhand_size = 5\nhands = 1\n[clock]\nmode = "none"\n'
                '[scoreboard]\nenabled = false\n[gpio]\nenabled = false\n'
                f'[mqtt]\nenabled = true\nurl = "mqtt://127.0.0.1:{port}"\nusername = "referee"\n'
                f'password_file = "{secret}"\n[storage]\ndata_dir = "{work / "data"}"\n', encoding="utf-8")
            service = subprocess.Popen(
                [str(Path(sys.executable).parent / "domino-referee"), "run", "--config", str(config),
                 "--inputs", "-", "--progress"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=open(work / "service.log", "w"), text=True, env={**os.environ})  # noqa: SIM115
            assert service.stdin is not None and service.stdout is not None
            progress: queue.Queue[dict[str, object]] = queue.Queue()
            stdout = service.stdout

            def read_progress() -> None:
                for line in stdout:
                    record = json.loads(line) if line.startswith("{") else {}
                    if record.get("line") is not None or "ready" in record:
                        progress.put(record)
            threading.Thread(target=read_progress, daemon=True).start()
            if "ready" not in progress.get(timeout=30):
                raise RuntimeError("the service did not say ready")

            viewer = client(port, "viewer")
            clients.append(viewer)
            answers, events = Counter(), queue.Queue[dict[str, object]]()
            baseline, online = Counter(), threading.Event()

            def on_message(_c: object, _u: object, message: paho.MQTTMessage) -> None:
                if message.topic.endswith("/cmd/errors"):
                    answers.add()
                elif message.topic.endswith("/events"):
                    events.put(json.loads(message.payload))
                elif message.topic.startswith("domino/echo/"):
                    baseline.add()
                elif message.topic.endswith("/status") and json.loads(message.payload)["state"] == "online":
                    online.set()
            viewer.on_message = on_message
            subscribe(viewer, f"domino/{TABLE}/cmd/errors")
            subscribe(viewer, f"domino/{TABLE}/events")
            subscribe(viewer, "domino/echo/cmd/#")
            subscribe(viewer, f"domino/{TABLE}/status")
            # `online` is published after the link subscribed (on the same connection, so the
            # broker has taken the subscription): from now on no command is lost.
            if not online.wait(30):
                raise RuntimeError("the service never said online")
            manager = client(port, "manager", window=window)
            clients.append(manager)

            def script(line: dict[str, object]) -> dict[str, object]:
                assert service is not None and service.stdin is not None
                service.stdin.write(json.dumps(line) + "\n")
                service.stdin.flush()
                return progress.get(timeout=30)
            manager.publish(f"domino/{TABLE}/cmd/start", b"", qos=1)
            while events.get(timeout=30).get("event") != "start":
                pass
            for tile in HAND[:4]:
                if not script({"kind": "placed", "tile": tile})["logged"]:
                    raise RuntimeError(f"the warm-up play {tile} was refused")

            generated = payloads(rng)
            kinds: dict[str, int] = {}
            names: list[str] = []
            bodies: list[bytes] = []
            while len(bodies) < count:
                name, body = next(generated)
                if must_be_refused(name, body):
                    names.append(name)
                    bodies.append(body)
                    kinds[name] = kinds.get(name, 0) + 1
            topics = [f"domino/{TABLE}/cmd/{name}" for name in names]
            warm = max(1, count // 10)
            seconds = closed_loop(manager, topics[:warm], bodies[:warm], answers, window)
            rss_warm = rss_mb(service.pid)
            seconds += closed_loop(manager, topics[warm:], bodies[warm:], answers, window, base=warm)
            rss_end = rss_mb(service.pid)
            # The broker's own rate: the same payloads and window, one hop, no service.
            echo = [topic.replace(f"domino/{TABLE}/", "domino/echo/", 1) for topic in topics]
            broker_seconds = closed_loop(manager, echo, bodies, baseline, window)

            # Still refereeing: the fifth tile is a legal play, accepted.
            played = script({"kind": "placed", "tile": HAND[4]})
            event = events.get(timeout=30)
            while event.get("tile") != HAND[4]:
                event = events.get(timeout=30)
            play_accepted = bool(played["logged"]) and event.get("event") == "play"
            # Still listening: a valid command is acted on (the manager's `sync` republishes the
            # state; an `away` is judged by the engine: either way an event or an answer).
            manager.publish(f"domino/{TABLE}/cmd/away", json.dumps({"player": "Burak"}).encode(), qos=1)
            event = events.get(timeout=30)
            while event.get("event") not in ("away", "refused") or event.get("player") != "Burak":
                event = events.get(timeout=30)
            alive = True
            extra = answers.count - count
            return FuzzResult(count, min(answers.count, count), extra, play_accepted, alive, rss_warm,
                              rss_end, seconds, broker_seconds, kinds)
        finally:
            for mqtt in clients:
                mqtt.disconnect()
                mqtt.loop_stop()
            if service is not None:
                if service.stdin is not None:
                    service.stdin.close()
                service.terminate()
                try:
                    service.wait(15)
                except subprocess.TimeoutExpired:
                    service.kill()
            broker.terminate()
            broker.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--payloads", type=int, default=100_000)
    parser.add_argument("--window", type=int, default=200, help="payloads outstanding at most")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = run_fuzz(args.payloads, seed=args.seed, window=args.window)
    rate = result.sent / result.seconds
    broker_rate = result.sent / result.broker_seconds
    print(f"payloads sent:      {result.sent} over {len(result.kinds)} command topics "
          f"({', '.join(f'{(name or repr(name))[:12]}: {n}' for name, n in sorted(result.kinds.items()))})")
    print(f"answered on cmd/errors: {result.answered} (extra answers: {result.extra_answers})")
    print(f"legal play after the fuzz accepted: {result.play_accepted}; network thread alive: {result.alive}")
    print(f"service RSS: {result.rss_warm_mb:.1f} MB after {max(1, result.sent // 10)} payloads, "
          f"{result.rss_end_mb:.1f} MB at the end ({result.rss_end_mb - result.rss_warm_mb:+.1f} MB)")
    print(f"rate: {rate:,.0f} payloads/s answered through the service; the broker alone (one hop, "
          f"same window): {broker_rate:,.0f}/s; ratio {rate / broker_rate:.2f}")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
