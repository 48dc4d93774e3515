"""The MQTT link is never silent and never deaf (issue 17): an unreachable broker (closed port,
unknown host, blackhole), a refused login, an ACL refusal and a broker killed and restarted are each
one clear line the moment they happen, said again while they last, on `Health` and in the retained
JSON `status`; the link comes back by itself and loses nothing."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from referee.app.eventlog import EventLog
from referee.app.health import REMINDER_SECONDS, Health, State
from referee.app.mqtt import MqttLink, MqttSettings
from tests.referee.app.conftest import free_port

from .mqtt_table import USERS, Broker, Clock, Lines, Watcher, broker, serve, settings_for

__all__ = ["broker"]


def link_to(settings: MqttSettings, lines: Lines, clock: Clock | None = None,
            health: Health | None = None) -> MqttLink:
    link = MqttLink(settings, on_command=lambda command: None, say=lines, now=clock or Clock(),
                    health=health)
    link.client.reconnect_delay_set(min_delay=0.1, max_delay=0.4)   # the test's patience, not the backoff's
    link.start()
    return link


def test_closed_port_is_said_at_once_again_while_it_lasts_and_recovers(tmp_path: Path) -> None:
    port = free_port()
    lines, clock = Lines(), Clock()
    health = Health()
    link = link_to(MqttSettings.from_url(f"mqtt://127.0.0.1:{port}", "t1", username="referee",
                                         password=USERS["referee"]), lines, clock, health)
    first = lines.wait_for("refused the connection")[0]
    assert first == (f"mqtt failed: broker 127.0.0.1:{port} refused the connection: nothing listens there "
                     "(is mosquitto running?)")
    part = health.get("mqtt")
    assert part is not None and part.state == State.FAILED
    clock.t += REMINDER_SECONDS                      # while it lasts, the next attempt says it again
    lines.wait_for("refused the connection", count=2)
    directory = tmp_path / "broker"
    directory.mkdir()
    late = Broker(directory, port=port)              # the broker comes up on that port
    late.start()
    lines.wait_for(f"mqtt ok: connected to broker 127.0.0.1:{port} as user 'referee'")
    assert link.connected.is_set() and health.overall() == State.OK
    link.stop()
    late.stop()


def test_unknown_host_is_said() -> None:
    lines = Lines()
    link = link_to(MqttSettings.from_url("mqtt://no-such-broker.invalid:1883", "t1"), lines)
    line = lines.wait_for("cannot find the broker host")[0]
    assert line.startswith("mqtt failed: cannot find the broker host 'no-such-broker.invalid'")
    assert "check [mqtt] url" in line
    link.stop()


def test_blackholed_broker_is_said_after_the_connect_timeout() -> None:
    # A listener whose backlog is full drops every further SYN: the connection attempt hangs.
    with socket.socket() as hole:
        hole.bind(("127.0.0.1", 0))
        hole.listen(0)
        port = hole.getsockname()[1]
        filler = [socket.create_connection(("127.0.0.1", port), timeout=2)]
        lines = Lines()
        link = MqttLink(MqttSettings.from_url(f"mqtt://127.0.0.1:{port}", "t1"), on_command=lambda c: None,
                        say=lines)
        link.client.connect_timeout = 1.0
        link.start()
        line = lines.wait_for("no answer from broker")[0]
        assert line == (f"mqtt failed: no answer from broker 127.0.0.1:{port} within 1 s (wrong address, "
                        "or a firewall drops the packets)")
        link.stop()
        for sock in filler:
            sock.close()


def test_a_broker_that_never_answers_is_said() -> None:
    # The kernel completes the TCP handshake of a listener nobody serves; MQTT's CONNACK never comes.
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(8)
        port = mute.getsockname()[1]
        lines = Lines()
        link = link_to(MqttSettings.from_url(f"mqtt://127.0.0.1:{port}", "t1", keepalive=1), lines)
        line = lines.wait_for("never answered")[0]
        assert line.startswith(f"mqtt failed: broker 127.0.0.1:{port} took the connection but never "
                               "answered the MQTT handshake")
        link.stop()


def test_wrong_password_is_said_and_said_again(broker: Broker) -> None:
    lines, clock = Lines(), Clock()
    wrong = MqttSettings.from_url(broker.url, "t1", username="referee", password="guess")
    link = link_to(wrong, lines, clock)
    line = lines.wait_for("refused the login")[0]
    assert line == (f"mqtt failed: broker 127.0.0.1:{broker.port} refused the login as user 'referee': "
                    "Not authorized (check [mqtt] username and password_file against the broker's "
                    "password file)")
    clock.t += REMINDER_SECONDS
    lines.wait_for("refused the login", count=2)
    assert not link.connected.is_set()
    link.stop()


def test_acl_refusal_is_said_and_events_stay_in_the_outbox(broker: Broker, tmp_path: Path) -> None:
    lines = Lines()
    log = EventLog(tmp_path / "events.sqlite")
    link = MqttLink(settings_for(broker, "viewer"), on_command=lambda c: None, outbox=log, say=lines)
    link.start()
    seq, payload, _ = log.add_event(1, 0, {"event": "play"})
    link.publish_event(seq, payload)
    line = lines.wait_for("refused to take")[0]
    assert line.startswith(f"mqtt failed: broker 127.0.0.1:{broker.port} refused to take domino/t1/")
    assert "as user 'viewer': Not authorized (check the broker's ACL)" in line
    assert link.flush(10)
    assert [s for s, _ in log.undelivered()] == [1]   # refused is not delivered
    link.stop()


def test_status_is_json_with_each_part_s_health(broker: Broker, tmp_path: Path) -> None:
    health = Health()
    table = serve(broker, tmp_path, health=health)
    viewer = Watcher(broker, "viewer")
    viewer.subscribe("domino/t1/status")
    status = viewer.next_json("status")
    assert status["state"] == "online" and status["table"] == "t1"
    assert status["health"]["parts"]["mqtt"]["state"] == "ok"
    health.failed("camera", "cannot open camera index 7")     # any part's change is republished
    status = viewer.next_json("status")
    assert status["health"]["overall"] == "failed"
    assert status["health"]["parts"]["camera"]["why"] == "cannot open camera index 7"
    table.close()
    status = viewer.next_json("status")
    assert (status["state"], status["why"]) == ("offline", "stopped")
    viewer.close()


LINK_PROCESS = """
import sys, threading
from referee.app.mqtt import MqttLink, MqttSettings
link = MqttLink(MqttSettings.from_url(sys.argv[1], "t1", username="referee", password=sys.argv[2]),
                on_command=lambda c: None)
