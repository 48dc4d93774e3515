"""The real scoreboard firmware on a simulated ATmega328P (simavr), for tests and the bench.

`build_firmware()` and `build_harness()` run `make` in `firmware/` and `simavr_harness/`;
`SimulatedBoard` starts the harness on the firmware and records what the firmware drives:

```python
with SimulatedBoard(link="/tmp/scoreboard") as board:   # builds first when needed
    with Scoreboard(board.port) as scoreboard:           # any pyserial client works
        scoreboard.show_scores([12, 30])
        board.wait_for(lambda b: b.display_text().startswith("  12|  30"), timeout=2)
    board.press("start")
    print(board.buzzer_events)
```

The harness keeps simulated time locked to the wall clock (the firmware sleeps between
interrupts), and stamps every observation with both, the wall time in `time.monotonic()` seconds.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.display import DIGITS, SEG_DP, Cell, cells_text
from firmware_bridge.errors import BridgeError

PACKAGE_DIR = Path(__file__).resolve().parent
FIRMWARE_DIR = PACKAGE_DIR / "firmware"
HARNESS_DIR = PACKAGE_DIR / "simavr_harness"
DEFAULT_BUILD_DIR = PACKAGE_DIR.parent / "build" / "scoreboard-fw"
BUTTONS = ("start", "pass", "continue")
START_TIMEOUT = 10.0


class SimavrError(BridgeError, RuntimeError):
    """The firmware or the harness could not be built or run."""


@dataclass(frozen=True)
class Build:
    """What one `make` produced: the output file and everything make printed."""

    path: Path
    output: str


@dataclass(frozen=True)
class FirmwareSize:
    flash_bytes: int
    ram_bytes: int


@dataclass(frozen=True)
class DisplayShown:
    """The 24 digits after a change: raw segments (bit 7 the point) and the characters read back."""

    sim_us: int
    wall: float
    segments: tuple[int, ...]
    text: str

    @property
    def cells(self) -> list[Cell]:
        return [Cell(char if char != "#" else "?", bool(seg & SEG_DP))
                for char, seg in zip(self.text, self.segments, strict=True)]


@dataclass(frozen=True)
class Tone:
    """One sounded tone: start and end in simulated microseconds, the measured frequency."""

    start_us: int
    end_us: int
    frequency_hz: float
    wall_end: float

    @property
    def duration_ms(self) -> float:
        return (self.end_us - self.start_us) / 1000


@dataclass(frozen=True)
class Observation:
    """Any other harness line: LEDS, BUTTON, TIME, TONE_ON, RESET (and RX, TX, SPI when traced)."""

    kind: str
    sim_us: int
    wall: float
    fields: tuple[str, ...]


def _need(tool: str, packages: str) -> None:
    if shutil.which(tool) is None:
        raise SimavrError(f"{tool!r} not found; install the Debian packages: sudo apt-get install {packages}")


def _make(directory: Path, build_dir: Path, *options: str) -> str:
    build_dir.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(["make", "-C", str(directory), f"BUILD={build_dir}", *options],
                            capture_output=True, text=True, check=False)
    output = result.stdout + result.stderr
    if result.returncode != 0:
        raise SimavrError(f"make in {directory} failed (exit {result.returncode}):\n{output.strip()}")
    return output


def build_firmware(build_dir: Path | None = None, *, test_hooks: bool = False) -> Build:
    """`make` the firmware; returns the ELF (the .hex sits next to it).

    `test_hooks` adds message 0x7F, which hangs the main loop (to watch the watchdog); build it
    into its own folder, never onto a board."""
    _need("make", "make")
    _need("avr-gcc", "gcc-avr binutils-avr avr-libc")
    if not any(Path(root, "avr/io.h").exists() for root in ("/usr/lib/avr/include", "/usr/avr/include")):
        raise SimavrError("avr-libc headers (avr/io.h) not found; install: sudo apt-get install avr-libc")
    build_dir = Path(build_dir or DEFAULT_BUILD_DIR)
    output = _make(FIRMWARE_DIR, build_dir, *(["TEST_HOOKS=1"] if test_hooks else []))
    return Build(build_dir / "scoreboard.elf", output)


def build_harness(build_dir: Path | None = None) -> Build:
    """`make` the simavr harness; returns its executable."""
    _need("make", "make")
    _need("cc", "gcc")
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        raise SimavrError("simavr headers not found; install: "
                          "sudo apt-get install simavr libsimavr-dev libelf-dev")
    if not Path("/usr/include/libelf.h").exists() and not Path("/usr/include/gelf.h").exists():
        raise SimavrError("libelf headers not found; install: sudo apt-get install libelf-dev")
    build_dir = Path(build_dir or DEFAULT_BUILD_DIR)
    output = _make(HARNESS_DIR, build_dir)
    return Build(build_dir / "scoreboard-harness", output)


def firmware_size(elf: Path) -> FirmwareSize:
    """Flash (.text + .data) and static RAM (.data + .bss) of the firmware, from `avr-size`."""
    _need("avr-size", "binutils-avr")
    out = subprocess.run(["avr-size", "-A", str(elf)], capture_output=True, text=True, check=True).stdout
    sections = {match[1]: int(match[2]) for match in re.finditer(r"^(\.\w+)\s+(\d+)", out, re.MULTILINE)}
    data = sections.get(".data", 0)
    return FirmwareSize(sections.get(".text", 0) + data, data + sections.get(".bss", 0))


class SimulatedBoard:
    """The firmware running under the harness; a context manager.

    `port` is the board's serial port (the `link` symlink when given, else the pty); `displays`,
    `buzzer_events`, `observations` fill in as the harness reports. Waits take timeouts.
    """

    def __init__(self, elf: Path | None = None, harness: Path | None = None, *,
                 link: str | os.PathLike[str] | None = None, build_dir: Path | None = None,
                 trace: Sequence[str] = ()) -> None:
        self.elf = Path(elf) if elf else None
        self.harness = Path(harness) if harness else None
        self.build_dir = build_dir
        self.link = str(link) if link else None
        self.trace = tuple(trace)  # "spi", "uart": also report every byte (SPI / RX, TX observations)
        self.pty = ""
        self.displays: list[DisplayShown] = []
        self.buzzer_events: list[Tone] = []
        self.observations: list[Observation] = []
        self.unparsed: list[str] = []
        self._process: subprocess.Popen[str] | None = None
        self._changed = threading.Condition()
        self._reader: threading.Thread | None = None
        self._stderr: list[str] = []

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> SimulatedBoard:
        elf = self.elf or build_firmware(self.build_dir).path
        harness = self.harness or build_harness(self.build_dir).path
        command = [str(harness), str(elf)] + (["--link", self.link] if self.link else [])
        command += [f"--trace-{what}" for what in self.trace]
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True, bufsize=1)
        self._reader = threading.Thread(target=self._read, name="simavr-harness", daemon=True)
        self._reader.start()
        threading.Thread(target=self._read_stderr, name="simavr-harness-err", daemon=True).start()
        if not self.wait_for(lambda board: bool(board.pty), START_TIMEOUT):
            self.kill()
            raise SimavrError(f"the simavr harness did not start within {START_TIMEOUT} s: "
                              f"{''.join(self._stderr).strip() or 'no message'}")
        return self

    def stop(self) -> None:
        """Ask the harness to quit, then make sure it is gone."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(OSError):
            assert process.stdin is not None
            process.stdin.write("quit\n")
            process.stdin.flush()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """Pull the plug: SIGKILL, no goodbye (the pty vanishes under the host)."""
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(timeout=5)

    def __enter__(self) -> SimulatedBoard:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> str:
        return self.link or self.pty

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    # -- inputs ------------------------------------------------------------------------------------

    def command(self, line: str) -> None:
        process = self._process
        if process is None or process.stdin is None or process.poll() is not None:
            raise SimavrError(f"the simavr harness is not running (command {line!r})")
        process.stdin.write(line + "\n")
        process.stdin.flush()

    def press(self, button: str, ms: int = 100) -> None:
        """Hold `button` (start, pass, continue) down for `ms` simulated milliseconds."""
        self.command(f"press {self._button(button)} {int(ms)}")

    def reset(self) -> None:
        """Pull the MCU's reset pin (as a watchdog reset or a brown-out would): the firmware restarts
        with a blank state while the port stays open."""
        self.command("reset")

    def down(self, button: str) -> None:
        self.command(f"down {self._button(button)}")

    def up(self, button: str) -> None:
        self.command(f"up {self._button(button)}")

    @staticmethod
    def _button(name: str) -> str:
        if name not in BUTTONS:
            raise SimavrError(f"unknown button {name!r}: the board has {', '.join(BUTTONS)}")
        return name

    # -- what the firmware drives --------------------------------------------------------------

    @property
    def display(self) -> DisplayShown | None:
        with self._changed:
            return self.displays[-1] if self.displays else None

    @property
    def segments(self) -> tuple[int, ...]:
        shown = self.display
        return shown.segments if shown else (0,) * DIGITS

    @property
    def digits(self) -> list[Cell]:
        shown = self.display
        return shown.cells if shown else [Cell()] * DIGITS

    def display_text(self) -> str:
        """The digits in groups of four with their points, e.g. `  12|  30|    |    | 9.5|P1  `."""
        return cells_text(self.digits)

    @property
    def leds(self) -> int:
        """PORTC bits 0-5: green, red, the turn markers of seats 0-3."""
        with self._changed:
            changes = [o for o in self.observations if o.kind == "LEDS"]
            return int(changes[-1].fields[0], 16) if changes else 0

    def wall_of(self, sim_us: int) -> float:
        """The `time.monotonic()` moment of simulated time `sim_us` (the harness keeps them locked;
        this uses the latest once-a-second TIME report)."""
        with self._changed:
            times = [o for o in self.observations if o.kind == "TIME"]
        if not times:
            raise SimavrError("the harness has not reported its time yet")
        return times[-1].wall + (sim_us - times[-1].sim_us) / 1e6

    def drift(self) -> float:
        """How far, in seconds, the simulation's lag behind the wall clock has varied since the
        board started: 0 while the harness keeps pace. On a busy machine simavr can fall behind
        (and then catch up), and a count the firmware keeps by itself, such as the move clock,
        differs from a wall-clock count by up to this much."""
        with self._changed:
            stamps = [(o.wall, o.sim_us) for o in self.observations if o.kind == "TIME"]
            stamps += [(d.wall, d.sim_us) for d in self.displays]
        lags = [wall - sim_us / 1e6 for wall, sim_us in stamps]
        return max(lags) - min(lags) if lags else 0.0

    def frame_ends(self, direction: str) -> list[int]:
        """Simulated times at which frames ended on the firmware's UART: "RX" (into the board) or
        "TX" (from it), from their 0x00 delimiters; needs `trace=["uart"]`."""
        return [o.sim_us for o in self.of_kind(direction) if o.fields == ("00",)]

    def wait_frame_ends(self, direction: str, count: int, timeout: float = 2.0) -> list[int]:
        """`frame_ends(direction)` once it holds at least `count` frames (the harness's report of a
        byte can come after the host has read that byte from the pty)."""
        if not self.wait_for(lambda board: len(board.frame_ends(direction)) >= count, timeout):
            raise TimeoutError(f"{len(self.frame_ends(direction))} {direction} frames traced, "
                               f"not {count}, within {timeout} s (trace=['uart'] set?)")
        return self.frame_ends(direction)

    def of_kind(self, kind: str) -> list[Observation]:
        with self._changed:
            return [o for o in self.observations if o.kind == kind]

    def wait_for(self, condition: Callable[[SimulatedBoard], bool], timeout: float) -> bool:
        """Wait until `condition(self)` holds (checked after every harness report)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.05))
            return True

    def wait_display(self, condition: Callable[[DisplayShown], bool] | Sequence[int], timeout: float,
                     ) -> DisplayShown:
        """The first display (from now on or already shown) that satisfies `condition`, or that has
        exactly these segments; raises `TimeoutError` naming what was shown instead."""
        test: Callable[[DisplayShown], bool]
        if callable(condition):
            test = condition
        else:
            wanted = tuple(condition)
            def test(shown: DisplayShown) -> bool:
                return shown.segments == wanted
        found: list[DisplayShown] = []

        def seen(board: SimulatedBoard) -> bool:
            shown = board.displays[-1] if board.displays else None
            if shown is not None and test(shown):
                found.append(shown)
                return True
            return False

        if not self.wait_for(seen, timeout):
            raise TimeoutError(f"display did not show what was expected within {timeout} s; "
                               f"it shows {self.display_text()!r}")
        return found[0]

    # -- the harness's reports ---------------------------------------------------------------------

    def _read(self) -> None:
        process = self._process
        assert process is not None and process.stdout is not None
        for line in process.stdout:
            self._parse(line.rstrip("\n"))
        with self._changed:
            self._changed.notify_all()

    def _read_stderr(self) -> None:
        process = self._process
        assert process is not None and process.stderr is not None
        for line in process.stderr:
            self._stderr.append(line)

    def _parse(self, line: str) -> None:
        kind, _, rest = line.partition(" ")
        with self._changed:
            if kind == "PTY":
                self.pty = rest.strip()
            elif kind == "DISPLAY":
                sim, wall, hexes, text = rest.split(" ", 3)
                segments = tuple(bytes.fromhex(hexes))
                self.displays.append(DisplayShown(int(sim), float(wall), segments, text[1:-1]))
            elif kind == "TONE_OFF":
                sim, wall, start, hz = rest.split()
                self.buzzer_events.append(Tone(int(start), int(sim), float(hz), float(wall)))
            elif kind in ("LEDS", "BUTTON", "TIME", "TONE_ON", "SPI", "RX", "TX", "RESET"):
                sim, wall, *fields = rest.split()
                self.observations.append(Observation(kind, int(sim), float(wall), tuple(fields)))
            else:
                self.unparsed.append(line)  # simavr's own messages ("Loaded 6188 .text ...")
            self._changed.notify_all()
