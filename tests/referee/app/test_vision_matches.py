"""A whole match per rule set through the real pieces, vision included: engine players lay tiles
in front of the rendered camera, the tracker and reader see them, the referee judges, the emulated
scoreboard shows it over a pty and a real mosquitto carries the events and the retained state.
Nothing is fed from the film's truth: every move the referee took came from vision."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from referee.app.demo import demo_config, run_demo

from .conftest import USERS, Broker, Watcher

# Short matches (targets may be any multiple of 5, any whole number for italian) keep the filmed
# matches cheap; each still plays whole hands through vision.
MATCHES = [("turkish", "hands = 1"), ("italian", "target = 10"), ("muggins", "target = 50"),
           ("all-fives", "target = 50")]


@pytest.mark.parametrize(("rules", "length"), MATCHES)
def test_a_whole_match_read_by_vision_reaches_the_engines_scores(rules: str, length: str, tmp_path: Path,
                                                                 broker: Broker) -> None:
    password = tmp_path / "password"
    password.write_text(USERS["referee"] + "\n")
    config_file = tmp_path / "table.toml"
    config_file.write_text(
        f'[table]\nid = "{rules}"\nrules = "{rules}"\nplayers = ["Ayşe", "Burak"]\n'
        f"[table.options]\n{length}\n[camera]\nwidth = 1280\nheight = 720\n"
        f'[mqtt]\nenabled = true\nurl = "{broker.url}"\nusername = "referee"\n'
        f'password_file = "{password}"\ntopic_prefix = "domino"\n')
    events = Watcher(broker, "viewer")
    events.subscribe(f"domino/{rules}/events")
    args = argparse.Namespace(config=str(config_file), rules=None, players=None, hands=None, target=None,
                              out=str(tmp_path / "out"))
    result = run_demo(demo_config(args), seed=3, out=tmp_path / "out", vision=True)

    assert result.agree, result.summary
    report = result.vision
    assert report.corrected == [] and report.unfilmed == [] and report.failures == [], result.notes
    assert report.read >= 10
    assert result.board_scores == tuple(round(v) for v in result.expected.values())
    got = []
    while not got or got[-1]["event"] != "match":
        got.append(events.next_json("events", timeout=30))
    assert [e["seq"] for e in got] == list(range(1, len(got) + 1))
    late = Watcher(broker, "viewer")
    late.subscribe(f"domino/{rules}/state")
    state = late.next_json("state")
    assert state["phase"] == "match-over" and state["scores"] == result.expected