link.start()
assert link.subscribed.wait(10)
print("ready", flush=True)
threading.Event().wait()
"""


def test_the_last_will_is_json_offline(broker: Broker) -> None:
    viewer = Watcher(broker, "viewer")
    viewer.subscribe("domino/t1/status")
    process = subprocess.Popen([sys.executable, "-c", LINK_PROCESS, broker.url, USERS["referee"]],
                               stdout=subprocess.PIPE, text=True, env={**os.environ})
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    assert viewer.next_json("status")["state"] == "online"
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    status = viewer.next_json("status")
    while status["state"] == "online":
        status = viewer.next_json("status")
    assert status == {"state": "offline", "table": "t1", "why": "connection lost"}
    viewer.close()


def test_broker_killed_and_restarted_loses_nothing(broker: Broker, tmp_path: Path) -> None:
    table = serve(broker, tmp_path)
    lines = table.lines
    table.command("start")
    table.processed.get(timeout=10)
    assert broker.process is not None
    broker.process.kill()                                   # SIGKILL: no goodbye to anyone
    broker.process.wait(10)
    broker.process = None
    lines.wait_for("lost the connection to broker")
    table.feed("placed", tile="3-4")                        # play goes on while the broker is away
    table.feed("placed", tile="4-4")
    broker.start()
    assert table.link.subscribed.wait(20)
    assert lines.lines[-1].startswith("mqtt ok: connected")
    assert table.link.flush(20)
    assert table.log.undelivered() == []                   # every event reached the broker
    manager = Watcher(broker, "manager")                    # and commands arrive again
    table.manager.close()
    table.manager = manager
    table.errors.close()
    table.errors = Watcher(broker, "viewer")
    table.errors.subscribe("domino/t1/cmd/errors")
    table.command("away", '{"player": "Zed"}')
    assert "'Zed' is not a player" in table.answer()["error"]
    table.close()


def test_a_long_outage_queues_only_the_latest_state(broker: Broker) -> None:
    lines = Lines()
    link = link_to(settings_for(broker), lines)
    assert link.subscribed.wait(10)
    broker.stop()
    lines.wait_for("lost the connection to broker")
    # A message in flight when the broker went (a status, QoS 1) may still wait for its answer;
    # what matters is that the states published during the outage add nothing to wait.
    in_flight = len(link.client._out_messages)
    for n in range(500):                          # the table goes on changing while the broker is away
        link.publish_state({"turn": "Ayşe", "n": n})
    assert len(link.client._out_messages) == in_flight   # nothing stale waits in memory for the broker
    broker.start()
    assert link.subscribed.wait(20)
    assert link.flush(10)
    viewer = Watcher(broker, "viewer")
    viewer.subscribe("domino/t1/state")
    assert viewer.next_json("state")["n"] == 499  # the latest state was sent on the reconnect
    viewer.close()
    link.stop()
