"""The demo end to end: rendered frames → vision → tracker → referee → emulated board over a pty."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2

from referee.cli import main
from referee.config import parse_config
from referee.service.demo import demo_config

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


def test_demo_options_are_checked(tmp_path: Path) -> None:
    status = main(["demo", "--rules", "italian", "--hands", "3", "--out", str(tmp_path)])
    assert status == 1
    assert parse_config({}, environ={})["table"]["rules"] == "turkish"
