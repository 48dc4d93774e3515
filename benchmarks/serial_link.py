"""Scoreboard link speed over a pty with the emulator, against what 115200 baud physically allows.

An update is one SET_SCORES frame (4 scores) and its ACK, sent stop-and-wait as the link does. At
115200 baud 8N1 a byte takes 10 bits, so one round trip can be no faster than
(update frame bytes + ACK frame bytes) × 10 / 115200 s, and no more than the inverse of that
updates go through per second. A pty has no baud rate, so a ratio below 1 means the software
(host, emulator, kernel) costs less than the wire would: the real line is the limit.

Run: ``python -m benchmarks.serial_link [--updates N]``. The emulator runs in this process (as in
the demo) and then in a process of its own (as a real board is: no shared GIL).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from firmware_bridge.emulator import Emulator
from firmware_bridge.link import Link
from firmware_bridge.protocol.codec import Ack, Frame, SetScores

BAUD = 115200
BITS_PER_BYTE = 10  # start bit, 8 data bits, stop bit


def update(index: int) -> SetScores:
    return SetScores((index % 1000, (index * 7) % 1000, -(index % 999), 9999 - index % 1000))


def wire_seconds(frame_bytes: int) -> float:
    return frame_bytes * BITS_PER_BYTE / BAUD


def measure(url: str, updates: int) -> tuple[list[float], float]:
    """Latencies of `updates` acknowledged updates one after the other, and their total time."""
    latencies: list[float] = []
    with Link(url) as link:
        if not link.wait_connected(5):
            raise SystemExit(f"no board at {url}: {link.last_error}")
        for index in range(50):  # warm up
            link.send(update(index)).wait(1)
        started = time.perf_counter()
        for index in range(updates):
            sent = time.perf_counter()
            if not link.send(update(index)).wait(1):
                raise SystemExit(f"update {index} was not acknowledged within 1 s")
            latencies.append(time.perf_counter() - sent)
        total = time.perf_counter() - started
        if link.session.stats.retries:
            print(f"  ({link.session.stats.retries} retries during the run)")
    return latencies, total


def report(title: str, latencies: list[float], total: float) -> None:
    update_bytes = len(Frame(0, update(0)).encode())
    ack_bytes = len(Frame(0, Ack()).encode())
    round_trip_limit = wire_seconds(update_bytes + ack_bytes)
    median = statistics.median(latencies)
    p99 = statistics.quantiles(latencies, n=100)[98]
    rate = len(latencies) / total
    rate_limit = 1 / round_trip_limit
    print(f"{title}: {len(latencies)} updates of {update_bytes} bytes, ACKs of {ack_bytes} bytes")
    print(f"  115200 baud allows: round trip >= {round_trip_limit * 1000:.2f} ms, "
          f"<= {rate_limit:.0f} updates/s")
    for name, value in (("median", median), ("p99", p99)):
        ratio = value / round_trip_limit
        print(f"  round trip {name:<6} {value * 1000:.3f} ms = {ratio:.2f} x the wire's minimum")
    print(f"  updates per second {rate:.0f} = {rate / rate_limit:.2f} x the wire's maximum")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.serial_link",
                                     description="scoreboard link speed against 115200 baud")
    parser.add_argument("--updates", type=int, default=3000)
    parser.add_argument("--in-process-only", action="store_true",
                        help="skip the run with the emulator in its own process")
    args = parser.parse_args(argv)
    with Emulator() as emulator:
        report("emulator in this process", *measure(emulator.url, args.updates))
    if not args.in_process_only:
        with tempfile.TemporaryDirectory() as directory:
            link = Path(directory) / "tty"
            server = subprocess.Popen([sys.executable, "-m", "firmware_bridge.emulator", "--link", str(link)],
                                      stdout=subprocess.PIPE, text=True)
            try:
                assert server.stdout is not None
                server.stdout.readline()  # "scoreboard emulator on …": the pty exists
                report("emulator in its own process", *measure(str(link), args.updates))
            finally:
                server.terminate()
                server.wait(5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
