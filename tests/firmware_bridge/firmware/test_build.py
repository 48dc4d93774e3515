"""The firmware and the harness build with make, cleanly, and fit the ATmega328P."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware_bridge import simavr
from firmware_bridge.display import FONT
from firmware_bridge.simavr import FIRMWARE_DIR, SimavrError, build_firmware, build_harness, firmware_size
from tests.firmware_bridge.firmware.conftest import Builds

FLASH_BYTES, RAM_BYTES = 32 * 1024 - 512, 2048  # the Uno/Nano bootloader keeps 512 bytes of flash


def test_firmware_builds_without_warnings_and_fits(builds: Builds) -> None:
    output = builds.firmware.output
    assert "avr-gcc" in output and "-Wall -Wextra" in output and "-Os" in output
    assert "warning" not in output.lower(), output
    elf = builds.firmware.path
    assert elf.exists() and elf.with_suffix(".hex").read_text().startswith(":")
    size = firmware_size(elf)
    assert 0 < size.flash_bytes < FLASH_BYTES
    # the rest of the 2 KiB is the stack (frames are decoded in stack buffers of 60 bytes)
    assert 0 < size.ram_bytes < RAM_BYTES - 512
    assert re.search(r"Program:\s+\d+ bytes", output), "make reports the flash use"
    assert re.search(r"Data:\s+\d+ bytes", output), "make reports the RAM use"


def test_harness_builds_without_warnings(builds: Builds) -> None:
    assert "warning" not in builds.harness.output.lower(), builds.harness.output
    assert builds.harness.path.exists()


def test_firmware_font_is_the_emulators_font() -> None:
    """The board and the emulator must draw every character alike (docs/serial-protocol.md)."""
    header = (FIRMWARE_DIR / "font7seg.h").read_text()
    table = header[header.index("FONT7SEG_STORAGE = {"):header.index("};")]
    values = [int(value, 16) for value in re.findall(r"0x([0-9A-Fa-f]{2})", table)]
    printable = [chr(code) for code in range(0x20, 0x7F)]
    assert len(values) == len(printable)
    assert {char: value for char, value in zip(printable, values, strict=True) if value} == {
        char: value for char, value in FONT.items() if value and " " <= char <= "~"}


def test_a_missing_toolchain_names_the_debian_packages(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    def without(missing: str) -> object:
        return lambda tool: None if tool == missing else f"/usr/bin/{tool}"

    monkeypatch.setattr(simavr.shutil, "which", without("avr-gcc"))
    with pytest.raises(SimavrError, match="gcc-avr binutils-avr avr-libc"):
        build_firmware(tmp_path)
    monkeypatch.setattr(simavr, "HARNESS_DIR", tmp_path / "nowhere")
    monkeypatch.setattr(simavr.shutil, "which", without("make"))
    with pytest.raises(SimavrError, match="install make"):
        build_harness(tmp_path)
