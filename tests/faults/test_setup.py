"""Set-up that works as written (issue 17): the README's broker steps, the shipped mosquitto
config and ACL and the shipped `config/table.toml` agree, followed step by step against a real
mosquitto and a real `domino-referee run`; and a plain install on a Pi brings a GPIO backend."""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import paho.mqtt.client as paho
from packaging.requirements import Requirement
from paho.mqtt.enums import CallbackAPIVersion

from tests.referee.app.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PASSWORDS = {"REFEREE_PW": "r3f-secret", "MANAGER_PW": "m4n-secret", "VIEWER_PW": "v1ew-secret",
             "HOMEASSISTANT_PW": "h0me-secret"}
DEBIAN_MAIN_CONF = """pid_file {root}/run/mosquitto/mosquitto.pid
persistence true
persistence_location {root}/var/lib/mosquitto/
log_dest file {root}/var/log/mosquitto/mosquitto.log
include_dir {root}/etc/mosquitto/conf.d
"""   # Debian's /etc/mosquitto/mosquitto.conf, moved under `root`


def broker_setup_block() -> list[str]:
    match = re.search(r"<!-- BEGIN broker-setup -->\s*```sh\n(.*?)```", README, re.S)
    assert match, "the README's broker set-up block"
    return [line.strip() for line in match.group(1).splitlines() if line.strip()]


def as_run_here(line: str, root: Path) -> str | None:
    """One README line as this machine runs it: no sudo (we are the broker's user), paths under
    `root`, passwords from the environment instead of a prompt; None for a line with nothing to
    do here (the package is installed, ownership is ours, mosquitto is started by the test)."""
    line = line.removeprefix("sudo ")
    if line.startswith(("apt-get ", "read ", "chown ", "systemctl ")):
        return None
    line = line.replace("| sudo ", "| ")
    return re.sub(r"(?<![\w.])/etc/", f"{root}/etc/", line)


def wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    for _ in range(400):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.05):
                return
        except OSError:
            assert process.poll() is None, log.read_text()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=0.025)
    raise AssertionError(f"mosquitto did not open port {port}: {log.read_text()}")


