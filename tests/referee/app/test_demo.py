"""The demo end to end: rendered frames → vision → tracker → referee → emulated board over a pty."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import pytest

from referee.app.cli import main
from referee.app.config import parse_config
from referee.app.demo import demo_config

from .conftest import SmallDemo


def test_a_match_filmed_read_and_refereed(small_demo: SmallDemo) -> None:
    config = demo_config(argparse.Namespace(config=str(small_demo.config_file), rules=None, players=None,
                                            hands=1, target=None, out=str(small_demo.out)))
    assert config["table"]["players"] == ["Ayşe", "Burak"] and config.rule_options["hands"] == 1
    result = small_demo.result
    assert result.agree, result.summary
    report = result.vision
    assert report is not None and report.frames > 20
    moves = report.read + len(report.corrected)
    assert moves >= 6                       # the deal, the plays and draws, the reveals
    assert report.read >= moves // 2, result.notes   # vision itself read most of them
    assert result.board_scores == tuple(round(v) for v in result.scores.values())
    assert result.records and result.records[0].exists()
    capture = cv2.VideoCapture(str(small_demo.video))
    assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == report.frames
    capture.release()


def test_demo_command_without_the_camera(tmp_path: Path, capsys: object) -> None:
    status = main(["demo", "--no-vision", "--quiet", "--rules", "italian", "--seed", "2",
                   "--out", str(tmp_path / "out")])
    assert status == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "the referee agrees with the engine's replay" in out
    assert (tmp_path / "out" / "records" / "match-1.json").exists()


def test_a_second_demo_in_the_same_folder_starts_afresh(tmp_path: Path, capsys: object) -> None:
    """The demo's folder is scratch: a new demo there replaces the last one's log, high-water
    file and records (it used to leave the high-water file, and the next demo refused to run)."""
    out = tmp_path / "out"
    for _ in range(2):
        status = main(["demo", "--no-vision", "--quiet", "--rules", "italian", "--seed", "2",
                       "--out", str(out)])
        assert status == 0, capsys.readouterr()  # type: ignore[attr-defined]
        assert "the referee agrees with the engine's replay" in capsys.readouterr().out  # type: ignore[attr-defined]
    assert sorted(p.name for p in (out / "records").iterdir()) == ["match-1.json"]


def test_demo_options_are_checked(tmp_path: Path) -> None:
    status = main(["demo", "--rules", "italian", "--hands", "3", "--out", str(tmp_path)])
    assert status == 1
    assert parse_config({}, environ={})["table"]["rules"] == "turkish"


def demo_args(config: Path | None, **given: object) -> argparse.Namespace:
    values: dict[str, object] = {"config": str(config) if config else None, "rules": None, "players": None,
                                 "hands": None, "target": None, "out": "demo-out"}
    return argparse.Namespace(**{**values, **given})


def test_a_config_files_match_length_beats_the_short_default(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOMINO_REFEREE__TABLE__OPTIONS", raising=False)
    turkish = tmp_path / "turkish.toml"
    turkish.write_text('[table]\nrules = "turkish"\nplayers = ["A", "B"]\n[table.options]\nhands = 3\n')
    italian = tmp_path / "italian.toml"
    italian.write_text('[table]\nrules = "italian"\nplayers = ["A", "B"]\n[table.options]\ntarget = 35\n')
    plain = tmp_path / "plain.toml"
    plain.write_text('[table]\nrules = "muggins"\nplayers = ["A", "B", "C"]\n'
                     '[table.options]\nhand_size = 5\n')
    # --hands/--target > the file's own option > the demo's short default.
    assert demo_config(demo_args(turkish)).rule_options["hands"] == 3
    assert demo_config(demo_args(turkish, hands=2)).rule_options["hands"] == 2
    assert demo_config(demo_args(italian)).rule_options["target"] == 35
    assert demo_config(demo_args(italian, target=40)).rule_options["target"] == 40
    short = demo_config(demo_args(plain))
    assert short.rule_options["target"] == 150 and short.rule_options["hand_size"] == 5
    # Options of another rule set, or of another table size, are not the file's for this match.
    assert demo_config(demo_args(turkish, rules="italian")).rule_options["target"] == 20
    assert demo_config(demo_args(turkish, players=4)).rule_options["hands"] == 1
    assert demo_config(demo_args(None)).rule_options["hands"] == 1      # demo.toml itself
    monkeypatch.setenv("DOMINO_REFEREE__TABLE__OPTIONS", "{hands = 5}")
    assert demo_config(demo_args(turkish)).rule_options["hands"] == 5
