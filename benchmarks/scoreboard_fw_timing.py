"""The real firmware under simavr: how well it keeps time, against the wall clock and the wire.

- Simulated time against the wall clock: the harness reports both once per simulated second; the
  rate is the simulated seconds per wall second (1 = real time) and the drift the spread of their
  difference over the run.
- The board's countdown against the host's: each time the clock digits change, the moment (wall
  clock) is compared with when the host's own count says it should (the protocol's budget: 100 ms
  after 30 s).
- STATUS round trips against the time the bytes need on the wire at 115200 baud (simavr's UART
  is paced by the firmware's baud rate, so the wire time is inside the measurement).
- Resync after an unplug: from the restarted board's port appearing to its display showing the
  host's whole state again (the budget: 2 s).

Run: ``python -m benchmarks.scoreboard_fw_timing [--seconds 30] [--round-trips 200]``.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import time
from pathlib import Path

from firmware_bridge.display import layout
from firmware_bridge.protocol.codec import Frame, Status, StatusReply
from firmware_bridge.scoreboard import Scoreboard
from firmware_bridge.simavr import DisplayShown, SimulatedBoard, build_firmware, build_harness, firmware_size

BAUD = 115200
BITS_PER_BYTE = 10


def clock_digits(shown: DisplayShown) -> str:
    return "".join(str(cell) for cell in shown.cells[16:20])


def seconds_shown(text: str) -> int | None:
    """Whole seconds left for an `M.SS` clock, None otherwise."""
    minutes, _, seconds = text.strip().partition(".")
    return int(minutes) * 60 + int(seconds) if minutes.isdigit() and len(seconds) == 2 else None


def countdown(board: SimulatedBoard, scoreboard: Scoreboard, seconds: float) -> None:
    start_tenths = int(seconds * 10) + 600  # stays in M.SS: one digit change per second
    scoreboard.run_clock(0, start_tenths / 10).wait(1.0)
    _, origin, _ = scoreboard._snapshot
    board.wait_for(lambda b: False, seconds + 0.5)  # let it run; the harness records everything
    lags = []
    displays = board.displays
    # a change of several digits goes out row by row (one SPI transfer each, 0.6 ms apart under
    # simavr): only the last state of such a burst is what the display shows
    settled = [shown for shown, after in itertools.pairwise(displays)
               if after.sim_us - shown.sim_us > 5000] + displays[-1:]
    for shown in settled:
        left = seconds_shown(clock_digits(shown))
        if shown.wall <= origin or left is None or left * 10 >= start_tenths:
            continue
        # M.SS shows s when s*10 ... s*10+9 tenths are left: it changes as tenth s*10+9 begins
        due = origin + (start_tenths - (left * 10 + 9)) / 10
        lags.append((shown.wall - due) * 1000)
    times = board.of_kind("TIME")
    offsets = [(o.wall - o.sim_us / 1e6) * 1000 for o in times]
    rate = (times[-1].sim_us - times[0].sim_us) / 1e6 / (times[-1].wall - times[0].wall)
    status = scoreboard.status()
    print(f"simulated time: {rate:.5f} simulated s per wall s over {len(times)} s; "
          f"drift (max - min of wall - sim) {max(offsets) - min(offsets):.2f} ms")
    print(f"countdown vs host after {seconds:.0f} s: {len(lags)} digit changes, mean lag "
          f"{statistics.mean(lags):+.2f} ms, worst {max(lags, key=abs):+.2f} ms "
          f"= {abs(max(lags, key=abs)) / 100:.3f} of the 100 ms budget; "
          f"STATUS {status.tenths} tenths vs host {scoreboard.state.tenths}")


def round_trips(board: SimulatedBoard, count: int) -> None:
    import serial

    from firmware_bridge.protocol.codec import FrameProtocol, Hello

    port = serial.serial_for_url(board.port, timeout=1)
    protocol = FrameProtocol()
    port.write(Frame(0, Hello()).encode())
    protocol.feed(port.read_until(b"\x00"))
    latencies = []
    for index in range(count):
        seq = 1 + index % 250
        sent = time.perf_counter()
        port.write(Frame(seq, Status()).encode())
        frames = protocol.feed(port.read_until(b"\x00"))
        latencies.append(time.perf_counter() - sent)
        assert frames and isinstance(frames[0].message, StatusReply), frames
    port.close()
    wire = (len(Frame(0, Status()).encode()) + len(Frame(0, StatusReply()).encode())) * BITS_PER_BYTE / BAUD
    median = statistics.median(latencies)
    print(f"STATUS round trip over {count}: median {median * 1000:.2f} ms, p95 "
          f"{sorted(latencies)[int(count * 0.95)] * 1000:.2f} ms; wire time at 115200 baud "
          f"{wire * 1000:.2f} ms -> ratio {median / wire:.2f}")


def resync(elf: Path, harness: Path, folder: Path) -> None:
    link = folder / "board"
    first = SimulatedBoard(elf, harness, link=link).start()
    with Scoreboard(str(link), link_options={"reconnect_interval": 0.05}) as scoreboard:
        scoreboard.show_scores([30, 45, 12, 0])
        scoreboard.message("HAND 3", 0)
        first.kill()
        while scoreboard.connected:
            scoreboard.link.wait_connected(0.01)
        with SimulatedBoard(elf, harness, link=link) as second:
            plugged = time.monotonic()
            expected = [cell.segments for cell in layout(scoreboard.state)]
            shown = second.wait_display(expected, 5.0)
            print(f"resync after unplug: {(shown.wall - plugged) * 1000:.1f} ms from the port appearing "
                  f"to the whole state shown = {(shown.wall - plugged) / 2:.3f} of the 2 s budget")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--round-trips", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        build = Path(folder)
        elf, harness = build_firmware(build).path, build_harness(build).path
        size = firmware_size(elf)
        print(f"firmware: {size.flash_bytes} bytes flash of 32256 ({size.flash_bytes / 32256:.1%}), "
              f"{size.ram_bytes} bytes static RAM of 2048 ({size.ram_bytes / 2048:.1%})")
        timing = SimulatedBoard(elf, harness, link=build / "timing")
        with timing as board, Scoreboard(board.port) as scoreboard:
            countdown(board, scoreboard, args.seconds)
        with SimulatedBoard(elf, harness, link=build / "rtt") as board:
            round_trips(board, args.round_trips)
        resync(elf, harness, build)


if __name__ == "__main__":
    main()