def mosquitto(tool: str, port: int, user: str, *args: str) -> str:
    """mosquitto_sub / mosquitto_pub as the README uses them, as `user`, on the test's port."""
    wait = ["-W", "10"] if tool == "sub" else []
    result = subprocess.run([f"mosquitto_{tool}", "-h", "127.0.0.1", "-p", str(port), "-u", user, "-P",
                             PASSWORDS[f"{user.upper()}_PW"], *wait, *args],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 0, (result.args, result.stderr)
    return result.stdout


def test_the_shipped_accounts_agree() -> None:
    acl = (ROOT / "config/mosquitto/domino.acl").read_text()
    users = dict(re.findall(r"^user (\S+)\n((?:topic .*\n)+)", acl, re.M))
    table = tomllib.loads((ROOT / "config/table.toml").read_text())
    service_user = table["mqtt"]["username"]
    assert "topic readwrite domino/#" in users[service_user], "the service's account may publish"
    created = [re.search(r"domino\.passwd (\w+)", line) for line in broker_setup_block()
               if "mosquitto_passwd" in line]
    assert sorted(m.group(1) for m in created if m) == sorted(users)    # every ACL user gets a password
    assert any(table["mqtt"]["password_file"] in line for line in broker_setup_block())
    conf = (ROOT / "config/mosquitto/domino.conf").read_text()
    assert "password_file /etc/mosquitto/domino.passwd" in conf
    assert "acl_file /etc/mosquitto/domino.acl" in conf
    for line in broker_setup_block():    # the config's header shows the same commands
        if line.startswith("sudo mosquitto_passwd") or line.startswith("sudo cp"):
            assert line in conf


def test_the_readme_set_up_reaches_a_working_broker_login(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for directory in ("etc/mosquitto/conf.d", "run/mosquitto", "var/lib/mosquitto", "var/log/mosquitto"):
        (root / directory).mkdir(parents=True)
    (root / "etc/mosquitto/mosquitto.conf").write_text(DEBIAN_MAIN_CONF.format(root=root))
    script = [step for line in broker_setup_block() if (step := as_run_here(line, root))]
    subprocess.run(["bash", "-euc", "\n".join(script)], cwd=ROOT, check=True,
                   env={**os.environ, **PASSWORDS})
    # The shipped config as installed, with its paths under `root`, its listeners on free
    # loopback ports, and mosquitto running as us.
    port, ws_port = free_port(), free_port()
    conf = root / "etc/mosquitto/conf.d/domino.conf"
    text = re.sub(r"(?<=[ ])/etc/", f"{root}/etc/", conf.read_text())
    text = text.replace("listener 1883", f"listener {port} 127.0.0.1")
    text = text.replace("listener 9001", f"listener {ws_port} 127.0.0.1")
    conf.write_text(f"user {getpass.getuser()}\n" + text)
    broker = subprocess.Popen(["mosquitto", "-c", str(root / "etc/mosquitto/mosquitto.conf")])
    service = None
    try:
        wait_for_port(port, broker, root / "var/log/mosquitto/mosquitto.log")
        # Step 2: the shipped table configuration, as copied; this machine has no Pi GPIO and no
        # scoreboard, and the broker listens on the test's port (environment overrides, README).
        shutil.copy(ROOT / "config/table.toml", root / "etc/domino-referee/table.toml")
        env = {**os.environ, "DOMINO_REFEREE__MQTT__URL": f"mqtt://127.0.0.1:{port}",
               "DOMINO_REFEREE__MQTT__PASSWORD_FILE": str(root / "etc/domino-referee/mqtt-password"),
               "DOMINO_REFEREE__GPIO__PIN_FACTORY": "mock", "DOMINO_REFEREE__SCOREBOARD__ENABLED": "false"}
        service = subprocess.Popen(
            [str(Path(sys.executable).parent / "domino-referee"), "run", "--config",
             str(root / "etc/domino-referee/table.toml"), "--data-dir", str(tmp_path / "data"), "--no-camera",
             "--progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert service.stdout is not None and service.stderr is not None
        while not (line := service.stdout.readline()).startswith('{"ready"'):
            assert line, service.stderr.read()
        # The README's check: the viewer reads the status.
        document = json.loads(mosquitto("sub", port, "viewer", "-t", "domino/table-1/status", "-C", "1"))
        assert document["state"] == "online" and document["table"] == "table-1"
        assert document["health"]["parts"]["mqtt"]["state"] == "ok"
        # The manager commands the table; a viewer sees the service's event.
        viewer = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
        viewer.username_pw_set("viewer", PASSWORDS["VIEWER_PW"])
        subscribed, events = threading.Event(), queue.Queue[bytes]()
        viewer.on_subscribe = lambda *args: subscribed.set()
        viewer.on_message = lambda client, userdata, message: events.put(message.payload)
        viewer.connect("127.0.0.1", port)
        viewer.loop_start()
        viewer.subscribe("domino/table-1/events", qos=1)
        assert subscribed.wait(10)
        mosquitto("pub", port, "manager", "-t", "domino/table-1/cmd/start", "-n", "-q", "1")
        progress = json.loads(service.stdout.readline())
        assert progress == {"kind": "start", "line": None, "logged": True, "phase": "playing"}
        assert json.loads(events.get(timeout=10))["event"] == "start"
        viewer.disconnect()
        viewer.loop_stop()
        service.send_signal(signal.SIGTERM)
        assert service.wait(15) == 0
        log = service.stderr.read()
        assert f"mqtt ok: connected to broker 127.0.0.1:{port} as user 'referee'" in log
        assert "refused" not in log, log
    finally:
        if service is not None and service.poll() is None:
            service.kill()
        broker.terminate()
        broker.wait(10)


def test_a_plain_install_on_a_pi_brings_a_gpio_backend() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for machine, wanted in (("aarch64", True), ("armv7l", True), ("x86_64", False)):
        environment = {"platform_system": "Linux", "platform_machine": machine}
        chosen = [Requirement(text) for text in project["dependencies"]]
        chosen = [r for r in chosen if r.marker is None or r.marker.evaluate(environment)]
        lgpio = [r for r in chosen if r.name == "lgpio"]
        assert bool(lgpio) == wanted, machine
        # lgpio 0.0.0.2 is an empty placeholder module: it must never satisfy the requirement.
        assert all(not r.specifier.contains("0.0.0.2") and r.specifier.contains("0.2.2.0") for r in lgpio)
    assert [Requirement(text).name for text in project["optional-dependencies"]["pi"]] == ["lgpio"]
