"""The real firmware, built with make into a temporary folder once per session, run under simavr."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from firmware_bridge.simavr import Build, SimulatedBoard, build_firmware, build_harness
from tests.firmware_bridge.firmware.driver import Driver


@dataclass(frozen=True)
class Builds:
    firmware: Build
    harness: Build


@pytest.fixture(scope="session")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    build_dir = tmp_path_factory.mktemp("scoreboard-build")
    return Builds(build_firmware(build_dir), build_harness(build_dir))


@pytest.fixture
def board(builds: Builds, tmp_path: Path) -> Iterator[SimulatedBoard]:
    # the UART trace lets tests time frames in simulated time, unaffected by a busy test machine
    with SimulatedBoard(builds.firmware.path, builds.harness.path, link=tmp_path / "scoreboard",
                        trace=["uart"]) as simulated:
        yield simulated


@pytest.fixture
def host(board: SimulatedBoard) -> Iterator[Driver]:
    driver = Driver(board.port)
    yield driver
    driver.close()
